"""Public pages: the games, a game, its history, the state at any turn, the board picture,
how to verify, the server's keys."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, current_app, make_response, render_template, request

from pbem.games import catalog
from pbem.games.base import SECRET, GameError
from pbem.service.game import LoadedGame
from pbem.web.helpers import (
    Snapshot, game_or_404, int_arg, public_cache, service, snapshot, summaries, turn_or_404,
)

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
        abort(400, description=f"unknown game type {wanted_type!r}")
    if wanted_status and wanted_status not in STATUSES:
        abort(400, description="status is running or finished")
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
    return _page("web/turn.html", loaded, snap=snapshot(loaded, turn), entry=history_row(loaded, turn, None),
                 private=None)


@bp.get("/games/<game_id>/history")
def history(game_id: str):
    loaded = game_or_404(game_id)
    since = int_arg("since")
    if since is not None and since >= loaded.version:
        abort(404)
    return _page("web/history.html", loaded, rows=history_rows(loaded, None, since), since=since, private=None)


@bp.get("/games/<game_id>/feed.atom")
def feed(game_id: str):
    """The newest entries as an Atom feed, for players who follow a game in a reader."""
    loaded = game_or_404(game_id)
    rows = history_rows(loaded, None)[-FEED_ENTRIES:][::-1]
    response = make_response(render_template("web/feed.xml", game=loaded, rows=rows,
                                             updated=loaded.entries[-1].get("time", "")))
    response.mimetype = "application/atom+xml"
    return public_cache(response, loaded)


@bp.get("/games/<game_id>/board.svg")
@bp.get("/games/<game_id>/turn/<int:turn>/board.svg")
def board(game_id: str, turn: int | None = None):
    loaded = game_or_404(game_id)
    return public_cache(svg_response(snapshot(loaded, turn)), loaded)


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
    return public_cache(make_response(render_template("web/keys.html", keys=verifiers, current=current)))


# -- history rows, shared with the private pages ------------------------------------------------
def history_row(game: LoadedGame, index: int, seat: int | None) -> dict[str, Any]:
    return _rows(game, seat, index, index + 1)[0]


def history_rows(game: LoadedGame, seat: int | None, since: int | None = None) -> list[dict[str, Any]]:
    """Every entry, or those after entry ``since`` ("what happened since turn N")."""
    return _rows(game, seat, 0 if since is None else since + 1, game.version)


def _rows(game: LoadedGame, seat: int | None, start: int, stop: int) -> list[dict[str, Any]]:
    email = game.emails[seat] if seat is not None else None
    rows = service().history(game.id, email)[start:stop]
    names = game.names
    result = []
    for row in rows:
        entry = row["entry"]
        mine = []
        if seat is not None and not game.ended:
            for fact in entry.get("facts") or []:
                part = fact.get(SECRET)
                if part and "data" in part and seat in part["to"]:
                    mine.append({"line": game.spec.describe_fact(fact, names), "data": part["data"]})
        result.append({
            "index": row["index"], "turn": row["index"], "kind": entry["kind"], "time": entry.get("time", ""),
            "who": names[entry["seat"]] if isinstance(entry.get("seat"), int) else "",
            "command": entry.get("command", ""), "source": entry.get("source", ""),
            "lines": row["lines"], "mine": mine, "leaf_hash": row["leaf_hash"], "checkpoint": row["checkpoint"],
            "hidden": sum(1 for f in entry.get("facts") or [] if SECRET in f and "data" not in f[SECRET]),
            "seed": entry.get("seed") if entry["kind"] == "ended" else None,
            "nonce": entry.get("nonce") if entry["kind"] == "joined" else None,
        })
    return result
