"""The outbox: which mails stored events call for. A follower of the event store (``rounds``
in ``pbem.mailroom.followers``) hands each new notification to ``Outbox.mails_for`` with the
``Round`` it runs: one handler per kind of event, in ``HANDLERS``. A mail's ``Receipt``
becomes its reply and refusal notices, a deadline's receipt the deadline notice
(``pbem.mailroom.replies``); a game's entries become the invitations and notices: start,
your turn, robot takeover, end, observer updates (``pbem.mailroom.notices``); a seat's
vacation its announcement to the other players. A mail is queued
as a *model* (JSON-plain data, built with ``pbem.mailroom.writer``); the gateway's sender
composes its text with the templates when it sends, so a template error makes a dead letter
that can be retried after the fix, never a lost mail.

Games and mail records are read through the ``Round``: once per round of the follower, however
many notifications of that game the round handles. The outbox itself keeps nothing between
calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem.mailroom.notices import invitations, notices
from pbem.mailroom.queue import Mail
from pbem.mailroom.records import GameClock
from pbem.mailroom.replies import receipt_mails
from pbem.mailroom.writer import Round, Writer
from pbem.service.store import GameRecord, Receipt


def topic(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _receipt(writer: Writer, round_: Round, event: Any, position: int) -> list[Mail]:
    return receipt_mails(writer, round_, event.game_id, event.outcome, position)


def _created(writer: Writer, round_: Round, event: Any, position: int) -> list[Mail]:
    return invitations(writer, round_, event.game_id, position)


def _appended(writer: Writer, round_: Round, event: Any, position: int) -> list[Mail]:
    return notices(writer, round_, event.entries, position)


def _vacation(writer: Writer, round_: Round, event: Any, position: int) -> list[Mail]:
    """The other players of a game hear at once that a seat will be away (``absence``), and how
    much of its vacation in the game it spends (``pbem.mailroom.vacations``)."""
    clock = round_.clocks.find(event.originator_id)
    if clock is None:
        return []
    game = round_.game(clock.game_id)
    extra = {"name": game.names[event.seat], "first": event.first, "last": event.last}
    extra |= {"days": event.days, "left": event.left}
    mails = []
    for seat in range(len(game.emails)):
        if seat != event.seat and seat not in game.robots:
            mails += writer.notice(round_, game, seat, "vacation", extra, key=f"n{position}/vacation/{seat}")
    return mails


Handler = Callable[[Writer, Round, Any, int], list[Mail]]
HANDLERS: dict[type, Handler] = {
    Receipt.Recorded: _receipt,
    GameRecord.Created: _created,
    GameRecord.Appended: _appended,
    GameClock.VacationTaken: _vacation,
}
TOPICS = [topic(cls) for cls in HANDLERS]


class Outbox(Writer):
    """The mails of stored events, and the timers' notices (``Writer.notice``)."""

    def mails_for(self, round_: Round, event: Any, position: int) -> list[Mail]:
        handler = HANDLERS.get(type(event))
        return handler(self, round_, event, position) if handler else []
