"""Movement by action points, the FAQ answers on battles, princesses, forts, unification."""

from dataclasses import replace

import pytest

from pbem.games.base import ErrorCode
from pbem.games.warriors_traders import SPEC
from pbem.games.warriors_traders.battle import resolve
from pbem.games.warriors_traders.flow import follow_ups, turn_end_fact
from pbem.games.warriors_traders.maneuvers import start_battle
from pbem.games.warriors_traders.state import BARBARIAN, Battle, owner, unit

from .support import (
    act,
    at_maneuvers,
    at_war,
    barbarians,
    clear,
    fact,
    put,
    refused,
    start,
    step,
    with_levels,
)


def _battle(state, province):
    f = start_battle(state, province)
    return Battle(
        province, f["attacker"], f["defender"], tuple(f["attackers"]), tuple(f["defenders"]), tuple(f["damage"])
    )


def test_entering_a_barbarian_province_needs_an_action_point_left_for_battle():
    """FAQ: two armies reach a barbarian province, but only the one with AP left may enter."""
    state = with_levels(start(2), 0, military=2)  # 2 AP
    state = clear(state, "w_munster", "w_dublin")
    state, near = put(state, 0, "infantry", "w_munster")
    state, far = put(state, 0, "infantry", "w_meath")
    state = at_maneuvers(state, 0, rest=(1,))
    state = act(state, 0, f"move {far} dublin")  # free province: 1 AP
    error = refused(state, 0, f"move {far} wales")
    assert error.code == ErrorCode.ILLEGAL and "needs 2" in error.message
    state = act(state, 0, f"move {near} wessex")
    assert unit(state, near).engaged and unit(state, near).ap == 0


def test_army_stops_after_entering_a_hostile_province():
    state = with_levels(start(2), 0, military=4)  # 3 AP
    state = clear(state, "w_munster")
    state, a = put(state, 0, "infantry", "w_munster")
    state, _ = put(state, 0, "infantry", "w_munster")
    state = at_maneuvers(state, 0, rest=(1,))
    state = act(state, 0, f"move {a} wessex")
    error = refused(state, 0, f"move {a} munster")
    assert "must fight" in error.message


def test_no_entry_into_another_players_province_in_peace():
    state = with_levels(start(2), 0, military=3)
    state = clear(state, "w_strathclyde", "w_lothian")
    state, a = put(state, 0, "infantry", "w_strathclyde")
    state, _ = put(state, 1, "princess", "w_lothian")
    state = at_maneuvers(state, 0, rest=(1,))
    assert "not at war" in refused(state, 0, f"move {a} lothian").message
    state = at_maneuvers(at_war(state, 0, 1), 0, rest=(1,))
    state = act(state, 0, f"move {a} lothian")
    state, facts = step(state, 0, "done")
    assert fact(facts, "BattleResolved")["captured"] == 0  # the princess alone deals nothing
    assert owner(state, "w_lothian") == 0


def test_free_movement_through_own_and_free_provinces_claims_them():
    state = with_levels(start(2), 0, military=4)
    state = clear(state, "w_munster", "w_dublin")
    state, a = put(state, 0, "infantry", "w_meath")
    state = at_maneuvers(state, 0, rest=(1,))
    state = act(state, 0, f"move {a} munster")
    assert owner(state, "w_munster") == 0
    state = act(state, 0, f"move {a} dublin")
    assert owner(state, "w_munster") is None and owner(state, "w_dublin") == 0
    assert unit(state, a).ap == 1


def test_retreated_unit_deals_no_damage_and_dies_on_further_damage():
    """FAQ: an archer that retreated deals nothing; more damage the same turn kills it."""
    state = with_levels(start(2), 1, military=4)
    state = clear(state, "w_lothian", "w_strathclyde")
    state, archer = put(state, 1, "archer", "w_lothian", damage=2, retreated=True)
    state, attacker = put(state, 0, "infantry", "w_strathclyde")
    state = at_war(state, 0, 1)
    state = at_maneuvers(with_levels(state, 0, military=3), 0, rest=(1,))
    state = act(state, 0, f"move {attacker} lothian")
    state, facts = step(state, 0, "done")
    started = fact(facts, "BattleStarted")
    assert started["damage"] == [1, 0]
    resolved = fact(facts, "BattleResolved")  # one target, nothing to decide: automatic
    assert resolved["killed"] == [archer] and resolved["captured"] == 0
    assert resolved["vp"] == {"0": 2}


