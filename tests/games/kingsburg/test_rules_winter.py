"""One test per rule of winter (reinforcements, battle, losses, rewards), the end of the game
and the two variants of the Czech rulebook."""

import json
from dataclasses import replace

import pytest

from pbem.games.base import GameError
from pbem.games.kingsburg import SPEC
from pbem.games.kingsburg.data import ENEMIES
from pbem.games.kingsburg.rules import destroy_order, strength
from pbem.games.simulate import play_random

from .support import ANN, BRIAN, CINDY, Script, at, new_game, of_kind, play, run, with_players

ANY2_BLDG = "y2_orcs_4"  # lose 2 goods of choice + 1 building; win 1 gold


def winter(deck_top="y1_goblins_3", players=3, **by_seat):
    state = at(new_game(players), "winter", "start", order=tuple(range(players)))
    state = replace(state, deck=(deck_top, *state.deck[1:]))
    return with_players(state, **by_seat)


def test_reinforcement_die_is_rolled_for_everybody():
    _, facts = run(winter(p0={"soldiers": 2}), Script(4))
    rolled = of_kind(facts, "ReinforcementsRolled")[0]
    assert rolled["seat"] == ANN and rolled["soldiers"] == 4  # Ann is first in turn order
    assert [f["strength"] for f in of_kind(facts, "BattleFought")] == [6, 4, 4]


def test_alternative_reinforcements_are_the_difference_of_two_dice_plus_one():
    state = replace(winter(), reinforcements="difference")
    state, facts = run(state, Script(2, 6))
    assert of_kind(facts, "ReinforcementsRolled")[0]["soldiers"] == 5
    state, facts = run(replace(winter(), reinforcements="difference"), Script(3, 3))
    assert of_kind(facts, "ReinforcementsRolled")[0]["soldiers"] == 1


def test_building_battle_modifiers():
    goblins, zombies, demons = ENEMIES["y1_goblins_3"], ENEMIES["y1_zombies_4"], ENEMIES["y3_demons_6"]
    from pbem.games.kingsburg.state import Player

    def power(buildings, enemy):
        return strength(Player(buildings=frozenset(buildings)), enemy)

    assert power({"guard_tower", "blacksmith", "barracks", "wizards_guild"}, goblins) == 4
    assert power({"palisade"}, goblins) == 1 and power({"palisade"}, zombies) == 2
    assert power({"barricade"}, goblins) == 1 and power({"barricade"}, zombies) == 0
    assert power({"statue", "chapel", "church"}, demons) == 1 and power({"statue", "chapel", "church"}, goblins) == 0
    assert power({"inn", "market", "farms"}, goblins) == -1
    assert power({"palisade", "stable", "stone_wall", "fortress"}, goblins) == 3


def test_stone_wall_wins_ties():
    wall = {"palisade", "stable", "stone_wall"}  # strength 2 + 1 soldier = 3 = goblins
    _, facts = run(winter(p0={"buildings": wall}), Script(1))
    assert next(f["result"] for f in of_kind(facts, "BattleFought")) == "won"
    assert [f["result"] for f in of_kind(facts, "BattleFought")][1] == "lost"


def test_draw_gives_nothing_and_costs_nothing():
    state, facts = run(winter(p0={"soldiers": 2, "gold": 3}), Script(1))
    ann = of_kind(facts, "BattleFought")[0]
    assert ann["result"] == "draw" and "delta" not in ann and state.players[ANN].gold == 3


def test_losses_follow_the_card_and_nobody_loses_what_he_lacks():
    """Defeat (p. 8): the losses are those the enemy card lists; a player who lacks a good loses
    only what he has, and nothing else instead."""
    goblins = "y2_goblins_3"  # 2 wood, 2 stone, 1 building, 1 VP
    _, facts = run(winter(goblins, p0={"wood": 5, "stone": 1, "vp": 4, "buildings": {"statue"}}), Script(1))
    ann = of_kind(facts, "BattleFought")[0]
    assert ann["delta"] == {"wood": -2, "stone": -1, "vp": -4}  # Statue's 3 VP and 1 VP
    assert ann["destroyed"] == ["statue"]


def test_vp_never_fall_below_zero():
    """Defeat (p. 8): VP lost in a defeat never take a player below 0."""
    state, facts = run(winter("y5_barbarians_7", p0={"vp": 3}), Script(1))
    assert of_kind(facts, "BattleFought")[0]["delta"] == {"vp": -3}
    assert state.players[ANN].vp == 0


def test_lost_goods_of_choice_are_chosen_by_the_loser():
    """Defeat (p. 8): goods of choice on the enemy card are chosen by the player who loses them."""
    state, facts = run(winter(ANY2_BLDG, p0={"gold": 2, "wood": 1}), Script(1))
    assert SPEC.to_move(state) == [ANN]
    assert SPEC.legal_texts(state, ANN) == ["lose 2 gold", "lose gold wood"]
    state, facts = play(state, ANN, "ztrat zlato drevo")
    assert facts[0]["delta"] == {"gold": -1, "wood": -1}
    assert state.year == 2


