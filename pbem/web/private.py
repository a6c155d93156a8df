"""A seat's private pages, behind the secret in its link: the view with the seat's own hand
and secrets, its history with its own secrets opened, and its replay. Never cached."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, make_response, render_template

from pbem.mailroom.addresses import seat_address
from pbem.service.game import LoadedGame
from pbem.web.helpers import (
    LEGAL_SHOWN,
    bouncing_seats,
    game_or_404,
    private_cache,
    seat_or_404,
    snapshot,
    turn_or_404,
)
from pbem.web.history import history_row, history_rows, page_of_entry, secrets_of
from pbem.web.pages import status_of, svg_response, window_or_404

bp = Blueprint("private", __name__, url_prefix="/games/<game_id>/seat/<token>")


def seat_address_of(game_id: str, token: str) -> str | None:
    """The seat's private mail address (``PBEM_MAIL_ADDRESS`` in the app's config, as the
    gateway reads it from the environment), or None when the site was given no mail address."""
    service_address = current_app.config.get("PBEM_MAIL_ADDRESS")
    return seat_address(service_address, game_id, token) if service_address else None


def _last_move(game: LoadedGame, seat: int) -> int | None:
    """The seat's last own move (where "what happened since" starts)."""
    for entry in reversed(game.entries):
        if entry["kind"] == "moved" and entry.get("seat") == seat and entry.get("source") != "robot":
            return int(entry["index"]) + 1  # the turn it made
    return None


@bp.get("")
def seat(game_id: str, token: str) -> Response:
    game = game_or_404(game_id)
    seat = seat_or_404(game, token)
    secrets = secrets_of(game, seat)
    body = render_template(
        "web/game.html",
        game=game,
        snap=snapshot(game, None, seat),
        status=status_of(game),
        checkpoint=game.checkpoint_at(),
        private={"token": token, "seat": seat, "address": seat_address_of(game.id, token)},
        secrets=secrets,
        legal_shown=LEGAL_SHOWN,
        since=_last_move(game, seat),
        bouncing=bouncing_seats(game),
    )
    return private_cache(make_response(body))


@bp.get("/history")
def history(game_id: str, token: str) -> Response:
    game = game_or_404(game_id)
    seat = seat_or_404(game, token)
    window = window_or_404(game)
    body = render_template(
        "web/history.html",
        game=game,
        rows=history_rows(game, seat, window.indices),
        window=window,
        since=window.since,
        private={"token": token, "seat": seat},
    )
    return private_cache(make_response(body))


@bp.get("/history/<int:turn>")
def entry(game_id: str, token: str, turn: int) -> Response:
    game = game_or_404(game_id)
    seat = seat_or_404(game, token)
    index = turn_or_404(game, turn) - 1
    body = render_template(
        "web/entry.html",
        game=game,
        entry=history_row(game, index, seat),
        private={"token": token, "seat": seat},
        history_page=page_of_entry(game.version, index),
    )
    return private_cache(make_response(body))


@bp.get("/turn/<int:turn>")
def turn(game_id: str, token: str, turn: int) -> Response:
    game = game_or_404(game_id)
    seat = seat_or_404(game, token)
    snap = snapshot(game, turn, seat)
    body = render_template(
        "web/turn.html",
        game=game,
        snap=snap,
        entry=history_row(game, turn - 1, seat),
        private={"token": token, "seat": seat},
        history_page=page_of_entry(game.version, turn - 1),
    )
    return private_cache(make_response(body))


@bp.get("/board.svg")
@bp.get("/turn/<int:turn>/board.svg")
def board(game_id: str, token: str, turn: int | None = None) -> Response:
    game = game_or_404(game_id)
    seat = seat_or_404(game, token)
    return private_cache(svg_response(snapshot(game, turn, seat)))


@bp.get("/board-narrow.svg")
@bp.get("/turn/<int:turn>/board-narrow.svg")
def narrow_board(game_id: str, token: str, turn: int | None = None) -> Response:
    """The player's board drawn for a narrow screen."""
    game = game_or_404(game_id)
    seat = seat_or_404(game, token)
    return private_cache(svg_response(snapshot(game, turn, seat), narrow=True))
