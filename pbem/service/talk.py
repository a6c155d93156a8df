"""Press: the plan of one message between players (``pbem.ledger.press`` is its entry).

A message is an entry of the game's log like a move, but it is not a move: it changes no state,
draws nothing and is never seen by the rules. So a submission that names the version it
answers is not made stale by messages alone (``answers``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pbem.games.base import ErrorCode, GameError
from pbem.games.speech import _
from pbem.ledger import entries as log
from pbem.ledger import press
from pbem.service.game import LoadedGame
from pbem.service.outcome import LineResult
from pbem.service.work import _Batch

Plan = Callable[[LoadedGame, _Batch], list[LineResult]]


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


def say_plan(clock: Callable[[], str], email: str, to: Sequence[str] | str, text: str) -> Plan:
    """The plan of one message from the seat of ``email`` to the players named ``to`` (or
    ``press.TABLE``): one ``said`` entry, at any time from the game's creation to its end."""
    message = checked_text(text)

    def plan(game: LoadedGame, batch: _Batch) -> list[LineResult]:
        seat = game.seat_of(email)
        if game.ended or any(e["kind"] == "ended" for e in batch.entries):
            raise GameError(ErrorCode.GAME_OVER, _("Game {game} is over; its table is closed.", game=game.id))
        seats = recipients(game, seat, to)
        batch.add(log.said(game.id, batch.next_index, clock(), seat, seats, message))
        return [LineResult(0, "tell", "applied")]

    return plan


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


def said_line(shown: Mapping[str, Any], names: Sequence[str]) -> str:
    """One message as its reader may see it (``entries.visible_entry``), in the language
    spoken now: the text of a table message, and of a private one for its parties; only who
    wrote to whom for anyone else."""
    sender, text = names[shown["seat"]], shown.get("text")
    if shown["to"] == press.TABLE:
        return _("{sender} to everyone: {text}", sender=sender, text=text)
    to = ", ".join(names[seat] for seat in shown["to"])
    if text is None:
        return _("{sender} wrote to {recipients} (private)", sender=sender, recipients=to)
    return _("{sender} to {recipients}: {text}", sender=sender, recipients=to, text=text)