def test_attackers_defend_at_full_strength_when_attacked():
    """FAQ: units that attacked and survived deal their full strength again when attacked,
    whatever their action points (every unit in an attacked province strikes back)."""
    state = start(2)
    state = clear(state, "w_lothian", "w_strathclyde")
    state, _ = put(state, 1, "archer", "w_lothian", damage=1, battles=1, ap=0)
    state, _ = put(state, 0, "infantry", "w_strathclyde", engaged=False)
    state, _ = put(state, 0, "infantry", "w_lothian", engaged=True)
    assert start_battle(state, "w_lothian")["damage"] == [1, 2]


def test_double_strike_cavalry_attacks_again_with_full_strength():
    """FAQ: after beating barbarians of strength 2 a cavalry has 1 life and deals 3 again."""
    state = with_levels(start(2), 0, military=6)  # Double strike, 4 AP
    state = clear(state, "w_mercia")
    state, cav = put(state, 0, "cavalry", "w_mercia")
    state = clear(state, "w_london")
    state, _ = put(state, BARBARIAN, "infantry", "w_london")
    state = at_maneuvers(state, 0, turn=5, rest=(1,))
    state = act(state, 0, f"move {cav} london")
    state, facts = step(state, 0, "done")
    resolved = fact(facts, "BattleResolved")
    assert resolved["captured"] == 0
    assert unit(state, cav).damage == 2 and state.step == "move" and state.round == 2
    state = act(state, 0, f"move {cav} eastanglia")
    state, facts = step(state, 0, "done")
    assert fact(facts, "BattleStarted")["damage"][0] == 3


def test_without_double_strike_an_army_fights_once():
    state = with_levels(start(2), 0, military=4)
    state = clear(state, "w_mercia")
    state, cav = put(state, 0, "infantry", "w_mercia")
    state, _ = put(state, 0, "infantry", "w_mercia")
    state = at_maneuvers(state, 0, rest=(1,))
    state, facts = step(state, 0, f"move {cav} london")
    assert unit(state, cav).ap == 1
    assert "must fight" in refused(state, 0, f"move {cav} mercia").message
    state, facts = step(state, 0, "done")
    assert fact(facts, "BattlesOver")["next"] == "princess"


def test_forts_protect_princesses():
    state = start(2)
    state = with_levels(state, 0, military=3)
    state = clear(state, "w_scone")
    state, fort = put(state, 1, "fort", "w_scone")
    state, princess = put(state, 1, "princess", "w_scone")
    state = clear(state, "w_lothian")
    state, a1 = put(state, 0, "cavalry", "w_lothian")
    state, a2 = put(state, 0, "cavalry", "w_lothian")
    state = at_maneuvers(at_war(state, 0, 1), 0, rest=(1,))
    state = act(state, 0, f"move {a1} scone")
    state = act(state, 0, f"move {a2} scone")
    state = act(state, 0, "done")
    state = act(state, 1, f"hit {a1} 5")  # the fort strikes back: 5 damage
    assert "Forts protect" in refused(state, 0, f"hit {princess} 1").message
    state = act(state, 0, f"hit {fort} 5")
    state, facts = step(state, 0, f"hit {princess} 1")
    resolved = fact(facts, "BattleResolved")
    assert fort in resolved["killed"] and princess in resolved["killed"]
    assert resolved["vp"]["0"] == 3 + 1


def test_barbarians_retreat_to_a_free_province_first():
    state = with_levels(start(2), 0, military=4)
    state = clear(state, "w_munster", "w_dublin")
    state, a = put(state, 0, "infantry", "w_munster")
    state = at_maneuvers(state, 0, turn=1, rest=(1,))
    barbarian = barbarians(state, "w_connacht")[0].id
    state = act(state, 0, f"move {a} connacht")
    state, facts = step(state, 0, "done")
    # toughness 1 in turn 1: one damage leaves it at exactly 0 life, so it retreats, to the
    # province the attacker just left free (before any barbarian province)
    assert fact(facts, "BattleResolved")["retreated"][str(barbarian)] == "w_munster"
    assert fact(facts, "BattleResolved")["vp"] == {}


