"""What the blueprints share: finding games, turns and seats (or 404), the state at a turn
as a page needs it, and caching headers."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any, overload

from flask import Response, abort, current_app, render_template, request
from flask_babel import gettext as _
from werkzeug.http import http_date

from pbem.games.base import ErrorCode, GameError
from pbem.games.text import name_seats
from pbem.service.game import LoadedGame
from pbem.web.boards import BoardSize, board_size
from pbem.web.pagecache import board_key, pages

if TYPE_CHECKING:  # the ports the app is given; the web never builds them
    from pbem.service.reading import GameReader
    from pbem.service.summaries import GameSummaryQuery

GAME_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,99}$")
LEGAL_SEARCHED = 10_000  # legal moves listed at most on a private page (the rest only counted)
LEGAL_SHOWN = 100  # lines in the legal-moves box; "and N more" says the rest


def service() -> GameReader:
    """The game service's reader: the web site's one port to the games (queries only)."""
    reader: GameReader = current_app.extensions["pbem.reader"]
    return reader


def summaries() -> GameSummaryQuery:
    """The games list's query port."""
    query: GameSummaryQuery = current_app.extensions["pbem.summaries"]
    return query


def game_or_404(game_id: str) -> LoadedGame:
    if not GAME_ID.match(game_id):
        abort(404)
    try:
        games: ReadGames = current_app.extensions["pbem.games"]
        return games.get(service(), game_id)
    except GameError as error:
        if error.code == ErrorCode.UNKNOWN_GAME:
            abort(404)
        if error.code == ErrorCode.FROZEN:
            abort(unreadable_game(game_id))
        raise


def unreadable_game(game_id: str) -> Response:
    """The page of a frozen game that cannot even be read (an event missing from its record):
    what happened instead of an error 500. A game that can be read shows its pages with the
    same warning on each (``web/base.html``)."""
    problem = service().frozen.get(game_id) or _("its stored record cannot be read")
    title = _("This game is frozen.")
    detail = _(
        "This game cannot be shown: its stored record does not match its signed history (%(problem)s). "
        "It takes no moves until the operator has repaired it. The operator has been alerted.",
        problem=problem,
    )
    response = current_app.make_response((render_template("web/error.html", code=503, title=title, detail=detail), 503))
    response.headers["Cache-Control"] = "no-store"
    response.headers["Retry-After"] = "3600"
    return response


class ReadGames:
    """Games as the site last read them, reused while the store's position stays the same (one
    cheap query per request instead of reading a game's new events and copying its log). The
    site only reads a game, so one loaded copy serves every thread. Bounded."""

    def __init__(self, size: int = 64):
        self.size = size
        self._read: OrderedDict[str, tuple[int, LoadedGame]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, reader: Any, game_id: str) -> LoadedGame:
        position = reader.position()  # first: a save after it makes the next request read again
        with self._lock:
            found = self._read.get(game_id)
            if found is not None and found[0] == position:
                self._read.move_to_end(game_id)
                return found[1]
        game: LoadedGame = reader.game(game_id)
        with self._lock:
            self._read[game_id] = (position, game)
            self._read.move_to_end(game_id)
            while len(self._read) > self.size:
                self._read.popitem(last=False)
        return game

    def position_of(self, game: LoadedGame) -> int | None:
        """The store's position ``game`` was read (or found unchanged) at; None when it is not
        the copy kept here."""
        with self._lock:
            found = self._read.get(game.id)
        return found[0] if found is not None and found[1] is game else None


def turn_or_404(game: LoadedGame, turn: int) -> int:
    """Turn N is the game at version N: the state after the first N entries of its log (1 = just
    created), the number mails and ``pbem show --at`` use too. Returns N."""
    if not 1 <= turn <= game.version:
        abort(404)
    return turn


def size_or_404(game: LoadedGame, size: int) -> int:
    """A tree size: how many entries a checkpoint or proof covers (1 to all)."""
    if not 1 <= size <= game.version:
        abort(404)
    return size


def seat_or_404(game: LoadedGame, token: str) -> int:
    if not re.fullmatch(r"[a-z2-7]{1,64}", token):
        abort(404)
    seat = service().seat_by_token(game.id, token)
    if seat is None:
        abort(404)
    return seat


@overload
def int_arg(name: str) -> int | None: ...


@overload
def int_arg(name: str, default: int) -> int: ...


def int_arg(name: str, default: int | None = None) -> int | None:
    """An integer query argument; a malformed one is a 400."""
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    if not re.fullmatch(r"[0-9]{1,9}", raw):
        abort(400, description=_("%(name)s must be a whole number", name=name))
    return int(raw)