def test_lost_goods_of_choice_need_no_answer_without_a_choice():
    """Defeat (p. 8): a loser who holds no more than the card takes is not asked which goods go."""
    state, facts = run(winter(ANY2_BLDG, p0={"wood": 3}, p1={"gold": 1}), Script(1))
    battles = of_kind(facts, "BattleFought")
    assert battles[0]["delta"] == {"wood": -2} and battles[1]["delta"] == {"gold": -1}
    assert state.year == 2


def test_buildings_are_destroyed_from_the_rightmost_column_top_down():
    owned = frozenset({"statue", "chapel", "inn", "market", "guard_tower", "palisade", "stable", "barricade", "crane"})
    assert destroy_order(owned)[:4] == ["chapel", "market", "stable", "crane"]


def test_destroyed_building_can_be_rebuilt():
    state, _ = run(winter("y1_goblins_3", p0={"buildings": {"statue"}, "vp": 3}), Script(1))
    assert "statue" not in state.players[ANN].buildings
    state = with_players(at(state, "spring", "build", order=(0, 1, 2), cursor=0), p0={"gold": 2})
    state, facts = play(state, ANN, "build statue")
    assert facts[0]["delta"] == {"gold": -2, "vp": 3}


def test_victory_rewards_and_fortress_vp():
    fortress = {"palisade", "stable", "stone_wall", "fortress"}
    _, facts = run(winter("y1_barbarians_2", p0={"buildings": fortress}), Script(1))
    ann = of_kind(facts, "BattleFought")[0]
    assert ann["result"] == "won" and ann["delta"] == {"gold": 1, "vp": 1}


def test_victory_goods_of_choice_are_chosen_by_the_winner():
    state, facts = run(winter("y4_orcs_7", p0={"soldiers": 9}), Script(1))
    assert SPEC.to_move(state) == [ANN]
    state, facts = play(state, ANN, "take stone")
    assert facts[0] == {"kind": "SpoilsTaken", "seat": ANN, "delta": {"stone": 1}}


def test_best_defenders_get_one_vp_but_only_if_they_won():
    """p. 7: "Hráč nebo hráči s nejvyšší bojovou silou obdrží 1 VB navíc ale pouze v případě, že
    bitvu také skutečně vyhráli." The strongest players get 1 VP more, and only if they won their
    battle."""
    _, facts = run(winter(p0={"soldiers": 5}, p1={"soldiers": 5}, p2={"soldiers": 1}), Script(1))
    assert [f["seat"] for f in of_kind(facts, "BestDefenderRewarded")] == [ANN, BRIAN]
    _, facts = run(winter("y5_dragons_9", p0={"soldiers": 7}), Script(1))
    assert of_kind(facts, "BestDefenderRewarded") == []  # strength 8 < 9: nobody won


def test_soldiers_go_back_to_zero_after_the_battle():
    state, _ = run(winter(p0={"soldiers": 5}), Script(1))
    assert all(p.soldiers == 0 for p in state.players)


def test_one_unseen_enemy_card_per_year_with_year_one_on_top():
    """p. 1-2 (Příprava hry): "Karty nepřátel rozdělte podle čísel na rubu na pět stejných
    hromádek, zamíchejte je a z každé hromádky vezměte jednu kartu, aniž byste se na ně dívali.
    Poté z těchto vybraných karet utvořte hromádku ve vzestupném pořadí (I nahoře, V dole) ...
    Zbývajících 20 karet se v této hře nepoužije a vrátí se zpět do krabice, aniž by se na ně
    někdo díval." Whole games: one card of each year is drawn, seen by nobody, year I on top;
    winter after winter the top card turns up, years I to V in order; the other 20 enemy cards
    never come out of the box; and which card of a year comes up changes from game to game."""
    drawn = {year: set() for year in range(1, 6)}
    for seed in range(8):
        play = play_random(SPEC, 2 + seed % 4, seed)
        prepared = of_kind(play.facts, "EnemyDeckPrepared")[0]
        deck = prepared["secret"]["data"]["deck"]
        assert prepared["secret"]["to"] == []  # unseen: no seat may open it before the end
        assert [ENEMIES[card].year for card in deck] == [1, 2, 3, 4, 5]  # year I on top
        assert [f["card"] for f in of_kind(play.facts, "EnemyRevealed")] == deck  # one per winter
        everything_else = json.dumps([f for f in play.facts if f is not prepared])
        assert [card for card in ENEMIES if card not in deck and card in everything_else] == []
        for card in deck:
            drawn[ENEMIES[card].year].add(card)
    assert all(len(cards) > 1 for cards in drawn.values()), drawn  # shuffled, not a fixed pick


def test_enemy_card_is_revealed_openly_and_leaves_the_deck():
    state, facts = run(winter(), Script(1))
    revealed = of_kind(facts, "EnemyRevealed")[0]
    assert "secret" not in revealed and revealed["strength"] == 3 and len(state.deck) == 4


