"""Two service instances (as two processes would) racing on one game: a conflicting save is
retried against the new state, or refused as stale; no move is lost or applied twice."""

import pytest

from pbem.games.base import ErrorCode
from pbem.service.service import GameService
from tests.service.helpers import started_pig, to_move_email


def _interleave(first: GameService, action):
    """Make ``first``'s next save happen just after ``action`` saved something else."""
    real_save = first.store.save
    fired = []

    def save(*aggregates, **kwargs):
        if not fired:
            fired.append(action())
        return real_save(*aggregates, **kwargs)

    first.store.save = save
    return fired


@pytest.fixture
def two(settings):
    a, b = GameService(settings), GameService(settings)
    yield a, b
    a.close()
    b.close()


def test_a_conflicting_save_is_retried_and_both_moves_count_once(two):
    a, b = two
    game_id = started_pig(a)
    mover = to_move_email(a, game_id)
    fired = _interleave(a, lambda: b.submit(game_id, mover, ["hold"]))
    late = a.submit(game_id, mover, ["hold"])
    early = fired[0]
    assert early.ok
    moved = [e for e in b.game(game_id).entries if e["kind"] == "moved"]
    applied = int(early.ok) + int(late.ok)
    assert len(moved) == applied
    # The retried move was re-decided on the new state: the other seat was to move by then.
    assert late.lines[0].error.code is ErrorCode.NOT_YOUR_TURN
    assert [e["index"] for e in a.game(game_id).entries] == list(range(a.game(game_id).version))


def test_a_conflicting_save_with_a_version_is_refused_as_stale(two):
    a, b = two
    game_id = started_pig(a)
    mover = to_move_email(a, game_id)
    version = a.game(game_id).version
    _interleave(a, lambda: b.submit(game_id, mover, ["hold"]))
    late = a.submit(game_id, mover, ["hold"], expected_version=version)
    assert late.error.code is ErrorCode.STALE
    assert a.game(game_id).version == version + 1


def test_a_duplicate_racing_its_original_is_applied_once(two):
    a, b = two
    game_id = started_pig(a)
    mover = to_move_email(a, game_id)
    fired = _interleave(a, lambda: b.submit(game_id, mover, ["hold"], idempotency_key="<same@x>"))
    late = a.submit(game_id, mover, ["hold"], idempotency_key="<same@x>")
    assert fired[0].ok and late.duplicate
    assert len([e for e in a.game(game_id).entries if e["kind"] == "moved"]) == 1