def test_removed_units_score_nothing():
    """FAQ: units forced to retreat that cannot are removed, and nobody scores them."""
    state = with_levels(start(2), 0, military=4)
    # Ulster's neighbours: Meath (seat 0), Connacht and Strathclyde (given to seat 1)
    state = clear(state, "w_connacht", "w_strathclyde", "w_ulster")
    state, _ = put(state, 1, "princess", "w_connacht")
    state, _ = put(state, 1, "princess", "w_strathclyde")
    state, barb = put(state, BARBARIAN, "infantry", "w_ulster")
    state, a = put(state, 0, "infantry", "w_ulster", engaged=True)
    result = resolve(state, _battle(state, "w_ulster"), {0: {barb: 1}, BARBARIAN: {a: 1}})
    assert result["removed"] == [barb] and result["killed"] == []
    assert result["retreated"] == {str(a): "w_meath"}  # the Commander's army retreats home
    assert result["vp"] == {}


def test_without_commander_a_player_army_dies_at_zero_life():
    state = start(2)
    state = clear(state, "w_ulster")
    state, barb = put(state, BARBARIAN, "infantry", "w_ulster")
    state, a = put(state, 0, "infantry", "w_ulster", engaged=True)
    result = resolve(state, _battle(state, "w_ulster"), {0: {barb: 2}, BARBARIAN: {a: 1}})
    assert sorted(result["killed"]) == sorted([a, barb]) and result["vp"] == {"0": 1}


def test_princess_moves_once_a_turn_to_own_or_free_provinces_after_battles():
    state = start(2)
    state = clear(state, "w_dublin")
    state = at_maneuvers(state, 0, rest=(1,))
    assert state.step == "princess"  # no army: straight to the princesses
    princess = next(u.id for u in state.units if u.owner == 0 and u.kind == "princess")
    assert "own or a free" in refused(state, 0, f"princess {princess} munster").message
    state = act(state, 0, f"princezna {princess} dublin")
    assert owner(state, "w_dublin") == 0
    assert "already moved" in refused(state, 0, f"princess {princess} meath").message


def test_shared_province_stays_with_the_token_holder_and_passes_to_the_ally():
    """FAQ (alliances): the token holder owns a shared province; when the holder's pieces
    leave, the ally with pieces there takes it."""
    state = start(4, mode="alliance", teams="12/34")
    state = clear(state, "w_ulster")
    state, mine = put(state, 0, "infantry", "w_ulster")
    state, _ = put(state, 1, "infantry", "w_ulster")
    assert owner(state, "w_ulster") == 0
    state = at_maneuvers(with_levels(state, 0, military=2), 0, rest=(1,))
    state = act(state, 0, f"move {mine} meath")
    assert owner(state, "w_ulster") == 1


def test_unification_gives_bonus_actions_and_new_armies_have_no_ap():
    state = with_levels(start(2), 0, military=2)
    country = state.gmap.country("ireland")
    required = [p for p in country.provinces if state.gmap.provinces[p].type in ("trade_center", "ordinary")]
    state = clear(state, *required)
    for p in required:
        state, _ = put(state, 0, "princess", p)
    state = at_maneuvers(state, 0, rest=(1,))
    state = act(state, 0, "sjednoceni")
    assert state.step == "bonus" and state.bonus == 3  # 4 provinces: 3 actions (Table 1)
    state = act(state, 0, "build infantry meath")
    new = max(u.id for u in state.units)
    assert unit(state, new).ap == 0
    state = act(state, 0, "develop trade")
    state = act(state, 0, "pass")
    assert state.step in ("move", "princess") and state.players[0].unified
    assert "once a turn" in refused(state, 0, "unify").message


def test_the_attacker_names_where_retreating_barbarians_go_among_equals():
    """Among refuges of the same priority the attacker chooses (L746-747): ``refuge``."""
    state = with_levels(start(2), 0, military=4)
    state = clear(state, "w_munster", "w_dublin")
    state, a = put(state, 0, "infantry", "w_munster")
    state = at_maneuvers(state, 0, turn=1, rest=(1,))
    barbarian = barbarians(state, "w_connacht")[0].id
    state = act(state, 0, f"move {a} connacht")
    # Munster (just left) and ... are free; name Munster explicitly, then the default
    state = act(state, 0, "refuge munster")
    state, facts = step(state, 0, "done")
    assert fact(facts, "BattleResolved")["retreated"][str(barbarian)] == "w_munster"


