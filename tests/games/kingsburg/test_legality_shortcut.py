"""An influence's legality is checked without listing every group with every gift answer
stated in advance, and without listing every group: the answers must be exactly
``move in legal_moves`` and ``move in influence_moves`` for every influence a player could
write, legal or not."""

import pytest

from pbem.games.base import update
from pbem.games.kingsburg import SPEC, rules
from pbem.games.kingsburg.moves import Give, Influence, Take
from pbem.games.kingsburg.state import Placement
from pbem.games.simulate import play_random

from .support import influencing

ANSWERS = (None, Take(()), Take(("gold",)), Take(("wood", "stone")), Give("gold"))


def _near(move: Influence) -> list[Influence]:
    """The move, and moves a player might write instead: another answer, envoy, +2, advisor."""
    return [
        *(update(move, choice=c) for c in ANSWERS),
        update(move, envoy=not move.envoy),
        update(move, plus2=not move.plus2),
        update(move, advisor=move.advisor % 18 + 1),
    ]


def _same_answer(before, seat, move, facts, after):
    for state in (before, after):
        for s in range(len(state.players)):
            legal = SPEC.legal_moves(state, s)
            written = [m for m in legal if isinstance(m, Influence)]
            written += [near for m in written[:12] for near in _near(m)]
            written += [Influence(8, (5, 3)), Influence(3, (2, 1), choice=Take(("gold",)))]
            groups = rules.influence_moves(state, s)
            for candidate in written:
                assert SPEC._is_legal(state, s, candidate) == (candidate in legal), (s, candidate)
                assert rules.is_influence_move(state, s, candidate) == (candidate in groups), (s, candidate)


@pytest.mark.parametrize("players", [2, 4])
def test_the_influence_shortcut_agrees_with_the_list_of_legal_moves(players):
    for seed in range(3):
        play = play_random(SPEC, players, seed, options={"reinforcements": "tokens"}, on_step=_same_answer)
        assert play.state.over


@pytest.mark.parametrize("market_used", [False, True])
def test_the_shortcut_agrees_with_the_market_the_envoy_white_dice_and_plus2(market_used):
    # random games seldom build the Market; here seat 0 has it, the envoy, a white die and a +2
    # token, and the court has advisors free, taken once and taken twice
    state = influencing(
        p0={
            "dice": (5, 3, 1),
            "white": (2,),
            "plus2": 1,
            "market_used": market_used,
            "buildings": {"statue", "chapel", "inn", "market"},
        }
    )
    court = list(state.court)
    court[9] = (Placement(1, (4, 5)),)
    court[10] = (Placement(1, (6, 4)), Placement(2, (5, 5)))
    state = update(state, court=tuple(court), envoy=0)
    legal = SPEC.legal_moves(state, 0)
    groups = rules.influence_moves(state, 0)
    assert any(rules.uses_market(m) for m in groups) != market_used and any(m.envoy for m in groups)
    tried = [
        Influence(a, d, w, p, e, c)
        for a in range(0, 20)
        for d in ((5, 3, 1), (5, 3), (3, 5), (1,), ())
        for w in ((), (2,))
        for p in (False, True)
        for e in (False, True)
        for c in (None, Take(("gold",)))
    ]
    for candidate in tried:
        assert SPEC._is_legal(state, 0, candidate) == (candidate in legal), candidate
        assert rules.is_influence_move(state, 0, candidate) == (candidate in groups), candidate
