"""1,000 seeded random games over 2-6 players with the game's invariants checked after every move."""

import pytest

from pbem.games.ruse_and_bruise import SPEC
from pbem.games.ruse_and_bruise.cards import CARD_IDS, DECK_SIZE
from pbem.games.simulate import play_random

GAMES_PER_COUNT = 200  # x 5 player counts = 1,000 games


def _cards_of(state, seat):
    cards = list(state.decks[seat]) + list(state.hands[seat]) + list(state.discards[seat])
    cards += [slot.card for column in state.columns for slot in column.slots if slot.owner == seat]
    return cards


def _invariants(players):
    def on_step(before, seat, move, facts, after):
        for owner in range(players):
            cards = _cards_of(after, owner)
            assert len(cards) == DECK_SIZE and sorted(cards) == sorted(CARD_IDS)
        for viewer in [None, *range(players)]:
            view = SPEC.view(after, viewer)
            assert view.get("hand") == (None if viewer is None else list(after.hands[viewer]))
            for column, shown in zip(after.columns, view["columns"], strict=False):
                for slot, card in zip(column.slots, shown["cards"], strict=False):
                    visible = slot.face_up or slot.known or slot.owner == viewer
                    assert card["card"] == (slot.card if visible else None)
        if not after.finished:
            assert SPEC.to_move(after) and SPEC.legal_moves(after, SPEC.to_move(after)[0])

    return on_step


@pytest.mark.parametrize("players", range(SPEC.min_players, SPEC.max_players + 1))
def test_random_games_keep_every_invariant(players, random_games):
    for seed in range(random_games(GAMES_PER_COUNT)):
        play = play_random(SPEC, players, seed, on_step=_invariants(players))
        standings = play.standings
        assert standings is not None and play.state.round == 6
        assert sum(len(goals) for goals in play.state.won) <= 6 * players
