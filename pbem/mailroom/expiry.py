"""Games that never start expire (docs/mail.md, "Games that never start"): a game whose players
have not all joined ``start-within`` days after it was created (``new ... start-within=7``;
14 days when not given) expires. The expiry is a fact of the game's ``GameClock``
(``Expired``), set by a timer like a deadline's (``Scheduler``); every player of the game, the
creator among them, is told in their language; a ``join`` after it is refused. The game's
signed log is left as it was: an expired game is one that never started."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pbem.games.base import ErrorCode, GameError
from pbem.games.speech import _
from pbem.mailroom.queue import Timer
from pbem.mailroom.records import GameClock
from pbem.service.game import LoadedGame
from pbem.service.service import GameService, Work

DEFAULT_DAYS = 14
KIND = "expiry"  # the timer's kind


def days_of(rules: dict[str, Any]) -> int:
    """The days a game waits for its players (its ``start-within``, else the default)."""
    return int(rules.get("start-within") or DEFAULT_DAYS)


def with_default(rules: dict[str, Any]) -> dict[str, Any]:
    """The rules of a game being created, with ``start-within`` set (the default when not
    given): only a game whose creation set it ever expires."""
    return {"start-within": DEFAULT_DAYS} | rules


def timer(game: LoadedGame, rules: dict[str, Any], clock: GameClock | None) -> Timer | None:
    """The expiry timer of a game that has not started (None once it started, ended or expired,
    and for a game whose creation set no ``start-within``: one created before the option
    existed never expires, however late its players join): due ``start-within`` days after
    its creation."""
    if game.started or game.ended or (clock is not None and clock.expired_at()) or "start-within" not in rules:
        return None
    days = days_of(rules)
    since = datetime.fromisoformat(game.created["time"])
    return Timer(game.id, 0, KIND, game.version, game.emails[0], since, days * 24, since + timedelta(days=days))


def refuse_when_expired(work: Work, game_id: str) -> None:
    """Refuse to join (or be sent the invitation again for) a game that expired."""
    clock = work.find(GameClock.create_id(game_id, {}))
    when = clock.expired_at() if clock is not None else None
    if when:
        raise GameError(
            ErrorCode.GAME_OVER,
            _(
                "Game {game} expired on {date}: not every player joined in time, so it never started. "
                "Ask for a new game instead.",
                game=game_id,
                date=when[:10],
            ),
        )


def join_plan(service: GameService, work: Work, game_id: str, email: str, nonce: str | None) -> Any:
    """The plan of ``join`` at a seat's address, refused when the game expired."""
    refuse_when_expired(work, game_id)
    return service.join_plan(email, nonce)


def expire(service: GameService, game: LoadedGame, now: datetime) -> Work | None:
    """The work that marks ``game`` expired, or None when it started or expired meanwhile."""
    work = service.work(f"expiry:{game.id}")
    fresh = work.batch(game.id).game
    clock: GameClock = work.aggregate(GameClock.create_id(game.id, {}), lambda: GameClock(game.id, {}))
    if fresh.started or fresh.ended or clock.expired_at():
        return None
    clock.expire(now.isoformat(timespec="seconds"))
    return work


def notice_extra(game: LoadedGame, rules: dict[str, Any]) -> dict[str, Any]:
    """What an expiry's notice says: the days waited and who never joined."""
    missing = [game.names[seat] for seat in range(len(game.names)) if seat not in game.joined]
    return {"days": days_of(rules), "missing": missing}
