"""``/health``: the store answers (for load balancers and monitoring)."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify

from pbem.web.helpers import service

bp = Blueprint("health", __name__)


@bp.get("/health")
def health():
    try:
        count = len(service().game_ids())
    except Exception:  # any store failure means "not healthy"; the log has the details
        current_app.logger.exception("health check failed")
        response = jsonify(status="error")
        response.status_code = 503
    else:
        response = jsonify(status="ok", games=count)
    response.headers["Cache-Control"] = "no-store"
    return response
