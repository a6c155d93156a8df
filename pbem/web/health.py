"""``/health``: the store and the games list answer (for load balancers and monitoring). Reads
the game-summary view and the store's notification position; never loads a game."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify

from pbem.web.helpers import service, summaries

bp = Blueprint("health", __name__)


@bp.get("/health")
def health() -> Response:
    try:
        service().store.recorder.max_notification_id()  # the store answers
        count = summaries().count()  # and so does the games list's view
    except Exception:  # any store failure means "not healthy"; the log has the details
        current_app.logger.exception("health check failed")
        response = jsonify(status="error")
        response.status_code = 503
    else:
        response = jsonify(status="ok", games=count)
    response.headers["Cache-Control"] = "no-store"
    return response
