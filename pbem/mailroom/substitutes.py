"""Substitutes by mail (docs/mail.md, "Substitutes"): ``substitute NAME ADDRESS`` /
``náhradník`` / ``zastępca`` at a seat's private address invites ADDRESS to take over the seat
of NAME, when the robot plays it or its player missed a deadline and has not moved since. The
invitation (``pbem.mailroom.notices``) goes to an address of its own, whose token names the
invitation (``GameReader.invitation_token``); a ``join`` sent there from the invited address
hands the seat over: a ``handed`` entry, the seat's token changed (the old private address and
link stop working), the robot stops, and the misses of the player before are forgotten.
The entries and their rules are ``pbem.ledger.handovers``, the plans ``pbem.service.handover``.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import Any

from pbem.games.speech import N_, _
from pbem.ledger import handovers
from pbem.mailroom import commands as cmd
from pbem.mailroom.records import GameClock
from pbem.service import handover
from pbem.service.game import LoadedGame
from pbem.service.service import GameService, Work
from pbem.service.store import SeatKeys

USAGE = N_("substitute NAME ADDRESS: the name of the seat to take over and the new player's mail address")
MAX_NAME_WORDS = 6
HUMAN_SOURCES = ("email", "turnfile", "web", "cli")


def parse(args: tuple[str, ...]) -> tuple[str, str]:
    """NAME (one or more words, at most 40 characters) and ADDRESS (the last word)."""
    if not 2 <= len(args) <= MAX_NAME_WORDS + 1 or "@" not in args[-1] or len(" ".join(args[:-1])) > 40:
        raise ValueError(_(USAGE))
    return " ".join(args[:-1]), args[-1]


def abandoned(clock: GameClock | None) -> Callable[[LoadedGame, int], bool]:
    """Whether a seat's player missed a deadline (a default move played for it, or a miss
    marked on the game's clock) and has neither moved since nor been replaced since."""

    def missed(game: LoadedGame, seat: int) -> bool:
        return max(_misses(game, clock, seat), default=-1) >= _active(game, seat)  # a miss at the size it came

    return missed


def _active(game: LoadedGame, seat: int) -> int:
    """The size of the log after the seat's newest move of its own or its newest hand-over."""
    newest = 0
    for entry in game.entries:
        if entry.get("seat") != seat:
            continue
        if entry["kind"] == handovers.HANDED or (entry["kind"] == "moved" and entry.get("source") in HUMAN_SOURCES):
            newest = int(entry["index"]) + 1
    return newest


def _misses(game: LoadedGame, clock: GameClock | None, seat: int) -> list[int]:
    """The size of the log at each deadline the seat missed."""
    misses = [
        int(e["index"]) + 1
        for e in game.entries
        if e["kind"] == "moved" and e.get("seat") == seat and e.get("source") == "deadline"
    ]
    for marker in clock.done if clock is not None else []:
        kind, version, marked = [*marker.split("/"), "", ""][:3]
        if kind == "deadline" and marked == str(seat) and version.isdigit():
            misses.append(int(version))
    return misses


def substitute(service: GameService, work: Work, game_id: str, command: cmd.Command, email: str) -> dict[str, Any]:
    """``substitute NAME ADDRESS``: the invitation as an entry of the mail's work."""
    name, address = parse(command.args)
    clock = work.find(GameClock.create_id(game_id, {}))
    plan = handover.substitute_plan(email, name, address, service.writer.clock, abandoned(clock))
    return {"outcome": work.run(game_id, plan).to_dict()}


def invited(service: GameService, game: LoadedGame, token: str, sender: str) -> tuple[int, int] | None:
    """The seat and the invitation a mail to ``token``'s address answers, when the token is an
    open invitation's and the mail comes from the invited address; else None."""
    for seat in range(len(game.names)):
        found = handover.open_invitation(game, seat)
        if found is None:
            continue
        index, address = found
        expected = service.reader.invitation_token(game.id, index).encode()
        if hmac.compare_digest(expected, token.strip().lower().encode()) and address == sender:
            return seat, index
    return None


def take_over(
    service: GameService,
    work: Work,
    game: LoadedGame,
    found: tuple[int, int],
    sender: str,
    words: list[str],
    name: str | None,
) -> list[dict[str, Any]]:
    """A mail from the invited address to its invitation's address (``found``: the seat and the
    invitation): ``join`` takes the seat, under ``name`` (the one the sender goes by, if any);
    anything else is answered with what to send."""
    seat, invitation = found
    result: dict[str, Any] = {"action": "join", "text": "join", "game": game.id}
    if not any(getattr(cmd.parse_command(line), "name", None) == "join" for line in words):
        return [result | {"error": {"code": "invalid", "message": _('Reply with the word "join" to take the seat.')}}]
    outcome = work.run(game.id, handover.take_over_plan(sender, seat, invitation, service.writer.clock, name))
    if outcome.ok:
        keys = work.aggregate(SeatKeys.create_id(game.id), lambda: SeatKeys(game.id))
        keys.rotate(seat)  # the old private address and link stop working
        clock = work.find(GameClock.create_id(game.id, {}))
        if clock is not None and clock.misses.get(str(seat)):
            clock.clear_misses(seat)
            work.add(clock)
    return [result | {"outcome": outcome.to_dict()}]
