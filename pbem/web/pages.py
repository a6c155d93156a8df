"""Public pages: the games, a game, its history, the state at any turn, the board picture,
how to verify, the server's keys."""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable
from typing import Any

from flask import Blueprint, Response, abort, make_response, render_template, request, url_for
from flask_babel import gettext as _

from pbem.games import catalog
from pbem.mailroom.records import expired_at
from pbem.service.game import LoadedGame
from pbem.web.helpers import (
    Snapshot,
    add_vary,
    bouncing_seats,
    deadline_now,
    game_or_404,
    int_arg,
    public_cache,
    service,
    snapshot,
    summaries,
    turn_or_404,
)
from pbem.web.history import HistoryWindow, history_row, history_rows, history_window, page_of_entry
from pbem.web.pagecache import board_key, page_key, pages
from pbem.web.shortcut import keep, keyed_position

bp = Blueprint("pages", __name__)
STATUSES = ("running", "finished")
FEED_ENTRIES = 50


def status_of(game: LoadedGame) -> str:
    if game.ended:
        return "finished"
    if game.started:
        return "running"
    return "expired" if expired_at(service().repository.record, game.id) else "waiting_join"


@bp.get("/")
def games() -> Response:
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
    # The rows change only when the view's position moves: a page is rendered once per position.
    shown = summaries().position_now()
    key = page_key("games", shown, wanted_type, wanted_status, number)
    body, etag = pages().get(key, lambda: _games_body(types, wanted_type, wanted_status, number))
    if not body:
        abort(404)
    keyed = keyed_position()
    if keyed is not None and shown >= keyed:  # the view has caught up with the store the answer is kept for
        keep()
    response = make_response(body)
    response.set_etag(etag)
    return public_cache(response)


def _games_body(types: dict[str, Any], wanted_type: str, wanted_status: str, number: int) -> str:
    """The list's page ``number``; empty when there is no such page."""
    listing = summaries().list_games(wanted_type or None, wanted_status or None, number)
    if number > listing.pages:
        return ""
    return render_template(
        "web/games.html",
        listing=listing,
        types=types,
        wanted_type=wanted_type,
        wanted_status=wanted_status,
        statuses=STATUSES,
    )


def kept(
    game: LoadedGame,
    parts: tuple[Hashable, ...],
    render: Callable[[], str],
    mimetype: str = "text/html",
    fixed: bool = False,
    key: tuple[Hashable, ...] | None = None,
) -> Response:
    """A public page of ``game``, rendered once per game version (and ``parts``: the page and
    its arguments; or once per ``key``) and then served from memory; an empty rendering is a 404."""
    key = key or page_key(game.id, game.version, game.frozen, *parts)
    body, etag = pages().get(key, render)
    if not body:
        abort(404)
    keep()
    response = make_response(body)
    response.mimetype = mimetype
    response.set_etag(etag)
    return public_cache(response, game, fixed=fixed)


def _page(template: str, game: LoadedGame, parts: tuple[Hashable, ...], **context: Any) -> Response:
    """``kept`` for a template whose context is built by the callables in ``context`` (only
    when the page is rendered)."""

    def render() -> str:
        return render_template(
            template, game=game, **{name: make() if callable(make) else make for name, make in context.items()}
        )

    return kept(game, parts, render)


@bp.get("/games/<game_id>")
def game(game_id: str) -> Response:
    loaded = game_or_404(game_id)
    bouncing = bouncing_seats(loaded)
    return _page(
        "web/game.html",
        loaded,
        ("game", deadline_now(loaded), bouncing, status_of(loaded)),  # an expiry changes no version
        bouncing=bouncing,
        snap=lambda: snapshot(loaded),
        status=lambda: status_of(loaded),
        checkpoint=loaded.checkpoint_at,
        private=None,
        since=None,
    )


@bp.get("/games/<game_id>/turn/<int:turn>")
def turn(game_id: str, turn: int) -> Response:
    loaded = game_or_404(game_id)
    turn_or_404(loaded, turn)
    return _page(
        "web/turn.html",
        loaded,
        ("turn", turn),
        snap=lambda: snapshot(loaded, turn),
        entry=lambda: history_row(loaded, turn - 1, None),
        private=None,
        history_page=page_of_entry(loaded.version, turn - 1),
    )


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
def history(game_id: str) -> Response:
    loaded = game_or_404(game_id)
    window = window_or_404(loaded)
    return _page(
        "web/history.html",
        loaded,
        ("history", window.page, window.since),
        rows=lambda: history_rows(loaded, None, window.indices),
        window=window,
        since=window.since,
        private=None,
    )


