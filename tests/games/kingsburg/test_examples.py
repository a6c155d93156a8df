"""Every worked example of the Czech (seed 000) and Polish (seed 004) rulebooks, with their
numbers. Ann = seat 0, Brian = 1, Cindy = 2, David = 3; the starting order of the setup example
is Cindy, Ann, David, Brian."""

import pytest

from pbem.games.base import GameError
from pbem.games.kingsburg import SPEC
from pbem.games.kingsburg.moves import Influence
from pbem.games.kingsburg.state import Placement

from .support import (
    ANN,
    BRIAN,
    CINDY,
    DAVID,
    Script,
    at,
    new_game,
    of_kind,
    play,
    run,
    with_players,
)

SPRING_DICE = (1, 3, 5, 4, 4, 5, 2, 2, 6, 2, 3, 5)  # Ann, Brian, Cindy, David (seat order)


def after_year_one_aid():
    state, facts = run(new_game(order=[CINDY, ANN, DAVID, BRIAN]))
    assert of_kind(facts, "AidTied")[0]["seats"] == [0, 1, 2, 3]
    state, _ = play(state, BRIAN, "take stone")  # simultaneous: any order
    state, _ = play(state, ANN, "take wood")
    state, _ = play(state, DAVID, "vezmi zlato")
    state, facts = play(state, CINDY, "take gold", Script(*SPRING_DICE))
    return state, facts


def after_influence():
    state, _ = after_year_one_aid()
    for seat, text in [
        (ANN, "influence 8 with 5 3"),
        (CINDY, "influence 4 with 2 2"),
        (DAVID, "influence 7 with 5 2"),
        (BRIAN, "influence 9 with 5 4"),
        (ANN, "influence 1 with 1"),
        (CINDY, "influence 6 with 6"),
    ]:
        state, _ = play(state, seat, text)
    return play(state, DAVID, "influence 3 with 3")


def after_gifts():
    state, _ = after_influence()
    state, _ = play(state, CINDY, "take wood")  # Merchant
    state, _ = play(state, CINDY, "give wood")  # Alchemist: the wood for 1 gold + 1 stone
    state, _ = play(state, DAVID, "take wood")  # Astronomer
    return play(state, BRIAN, "take wood gold")  # Master Hunter


def test_kings_aid_example_year_one_each_player_chooses_a_good():
    state, facts = after_year_one_aid()
    goods = [(p.gold, p.wood, p.stone) for p in state.players]
    assert goods == [(0, 1, 0), (0, 0, 1), (1, 0, 0), (1, 0, 0)]
    assert of_kind(facts, "DiceRolled")[0]["white"] == [[], [], [], []]  # nobody gets the die


def test_turn_order_example_ann_9_brian_13_cindy_10_david_10():
    state, facts = after_year_one_aid()
    order = of_kind(facts, "TurnOrderSet")[0]
    assert order["totals"] == [9, 13, 10, 10]
    # Cindy before David: same total, but she was ahead in the previous order
    assert state.order == (ANN, CINDY, DAVID, BRIAN)


def test_influence_example():
    state, _ = after_year_one_aid()
    state, _ = play(state, ANN, "influence 8 with 5 3")
    with pytest.raises(GameError) as refused:
        play(state, CINDY, "influence 8 with 6 2")
    assert "already influenced" in refused.value.message
    state, _ = play(state, CINDY, "influence 4 with 2 2")
    state, _ = play(state, DAVID, "influence 7 with 5 2")
    assert Influence(13, (5, 4, 4)) in SPEC.legal_moves(state, BRIAN)  # possible, but not chosen
    state, _ = play(state, BRIAN, "influence 9 with 5 4")
    state, _ = play(state, ANN, "influence 1 with 1")
    state, _ = play(state, CINDY, "influence 6 with 6")
    state, facts = play(state, DAVID, "influence 3 with 3")
    # Brian's last die (4) fits only the Merchant, taken by Cindy: he must pass
    assert of_kind(facts, "InfluencePassed")[0] == {"kind": "InfluencePassed", "seat": BRIAN, "auto": True}
    assert state.step == "gifts"
    occupied = {a: g[0].seat for a, g in enumerate(state.court) if g}
    assert occupied == {1: ANN, 3: DAVID, 4: CINDY, 6: CINDY, 7: DAVID, 8: ANN, 9: BRIAN}


def test_gifts_example():
    state, facts = after_influence()
    auto = {(f["advisor"], f["seat"]): f["delta"] for f in of_kind(facts, "GiftReceived")}
    assert auto == {(1, ANN): {"vp": 1}, (3, DAVID): {"wood": 1}, (8, ANN): {"gold": 2}}
    assert SPEC.to_move(state) == [CINDY, DAVID, BRIAN]  # Merchant, Astronomer, Master Hunter
    state, facts = after_gifts()
    goods = [(p.gold, p.wood, p.stone, p.plus2, p.vp) for p in state.players]
    assert goods[ANN] == (2, 1, 0, 0, 1)
    assert goods[BRIAN] == (1, 1, 1, 0, 0)
    assert goods[CINDY] == (2, 0, 1, 0, 0)  # gold from the aid, gold + stone from the Alchemist
    assert goods[DAVID] == (1, 2, 0, 1, 0)
    assert state.step == "build"


