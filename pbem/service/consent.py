"""Taking back a move by consent: the plans of ``undo`` (ask to withdraw your last move) and of
``accept`` (agree to it). The rules and the entries are ``pbem.ledger.withdrawals``; the last
consent adds the withdrawal, after which the game stands as before the move."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem.games.base import ErrorCode, GameError
from pbem.games.speech import _
from pbem.ledger import entries as log
from pbem.ledger import withdrawals
from pbem.service.game import LoadedGame
from pbem.service.outcome import LineResult
from pbem.service.work import _Batch

Plan = Callable[[LoadedGame, _Batch], list[LineResult]]
StateAt = Callable[[LoadedGame, int], Any]  # the game's state after so many entries


def _refused(message: str) -> GameError:
    return GameError(ErrorCode.ILLEGAL, message)


def _open(game: LoadedGame, batch: _Batch) -> None:
    if batch.state is None or game.ended or game.spec.outcome(batch.state) is not None:
        raise _refused(_("A move can be taken back only while the game is being played."))


def _undoable(game: LoadedGame, entries: list[log.Entry], seat: int, state_at: StateAt) -> int:
    """The move ``seat`` may take back now, or the refusal that says why not."""
    newest = withdrawals.last_move(entries)
    if newest is None or entries[newest]["seat"] != seat:
        mine = any(e["kind"] == "moved" and e.get("seat") == seat for e in entries)
        raise _refused(
            _("Another seat has moved since your last move, so it can no longer be taken back.")
            if mine and newest is not None
            else _("You have no move to take back.")
        )
    move = withdrawals.undoable(entries, seat)
    if newest >= game.version:  # a move of this very mail: send undo in a later one
        raise _refused(_("You have no move to take back."))
    if move is None:
        raise _refused(_("Your last move drew dice or cards or was not written by you; it cannot be taken back."))
    if withdrawals.revealed(game.spec, state_at(game, move), game.private(move)["facts"], len(game.names)):
        raise _refused(_("Your last move revealed hidden information; it cannot be taken back."))
    return move


def undo_plan(email: str, clock: Callable[[], str], state_at: StateAt) -> Plan:
    """``undo``: ask the other seats to let ``email``'s last move be withdrawn; with nobody to
    ask (every other seat played by the robot), it is withdrawn at once."""

    def plan(game: LoadedGame, batch: _Batch) -> list[LineResult]:
        _open(game, batch)
        seat = game.seat_of(email)
        entries = game.entries + batch.entries
        move = _undoable(game, entries, seat, state_at)
        asked = withdrawals.pending(entries)
        if asked is not None and asked["move"] == move:
            raise _refused(_("You have already asked to take back this move; the others are asked to accept."))
        made = log.undo(game.id, batch.next_index, clock(), seat, move)
        batch.add(made)
        robots = batch.seats_of("resigned")
        if not withdrawals.missing_consents(entries, made[0], len(game.names), robots):
            _withdraw(game, batch, made[0], clock, state_at)
        return [LineResult(0, "undo", "applied")]

    return plan


def consent_plan(email: str, number: int | None, clock: Callable[[], str], state_at: StateAt) -> Plan:
    """``accept [N]``: agree to the open request to take back a move (N: its number in the
    history, as the request's mail says); the last consent withdraws the move."""

    def plan(game: LoadedGame, batch: _Batch) -> list[LineResult]:
        _open(game, batch)
        seat = game.seat_of(email)
        entries = game.entries + batch.entries
        asked = withdrawals.pending(entries)
        if asked is None or (number is not None and number != asked["index"] + 1):
            raise _refused(_("There is no open request to take back a move to accept."))
        robots = batch.seats_of("resigned")
        missing = withdrawals.missing_consents(entries, asked, len(game.names), robots)
        if seat not in missing:
            raise _refused(
                _("You asked to take back this move; the others accept it.")
                if seat == asked["seat"]
                else _("You have already accepted.")
            )
        batch.add(log.consented(game.id, batch.next_index, clock(), seat, asked["index"]))
        if not missing - {seat}:
            _withdraw(game, batch, asked, clock, state_at)
        return [LineResult(0, "accept", "applied")]

    return plan


def _withdraw(game: LoadedGame, batch: _Batch, asked: log.Entry, clock: Callable[[], str], state_at: StateAt) -> None:
    batch.add(log.withdrawn(game.id, batch.next_index, clock(), asked["seat"], asked["move"]))
    batch.state = state_at(game, asked["move"])
