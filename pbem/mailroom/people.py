"""Commands about the people at a table, sent to a seat's private address: ``rematch`` (a new
game with the same players, options and language once a game is over),
``undo`` and ``accept`` (take back a move by consent: ``pbem.service.consent``), ``propose``,
``accept`` and ``decline`` (proposals and votes: ``pbem.mailroom.proposals``), and
``substitute`` (a substitute for an abandoned seat: ``pbem.mailroom.substitutes``); docs/mail.md,
"Rematch and the people at a table".

The desk (``desk.MailDesk``) calls ``seat_command`` for a line whose command is one of
``COMMANDS``; everything is planned in the mail's ``Work`` and saved with it.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pbem.games.base import ErrorCode, GameError
from pbem.games.speech import N_, _
from pbem.ledger import proposals as ledger_proposals
from pbem.ledger import withdrawals
from pbem.ledger.entries import instant
from pbem.mailroom import commands as cmd
from pbem.mailroom import proposals, substitutes
from pbem.mailroom.records import Correspondent, GameClock
from pbem.service import consent
from pbem.service.service import GameService, Work

COMMANDS = ("rematch", "undo", "substitute", "propose", "accept", "decline")
ACCEPT_USAGE = N_("accept, or accept N with the number of the request in the history")
# Rules of a game's clock that belong to that game alone, not carried into its rematch.
OWN_RULES = ("invited_by", "rematch")


def seat_command(
    service: GameService, work: Work, game_id: str, command: cmd.Command, email: str, now: datetime
) -> dict[str, Any]:
    """What one of ``COMMANDS`` at ``email``'s private address does; raises ``GameError`` or
    ``ValueError`` for a refusal."""
    if command.name == "rematch":
        return rematch(service, work, game_id, email, now)
    if command.name == "propose":
        what, days, name = proposals.parse(command.args)
        return {"outcome": work.run(game_id, proposals.propose_plan(service, email, what, days, name)).to_dict()}
    if command.name in ("accept", "decline"):
        number = _number(command)
        if proposals.is_vote(service, work, game_id, command, number):
            plan = proposals.vote_plan(service, email, number, command.name == "accept")
            return {"outcome": work.run(game_id, plan).to_dict()}
    if command.name == "substitute":
        return substitutes.substitute(service, work, game_id, command, email)
    return {"outcome": work.run(game_id, _consent_plan(service, command, email)).to_dict()}  # undo, accept


def names_request(batch: Any, command: cmd.Command) -> bool:
    """Whether ``accept N`` / ``decline N`` names an open proposal or request to take back a
    move by its number: then it is that vote even where the game has a move of the same word
    (Warriors & Traders' ``accept OFFER``), as the mail about it told the player to write."""
    if len(command.args) != 1 or not (command.args[0].isascii() and command.args[0].isdigit()):
        return False
    entries = batch.game.entries + batch.entries
    number = int(command.args[0][:9])
    asked = withdrawals.pending(entries) if command.name == "accept" else None
    if asked is not None and asked["index"] + 1 == number:
        return True
    if not 0 < number <= len(entries) or entries[number - 1]["kind"] != ledger_proposals.PROPOSED:
        return False
    opened = ledger_proposals.open_proposal(entries, instant(entries[-1]["time"]))
    return opened is not None and opened["index"] + 1 == number


def _consent_plan(service: GameService, command: cmd.Command, email: str) -> consent.Plan:
    """``undo``, or ``accept [N]`` (N: the request's number in the history)."""
    if command.name == "undo":
        return consent.undo_plan(email, service.writer.clock, service.state)
    return consent.consent_plan(email, _number(command), service.writer.clock, service.state)


def _number(command: cmd.Command) -> int | None:
    """The N of ``accept [N]`` / ``decline [N]`` (bounded), None without one."""
    if len(command.args) > 1 or not all(arg.isascii() and arg.isdigit() and len(arg) <= 9 for arg in command.args):
        usage = ACCEPT_USAGE if command.name == "accept" else proposals.VOTE_USAGE
        raise ValueError(_(usage))
    return int(command.args[0]) if command.args else None


def rematch(service: GameService, work: Work, game_id: str, email: str, now: datetime) -> dict[str, Any]:
    """A new game of a finished one: the same game, players in the same seats with the same
    names, the same options and the same mail rules (deadlines, language); invitations go out
    as for ``new``, in the name of the player who asked. A game is rematched once: asking
    again names the rematch already made. It counts against the daily limit of new games."""
    batch = work.batch(game_id)
    game = batch.game
    game.seat_of(email)  # the sender's seat, checked again (the desk authenticated it)
    if not (game.ended or batch.planned("ended")):
        raise GameError(
            ErrorCode.ILLEGAL, _("Game {game} is not over yet; a rematch can follow only its end.", game=game_id)
        )
    clock: GameClock = work.aggregate(GameClock.create_id(game_id, {}), lambda: GameClock(game_id, {}))
    if clock.rules.get("rematch"):
        raise GameError(
            ErrorCode.ILLEGAL,
            _("Game {game} already has its rematch: {rematch}.", game=game_id, rematch=clock.rules["rematch"]),
        )
    count_new(work, email, now)
    new_id = service.new_game(work, game.spec.name, game.emails, game.options, names=game.names)
    rules = {key: value for key, value in clock.rules.items() if key not in OWN_RULES}
    work.add(GameClock(new_id, rules | {"invited_by": email}))
    clock.change({"rematch": new_id})
    return {"rematch": new_id}


def count_new(work: Work, email: str, now: datetime) -> Correspondent:
    """Count a game created by ``email`` against the daily limit (``commands.MAX_NEW_PER_DAY``),
    or refuse it when the limit is reached; returns the address's record."""
    person: Correspondent = work.aggregate(Correspondent.create_id(email), lambda: Correspondent(email))
    day_ago = (now - timedelta(days=1)).isoformat()
    if person.games_created_since(day_ago) >= cmd.MAX_NEW_PER_DAY:
        raise ValueError(_("at most {n} new games a day per address; try again tomorrow", n=cmd.MAX_NEW_PER_DAY))
    person.created_game(now.isoformat(), day_ago)
    return person