def test_building_example():
    state, _ = after_gifts()
    state, facts = play(state, ANN, "build statue")
    assert facts[0]["delta"] == {"gold": -2, "vp": 3}
    state, facts = play(state, CINDY, "build guard tower")
    assert facts[0]["delta"] == {"gold": -1, "stone": -1, "vp": 1}
    state, facts = play(state, DAVID, "postav palisady")
    assert facts[0]["delta"] == {"wood": -2}
    state, facts = play(state, BRIAN, "build inn")
    assert facts[0]["delta"] == {"gold": -1, "wood": -1}
    assert [sorted(p.buildings) for p in state.players] == [["statue"], ["inn"], ["guard_tower"], ["palisade"]]
    # phase 3 follows at once: everybody has one building, so everybody gets 1 VP
    assert sorted(f["seat"] for f in of_kind(facts, "KingsRewardGiven")) == [0, 1, 2, 3]


SIX = {"statue", "chapel", "inn", "market", "guard_tower", "palisade"}
FIVE = {"statue", "chapel", "inn", "market", "guard_tower"}
FOUR = {"statue", "chapel", "inn", "guard_tower"}


def test_kings_aid_example_year_three_cindy_gets_the_white_die():
    state = at(new_game(), "aid", "start", year=3)
    state = with_players(
        state,
        p0={"buildings": SIX},
        p1={"buildings": FIVE, "gold": 1, "wood": 1},
        p2={"buildings": FIVE},
        p3={"buildings": SIX, "stone": 1},
    )
    state, facts = run(state)
    assert of_kind(facts, "AidGranted") == [{"kind": "AidGranted", "seat": CINDY}]
    rolled = of_kind(facts, "DiceRolled")[0]
    assert [len(w) for w in rolled["white"]] == [0, 0, 1, 0]


def envoy_state(cindy_goods: int):
    state = at(new_game(), "envoy", "start", year=2)
    return with_players(
        state,
        p0={"buildings": FIVE},
        p1={"buildings": FOUR, "wood": 2},
        p2={"buildings": FOUR, "gold": cindy_goods},
        p3={"buildings": FOUR},
    )


def test_envoy_example_david_gets_the_envoy():
    state, facts = run(envoy_state(1))
    assert of_kind(facts, "EnvoyAwarded")[0]["seat"] == DAVID
    assert state.envoy == DAVID


def test_envoy_example_full_tie_gives_nobody_the_envoy():
    state, facts = run(envoy_state(0))
    assert of_kind(facts, "EnvoyAwarded")[0]["seat"] is None
    assert state.envoy is None


def test_envoy_example_david_builds_barricade_and_blacksmith():
    state = at(new_game(), "spring", "build", order=(DAVID, ANN, BRIAN, CINDY), cursor=0, envoy=DAVID)
    state = with_players(state, p3={"buildings": {"guard_tower"}, "gold": 1, "wood": 3})
    state, _ = play(state, DAVID, "build barricade")
    assert SPEC.to_move(state) == [DAVID] and state.envoy == DAVID
    state, facts = play(state, DAVID, "build blacksmith")
    assert facts[0]["envoy"] is True and state.envoy is None
    david = state.players[DAVID]
    assert david.buildings == {"guard_tower", "barricade", "blacksmith"}
    assert (david.gold, david.wood, david.stone) == (0, 0, 0)


def test_envoy_example_david_shares_the_architect_with_brian():
    state = at(new_game(), "spring", "influence", order=(BRIAN, DAVID, ANN, CINDY), cursor=1, envoy=DAVID)
    court = list(state.court)
    court[3] = (Placement(BRIAN, (3,)),)
    state = with_players(
        replace_court(state, court), p0={"passed": True}, p2={"passed": True}, p1={"passed": True}, p3={"dice": (3,)}
    )
    with pytest.raises(GameError) as refused:
        play(state, DAVID, "influence 3 with 3")
    assert "envoy" in refused.value.message
    state, facts = play(state, DAVID, "influence 3 with 3 envoy")
    wood = {f["seat"]: f["delta"] for f in of_kind(facts, "GiftReceived")}
    assert wood == {BRIAN: {"wood": 1}, DAVID: {"wood": 1}}
    assert state.envoy is None


def replace_court(state, court):
    from dataclasses import replace

    return replace(state, court=tuple(court))