@dataclass
class Snapshot:
    """A game at one turn, as one viewer (a seat, or None for the public) may see it."""

    game: LoadedGame
    version: int  # entries covered; the turn in the URL (the turn shown is ``number``)
    seat: int | None
    state: Any
    view: dict[str, Any] | None
    waiting: list[int]
    phase: str
    over: bool

    @property
    def turn(self) -> int:
        return self.version

    @property
    def number(self) -> int:
        """The turn number shown (talk in the log does not advance it; ``turn`` is the URL's)."""
        return self.game.turn_at(self.version)

    @property
    def last_number(self) -> int:
        return self.game.turn_at()

    @property
    def last(self) -> int:
        return self.game.version

    @property
    def names(self) -> list[str]:
        return self.game.names

    @property
    def standings(self) -> list[dict[str, Any]] | None:
        if not self.over:
            return None
        return sorted((s.to_dict() for s in self.game.standings() or []), key=lambda s: (s["rank"], s["seat"]))

    def deadline(self) -> datetime | None:
        """The earliest deadline of the seats the game waits for now, if the application
        gave the site a ``PBEM_DEADLINE(game, version, seat)`` function (the mail gateway
        keeps the clocks)."""
        if self.over or self.version != self.game.version:
            return None
        return deadline_of(self.game, self.waiting)

    @property
    def my_move(self) -> bool:
        """Whether the viewing seat is one the game waits for."""
        return self.seat is not None and not self.over and self.seat in self.waiting

    def legal_texts(self) -> list[str]:
        """The viewing seat's legal moves now, as lines to send (empty when not its move): all
        of them up to ``LEGAL_SEARCHED``; the page shows ``LEGAL_SHOWN`` and says how many more."""
        if not self.my_move or self.state is None or self.seat is None:
            return []
        try:
            return self.game.spec.legal_texts(self.state, self.seat, limit=LEGAL_SEARCHED)
        except Exception:  # a rules bug must not take the private page down
            current_app.logger.exception("legal_texts failed for %s", self.game.id)
            return []

    def decision(self) -> str:
        """What the viewing seat decides now, in one sentence with examples, players named
        ("Year 1, spring: building — build ('build inn') or 'pass'."); the phase when the game
        cannot say more."""
        if not self.my_move or self.state is None or self.seat is None:
            return self.phase
        try:
            return name_seats(self.game.spec.decision_text(self.state, self.seat, self.game.names), self.game.names)
        except Exception:  # a rules bug must not take the private page down
            current_app.logger.exception("decision_text failed for %s", self.game.id)
            return self.phase

    def svg(self, narrow: bool = False) -> str | None:
        """The picture (``narrow``: the one for narrow screens); the public one of a version is
        drawn once (its page and its ``board.svg`` share it)."""
        if self.seat is not None:
            return self.draw(narrow)
        key = board_key(self.game.id, self.version, self.game.frozen, narrow)
        body, _ = pages().get(key, lambda: self.draw(narrow) or "")
        return body.decode() or None

    def board_size(self, narrow: bool = False) -> BoardSize | None:
        """The size to show the picture at, legible on a phone (``pbem.web.boards``)."""
        picture = self.svg(narrow)
        return board_size(picture) if picture else None

    def draw(self, narrow: bool = False) -> str | None:
        """The game's picture of this view; ``narrow``: its picture for narrow screens (None
        when the game draws none)."""
        if self.view is None:
            return None
        spec = self.game.spec
        try:
            picture = (spec.render_narrow_svg if narrow else spec.render_svg)(self.view, self.names)
        except Exception:  # a game's drawing bug must not take the page down: the text stays
            current_app.logger.exception("drawing the board failed for %s at turn %s", self.game.id, self.turn)
            return None
        if not picture:
            return None
        start = picture.find("<svg")
        return picture[start:] if start >= 0 else None

    def text(self) -> str:
        if self.view is None:
            return ""
        try:
            return self.game.spec.render_text(self.view, self.names)
        except Exception:
            current_app.logger.exception("render_text failed for %s at turn %s", self.game.id, self.turn)
            return ""


def deadline_of(game: LoadedGame, waiting: list[int]) -> datetime | None:
    """The earliest deadline of the ``waiting`` seats of ``game`` now, from the application's
    ``PBEM_DEADLINE`` (None without one)."""
    find = current_app.config.get("PBEM_DEADLINE")
    if find is None or game.ended:
        return None
    try:
        found = [find(game, game.version, seat) for seat in waiting]
    except Exception:  # a clock problem must not take the page down
        current_app.logger.exception("deadline lookup failed for %s", game.id)
        return None
    return min((d for d in found if d is not None), default=None)


