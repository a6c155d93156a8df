"""One test per rule of the year's first seven phases (aid, production seasons, gifts,
building, reward, envoy, recruitment)."""

from dataclasses import replace

import pytest

from pbem.games.base import GameError
from pbem.games.kingsburg import SPEC
from pbem.games.kingsburg.flow import neutral_groups
from pbem.games.kingsburg.moves import Build, Influence

from .support import (
    ANN,
    BRIAN,
    CINDY,
    Script,
    at,
    influencing,
    kinds,
    new_game,
    of_kind,
    play,
    refused,
    run,
    with_players,
)


def season(players=3, phase="spring", **by_seat):
    """A state at the start of a productive season, turn order = seat order."""
    state = at(new_game(players), phase, "start", order=tuple(range(players)))
    return with_players(state, **by_seat)


# -- phase 1 -----------------------------------------------------------------------------------
def test_kings_aid_goes_to_fewest_buildings():
    state = with_players(
        at(new_game(3), "aid", "start", year=2), p0={"buildings": {"statue"}}, p1={"buildings": {"statue", "inn"}}
    )
    state, facts = run(state)
    assert of_kind(facts, "AidGranted")[0]["seat"] == CINDY


def test_kings_aid_tie_on_buildings_goes_to_fewest_goods():
    state = with_players(at(new_game(3), "aid", "start", year=2), p0={"gold": 1}, p1={"wood": 2}, p2={"stone": 3})
    state, facts = run(state)
    assert of_kind(facts, "AidGranted")[0]["seat"] == ANN


def test_kings_aid_full_tie_gives_each_tied_player_a_good_and_no_die():
    state = with_players(at(new_game(3), "aid", "start", year=2), p0={"gold": 1}, p1={"wood": 1}, p2={"stone": 3})
    state, facts = run(state)
    assert of_kind(facts, "AidTied")[0]["seats"] == [ANN, BRIAN] and state.aid is None
    assert SPEC.to_move(state) == [ANN, BRIAN]
    assert SPEC.legal_texts(state, ANN) == ["take gold", "take wood", "take stone"]
    refused(state, CINDY, "take gold")


def test_kings_aid_white_die_only_in_spring():
    state, facts = run(season(3, "spring"), Script(seed=1))
    state = at(new_game(3), "summer", "start", order=(0, 1, 2), aid=BRIAN)
    state, facts = run(state, Script(seed=1))
    assert of_kind(facts, "DiceRolled")[0]["white"] == [[], [], []]
    state = at(new_game(3), "spring", "start", order=(0, 1, 2), aid=BRIAN)
    state, facts = run(state, Script(seed=1))
    assert [len(w) for w in of_kind(facts, "DiceRolled")[0]["white"]] == [0, 1, 0]


# -- rolling -------------------------------------------------------------------------------------
def test_merchants_guild_gives_gold_before_the_roll():
    guild = {"inn", "market", "farms", "merchants_guild"}
    _, facts = run(season(p1={"buildings": guild}), Script(seed=2))
    assert kinds(facts).index("GuildGoldTaken") < kinds(facts).index("DiceRolled")
    assert of_kind(facts, "GuildGoldTaken")[0]["seat"] == BRIAN


def test_farms_give_a_white_die_every_season():
    farms = {"inn", "market", "farms"}
    for phase in ("spring", "summer", "autumn"):
        _, facts = run(season(phase=phase, p2={"buildings": farms}), Script(seed=3))
        assert [len(w) for w in of_kind(facts, "DiceRolled")[0]["white"]] == [0, 0, 1]


def test_statue_rerolls_one_die_when_all_equal():
    state, _ = run(season(p0={"buildings": {"statue"}}), Script(4, 4, 4, 1, 2, 3, 1, 2, 3))
    assert SPEC.legal_texts(state, ANN) == ["reroll 4", "pass"]
    state, facts = play(state, ANN, "reroll 4", Script(6))
    assert state.players[ANN].dice == (6, 4, 4) and facts[0]["building"] == "statue"


def test_statue_is_not_offered_when_dice_differ():
    state, _ = run(season(p0={"buildings": {"statue"}}), Script(4, 4, 3, 1, 2, 3, 1, 2, 3))
    assert state.step == "influence"  # nobody could reroll, so the influence began