def test_battle_example_goblins_strength_3():
    state = at(new_game(), "winter", "start", order=(ANN, BRIAN, CINDY, DAVID))
    state = with_players(
        state,
        p0={"buildings": {"statue", "palisade", "barricade"}, "vp": 3},
        p1={"buildings": {"inn", "guard_tower"}, "wood": 1, "stone": 1, "soldiers": 1, "vp": 1},
        p2={"buildings": {"guard_tower", "blacksmith", "barricade"}, "vp": 3},
        p3={"buildings": {"inn", "barricade", "crane"}, "wood": 1, "vp": 1},
    )
    state, facts = run(state, Script(1))
    assert of_kind(facts, "EnemyRevealed")[0]["card"] == "y1_goblins_3"
    assert of_kind(facts, "ReinforcementsRolled")[0]["soldiers"] == 1
    battles = {f["seat"]: f for f in of_kind(facts, "BattleFought")}
    assert [(battles[s]["strength"], battles[s]["result"]) for s in range(4)] == [
        (3, "draw"),
        (3, "draw"),
        (4, "won"),
        (2, "lost"),
    ]
    assert battles[CINDY]["delta"] == {"stone": 1}
    assert battles[DAVID]["destroyed"] == ["crane"]  # rightmost column first
    assert battles[DAVID]["delta"] == {"vp": -1}  # no gold to lose; the Crane's VP go
    assert of_kind(facts, "BestDefenderRewarded") == [
        {"kind": "BestDefenderRewarded", "seat": CINDY, "delta": {"vp": 1}}
    ]
    assert [p.vp for p in state.players] == [3, 1, 4, 0]
    assert [p.soldiers for p in state.players] == [0, 0, 0, 0]
    assert state.year == 2


def test_battle_example_market_would_be_destroyed_before_the_crane():
    from pbem.games.kingsburg.rules import destroy_order

    assert destroy_order(frozenset({"inn", "barricade", "crane", "market"}))[0] == "market"


def test_statue_and_chapel_example_2222():
    state = at(new_game(3), "spring", "start", order=(ANN, BRIAN, CINDY))
    state = with_players(state, p0={"buildings": {"statue", "chapel", "inn", "market", "farms"}})
    state, _ = run(state, Script(2, 2, 2, 2, 6, 5, 4, 6, 5, 3))
    assert SPEC.to_move(state) == [ANN]
    legal = SPEC.legal_texts(state, ANN)
    assert "reroll all" not in legal  # the Chapel does not help: the total is 8
    assert {"reroll 2", "reroll white 2", "pass"} <= set(legal)
    state, _ = play(state, ANN, "reroll 2", Script(1))
    assert state.players[ANN].dice == (2, 2, 1) and sum(state.players[ANN].dice + state.players[ANN].white) == 7
    assert SPEC.legal_texts(state, ANN) == ["reroll all", "pass"]
    state, facts = play(state, ANN, "prehod vse", Script(1, 1, 1, 1))
    # four equal dice and a total of 4, but both buildings were used this season
    assert state.step == "influence" and of_kind(facts, "TurnOrderSet")


def test_market_example_sum_9_influences_8_or_10():
    state = at(new_game(3), "spring", "influence", order=(ANN, BRIAN, CINDY), cursor=0)
    state = with_players(
        state, p0={"buildings": {"inn", "market"}, "dice": (5, 4, 1)}, p1={"dice": (6, 6, 6)}, p2={"dice": (6, 6, 6)}
    )
    targets = {
        m.advisor
        for m in SPEC.legal_moves(state, ANN)
        if isinstance(m, Influence) and m.dice == (5, 4) and m.choice is None
    }
    assert targets == {8, 9, 10}
    state, facts = play(state, ANN, "influence 10 with 5 4")
    assert facts[0]["market"] is True and state.players[ANN].market_used
    state = with_players(state, p1={"passed": True}, p2={"passed": True})
    from dataclasses import replace

    state = replace(state, cursor=0)
    assert {m.advisor for m in SPEC.legal_moves(state, ANN) if isinstance(m, Influence)} == {1}


def test_crane_example_farms_cost_one_gold_less():
    from pbem.games.kingsburg.rules import cost
    from pbem.games.kingsburg.state import Player

    assert cost(Player(buildings=frozenset({"barricade", "crane"})), "farms") == (1, 3, 1)
    assert cost(Player(), "farms") == (2, 3, 1)


def test_fortress_example_win_one_gold_and_one_vp():
    """Fortress (p. 9): "Porazíte např. nepřítele, z něhož je válečná kořist 1 zlato. Dostanete tedy
    1 zlato a 1 VB." A victory over an enemy whose reward is 1 gold brings the Fortress's owner 1
    gold and 1 VP."""
    from pbem.games.kingsburg.flow import battle_fact

    state = with_players(new_game(), p0={"buildings": {"palisade", "stable", "stone_wall", "fortress"}})
    fact = battle_fact(state, ANN, 9, "won", {}, {"gold": 1, "wood": 0, "stone": 0, "any": 0, "vp": 0})
    assert fact["delta"] == {"gold": 1, "vp": 1}


def test_barracks_example_three_goods_for_three_soldiers():
    state = at(new_game(), "recruit", "recruit", order=(ANN, BRIAN, CINDY, DAVID), cursor=0)
    state = with_players(
        state, p0={"buildings": {"guard_tower", "blacksmith", "barracks"}, "gold": 1, "wood": 1, "stone": 1}
    )
    state, facts = play(state, ANN, "recruit 3")
    assert facts[0]["delta"] == {"gold": -1, "wood": -1, "stone": -1, "soldiers": 3}