def bouncing_seats(game: LoadedGame) -> tuple[int, ...]:
    """The seats of ``game`` whose address is marked undeliverable (its mail keeps bouncing),
    from the app's read port of the marks (none without one); part of the game page's key."""
    marks = current_app.extensions.get("pbem.marks")
    if marks is None or game.ended:
        return ()
    try:
        marked = marks.marked(game.emails)
    except Exception:  # a mark that cannot be read must not take the page down
        current_app.logger.exception("bounce marks lookup failed for %s", game.id)
        return ()
    return tuple(seat for seat, email in enumerate(game.emails) if email in marked)


def deadline_now(game: LoadedGame) -> datetime | None:
    """The game's deadline now, without building a page's snapshot (part of a kept page's key:
    a deadline can move without a move, when a player declares an absence). What it depends on
    (the game, its clock's rules, the players' absences) is all stored, so it is asked again only
    when the store's position has moved."""
    if current_app.config.get("PBEM_DEADLINE") is None or game.ended:
        return None
    known: dict[tuple[str, int, int], datetime | None] = current_app.extensions["pbem.deadlines"]
    position = current_app.extensions["pbem.games"].position_of(game)
    key = (game.id, game.version, position)
    if position is not None and key in known:
        return known[key]
    state = service().state(game)
    found = None if state is None else deadline_of(game, list(game.spec.to_move(state)))
    if position is not None:
        if len(known) > 4096:  # old positions are never asked again
            known.clear()
        known[key] = found
    return found


def snapshot(game: LoadedGame, turn: int | None = None, seat: int | None = None) -> Snapshot:
    """The game at turn ``turn`` (default: now)."""
    version = game.version if turn is None else turn_or_404(game, turn)
    state = service().state(game, version)
    if state is None:
        joined = {e["seat"] for e in game.entries[:version] if e["kind"] == "joined"}
        waiting = [s for s in range(len(game.names)) if s not in joined]
        return Snapshot(game, version, seat, None, None, waiting, "", False)
    spec = game.spec
    over = version == game.version and game.ended
    return Snapshot(
        game,
        version,
        seat,
        state,
        spec.view(state, seat),
        [] if over else list(spec.to_move(state)),
        name_seats(spec.phase_label(state), game.names),  # "round 8, ann", never "seat 2"
        over,
    )


def add_vary(response: Response, header: str) -> None:
    """``response.vary.add`` without building a header set on every response."""
    vary = response.headers.get("Vary")
    if not vary:
        response.headers["Vary"] = header
    elif header.lower() not in (part.strip().lower() for part in vary.split(",")):
        response.headers["Vary"] = f"{vary}, {header}"


IMMUTABLE = "public, max-age=31536000, immutable"


def public_cache(
    response: Response, game: LoadedGame | None = None, immutable: bool = False, fixed: bool = False
) -> Response:
    """Caching for public responses, by how long their content can stay as it is:

    * ``immutable``: bytes that can never change (an export or proof of a finished game, a
      proof between two given sizes of an append-only log): kept for a year, never revalidated;
    * finished games and ``fixed`` content (a past turn's board picture): kept a day (the
      site's own words may change with a release);
    * everything else (running games): stored, but revalidated with the ETag on every use."""
    if immutable:
        response.headers["Cache-Control"] = IMMUTABLE
    elif fixed or (game is not None and game.ended):
        response.headers["Cache-Control"] = f"public, max-age={current_app.config['FINISHED_MAX_AGE']}"
    else:
        response.headers["Cache-Control"] = "public, no-cache"
    if game is not None and (modified := _last_modified(game.id, game.version, game.last.get("time"))):
        response.headers["Last-Modified"] = modified
    response.add_etag()  # keeps an ETag the caller set
    if CONDITIONAL.intersection(request.environ):  # most requests ask nothing of the kind
        response.make_conditional(request)  # answers 304 (or 206, 412) by changing the response itself
    return response


# the request headers that ``make_conditional`` answers (If-Match, If-None-Match,
# If-Modified-Since, If-Unmodified-Since, If-Range, Range), as WSGI names them
CONDITIONAL = frozenset(
    {
        "HTTP_IF_MATCH",
        "HTTP_IF_NONE_MATCH",
        "HTTP_IF_MODIFIED_SINCE",
        "HTTP_IF_UNMODIFIED_SINCE",
        "HTTP_IF_RANGE",
        "HTTP_RANGE",
    }
)


@lru_cache(maxsize=1024)
def _last_modified(game_id: str, version: int, moment: str | None) -> str | None:
    """The Last-Modified value of a game at a version: the time of its newest entry, as an HTTP
    date (formatted once per game version, not per request)."""
    try:
        return http_date(datetime.fromisoformat(moment)) if moment else None
    except (TypeError, ValueError):
        return None


def private_cache(response: Response) -> Response:
    """Pages behind a seat's secret link: never stored, never sent as a referrer."""
    response.headers["Cache-Control"] = "private, no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Robots-Tag"] = "noindex, nofollow"
    return response
