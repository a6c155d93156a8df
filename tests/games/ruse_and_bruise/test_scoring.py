"""Column scoring in the rulebook's order (pages 3, 5 and 6), on hand-built columns.

Seat 0 is "blue", seat 1 "white". Numbers in results are half points (the Assassin is 9.5).
"""

from pbem.games.ruse_and_bruise.scoring import score_column

from .helpers import column, under_cloak, up

GOAL = "trade-3a"  # a Trade goal card: the Merchant is the specialist at home here


def win(*slots, goal=GOAL):
    return score_column(column(goal, *slots))


def test_highest_sum_wins():
    """p. 3: the player with the highest sum under a goal card wins it."""
    result = win(up(0, "queen"), up(1, "king"))
    assert result.winner == 1 and result.sums == {0: 32, 1: 40} and result.reason == "highest"


def test_rulebook_example_1_a_tie_goes_to_the_card_closest_to_the_goal_card():
    # Blue and White both have 16; Blue's card lies nearer the goal card.
    result = win(up(0, "queen"), up(1, "juliet"), up(1, "squire"))
    assert result.sums == {0: 32, 1: 32}
    assert result.winner == 0
    result = win(up(1, "juliet"), up(0, "queen"), up(1, "squire"))
    assert result.winner == 1


def test_rulebook_example_2_the_wizard_removes_the_king():
    result = win(up(0, "king"), up(1, "wizard"))
    assert result.winner == 1
    assert [(slot.owner, slot.card) for _, slot in result.removed] == [(0, "king")]


def test_specialists_count_12_under_their_own_suit_and_8_elsewhere():
    assert win(up(0, "merchant"), up(1, "minstrel")).sums == {0: 24, 1: 16}
    assert win(up(0, "merchant"), up(1, "minstrel"), goal="music-2").sums == {0: 16, 1: 24}


def test_musketeers_cancel_every_other_ability_but_not_the_specialist_12():
    result = win(up(0, "king"), up(1, "wizard"), up(1, "musketeers"), up(0, "merchant"), up(1, "doppelganger"))
    assert result.removed == () and result.musketeers
    assert result.numbers == {0: 40, 1: 14, 2: 22, 3: 24, 4: None}
    assert result.winner == 0


def test_musketeers_leave_romeo_hermit_little_giant_dragon_and_beggar_at_their_printed_numbers():
    result = win(
        up(0, "musketeers"),
        up(0, "romeo"),
        up(0, "juliet"),
        up(1, "hermit"),
        up(1, "little_giant"),
        up(1, "dragon"),
        up(1, "beggar"),
    )
    assert result.numbers == {0: 22, 1: 10, 2: 28, 3: 24, 4: 4, 5: 22, 6: 8}
    assert result.reason == "highest"


def test_several_musketeers_still_cancel_all_abilities():
    result = win(up(0, "musketeers"), up(1, "musketeers"), up(1, "wizard"), up(0, "king"))
    assert result.removed == () and result.winner == 0


def test_wizard_removes_every_card_numbered_10_or_more():
    result = win(up(0, "king"), up(0, "queen"), up(1, "wizard"), up(1, "traitor"), up(0, "storm"), up(0, "merchant"))
    assert sorted(slot.card for _, slot in result.removed) == ["king", "merchant", "queen", "traitor"]
    assert result.winner == 0  # the Storm's 9 beats the Wizard's 7


def test_two_wizards_cancel_each_other():
    result = win(up(0, "king"), up(1, "wizard"), up(1, "witch"), up(0, "wizard"))
    assert not any(slot.card == "king" for _, slot in result.removed)


def test_witch_removes_every_card_numbered_9_or_less_but_herself():
    result = win(up(0, "storm"), up(0, "beggar"), up(1, "witch"), up(0, "merchant"), up(1, "minstrel"))
    assert sorted(slot.card for _, slot in result.removed) == ["beggar", "minstrel", "storm"]
    assert result.winner == 0 and result.sums == {0: 24, 1: 2}


def test_two_witches_cancel_each_other():
    result = win(up(0, "storm"), up(1, "witch"), up(0, "witch"))
    assert result.removed == ()