def test_chapel_rerolls_all_dice_when_total_is_seven_or_less():
    state, _ = run(season(p0={"buildings": {"statue", "chapel"}}), Script(3, 2, 2, 6, 6, 6, 6, 6, 5))
    assert SPEC.legal_texts(state, ANN) == ["reroll all", "pass"]
    state, _ = play(state, ANN, "reroll all", Script(5, 6, 1))
    assert state.players[ANN].dice == (6, 5, 1)


def test_statue_and_chapel_are_each_used_once_per_season():
    state, _ = run(season(p0={"buildings": {"statue", "chapel"}}), Script(1, 1, 1, 6, 6, 6, 6, 6, 5))
    state, _ = play(state, ANN, "reroll all", Script(2, 2, 2))
    assert SPEC.legal_texts(state, ANN) == ["reroll 2", "pass"]  # the Chapel is spent
    state, _ = play(state, ANN, "reroll 2", Script(2))
    assert state.step == "influence"


def test_rerolls_are_simultaneous_in_any_order():
    chapel = {"statue", "chapel"}
    state, _ = run(season(p0={"buildings": chapel}, p2={"buildings": chapel}), Script(1, 1, 2, 6, 6, 6, 1, 2, 2))
    assert SPEC.to_move(state) == [ANN, CINDY]
    state, _ = play(state, CINDY, "pass")
    assert SPEC.to_move(state) == [ANN]
    state, _ = play(state, ANN, "keep")
    assert state.step == "influence"


def test_turn_order_lowest_total_first_ties_keep_previous_order():
    state = at(new_game(3), "spring", "start", order=(CINDY, BRIAN, ANN))
    state, _ = run(state, Script(6, 6, 6, 1, 1, 1, 1, 1, 1))
    assert state.order == (CINDY, BRIAN, ANN)


# -- influence -----------------------------------------------------------------------------------
def test_influence_needs_the_exact_sum():
    state = influencing(p0={"dice": (5, 3, 1)})
    assert "sums to 8, not 7" in refused(state, ANN, "influence 7 with 5 3").message
    state, _ = play(state, ANN, "influence 9 with 5 3 1")
    assert state.court[9][0].dice == (5, 3, 1)


def test_influence_needs_at_least_one_coloured_die():
    state = influencing(p0={"dice": (5, 3, 1), "white": (4,)})
    with pytest.raises(GameError, match="coloured"):
        SPEC.parse_move(state, ANN, "influence 4 with white 4")


def test_white_dice_only_with_coloured_ones():
    state = influencing(p0={"dice": (5, 3, 1), "white": (4,)})
    state, _ = play(state, ANN, "influence 9 with 5 white 4")
    assert state.court[9][0].white == (4,) and state.players[ANN].white == ()


def test_plus2_token_adds_two_and_only_one_per_group():
    state = influencing(p0={"dice": (5, 3, 1), "plus2": 2})
    with pytest.raises(GameError):
        SPEC.parse_move(state, ANN, "influence 9 with 5 +2 +2")  # parsed as one +2: 7, not 9
    state, facts = play(state, ANN, "influence 7 with 5 +2")
    assert facts[0]["delta"] == {"plus2": -1} and state.players[ANN].plus2 == 1


def test_one_group_per_advisor_without_the_envoy():
    state = influencing(p0={"dice": (6, 2, 1)}, p1={"dice": (6, 5, 1)})
    state, _ = play(state, ANN, "influence 6 with 6")
    assert "already influenced" in refused(state, BRIAN, "influence 6 with 6").message
    assert "already influenced" in refused(state, BRIAN, "influence 6 with 5 1").message


def test_player_who_passes_is_out_for_the_season():
    state = influencing(p1={"dice": (6, 5, 1)}, p2={"dice": (4, 3, 2)})
    state, _ = play(state, ANN, "pass")
    state, _ = play(state, BRIAN, "influence 6 with 6")
    state, _ = play(state, CINDY, "influence 4 with 4")
    assert SPEC.to_move(state) == [BRIAN]  # Ann is skipped
    state, _ = play(state, BRIAN, "influence 5 with 5")
    assert SPEC.to_move(state) == [CINDY]


def test_player_with_no_fitting_group_passes_automatically():
    state = influencing(p0={"dice": (1,)}, p1={"dice": (1,)})
    state, facts = play(state, ANN, "influence 1 with 1")
    assert {"kind": "InfluencePassed", "seat": BRIAN, "auto": True} in facts


def test_market_is_used_once_per_season():
    state = influencing(p0={"buildings": {"inn", "market"}, "dice": (5, 2, 2)})
    state, _ = play(state, ANN, "influence 6 with 5")
    state = replace(state, cursor=0)
    assert "already used the Market" in refused(state, ANN, "influence 5 with 2 2").message


