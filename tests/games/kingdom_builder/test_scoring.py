"""The 10 kingdom cards and the castles (rulebook p. 4-5), with the rulebook's examples."""

from pbem.games.base import SeededRng
from pbem.games.kingdom_builder import SPEC, scoring
from pbem.games.kingdom_builder.board import name

from .helpers import position


def sector_hexes(sector, count):
    """``count`` hexes of one board section (0 top-left ... 3 bottom-right), any terrain."""
    state = position()
    return [name(x) for x in range(400) if state.board.sector[x] == sector][:count]


def test_fishermen_one_gold_per_settlement_next_to_water_but_none_on_water():
    # D7 touches D6/E7/D8 water, E5 touches D5 water, K8 no water, D6 stands on water
    state = position({0: ["D7", "E5", "K8", "D6"], 1: ["A1"]})
    assert scoring.fishermen(state) == [2, 0]


def test_miners_one_gold_per_settlement_next_to_a_mountain():
    state = position({0: ["G3", "A1", "E2"], 1: ["J8"]})  # H3 and E1 are mountains
    assert scoring.miners(state) == [2, 0]


def test_workers_one_gold_per_settlement_next_to_a_location_or_castle():
    state = position({0: ["B6", "C4", "A1", "C6"]})  # B6, C6 at tavern C7; C4 at castle D4
    assert scoring.workers(state) == [3, 0]


def test_merchants_four_gold_per_location_or_castle_linked_to_another():
    # H8-I8-J8-K8 joins tavern H7 and paddock L7; B6 alone touches tavern C7 only
    state = position({0: ["H8", "I8", "J8", "K8", "B6"], 1: ["B8"]})
    assert scoring.merchants(state) == [8, 0]


def test_merchants_counts_a_location_once_and_needs_a_chain():
    state = position({0: ["H8", "I8", "J8", "K8", "G8"], 1: ["I10"]})
    assert scoring.merchants(state)[0] == 8
    broken = position({0: ["H8", "I8", "K8"]})
    assert scoring.merchants(broken) == [0, 0]


def test_discoverers_one_gold_per_row_with_a_settlement():
    state = position({0: ["A1", "B1", "E5", "T20"]})
    assert scoring.discoverers(state) == [3, 0]


def test_knights_two_gold_per_settlement_in_the_fullest_row_only_once():
    # the rulebook's example: 3 settlements in the best row = 6 gold
    state = position({0: ["H9", "I9", "J9", "E5", "F5"]})
    assert scoring.knights(state) == [6, 0]
    tied = position({0: ["H9", "I9", "J9", "E5", "F5", "G5"]})
    assert scoring.knights(tied) == [6, 0]


def test_hermits_one_gold_per_settlement_area():
    state = position({0: ["E5", "F5", "H9", "I9", "A1"]})
    assert scoring.hermits(state) == [3, 0]


def test_citizens_one_gold_per_two_settlements_of_the_largest_area():
    state = position({0: ["H9", "I9", "J9", "K9", "L9", "A1", "B1", "C1", "D1"]})
    assert scoring.citizens(state) == [2, 0]


def test_lords_twelve_to_the_most_six_to_the_next_and_ties_share():
    # the rulebook's example in one section: 8, 8, 6, 2 settlements -> 12, 12, 6, 0
    hexes = sector_hexes(0, 24)
    state = position({0: hexes[:8], 1: hexes[8:16], 2: hexes[16:22], 3: hexes[22:24]}, players=4)
    assert scoring.lords(state) == [12, 12, 6, 0]


def test_lords_second_place_tie_and_nothing_for_an_empty_section():
    hexes = sector_hexes(1, 11)
    state = position({0: hexes[:5], 1: hexes[5:8], 2: hexes[8:11]}, players=4)
    assert scoring.lords(state) == [12, 6, 6, 0]
    alone = position({0: sector_hexes(2, 4)}, players=2)
    assert scoring.lords(alone) == [12, 0]


def test_lords_adds_up_over_the_four_sections():
    state = position({0: sector_hexes(0, 3) + sector_hexes(1, 1), 1: sector_hexes(1, 5)[1:3] + sector_hexes(0, 5)[3:4]})
    # section 0: 3 vs 1 -> 12 + 6; section 1: 1 vs 2 -> 6 + 12
    assert scoring.lords(state) == [18, 18]


def test_farmers_the_rulebook_example_four_times_three_is_twelve():
    settlements = sector_hexes(0, 10) + sector_hexes(1, 6) + sector_hexes(2, 6) + sector_hexes(3, 4)
    state = position({0: settlements})
    assert scoring.sector_counts(state, 0) == [10, 6, 6, 4]
    assert scoring.farmers(state) == [12, 0]


def test_farmers_gives_nothing_without_a_settlement_in_every_section():
    state = position({0: sector_hexes(0, 5) + sector_hexes(1, 5) + sector_hexes(2, 5)})
    assert scoring.farmers(state) == [0, 0]


def test_castles_three_gold_per_castle_with_an_adjacent_settlement():
    # D4 and P8 are castles; two settlements at D4 still give 3 once
    state = position({0: ["C4", "E4", "O8"], 1: ["E5"]})
    assert scoring.castles(state) == [6, 3]


def test_final_scores_add_the_three_cards_and_the_castles():
    state = position({0: ["H8", "I8", "J8", "K8", "C4"]}, cards=("merchants", "knights", "hermits"))
    (mine, other) = scoring.final_scores(state)
    assert mine == {"seat": 0, "gold": {"merchants": 8, "knights": 8, "hermits": 2, "castles": 3}, "total": 21}
    assert other["total"] == 0


def test_most_gold_wins_and_ties_share_the_win():
    state = position(
        {0: ["C4"], 1: ["E4"]}, players=3, seat=2, played="G", supply={2: 1}, cards=("miners", "hermits", "knights")
    )
    move = SPEC.default_move(state, 2)
    facts = SPEC.decide(state, 2, move, SeededRng(0))
    for fact in facts:
        state = SPEC.evolve(state, fact)
    standings = {s.seat: (s.rank, s.score) for s in SPEC.outcome(state)}
    assert standings[0][0] == standings[1][0] == 1 and standings[0][1] == standings[1][1] == 6
    assert standings[2][0] == 3