def test_the_assassins_9_and_a_half_escape_both_wizard_and_witch():
    result = win(up(0, "assassin"), up(1, "wizard"))
    assert result.removed == () and result.sums[0] == 19
    result = win(up(0, "assassin"), up(1, "witch"))
    assert result.removed == ()


def test_wizard_and_witch_judge_printed_numbers_not_modified_ones():
    # Romeo with his Juliet counts 15 but is judged as 5; a crowded Hermit as 12.
    result = win(up(0, "romeo"), up(1, "witch"), up(0, "juliet"))
    assert [slot.card for _, slot in result.removed] == ["romeo"]
    crowded = [up(0, "squire"), up(0, "beggar"), up(1, "storm"), up(1, "romeo")]
    result = win(up(1, "hermit"), up(0, "wizard"), *crowded)
    assert [slot.card for _, slot in result.removed] == ["hermit"]


def test_wizard_acts_before_witch():
    result = win(up(0, "king"), up(1, "wizard"), up(1, "witch"), up(0, "romeo"))
    assert [slot.card for _, slot in result.removed] == ["king", "wizard", "romeo"]
    assert result.winner == 1


def test_prince_and_squire_of_one_colour_win_the_goal_outright():
    result = win(up(1, "king"), up(1, "queen"), up(0, "prince"), up(0, "squire"))
    assert result.winner == 0 and result.reason == "prince-and-squire"


def test_of_two_prince_and_squire_pairs_the_one_closer_to_the_goal_wins():
    result = win(up(1, "squire"), up(0, "prince"), up(1, "prince"), up(0, "squire"))
    assert result.winner == 1
    result = win(up(0, "prince"), up(1, "squire"), up(1, "prince"), up(0, "squire"))
    assert result.winner == 0


def test_the_witch_breaks_a_prince_and_squire_pair():
    result = win(up(1, "king"), up(0, "prince"), up(0, "squire"), up(1, "witch"))
    assert result.reason == "highest" and result.winner == 1


def test_hermit_loses_1_per_other_card_after_removals():
    assert win(up(0, "hermit"), up(1, "romeo"), up(1, "storm")).numbers[0] == 20
    result = win(up(0, "hermit"), up(1, "king"), up(1, "queen"), up(0, "wizard"))
    assert result.numbers == {3: 14}  # the Hermit itself is removed by the Wizard
    result = win(up(0, "hermit"), up(1, "storm"), up(1, "romeo"), up(0, "witch"))
    assert result.numbers[0] == 22  # two cards removed: only the Witch is another card


def test_little_giant_gains_3_per_other_card():
    assert win(up(0, "little_giant"), up(1, "romeo"), up(1, "storm")).numbers[0] == 16


def test_doppelganger_copies_the_number_of_the_card_below_it():
    result = win(up(0, "doppelganger"), up(1, "queen"))
    assert result.numbers == {0: 32, 1: 32}


def test_doppelganger_is_judged_as_the_card_it_copies_and_leaves_with_it():
    result = win(up(0, "doppelganger"), up(1, "king"), up(1, "wizard"))
    assert {slot.card for _, slot in result.removed} == {"doppelganger", "king"}
    result = win(up(0, "doppelganger"), up(1, "romeo"), up(1, "witch"), up(0, "king"))
    assert {slot.card for _, slot in result.removed} == {"doppelganger", "romeo"}


def test_doppelganger_copies_the_next_remaining_card_below_it():
    from pbem.games.ruse_and_bruise.scoring import own_number

    entries = [(0, up(0, "doppelganger")), (3, up(1, "queen"))]  # positions 1 and 2 were removed
    assert own_number(entries, 0, "trade", True) == 32


def test_doppelganger_at_the_bottom_has_no_number():
    result = win(up(1, "storm"), up(0, "doppelganger"))
    assert result.numbers[1] is None and result.sums[0] == 0


def test_a_doppelganger_on_a_doppelganger_copies_only_a_number_the_lower_one_got():
    assert win(up(0, "doppelganger"), up(1, "doppelganger"), up(1, "queen")).numbers == {0: 32, 1: 32, 2: 32}
    assert win(up(1, "queen"), up(0, "doppelganger"), up(1, "doppelganger")).numbers == {0: 32, 1: None, 2: None}


