"""Proposals by mail (issue 32): ``propose pause 7d``, ``propose end`` and ``propose kick NAME``
at a seat's private address, and the votes ``accept N`` / ``decline N`` (N: the proposal's
number in the history). The rules and entries are ``pbem.ledger.proposals``; this module reads
the lines (bounded) and plans the entries in the mail's ``Work``: the vote that decides a
proposal adds the decision, and what a passed one does (the end as a draw, the kicked seat's
hand-over to the house robot). A pause is read from the log by the deadlines and clocks
(``pbem.mailroom.deadlines``). docs/mail.md, "Proposals and votes".
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pbem.games.base import ErrorCode, GameError, Standing
from pbem.games.speech import N_, _
from pbem.games.text import fold_key
from pbem.ledger import entries as log
from pbem.ledger import proposals, withdrawals
from pbem.ledger.entries import instant
from pbem.mailroom import commands as cmd
from pbem.service.game import LoadedGame
from pbem.service.outcome import LineResult
from pbem.service.service import GameService, Work
from pbem.service.work import _Batch

Plan = Callable[[LoadedGame, _Batch], list[LineResult]]
PROPOSE_USAGE = N_("propose pause DAYS (1 to 30, e.g. propose pause 7d), propose end, or propose kick NAME")
VOTE_USAGE = N_("accept N or decline N, with the number of the proposal in the history")
# the words after ``propose``, without diacritics (cs, pl, en)
WHAT_WORDS = {
    "pause": ("pause", "pauza", "przerwa", "prestavka"),
    "end": ("end", "konec", "koniec", "draw", "remiza", "remis"),
    "kick": ("kick", "vyloucit", "vyhodit", "wyrzuc", "wyklucz"),
}
WHAT = {word: what for what, words in WHAT_WORDS.items() for word in words}
DAY_WORDS = ("d", "day", "days", "den", "dny", "dni", "dnu", "dzien")
DAYS = re.compile(r"^(\d{1,2})(?:d|dni|dny|days?)?$")
MAX_NAME_WORDS = 8


def _refused(message: str) -> GameError:
    return GameError(ErrorCode.ILLEGAL, message)


def parse(args: tuple[str, ...]) -> tuple[str, int | None, str | None]:
    """``pause 7d`` / ``pause 7 days``, ``end``, ``kick NAME`` as (what, days, name);
    ValueError with the usage for anything else."""
    what = WHAT.get(cmd.plain(args[0])) if args else None
    rest = args[1:]
    if what == "end" and not rest:
        return what, None, None
    if what == "pause" and rest and len(rest) <= 2 and (len(rest) == 1 or cmd.plain(rest[1]) in DAY_WORDS):
        found = DAYS.match(cmd.plain(rest[0])) if rest[0].isascii() else None
        days = int(found.group(1)) if found else 0
        if proposals.PAUSE_DAYS[0] <= days <= proposals.PAUSE_DAYS[1]:
            return what, days, None
    if what == "kick" and 0 < len(rest) <= MAX_NAME_WORDS:
        return what, None, " ".join(rest)
    raise ValueError(_(PROPOSE_USAGE))


def _seat_named(game: LoadedGame, name: str) -> int:
    key = fold_key(name)
    found = [seat for seat, seat_name in enumerate(game.names) if fold_key(seat_name) == key]
    if len(found) != 1:
        raise _refused(_("Nobody plays under the name {name} in this game.", name=name[:40]))
    return found[0]


def _open(game: LoadedGame, batch: _Batch) -> None:
    if batch.state is None or game.ended or batch.planned("ended") or game.spec.outcome(batch.state) is not None:
        raise _refused(_("Proposals can be made and voted on only while the game is being played."))


def propose_plan(service: GameService, email: str, what: str, days: int | None, name: str | None) -> Plan:
    """``propose ...``: a ``proposed`` entry; with nobody to vote (every other seat played by
    the robot), it passes at once, except a kick, which needs a voter."""
    clock = service.writer.clock

    def plan(game: LoadedGame, batch: _Batch) -> list[LineResult]:
        _open(game, batch)
        seat = game.seat_of(email)
        entries = game.entries + batch.entries
        now = clock()
        asked = proposals.open_proposal(entries, instant(now))
        if asked is not None:
            raise _refused(
                _(
                    "Proposal {number} is still open (until {until}); vote on it or wait for it first.",
                    number=asked["index"] + 1,
                    until=asked["until"],
                )
            )
        target = None
        if what == "kick":
            target = _seat_named(game, name or "")
            if target == seat:
                raise _refused(_("You cannot propose to kick yourself; resign instead."))
            if target in batch.seats_of("resigned"):
                raise _refused(_("{player} is already played by the robot.", player=game.names[target]))
        made = proposals.proposed(game.id, batch.next_index, now, seat, what, days, target)
        if what == "kick" and not proposals.voters(entries, made[0], len(game.names)):
            raise _refused(_("A kick needs another player to vote on it, and there is none here."))
        batch.add(made)
        _decide_if_done(service, game, batch, made[0])
        return [LineResult(0, "propose", "applied")]

    return plan


def vote_plan(service: GameService, email: str, number: int | None, yes: bool) -> Plan:
    """``accept [N]`` or ``decline [N]`` on the open proposal; the vote that decides it adds
    the decision and what a passed proposal does."""
    clock = service.writer.clock

    def plan(game: LoadedGame, batch: _Batch) -> list[LineResult]:
        _open(game, batch)
        seat = game.seat_of(email)
        entries = game.entries + batch.entries
        now = clock()
        asked = proposals.open_proposal(entries, instant(now))
        if asked is None or (number is not None and number != asked["index"] + 1):
            if number is not None and 0 < number <= len(entries) and entries[number - 1]["kind"] == proposals.PROPOSED:
                raise _refused(_("Proposal {number} is no longer open.", number=number))
            raise _refused(_("There is no open proposal to vote on."))
        if seat not in proposals.missing(entries, asked, len(game.names)):
            raise _refused(
                _("You made this proposal; the others vote on it.")
                if seat == asked["seat"]
                else _("The proposal is about your seat; the others vote on it.")
                if seat == asked.get("target")
                else _("You have already voted on this proposal.")
            )
        batch.add(proposals.voted(game.id, batch.next_index, now, seat, asked["index"], yes))
        _decide_if_done(service, game, batch, asked)
        return [LineResult(0, "accept" if yes else "decline", "applied")]

    return plan


def _decide_if_done(service: GameService, game: LoadedGame, batch: _Batch, asked: log.Entry) -> None:
    """The decision, once the votes make it, and what a passed proposal does."""
    entries = game.entries + batch.entries
    result = proposals.outcome(entries, asked, len(game.names))
    if result is None:
        return
    time = service.writer.clock()
    batch.add(proposals.decided(game.id, batch.next_index, time, asked["index"], result))
    if not result:
        return
    if asked["what"] == "end":
        standings = [Standing(s["seat"], s["rank"], s["score"], s["details"]) for s in proposals.draw(len(game.names))]
        batch.add(log.ended(game.id, batch.next_index, time, standings, game.seed))
    elif asked["what"] == "kick":
        service.robot_plan(int(asked["target"]), proposals.KICKED)(game, batch)


def is_vote(service: GameService, work: Work, game_id: str, command: cmd.Command, number: int | None) -> bool:
    """Whether an ``accept`` line votes on a proposal rather than agreeing to take back a
    move: it names a proposal, or names none while a proposal is open and no move is asked back."""
    if command.name == "decline":
        return True
    batch = work.batch(game_id)
    entries = batch.game.entries + batch.entries
    if number is not None:
        return 0 < number <= len(entries) and entries[number - 1]["kind"] == proposals.PROPOSED
    now = instant(service.writer.clock())
    return proposals.open_proposal(entries, now) is not None and withdrawals.pending(entries) is None
