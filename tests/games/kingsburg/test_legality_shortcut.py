"""An influence's legality is checked without listing every group with every gift answer
stated in advance; the answer must be exactly ``move in legal_moves`` for every influence
a player could write, legal or not."""

import pytest

from pbem.games.base import update
from pbem.games.kingsburg import SPEC
from pbem.games.kingsburg.moves import Give, Influence, Take
from pbem.games.simulate import play_random

ANSWERS = (None, Take(()), Take(("gold",)), Take(("wood", "stone")), Give("gold"))


def _near(move: Influence) -> list[Influence]:
    """The move, and moves a player might write instead: another answer, envoy, +2, advisor."""
    return [*(update(move, choice=c) for c in ANSWERS), update(move, envoy=not move.envoy),
            update(move, plus2=not move.plus2), update(move, advisor=move.advisor % 18 + 1)]


def _same_answer(before, seat, move, facts, after):
    for state in (before, after):
        for s in range(len(state.players)):
            legal = SPEC.legal_moves(state, s)
            written = [m for m in legal if isinstance(m, Influence)]
            written += [near for m in written[:12] for near in _near(m)]
            written += [Influence(8, (5, 3)), Influence(3, (2, 1), choice=Take(("gold",)))]
            for candidate in written:
                assert SPEC._is_legal(state, s, candidate) == (candidate in legal), (s, candidate)


@pytest.mark.parametrize("players", [2, 4])
def test_the_influence_shortcut_agrees_with_the_list_of_legal_moves(players):
    for seed in range(3):
        play = play_random(SPEC, players, seed, options={"reinforcements": "tokens"}, on_step=_same_answer)
        assert play.state.over


