"""Card data against the component list (rulebook page 1) and the card pages (4-6)."""

from collections import Counter

from pbem.games.base import SeededRng
from pbem.games.ruse_and_bruise import SPEC
from pbem.games.ruse_and_bruise.cards import CARDS, DECK_SIZE, GOALS, HAND_SIZE, ROUNDS, SUITS, show_halves


def test_every_colour_has_25_different_influence_cards():
    assert DECK_SIZE == 25 and len(set(CARDS)) == 25


def test_36_goal_cards_six_per_suit_valued_1_2_3_3_4_5():
    assert len(GOALS) == 36 and len(SUITS) == 6
    for suit in SUITS:
        assert sorted(g.value for g in GOALS.values() if g.suit == suit) == [1, 2, 3, 3, 4, 5]


def test_each_player_brings_six_goal_cards_into_the_goal_deck():
    for players in range(2, 7):
        goal_deck = next(f for f in SPEC.setup(players, {}, SeededRng(players)) if f["kind"] == "GoalDeckShuffled")
        assert goal_deck["count"] == 6 * players and len(set(goal_deck["secret"]["data"]["order"])) == 6 * players


def test_hand_of_three_and_six_rounds():
    """Setup (p. 1-2): a hand of 3 cards; the game lasts 6 rounds."""
    assert HAND_SIZE == 3 and ROUNDS == 6


def test_printed_numbers():
    numbers = {card.id: card.halves for card in CARDS.values()}
    assert numbers["king"] == 40 and numbers["queen"] == 32 and numbers["juliet"] == 28
    assert numbers["assassin"] == 19 and show_halves(numbers["assassin"]) == "9½"
    assert numbers["cloak"] == 0 and numbers["witch"] == 2 and numbers["doppelganger"] is None
    assert Counter(card.kind for card in CARDS.values()) == Counter(
        {"plain": 3, "specialist": 6, "on_reveal": 5, "scoring": 11}
    )


def test_six_specialists_one_per_suit_count_12_at_home_and_8_elsewhere():
    specialists = [card for card in CARDS.values() if card.kind == "specialist"]
    assert sorted(card.suit for card in specialists) == sorted(SUITS)
    for card in specialists:
        assert card.printed_halves(card.suit) == 24
        assert {card.printed_halves(other) for other in SUITS if other != card.suit} == {16}


def test_the_wizard_and_witch_lists_of_the_rulebook_match_the_numbers():
    # Wizard list (10 or more): King, Queen, Juliet, home specialists, Explorer, Traitor, Prince,
    # Hermit, Dragon (Musketeers, 11, cancel the Wizard anyway). Witch list: the rest but the
    # Assassin (9.5) and the numberless Doppelganger.
    high = {c.id for c in CARDS.values() if c.halves is not None and c.halves >= 20}
    assert high == {"king", "queen", "juliet", "explorer", "traitor", "prince", "hermit", "dragon", "musketeers"}
    low = {c.id for c in CARDS.values() if c.halves is not None and c.halves <= 18 and c.kind != "specialist"}
    assert low == {"storm", "cloak", "wizard", "witch", "squire", "little_giant", "romeo", "beggar"}
