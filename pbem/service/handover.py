"""A seat handed to a substitute: the plans of ``substitute NAME ADDRESS`` (a player invites
somebody to take over a seat the robot plays or whose player missed a deadline) and of the
invited player's ``join`` (the hand-over). The entries and their rules are
``pbem.ledger.handovers``; whether a seat missed its deadline is the mail side's knowledge,
passed in as ``abandoned``."""

from __future__ import annotations

from collections.abc import Callable

from pbem.games.base import ErrorCode, GameError
from pbem.games.speech import _
from pbem.ledger import entries as log
from pbem.ledger import handovers
from pbem.service.game import LoadedGame
from pbem.service.inputs import address_problem, printable
from pbem.service.names import clean_name
from pbem.service.outcome import LineResult
from pbem.service.work import _Batch

Plan = Callable[[LoadedGame, _Batch], list[LineResult]]
MAX_ADDRESS = 254  # characters of a mail address (RFC 5321's path limit)


def _refused(message: str) -> GameError:
    return GameError(ErrorCode.ILLEGAL, message)


def _playing(game: LoadedGame, batch: _Batch) -> None:
    if batch.state is None or game.ended or game.spec.outcome(batch.state) is not None:
        raise _refused(_("A substitute can take a seat only while the game is being played."))


def seat_named(game: LoadedGame, name: str) -> int:
    """The seat whose player goes by ``name`` (case and spacing aside), or the refusal."""
    wanted = " ".join(name.split()).casefold()
    for seat, seat_name in enumerate(game.names):
        if seat_name.casefold() == wanted:
            return seat
    raise GameError(
        ErrorCode.INVALID,
        _(
            "Nobody is called {name} in game {game}; its players are {names}.",
            name=printable(name)[:40],
            game=game.id,
            names=", ".join(game.names),
        ),
    )


def checked_address(address: str) -> str:
    """A substitute's address as stored (lower case), or the refusal."""
    address = address.strip().strip("<>,;").lower()
    problem = address_problem(address) if len(address) <= MAX_ADDRESS else "is too long"
    if problem:
        raise GameError(ErrorCode.INVALID, f"{printable(address)[:80]!r} {problem}.")
    return address


def substitute_plan(
    email: str, name: str, address: str, clock: Callable[[], str], abandoned: Callable[[LoadedGame, int], bool]
) -> Plan:
    """``substitute NAME ADDRESS`` from the player of ``email``: invite ``address`` to take the
    seat of NAME, which the robot plays or whose player missed a deadline (``abandoned``)."""
    invited = checked_address(address)

    def plan(game: LoadedGame, batch: _Batch) -> list[LineResult]:
        _playing(game, batch)
        asking = game.seat_of(email)
        seat = seat_named(game, name)
        robots = batch.seats_of("resigned")
        if seat == asking:
            raise _refused(_("You cannot name a substitute for your own seat; resign, and the others may."))
        if asking in robots:
            raise _refused(_("The robot plays your seat; only the players at the table may invite a substitute."))
        if seat not in robots and not abandoned(game, seat):
            raise _refused(
                _(
                    "{player} has not missed a deadline and is not played by the robot, so their seat needs "
                    "no substitute.",
                    player=game.names[seat],
                )
            )
        entries = game.entries + batch.entries
        if invited in game.emails or any(
            _invited_address(game, batch, entry) == invited
            for other in range(len(game.names))
            if (entry := handovers.invitation(entries, other)) is not None and other != seat
        ):
            raise _refused(_("{address} already plays in game {game} or is invited to.", address=invited, game=game.id))
        batch.add(handovers.substitute(game.id, batch.next_index, clock(), seat, asking, invited))
        return [LineResult(0, "substitute", "applied")]

    return plan


def _invited_address(game: LoadedGame, batch: _Batch, entry: handovers.Entry) -> str:
    """The address an invitation went to (its private part, stored or planned)."""
    index = int(entry["index"])
    private = game.private(index) if index < game.version else batch.privates[index - game.version]
    return str(private["emails"][0])


def open_invitation(game: LoadedGame, seat: int) -> tuple[int, str] | None:
    """The index of ``seat``'s open invitation and the address it went to, or None."""
    entry = handovers.invitation(game.entries, seat)
    if entry is None:
        return None
    return int(entry["index"]), str(game.private(int(entry["index"]))["emails"][0])


def take_over_plan(address: str, seat: int, invitation: int, clock: Callable[[], str], name: str | None = None) -> Plan:
    """The invited player of ``address`` joins: the seat is handed over to them by the entry
    ``invitation`` (still the seat's open one), and the robot stops playing it. The seat then
    goes by the new player's ``name`` (else the local part of the address: a ``named`` entry),
    so that the table, the history and the ratings tell the two players apart; a name another
    seat has is not taken (the seat keeps its own)."""

    def plan(game: LoadedGame, batch: _Batch) -> list[LineResult]:
        _playing(game, batch)
        entry = handovers.invitation(game.entries + batch.entries, seat)
        if entry is None or entry["index"] != invitation or _invited_address(game, batch, entry) != address:
            raise _refused(_("This invitation to take over a seat is no longer open."))
        if address in game.emails:
            raise _refused(_("{address} already plays in game {game}.", address=address, game=game.id))
        batch.add(handovers.handed(game.id, batch.next_index, clock(), seat, invitation, address))
        own = clean_name(name) or clean_name(address.split("@", 1)[0])
        taken = {other.casefold() for number, other in enumerate(game.names) if number != seat}
        if own is not None and own.casefold() not in taken and own != game.names[seat]:
            batch.add(log.named(game.id, batch.next_index, clock(), seat, own))
        return [LineResult(0, "join", "applied")]

    return plan
