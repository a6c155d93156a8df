"""``next_to_own`` (building rule 3's "next to your own settlements", found from the
settlements) gives exactly the hexes for which ``touches`` holds, asked hex by hex."""

import pytest

from pbem.games.kingdom_builder import SPEC
from pbem.games.kingdom_builder.locations import next_to_own, touches
from pbem.games.simulate import play_random


def _same_as_asking_every_hex(before, seat, move, facts, after):
    hexes = range(len(after.owner))
    for s in range(after.players):
        for ignore in (-1, *sorted(after.homes[s])[:2]):
            assert next_to_own(after, s, ignore) == {h for h in hexes if touches(after, s, h, ignore)}


@pytest.mark.parametrize("players", [2, 4])
def test_next_to_own_is_touches_asked_of_every_hex(players):
    for seed in range(3):
        play = play_random(SPEC, players, seed, on_step=_same_as_asking_every_hex)
        assert play.state.over


def test_the_neighbour_relation_is_symmetric_on_a_played_board():
    board = play_random(SPEC, 2, 0).state.board
    for h, around in enumerate(board.neighbours):
        assert all(h in board.neighbours[n] for n in around)