def test_a_player_names_the_refuge_of_its_own_retreating_armies():
    state = with_levels(start(2), 0, military=4)  # Commander
    state = clear(state, "w_munster", "w_dublin", "w_connacht")
    state, barb = put(state, BARBARIAN, "infantry", "w_connacht")
    state, a = put(state, 0, "infantry", "w_munster")
    state, a2 = put(state, 0, "infantry", "w_munster")
    state = at_maneuvers(state, 0, turn=1, rest=(1,))
    state = act(state, 0, f"move {a} connacht")
    state = act(state, 0, f"move {a2} connacht")
    assert "not next to" in refused(state, 0, "refuge scone").message
    state = act(state, 0, "ústup munster")  # own Meath would come first by map order
    state, facts = step(state, 0, "done")
    resolved = fact(facts, "BattleResolved")  # 2 damage kill the barbarian; 1 makes one retreat
    assert resolved["killed"] == [barb] and resolved["retreated"] == {str(a): "w_munster"}
    assert resolved["captured"] == 0


def test_retreated_armies_lose_their_action_points_until_the_turn_ends():
    """Czech rulebook, "Pravidla ustupování": armies that retreated lose all remaining action
    points and lie on their side until the end of the turn, also when their owner's maneuver
    comes after the battle they retreated from."""
    state = with_levels(start(2), 1, military=4)  # 3 AP at level IV
    state = clear(state, "w_lothian")
    state, lying = put(state, 1, "infantry", "w_lothian", retreated=True, damage=1)
    state, standing = put(state, 1, "infantry", "w_lothian")
    facts, state = follow_ups(replace(state, turn=1, phase="maneuvers", step="", queue=(("maneuver", 1),)))
    assert unit(state, lying).ap == 0 and unit(state, standing).ap == 3
    assert fact(facts, "ManeuverStarted")["resting"] == [lying]
    assert "lie on their side" in SPEC.describe_fact(fact(facts, "ManeuverStarted"), ["Ann", "Bob"])
    error = refused(state, 1, f"move {lying} strathclyde")
    assert error.code in (ErrorCode.ILLEGAL, ErrorCode.INVALID)
    assert all(m[1] != lying for m in SPEC.legal_moves(state, 1) if m[0] == "move")


def test_an_army_at_military_level_one_can_attack_a_neighbouring_province():
    """With the default attack cost of 2 AP (a step and a battle), the invented action points
    must let an army without any military token attack: the maneuver rules presume it."""
    state = with_levels(start(2), 0, military=1)
    state = clear(state, "w_munster")
    state, army = put(state, 0, "infantry", "w_munster")
    state = at_maneuvers(state, 0, rest=(1,))
    assert barbarians(state, "w_wessex")
    state = act(state, 0, f"move {army} wessex")
    assert unit(state, army).engaged and unit(state, army).province == "w_wessex"


def _unified(state, seat=0):
    country = state.gmap.country("ireland")
    required = [p for p in country.provinces if state.gmap.provinces[p].type in ("trade_center", "ordinary")]
    state = clear(state, *required)
    for p in required:
        state, _ = put(state, seat, "princess", p)
    state = act(at_maneuvers(state, seat, rest=(1,)), seat, "unify")
    return act(state, seat, "pass")  # no bonus actions: back to army movement


@pytest.mark.parametrize(("option", "again"), [("once", False), ("each-turn", True)])
def test_unification_option_once_a_game_or_again_each_turn(option, again):
    """Czech rulebook p. 15: "Kdykoliv hráč ovládá všechny provincie ... může vyhlásit
    sjednocení" ("whenever"); whether a country already united can be united again is left
    open, so the option keeps the once-a-game reading (the default is each turn)."""
    state = _unified(with_levels(start(2, unification=option), 0, military=2))
    assert state.players[0].unified
    state = SPEC.evolve(state, turn_end_fact(state))
    state = at_maneuvers(state, 0, turn=2, rest=(1,))
    assert (("unify",) in SPEC.legal_moves(state, 0)) is again


def test_unification_by_default_whenever_the_country_is_held_once_a_turn():
    """The rulebook's "whenever" (Kdykoliv, p. 15): in every maneuver phase in which the player
    holds his country, once in that turn (one declaration is one event with one bonus)."""
    state = _unified(with_levels(start(2), 0, military=2))
    assert ("unify",) not in SPEC.legal_moves(state, 0)  # not twice in one turn
    assert "once a turn" in refused(state, 0, "unify").message
    state = SPEC.evolve(state, turn_end_fact(state))
    state = at_maneuvers(state, 0, turn=2, rest=(1,))
    assert ("unify",) in SPEC.legal_moves(state, 0)
