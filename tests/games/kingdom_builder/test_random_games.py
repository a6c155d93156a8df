"""1,002 seeded random games over 2, 3 and 4 players, with invariants after every move.

Every game must end by the 40-settlement rule, give standings, and render as well-formed SVG.
"""

import xml.etree.ElementTree as ET

import pytest

from pbem.games.kingdom_builder import SPEC
from pbem.games.kingdom_builder.data import MANDATORY, SETTLEMENTS
from pbem.games.simulate import play_random

GAMES_PER_COUNT = 334


def _invariants(before, seat, move, facts, after):
    assert facts and seat == before.seat
    for s in range(after.players):
        assert after.supply[s] + len(after.homes[s]) == SETTLEMENTS
        assert all(after.owner[x] == s for x in after.homes[s])
        for loc in after.held[s]:  # a tile is kept only next to an own settlement
            assert any(after.owner[n] == s for n in after.board.neighbours[loc])
    assert sum(len(homes) for homes in after.homes) == sum(1 for o in after.owner if o >= 0)
    assert all(0 <= left <= 2 for left in after.tiles_left)
    assert 0 <= after.built <= MANDATORY
    cards = len(after.deck) + len(after.discard) + after.removed + sum(c is not None for c in after.hands)
    assert cards + (after.played is not None) == 25
    if not after.over:  # whoever is to move has something to do
        assert SPEC.legal_moves(after, after.seat)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_end_by_the_forty_settlement_rule(players, random_games):
    for seed in range(random_games(GAMES_PER_COUNT)):
        play = play_random(SPEC, players, seed, on_step=_invariants)
        state = play.state
        assert state.over and min(state.supply) == 0, f"seed {seed}"
        standings = play.standings
        assert sorted(s.seat for s in standings) == list(range(players))
        assert min(s.rank for s in standings) == 1
        assert play.facts[-1]["kind"] == "GameEnded"
        svg = SPEC.render_svg(SPEC.view(state, None), [f"P{s}" for s in range(players)])
        assert ET.fromstring(svg).tag.endswith("svg")
