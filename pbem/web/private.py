"""A seat's private pages, behind the secret in its link: the view with the seat's own hand
and secrets, its history with its own secrets opened, and its replay. Never cached."""

from __future__ import annotations

from flask import Blueprint, abort, make_response, render_template

from pbem.web.helpers import game_or_404, int_arg, private_cache, seat_or_404, snapshot
from pbem.web.pages import history_row, history_rows, status_of, svg_response

bp = Blueprint("private", __name__, url_prefix="/games/<game_id>/seat/<token>")


def _last_move(game, seat: int) -> int | None:
    """The seat's last own move (where "what happened since" starts)."""
    for entry in reversed(game.entries):
        if entry["kind"] == "moved" and entry.get("seat") == seat and entry.get("source") != "robot":
            return entry["index"]
    return None


@bp.get("")
def seat(game_id: str, token: str):
    game = game_or_404(game_id)
    seat = seat_or_404(game, token)
    rows = history_rows(game, seat)
    secrets = [item | {"turn": row["turn"]} for row in reversed(rows) for item in row["mine"]]  # newest first
    body = render_template("web/game.html", game=game, snap=snapshot(game, None, seat), status=status_of(game),
                           checkpoint=game.checkpoint_at(), private={"token": token, "seat": seat},
                           secrets=secrets, since=_last_move(game, seat))
    return private_cache(make_response(body))


@bp.get("/history")
def history(game_id: str, token: str):
    game = game_or_404(game_id)
    seat = seat_or_404(game, token)
    since = int_arg("since")
    if since is not None and since >= game.version:
        abort(404)
    body = render_template("web/history.html", game=game, rows=history_rows(game, seat, since), since=since,
                           private={"token": token, "seat": seat})
    return private_cache(make_response(body))


@bp.get("/turn/<int:turn>")
def turn(game_id: str, token: str, turn: int):
    game = game_or_404(game_id)
    seat = seat_or_404(game, token)
    snap = snapshot(game, turn, seat)
    body = render_template("web/turn.html", game=game, snap=snap, entry=history_row(game, turn, seat),
                           private={"token": token, "seat": seat})
    return private_cache(make_response(body))


@bp.get("/board.svg")
@bp.get("/turn/<int:turn>/board.svg")
def board(game_id: str, token: str, turn: int | None = None):
    game = game_or_404(game_id)
    seat = seat_or_404(game, token)
    return private_cache(svg_response(snapshot(game, turn, seat)))