def test_influence_is_one_group_per_turn_in_turn_order():
    state = influencing()
    assert SPEC.to_move(state) == [ANN]
    state, _ = play(state, ANN, "influence 6 with 6")
    assert SPEC.to_move(state) == [BRIAN]


# -- building ------------------------------------------------------------------------------------
def building(**stock):
    state = at(new_game(3), "spring", "build", order=(0, 1, 2), cursor=0)
    return with_players(state, p0=stock)


def test_build_left_to_right_in_each_row():
    state = building(gold=9, wood=9, stone=9)
    legal = {m.building for m in SPEC.legal_moves(state, ANN) if isinstance(m, Build)}
    assert legal == {"statue", "inn", "guard_tower", "palisade", "barricade"}
    assert "needs the Statue" in refused(state, ANN, "build chapel").message


def test_build_each_building_once():
    state = building(gold=9, wood=9, stone=9, buildings={"statue"})
    assert "already have" in refused(state, ANN, "build statue").message


def test_build_needs_the_goods():
    state = building(gold=1, wood=1)
    assert "costs 2 gold" in refused(state, ANN, "build statue").message


def test_build_one_building_per_season():
    state = with_players(building(gold=9, wood=9, stone=9), p1={"gold": 2})
    state, _ = play(state, ANN, "build statue")
    assert SPEC.to_move(state) == [BRIAN]
    assert state.players[ANN].buildings == {"statue"}


def test_crane_discount_applies_to_columns_three_and_four_only():
    state = building(gold=1, wood=3, stone=1, buildings={"barricade", "crane", "inn", "market"})
    assert Build("farms") in SPEC.legal_moves(state, ANN)
    state = building(gold=1, wood=3, stone=1, buildings={"inn"})
    assert Build("market") not in SPEC.legal_moves(state, ANN)


def test_player_who_cannot_afford_anything_is_skipped():
    state = building(gold=0)
    state, facts = run(state)
    assert of_kind(facts, "BuildPassed")[0] == {"kind": "BuildPassed", "seat": ANN, "auto": True}


# -- end of season ---------------------------------------------------------------------------------
def end_of(phase, **stock):
    state = at(new_game(3), phase, "build", order=(0, 1, 2), cursor=3)
    return run(with_players(state, p0=stock))


def test_inn_gives_a_plus2_token_at_the_end_of_summer_only():
    summer, facts = end_of("summer", buildings={"inn"})
    assert of_kind(facts, "InnTokenTaken") == [{"kind": "InnTokenTaken", "seat": ANN, "delta": {"plus2": 1}}]
    assert summer.players[ANN].plus2 == 1
    _, facts = end_of("spring", buildings={"inn"})
    assert of_kind(facts, "InnTokenTaken") == []


def test_inn_token_can_pay_the_town_hall_at_once():
    town = {"inn", "barricade", "crane", "town_hall"}
    state, facts = end_of("summer", buildings=town)
    assert SPEC.legal_texts(state, ANN) == ["townhall +2", "pass"]
    state, facts = play(state, ANN, "radnice +2")
    assert facts[0]["delta"] == {"plus2": -1, "vp": 1}


def test_town_hall_pays_one_good_or_plus2_for_one_vp_once_a_season():
    town = {"barricade", "crane", "town_hall"}
    state, _ = end_of("autumn", buildings=town, wood=2, plus2=1)
    assert SPEC.legal_texts(state, ANN) == ["townhall wood", "townhall +2", "pass"]
    state, facts = play(state, ANN, "townhall wood")
    assert facts[0]["delta"] == {"wood": -1, "vp": 1}
    assert state.phase != "autumn" and ANN not in SPEC.to_move(state)


def test_embassy_gives_one_vp_at_the_end_of_every_season_including_the_one_built():
    row = ["barricade", "crane", "town_hall"]
    state = at(new_game(3), "spring", "build", order=(0, 1, 2), cursor=0)
    state = with_players(state, p0={"buildings": set(row), "gold": 2, "wood": 2, "stone": 2})
    state, facts = play(state, ANN, "build embassy")
    state, more = run(state) if not SPEC.to_move(state) else (state, [])
    if SPEC.to_move(state) == [ANN]:
        state, more = play(state, ANN, "pass")  # the Town Hall
    assert {"kind": "EmbassyScored", "seat": ANN, "delta": {"vp": 1}} in facts + more