def test_demons_option_chooses_the_reading_of_the_disputed_card():
    primary = run(winter("y4_demons_6", p0={"soldiers": 9}), Script(1))[1]
    assert of_kind(primary, "BattleFought")[0]["delta"] == {"gold": 1, "vp": 1}
    alt_state = replace(winter("y4_demons_6", p0={"soldiers": 9}), demons="alternative")
    alternative = run(alt_state, Script(1))[1]
    assert of_kind(alternative, "BattleFought")[0]["delta"] == {"gold": 1}
    lost = run(replace(winter("y4_demons_6", p0={"buildings": {"statue"}, "vp": 3}), demons="alternative"), Script(1))[
        1
    ]
    assert of_kind(lost, "BattleFought")[0]["destroyed"] == ["statue"]


# -- soldier tokens variant ---------------------------------------------------------------------
def tokens_winter(**by_seat):
    state = replace(winter(**by_seat), reinforcements="tokens")
    return with_players(state, **{f"p{s}": {"tokens": (0, 1, 1, 2, 3, 4)} for s in range(3)})


def test_soldier_tokens_are_chosen_secretly_and_simultaneously():
    state, facts = run(tokens_winter())
    assert of_kind(facts, "ReinforcementsRolled") == []
    assert SPEC.to_move(state) == [ANN, BRIAN, CINDY]
    state, facts = play(state, CINDY, "token 4")
    assert facts[0]["secret"] == {"to": [CINDY], "data": {"token": 4}}
    assert SPEC.public_move_text(state, CINDY, SPEC.parse_move(state, ANN, "token 1")) == "token (secret)"
    assert SPEC.view(state, None)["players"][CINDY]["token_chosen"] is True
    assert "token" not in SPEC.view(state, None)["players"][CINDY]
    assert SPEC.view(state, ANN)["players"][CINDY].get("token") is None
    assert SPEC.view(state, CINDY)["players"][CINDY]["token"] == 4
    state, _ = play(state, ANN, "zeton 0")
    state, facts = play(state, BRIAN, "token 1")
    assert of_kind(facts, "TokensRevealed")[0]["tokens"] == [0, 1, 4]
    assert [f["strength"] for f in of_kind(facts, "BattleFought")] == [0, 1, 4]
    assert state.players[CINDY].tokens == (0, 1, 1, 2, 3)


def test_soldier_token_is_used_once():
    state, _ = run(tokens_winter())
    state = with_players(state, p0={"tokens": (1, 2)})
    assert SPEC.legal_texts(state, ANN) == ["token 1", "token 2"]
    with pytest.raises(GameError):
        SPEC.parse_move(state, ANN, "token 4")


def test_unused_soldier_tokens_score_their_value_at_the_end():
    state = at(new_game(3, reinforcements="tokens"), "winter", "spoils", year=5, order=(0, 1, 2))
    state = with_players(state, p0={"tokens": (3, 4), "vp": 10})
    state, facts = run(state)
    assert {"kind": "TokensScored", "seat": ANN, "delta": {"vp": 7}} in facts
    assert state.over and state.players[ANN].vp == 17


# -- end of the game -------------------------------------------------------------------------------
def test_cathedral_scores_one_vp_for_every_two_goods():
    state = at(new_game(3), "winter", "spoils", year=5, order=(0, 1, 2))
    cathedral = {"statue", "chapel", "church", "cathedral"}
    state = with_players(state, p0={"buildings": cathedral, "gold": 3, "wood": 2, "stone": 2})
    state, facts = run(state)
    assert {"kind": "CathedralScored", "seat": ANN, "delta": {"vp": 3}} in facts


def test_game_ends_after_year_five_with_most_vp_winning():
    state = at(new_game(3), "winter", "spoils", year=5, order=(0, 1, 2))
    state = with_players(state, p0={"vp": 9}, p1={"vp": 12}, p2={"vp": 3})
    state, facts = run(state)
    assert facts[-1] == {"kind": "GameEnded"} and SPEC.to_move(state) == []
    assert [(s.seat, s.rank) for s in SPEC.outcome(state)] == [(0, 2), (1, 1), (2, 3)]


def test_end_ties_broken_by_goods_then_buildings_then_shared():
    state = at(new_game(4), "winter", "spoils", year=5, order=(0, 1, 2, 3))
    state = with_players(
        state,
        p0={"vp": 9, "gold": 2},
        p1={"vp": 9, "gold": 1, "buildings": {"inn"}},
        p2={"vp": 9, "gold": 1, "buildings": {"inn", "statue"}},
        p3={"vp": 9, "wood": 1, "buildings": {"inn", "statue"}},
    )
    state, _ = run(state)
    assert [s.rank for s in SPEC.outcome(state)] == [1, 4, 2, 2]


def test_year_ends_and_next_year_starts_with_the_kings_aid():
    state, facts = run(winter(), Script(1))
    assert of_kind(facts, "YearEnded")[0]["year"] == 1 and state.year == 2
    assert state.phase == "aid" and of_kind(facts, "AidTied")[0]["seats"] == [ANN, BRIAN, CINDY]
