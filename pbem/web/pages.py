"""Public pages: the games, a game, its history, the state at any turn, the board picture,
how to verify, the server's keys."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, make_response, render_template, request
from flask_babel import gettext as _

from pbem.games import catalog
from pbem.service.game import LoadedGame
from pbem.web.helpers import (
    Snapshot,
    game_or_404,
    int_arg,
    public_cache,
    service,
    snapshot,
    summaries,
    turn_or_404,
)
from pbem.web.history import HistoryWindow, history_row, history_rows, history_window, page_of_entry

bp = Blueprint("pages", __name__)
STATUSES = ("running", "finished")
FEED_ENTRIES = 50


def status_of(game: LoadedGame) -> str:
    if game.ended:
        return "finished"
    return "running" if game.started else "waiting_join"


@bp.get("/")
def games():
    """The list from the game-summary read model: no game is loaded."""
    types = catalog()
    wanted_type = request.args.get("game", "")
    wanted_status = request.args.get("status", "")
    if wanted_type and wanted_type not in types:
        abort(400, description=_("unknown game type %(name)r", name=wanted_type))
    if wanted_status and wanted_status not in STATUSES:
        abort(400, description=_("status is running or finished"))
    number = int_arg("page", 1)
    if number < 1:
        abort(404)
    listing = summaries().list_games(wanted_type or None, wanted_status or None, number)
    if number > listing.pages:
        abort(404)
    body = render_template("web/games.html", listing=listing, types=types, wanted_type=wanted_type,
                           wanted_status=wanted_status, statuses=STATUSES)
    return public_cache(make_response(body))


def _page(template: str, game: LoadedGame, **context: Any):
    return public_cache(make_response(render_template(template, game=game, **context)), game)


@bp.get("/games/<game_id>")
def game(game_id: str):
    loaded = game_or_404(game_id)
    now = snapshot(loaded)
    return _page("web/game.html", loaded, snap=now, status=status_of(loaded),
                 checkpoint=loaded.checkpoint_at(), private=None, since=None)


@bp.get("/games/<game_id>/turn/<int:turn>")
def turn(game_id: str, turn: int):
    loaded = game_or_404(game_id)
    now = snapshot(loaded, turn)
    return _page("web/turn.html", loaded, snap=now, entry=history_row(loaded, turn - 1, None),
                 private=None, history_page=page_of_entry(loaded.version, turn - 1))


def window_or_404(game: LoadedGame) -> HistoryWindow:
    """The page of the history the query asks for (``?page=``, ``?since=``)."""
    since = int_arg("since")
    if since is not None and since > game.version:
        abort(404)
    window = history_window(game.version, since, int_arg("page", 1))
    if window is None:
        abort(404)
    return window


@bp.get("/games/<game_id>/history")
def history(game_id: str):
    loaded = game_or_404(game_id)
    window = window_or_404(loaded)
    return _page("web/history.html", loaded, rows=history_rows(loaded, None, window.indices), window=window,
                 since=window.since, private=None)


@bp.get("/games/<game_id>/history/<int:turn>")
def entry(game_id: str, turn: int):
    """The permalink of the entry that made turn N (entry N - 1 of the log): what it says, its
    leaf hash, the checkpoint signed after it, the links to its proof and to the state after it."""
    loaded = game_or_404(game_id)
    index = turn_or_404(loaded, turn) - 1
    return _page("web/entry.html", loaded, entry=history_row(loaded, index, None), private=None,
                 history_page=page_of_entry(loaded.version, index))


@bp.get("/games/<game_id>/feed.atom")
def feed(game_id: str):
    """The newest entries as an Atom feed, for players who follow a game in a reader."""
    loaded = game_or_404(game_id)
    rows = history_rows(loaded, None, list(range(loaded.version - 1, max(-1, loaded.version - 1 - FEED_ENTRIES), -1)))
    response = make_response(render_template("web/feed.xml", game=loaded, rows=rows,
                                             updated=loaded.entries[-1].get("time", "")))
    response.mimetype = "application/atom+xml"
    return public_cache(response, loaded)


@bp.get("/games/<game_id>/board.svg")
@bp.get("/games/<game_id>/turn/<int:turn>/board.svg")
def board(game_id: str, turn: int | None = None):
    loaded = game_or_404(game_id)
    past = turn is not None and turn < loaded.version  # a past turn's picture stays as it is
    return public_cache(svg_response(snapshot(loaded, turn)), loaded, fixed=past)


def svg_response(snap: Snapshot):
    picture = snap.svg()
    if picture is None:
        abort(404)
    response = make_response(picture)
    response.mimetype = "image/svg+xml"
    response.headers["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
    return response


@bp.get("/verify")
def verify():
    return public_cache(make_response(render_template("web/verify.html")))


@bp.get("/keys")
def keys():
    verifiers = [str(key) for key in service().keys.verifiers()]
    current = str(service().keys.signer().verifier)
    revoked = {str(r.key): r.since for r in service().keys.revocations()}
    return public_cache(make_response(render_template("web/keys.html", keys=verifiers, current=current,
                                                      revoked=revoked)))
