"""The shared test contract can fail: a deliberately broken rule trips ``refused``."""

from __future__ import annotations

import pytest

from pbem.games.base import ErrorCode, GameError, SeededRng
from pbem.games.simulate import fold
from tests.support import contract, hiddenpig


class PigThatScribblesBeforeRefusing(hiddenpig.HiddenPig):
    """Hidden Pig with one deliberate bug: reading a command writes into the state, even when
    the command is then refused."""

    def parse_move(self, state, seat, text):
        object.__setattr__(state, "turn_points", state.turn_points + 5)  # the bug
        return super().parse_move(state, seat, text)


BROKEN = PigThatScribblesBeforeRefusing()


def _started():
    return fold(hiddenpig.SPEC, hiddenpig.SPEC.setup(2, {"rounds": "3"}, SeededRng(1)))


def test_refused_passes_for_a_refusal_that_changes_nothing():
    error = contract.refused(hiddenpig.SPEC, _started(), 1, "roll", SeededRng(1))
    assert error.code == ErrorCode.ILLEGAL


def test_refused_fails_when_a_refused_move_changed_the_state():
    with pytest.raises(AssertionError, match="a refused move changed the state"):
        contract.refused(BROKEN, _started(), 1, "roll", SeededRng(1))


def test_refused_when_parsed_fails_when_a_refused_move_changed_the_state():
    with pytest.raises(AssertionError, match="a refused move changed the state"):
        contract.refused_when_parsed(BROKEN, _started(), 1, "roll")


def test_the_old_comparison_with_the_state_itself_could_not_see_the_bug():
    state = _started()
    same_object = state  # what the old helpers kept as "before"
    with pytest.raises(GameError):
        BROKEN.parse_move(state, 1, "roll")
    assert state.turn_points == 5 and state == same_object  # changed, yet "equal": why we deep-copy


def test_refused_checks_the_code_when_asked():
    error = contract.refused(hiddenpig.SPEC, _started(), 1, "roll", SeededRng(1), code=ErrorCode.ILLEGAL)
    assert error.code is ErrorCode.ILLEGAL
    with pytest.raises(AssertionError, match="refused as illegal, not syntax"):
        contract.refused(hiddenpig.SPEC, _started(), 1, "roll", SeededRng(1), code=ErrorCode.SYNTAX)


def test_refused_fails_when_the_move_is_accepted():
    with pytest.raises(pytest.fail.Exception, match="DID NOT RAISE"):
        contract.refused(hiddenpig.SPEC, _started(), 0, "hold", SeededRng(1))


def test_unchanged_refuses_to_compare_a_state_with_itself():
    state = _started()
    with pytest.raises(AssertionError, match="deep copy"):
        contract.unchanged(state, state)


def test_apply_returns_the_folded_state_and_the_facts():
    state, facts = contract.apply(hiddenpig.SPEC, _started(), 0, "hold", SeededRng(1))
    assert facts == [{"kind": "PointsBanked", "seat": 0, "points": 0}]
    assert (state.seat, state.turns_taken) == (1, 1)