@bp.get("/games/<game_id>/history/<int:turn>")
def entry(game_id: str, turn: int) -> Response:
    """The permalink of the entry that made turn N (entry N - 1 of the log): what it says, its
    leaf hash, the checkpoint signed after it, the links to its proof and to the state after it."""
    loaded = game_or_404(game_id)
    index = turn_or_404(loaded, turn) - 1
    return _page(
        "web/entry.html",
        loaded,
        ("entry", turn),
        entry=lambda: history_row(loaded, index, None),
        private=None,
        history_page=page_of_entry(loaded.version, index),
    )


@bp.get("/games/<game_id>/feed.atom")
def feed(game_id: str) -> Response:
    """The newest entries as an Atom feed, for players who follow a game in a reader."""
    loaded = game_or_404(game_id)

    def render() -> str:
        newest = range(loaded.version - 1, max(-1, loaded.version - 1 - FEED_ENTRIES), -1)
        return render_template(
            "web/feed.xml",
            game=loaded,
            rows=history_rows(loaded, None, list(newest)),
            updated=loaded.entries[-1].get("time", ""),
            public=public_url,
        )

    # the feed names its entries by absolute address, from PBEM_BASE_URL: never from the request's
    # Host header, which anybody sends as they like (and a feed reader keeps what it was told)
    return kept(loaded, ("feed",), render, "application/atom+xml")


def public_url(endpoint: str, **values: Any) -> str:
    """The absolute address of a page as the site is published (``PBEM_BASE_URL``, which
    includes any mount point), whatever host or scheme the request named."""
    path = url_for(endpoint, **values)
    root = request.script_root
    if root and path.startswith(root):
        path = path[len(root) :]
    return service().settings.base_url + path


@bp.get("/games/<game_id>/board.svg")
@bp.get("/games/<game_id>/turn/<int:turn>/board.svg")
def board(game_id: str, turn: int | None = None) -> Response:
    return board_picture(game_id, turn, narrow=False)


@bp.get("/games/<game_id>/board-narrow.svg")
@bp.get("/games/<game_id>/turn/<int:turn>/board-narrow.svg")
def narrow_board(game_id: str, turn: int | None = None) -> Response:
    """The board drawn for a narrow screen (a phone); 404 for a game that draws none."""
    return board_picture(game_id, turn, narrow=True)


def board_picture(game_id: str, turn: int | None, narrow: bool) -> Response:
    loaded = game_or_404(game_id)
    version = loaded.version if turn is None else turn_or_404(loaded, turn)
    past = version < loaded.version  # a past turn's picture stays as it is
    response = kept(
        loaded,
        (),
        lambda: snapshot(loaded, version).draw(narrow) or "",
        SVG,
        fixed=past,
        key=board_key(loaded.id, version, loaded.frozen, narrow),
    )
    response.headers["Content-Security-Policy"] = SVG_POLICY
    add_vary(response, "Accept-Language")  # the picture's words are in the reader's language
    return response


SVG = "image/svg+xml"
SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def svg_response(snap: Snapshot, narrow: bool = False) -> Response:
    picture = snap.svg(narrow)
    if picture is None:
        abort(404)
    response = make_response(picture)
    response.mimetype = SVG
    response.headers["Content-Security-Policy"] = SVG_POLICY
    add_vary(response, "Accept-Language")
    return response


@bp.get("/verify")
def verify() -> Response:
    return public_cache(make_response(render_template("web/verify.html")))


@bp.get("/players")
def players() -> Response:
    """Every player's rating and reliability from the finished games (names only, never
    addresses): the numbers ``pbem ratings`` gives, and ``/players.json`` to the last bit."""
    return public_cache(make_response(render_template("web/players.html", table=service().player_ratings())))


@bp.get("/players.json")
def players_json() -> Response:
    response = make_response(json.dumps(service().player_ratings(), indent=1, sort_keys=True))
    response.mimetype = "application/json"
    return public_cache(response)


@bp.get("/keys")
def keys() -> Response:
    verifiers = [str(key) for key in service().keys.verifiers()]
    current = str(service().keys.signer().verifier)
    revoked = {str(r.key): r.since for r in service().keys.revocations()}
    return public_cache(
        make_response(render_template("web/keys.html", keys=verifiers, current=current, revoked=revoked))
    )
