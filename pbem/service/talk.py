"""Press: the plan of one message between players (``pbem.ledger.press`` is its entry).

A message is an entry of the game's log like a move, but it is not a move: it changes no state,
draws nothing and is never seen by the rules. So a submission that names the version it
answers is not made stale by messages alone (``answers``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from itertools import chain
from typing import Any

from pbem.games.base import ErrorCode, GameError
from pbem.games.speech import _
from pbem.ledger import entries as log
from pbem.ledger import press
from pbem.service.game import LoadedGame
from pbem.service.outcome import LineResult
from pbem.service.work import _Batch

Plan = Callable[[LoadedGame, _Batch], list[LineResult]]
MAX_PER_DAY = 60  # messages one seat may send in any 24 hours
DAY = timedelta(days=1)


def recipients(game: LoadedGame, sender: int, names: Sequence[str] | str) -> list[int] | str:
    """The seats ``names`` (the game's player names, any case) stand for, or ``press.TABLE``;
    refuses an unknown name, the sender and an empty list, naming the players there are."""
    if isinstance(names, str):
        if names != press.TABLE:
            raise ValueError(f"recipients are names or {press.TABLE!r}")
        return press.TABLE
    lowered = [name.lower() for name in game.names]
    others = ", ".join(name for seat, name in enumerate(game.names) if seat != sender)
    seats: set[int] = set()
    for name in names:
        wanted = name.strip().lower()
        if wanted not in lowered:
            raise GameError(
                ErrorCode.INVALID,
                _(
                    "Game {game} has no player '{name}'; write to {others}.",
                    game=game.id,
                    name=name.strip(),
                    others=others,
                ),
            )
        if lowered.index(wanted) == sender:
            raise GameError(ErrorCode.INVALID, _("A message goes to other players: {others}.", others=others))
        seats.add(lowered.index(wanted))
    if not seats:
        raise GameError(ErrorCode.INVALID, _("A message needs a recipient: {others}, or all.", others=others))
    return sorted(seats)


def checked_text(text: str) -> str:
    """The message without its surrounding blank space; refuses an empty or too long one."""
    text = text.strip()
    if not text:
        raise GameError(ErrorCode.INVALID, _("The message is empty; nothing was sent."))
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > press.MAX_PRESS_BYTES:
        raise GameError(
            ErrorCode.INVALID,
            _(
                "A message may be {limit} bytes long; this one is {size}. Nothing was sent.",
                limit=press.MAX_PRESS_BYTES,
                size=size,
            ),
        )
    return text


def allowed(game: LoadedGame, to: Sequence[str] | str) -> None:
    """Refuses a message the game's ``press`` option does not allow (``none``: no messages;
    ``public``: only to the whole table)."""
    rule = game.options.get("press", "all")
    if rule == "none":
        raise GameError(ErrorCode.INVALID, _("Game {game} is played without messages (press=none).", game=game.id))
    if rule == "public" and to != press.TABLE:
        raise GameError(
            ErrorCode.INVALID,
            _("Game {game} allows only messages to the whole table (press=public).", game=game.id),
        )


def without_tokens(game: LoadedGame, text: str, token_of: Callable[[str, int], str]) -> None:
    """Refuses a message that holds a seat's private token: a message must never hand anyone
    the key to a seat (a pasted private address, a forwarded link)."""
    folded = text.lower()
    if any(token_of(game.id, seat) in folded for seat in range(len(game.names))):
        raise GameError(
            ErrorCode.INVALID,
            _("The message holds a private address or link of this game; nothing was sent. Leave it out."),
        )


def say_plan(
    clock: Callable[[], str], email: str, to: Sequence[str] | str, text: str, token_of: Callable[[str, int], str]
) -> Plan:
    """The plan of one message from the seat of ``email`` to the players named ``to`` (or
    ``press.TABLE``): one ``said`` entry, at any time from the game's creation to its end, as
    the game's ``press`` option allows, never holding a seat's token (``token_of``)."""
    message = checked_text(text)

    def plan(game: LoadedGame, batch: _Batch) -> list[LineResult]:
        seat = game.seat_of(email)
        if game.ended or any(e["kind"] == "ended" for e in batch.entries):
            raise GameError(ErrorCode.GAME_OVER, _("Game {game} is over; its table is closed.", game=game.id))
        allowed(game, to)
        without_tokens(game, message, token_of)
        seats = recipients(game, seat, to)
        now = clock()
        _within_the_day(game, batch, seat, now)
        batch.add(log.said(game.id, batch.next_index, now, seat, seats, message))
        return [LineResult(0, "tell", "applied")]

    return plan


def said_today(game: LoadedGame, batch: _Batch, seat: int, now: str) -> int:
    """How many messages and notes ``seat`` wrote in the 24 hours before ``now`` (stored and planned),
    counted back from the newest entry and no further than one over the limit."""
    since = log.instant(now) - DAY
    count = 0
    planned = batch.entries[::-1]
    stored = (game.entry(i) for i in range(game.version - 1, -1, -1))
    for entry in chain(planned, stored):  # lazily: a long game is read back only a day
        if log.instant(entry["time"]) < since or count > MAX_PER_DAY:
            break
        count += entry["kind"] in press.TALK_KINDS and entry.get("seat") == seat
    return count


def note_plan(clock: Callable[[], str], email: str, text: str, sealed: bool) -> Plan:
    """The plan of a note of the seat of ``email`` to itself: private for good, or sealed
    (opened for everyone at the end). Counted with the seat's messages against the day's bound."""
    note = checked_text(text)

    def plan(game: LoadedGame, batch: _Batch) -> list[LineResult]:
        seat = game.seat_of(email)
        if game.ended or any(e["kind"] == "ended" for e in batch.entries):
            raise GameError(ErrorCode.GAME_OVER, _("Game {game} is over; its table is closed.", game=game.id))
        now = clock()
        _within_the_day(game, batch, seat, now)
        batch.add(log.noted(game.id, batch.next_index, now, seat, note, sealed))
        return [LineResult(0, "note sealed" if sealed else "note", "applied")]

    return plan


def _within_the_day(game: LoadedGame, batch: _Batch, seat: int, now: str) -> None:
    if said_today(game, batch, seat, now) >= MAX_PER_DAY:
        raise GameError(
            ErrorCode.INVALID,
            _(
                "You have sent {limit} messages in game {game} in the last 24 hours; wait a while.",
                limit=MAX_PER_DAY,
                game=game.id,
            ),
        )


def answers(game: LoadedGame, batch: _Batch, version: int) -> bool:
    """Whether a submission written at ``version`` still answers the game: nothing but
    messages was logged since (a message changes no state)."""
    now = batch.next_index
    if version == now:
        return True
    if not 1 <= version < now:
        return False
    stored = game.version
    between: list[dict[str, Any]] = [game.entry(i) for i in range(version, min(stored, now))]
    between += batch.entries[max(0, version - stored) :]
    return all(entry["kind"] in press.TALK_KINDS for entry in between)


def noted_line(shown: Mapping[str, Any], names: Sequence[str]) -> str:
    """A note as its reader may see it (``entries.visible_entry``), in the language spoken now."""
    writer, text = names[shown["seat"]], shown.get("text")
    if text is not None:
        text = " / ".join(line.strip() for line in text.splitlines() if line.strip())
    if text is None and shown.get("sealed"):
        return _("{player} sealed a note (opened at the end)", player=writer)
    if text is None:
        return _("{player} made a private note", player=writer)
    if shown.get("sealed"):
        return _("{player}'s sealed note: {text}", player=writer, text=text)
    return _("{player}'s private note: {text}", player=writer, text=text)


def talk_line(shown: Mapping[str, Any], names: Sequence[str]) -> str:
    """A message or a note as its reader may see it."""
    return said_line(shown, names) if shown["kind"] == press.SAID else noted_line(shown, names)


def said_line(shown: Mapping[str, Any], names: Sequence[str]) -> str:
    """One message as its reader may see it (``entries.visible_entry``), in the language
    spoken now: the text of a table message, and of a private one for its parties; only who
    wrote to whom for anyone else."""
    sender, text = names[shown["seat"]], shown.get("text")
    if text is not None:  # one line in a history or a list of news
        text = " / ".join(line.strip() for line in text.splitlines() if line.strip())
    if shown["to"] == press.TABLE:
        return _("{sender} to everyone: {text}", sender=sender, text=text)
    to = ", ".join(names[seat] for seat in shown["to"])
    if text is None:
        return _("{sender} wrote to {recipients} (private)", sender=sender, recipients=to)
    return _("{sender} to {recipients}: {text}", sender=sender, recipients=to, text=text)
