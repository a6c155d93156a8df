"""A seat handed to a substitute, through the service on SQLite and PostgreSQL: the compact
record (and its snapshots) takes the new address from the ``handed`` entry's private part and
gives the seat back from the robot, in a process that reads the game afresh too; the self-check
agrees; the plans refuse what the rules refuse."""

from __future__ import annotations

import dataclasses

import pytest

from pbem.games.base import GameError
from pbem.service import handover
from pbem.service.service import GameService

ANN, BOB, CYRIL = "ann@example.org", "bob@example.org", "cyril@example.org"


def never_missed(game, seat) -> bool:
    return False


def test_a_hand_over_moves_the_seat_to_the_new_address_in_the_stored_record(settings):
    settings = dataclasses.replace(settings, snapshot_interval=2)  # snapshots on the way
    svc = GameService(settings)
    game_id = svc.create("kingsburg", [ANN, BOB], seed=b"\x05" * 32)
    svc.join(game_id, ANN)
    svc.join(game_id, BOB)
    svc.resign(game_id, BOB)
    work = svc.work()
    assert work.run(game_id, handover.substitute_plan(ANN, "bob", CYRIL, svc.writer.clock, never_missed)).ok
    work.commit()
    invitation = svc.game(game_id).version - 1
    assert svc.game(game_id).emails == [ANN, BOB], "an invitation changes no seat"
    work = svc.work()
    assert work.run(game_id, handover.take_over_plan(CYRIL, 1, invitation, svc.writer.clock, "Cyril")).ok
    work.commit()
    game = svc.game(game_id)
    assert game.emails == [ANN, CYRIL] and game.robots == set() and game.names == ["ann", "Cyril"]
    svc.close()

    again = GameService(settings)  # another process: the record from the store (events, snapshots)
    game = again.game(game_id)
    assert game.emails == [ANN, CYRIL] and game.robots == set()
    assert game.seat_of(CYRIL) == 1
    with pytest.raises(GameError):
        game.seat_of(BOB)
    assert again.fsck(game_id) is None, "the self-check rebuilds the same record from the log"
    state = again.state(game)
    if 1 in game.spec.to_move(state):  # the robot no longer moves for the seat: its player does
        move = game.spec.legal_texts(state, 1)[0]
        assert again.submit(game_id, CYRIL, [move], source="email").ok
    again.close()


def test_the_plans_refuse_what_the_rules_refuse(settings):
    svc = GameService(settings)
    game_id = svc.create("kingsburg", [ANN, BOB], seed=b"\x06" * 32)
    work = svc.work()
    outcome = work.run(game_id, handover.substitute_plan(ANN, "bob", CYRIL, svc.writer.clock, never_missed))
    assert not outcome.ok, "not before the game started"
    svc.join(game_id, ANN)
    svc.join(game_id, BOB)
    work = svc.work()
    outcome = work.run(game_id, handover.substitute_plan(ANN, "bob", CYRIL, svc.writer.clock, never_missed))
    assert not outcome.ok and "has not missed a deadline" in outcome.error.message
    work = svc.work()
    outcome = work.run(game_id, handover.take_over_plan(CYRIL, 1, 3, svc.writer.clock))
    assert not outcome.ok and "no longer open" in outcome.error.message, "no invitation, no hand-over"
    work = svc.work()  # positive control: a seat whose player missed a deadline may be offered
    assert work.run(game_id, handover.substitute_plan(ANN, "bob", CYRIL, svc.writer.clock, lambda g, s: True)).ok
    svc.close()
