"""The one test contract every game's test support uses: ``apply`` a move given as text, and
check that a move is ``refused`` without changing anything.

A refusal is compared against a deep copy taken before the move, so a rule that mutates a
list or dict inside the (frozen) state before raising is caught; comparing the state with
itself, or with a shallow copy that shares those lists, could never fail.
tests/support/test_contract.py proves that a deliberately broken rule makes ``refused`` fail.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from pbem.games.base import ErrorCode, GameError
from pbem.games.simulate import fold


def apply(spec: Any, state: Any, seat: int, text: str, rng: Any = None) -> tuple[Any, list[dict]]:
    """Parse ``text`` for ``seat``, decide it and fold the facts: (new state, facts)."""
    move = spec.parse_move(state, seat, text)
    facts = spec.decide(state, seat, move, rng)
    return fold(spec, facts, state), facts


def refused(spec: Any, state: Any, seat: int, text: str, rng: Any = None, code: ErrorCode | None = None) -> GameError:
    """``text`` is refused (when parsed or when decided), with ``code`` when given, and
    ``state`` is unchanged; the legal moves are unchanged too (a cache inside the state that a
    refusal wrote into would show there)."""
    before, legal = copy.deepcopy(state), spec.legal_moves(state, seat)
    with pytest.raises(GameError) as error:
        spec.decide(state, seat, spec.parse_move(state, seat, text), rng)
    unchanged(state, before)
    assert spec.legal_moves(state, seat) == legal, "a refused move changed the legal moves"
    return _with_code(error.value, code)


def refused_when_parsed(spec: Any, state: Any, seat: int, text: str, code: ErrorCode | None = None) -> GameError:
    """``text`` is refused already by ``parse_move`` (with ``code`` when given) and ``state``
    is unchanged."""
    before = copy.deepcopy(state)
    with pytest.raises(GameError) as error:
        spec.parse_move(state, seat, text)
    unchanged(state, before)
    return _with_code(error.value, code)


def _with_code(error: GameError, code: ErrorCode | None) -> GameError:
    assert code is None or error.code is code, f"refused as {error.code}, not {code}: {error.message}"
    return error


def unchanged(state: Any, before: Any) -> None:
    """``before`` must be a deep copy taken before the refused move."""
    assert state is not before, "compare against a deep copy, not the state itself"
    assert state == before, "a refused move changed the state"