def test_doppelganger_copies_the_number_a_card_has_by_its_own_rules_but_no_ability():
    result = win(up(1, "doppelganger"), up(0, "romeo"), up(0, "juliet"))
    assert result.numbers == {0: 30, 1: 30, 2: 28}
    result = win(up(1, "doppelganger"), up(0, "dragon"), up(0, "queen"))
    assert result.numbers[0] == 18  # copies 11, then the Dragon lowers it by 2; it lowers nothing itself
    assert result.numbers[2] == 32


def test_dragon_lowers_other_players_cards_by_2_and_spares_its_owners():
    result = win(up(0, "dragon"), up(0, "queen"), up(1, "king"))
    assert result.numbers == {0: 22, 1: 32, 2: 36}


def test_several_dragons_stack_and_each_spares_only_its_own_owner():
    result = win(up(0, "dragon"), up(1, "dragon"), up(2, "dragon"), up(2, "king"))
    assert result.numbers == {0: 14, 1: 14, 2: 14, 3: 32}


def test_a_number_never_drops_below_zero():
    result = win(up(0, "dragon"), up(2, "dragon"), up(1, "squire"), up(1, "cloak"))
    assert result.numbers[2] == 0 and result.numbers[3] == 0 and result.sums[1] == 0


def test_romeo_counts_15_with_his_own_juliet_only():
    assert win(up(0, "romeo"), up(0, "juliet")).numbers[0] == 30
    assert win(up(0, "romeo"), up(1, "juliet")).numbers[0] == 10


def test_beggar_gives_the_goal_to_the_lowest_sum():
    result = win(up(0, "beggar"), up(1, "king"))
    assert result.reason == "lowest" and result.winner == 0
    result = win(up(1, "beggar"), up(1, "king"), up(0, "queen"))
    assert result.sums == {0: 32, 1: 48} and result.winner == 0


def test_beggar_tie_goes_to_the_card_farthest_from_the_goal():
    result = win(up(0, "beggar"), up(1, "beggar"))
    assert result.sums == {0: 8, 1: 8} and result.winner == 1


def test_beggar_a_lone_cloak_is_the_lowest_sum():
    result = win(up(0, "beggar"), up(1, "cloak"))
    assert result.sums[1] == 0 and result.winner == 1


def test_beggar_a_numberless_doppelganger_alone_cannot_win():
    result = win(up(0, "beggar"), up(1, "doppelganger"))
    assert result.sums == {0: 8, 1: 0} and result.winner == 0


def test_a_card_under_the_cloak_scores_for_the_cloak_owner():
    result = win(up(0, "cloak"), under_cloak(0, "king"), up(1, "queen"))
    assert result.sums == {0: 40, 1: 32} and result.winner == 0


def test_the_witch_removes_the_cloak_but_a_high_card_under_it_stays():
    result = win(up(0, "cloak"), under_cloak(0, "king"), up(1, "witch"), up(1, "storm"))
    assert {slot.card for _, slot in result.removed} == {"cloak", "storm"}
    assert result.winner == 0


def test_the_wizard_removes_a_high_card_under_the_cloak():
    result = win(up(0, "cloak"), under_cloak(0, "king"), up(1, "wizard"))
    assert [slot.card for _, slot in result.removed] == ["king"] and result.winner == 1


def test_scoring_abilities_of_a_card_under_the_cloak_apply():
    result = win(up(0, "cloak"), under_cloak(0, "wizard"), up(1, "king"))
    assert [slot.card for _, slot in result.removed] == ["king"] and result.winner == 0


def test_a_doppelganger_over_the_cloak_copies_the_cloak_not_the_hidden_card():
    result = win(up(1, "doppelganger"), up(0, "cloak"), under_cloak(0, "king"))
    assert result.numbers[0] == 0


def test_an_empty_column_has_no_winner():
    """p. 3: a goal card goes to the highest sum in its column; a column without cards gives it to
    nobody."""
    assert win().winner is None