def test_kings_reward_gives_one_vp_to_all_with_most_buildings():
    state = at(new_game(3), "reward", "start", order=(0, 1, 2))
    state = with_players(state, p0={"buildings": {"statue", "inn"}}, p2={"buildings": {"inn", "market"}})
    state, facts = run(state, Script(seed=5))
    assert [f["seat"] for f in of_kind(facts, "KingsRewardGiven")] == [ANN, CINDY]


# -- envoy ------------------------------------------------------------------------------------------
def test_unused_envoy_returns_at_next_phase_five_and_is_reassigned():
    state = at(new_game(3), "envoy", "start", year=3, order=(0, 1, 2), envoy=ANN)
    state = with_players(state, p0={"buildings": {"statue"}}, p1={"buildings": {"statue"}})
    state, facts = run(state, Script(seed=6))
    assert kinds(facts)[:2] == ["EnvoyReturned", "EnvoyAwarded"]
    assert state.envoy == CINDY


def test_envoy_is_used_only_once():
    state = influencing(p0={"dice": (6, 6, 1)})
    state = replace(state, envoy=ANN)
    state, _ = play(state, ANN, "influence 6 with 6")
    state, _ = play(state, BRIAN, "influence 12 with 6 6")
    state, _ = play(state, CINDY, "pass")
    state, _ = play(state, ANN, "influence 6 with 6 envoy")
    assert state.envoy is None
    assert Influence(12, (6, 6), envoy=True) not in SPEC.legal_moves(state, ANN)


def test_envoy_cannot_be_used_on_a_free_advisor():
    state = replace(influencing(), envoy=ANN)
    assert "is free" in refused(state, ANN, "influence 6 with 6 envoy").message


# -- recruitment ----------------------------------------------------------------------------------
def test_recruit_costs_two_goods_per_soldier():
    state = at(new_game(3), "recruit", "recruit", order=(0, 1, 2), cursor=0)
    state = with_players(state, p0={"gold": 1, "wood": 2, "stone": 1})
    state, facts = play(state, ANN, "recruit 2 pay gold wood wood stone")
    assert facts[0]["delta"] == {"gold": -1, "wood": -2, "stone": -1, "soldiers": 2}


def test_recruit_without_payment_pays_from_the_largest_stock():
    state = at(new_game(3), "recruit", "recruit", order=(0, 1, 2), cursor=0)
    state = with_players(state, p0={"gold": 3, "wood": 1, "stone": 2})
    move = SPEC.parse_move(state, ANN, "naverbuj 1")
    assert SPEC.format_move(move) == "recruit 1 pay gold stone"


def test_recruit_any_number_or_none():
    state = at(new_game(3), "recruit", "recruit", order=(0, 1, 2), cursor=0)
    state = with_players(state, p0={"gold": 2, "wood": 2})
    texts = SPEC.legal_texts(state, ANN)
    assert "recruit 2 pay 2 gold 2 wood" in texts and "pass" in texts
    assert "recruit 1 pay gold" not in texts


# -- two players --------------------------------------------------------------------------------
def test_two_players_neutral_dice_block_two_advisors():
    assert neutral_groups([6, 5, 1], [4, 3]) == [{"advisor": 12, "dice": [6, 5, 1]}, {"advisor": 7, "dice": [4, 3]}]


def test_two_players_neutral_dice_split_when_the_sum_is_taken():
    assert neutral_groups([3, 2, 2], [5, 2]) == [
        {"advisor": 7, "dice": [3, 2, 2]},
        {"advisor": 5, "dice": [5]},
        {"advisor": 2, "dice": [2]},
    ]
    assert neutral_groups([4, 1, 1], [3, 3]) == [{"advisor": 6, "dice": [4, 1, 1]}, {"advisor": 3, "dice": [3]}]


def test_two_players_blocked_advisors_only_with_the_envoy():
    state = at(new_game(2), "spring", "start", order=(0, 1))
    state, facts = run(state, Script(6, 5, 1, 4, 3, 6, 4, 2, 5, 5, 2))
    assert of_kind(facts, "NeutralDiceRolled")[0]["groups"][0]["advisor"] == 12
    assert state.court[12][0].seat == -1 and state.court[7][0].seat == -1
    assert "neutral dice" in refused(state, ANN, "influence 12 with 6 4 2").message
    state = replace(state, envoy=ANN)
    state, facts = play(state, ANN, "influence 12 with 6 4 2 envoy")
    assert state.court[12][1].seat == ANN
