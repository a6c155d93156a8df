"""Maneuvers and battles: the worked examples (Fig. 28, Fig. 29) and the FAQ answers."""

from pbem.games.warriors_traders import SPEC
from pbem.games.warriors_traders.battle import auto_allocate
from pbem.games.warriors_traders.state import BARBARIAN, owner, unit

from .support import (
    act,
    at_maneuvers,
    at_war,
    clear,
    fact,
    put,
    start,
    step,
    with_levels,
)


def _attack_wessex(turn=5):
    """Seat 0 (Commander, military IV: 3 AP) with 3 infantry and 1 cavalry next to the
    barbarian capital Wessex (barbarian fort + one barbarian army)."""
    state = with_levels(start(2), 0, military=4)
    state = clear(state, "w_mercia")
    ids = []
    for kind in ("infantry", "infantry", "infantry", "cavalry"):
        state, uid = put(state, 0, kind, "w_mercia")
        ids.append(uid)
    state, barb = put(state, BARBARIAN, "infantry", "w_wessex")
    return at_maneuvers(state, 0, turn), ids, barb


def test_barbarian_damage_example_fig29():
    state, (i1, i2, i3, cav), barb = _attack_wessex()
    for uid in (i1, i2, i3, cav):
        state = act(state, 0, f"move {uid} wessex")
    state, facts = step(state, 0, "done")
    started = fact(facts, "BattleStarted")
    assert started["damage"] == [1 + 1 + 1 + 3, 5 + 2]  # barbarian fort 5 + army 2 in turn 5
    targets = [u for u in state.units if u.id in (i1, i2, i3, cav)]
    # 4 kill the cavalry (Commander: 3 + 1), 2 kill an infantry, 1 makes another retreat
    assert auto_allocate(state, targets, 7) == {cav: 4, i1: 2, i2: 1}

    state, _ = step(state, 0, f"hit {barb} 3")  # life 2, and barbarians retreat at exactly 0
    fort = next(u.id for u in state.units if u.province == "w_wessex" and u.kind == "fort")
    state, facts = step(state, 0, f"hit {fort}")
    resolved = fact(facts, "BattleResolved")
    assert {u: n for s, u, n in resolved["hits"] if s == BARBARIAN} == {cav: 4, i1: 2, i2: 1}
    assert sorted(resolved["killed"]) == sorted([cav, i1, barb])  # the fort takes 3 of 5: stands
    assert resolved["retreated"] == {str(i2): "w_mercia"}
    assert resolved["withdrawn"] == {str(i3): "w_mercia"}  # the fort survives: the attacker leaves
    assert resolved["vp"] == {"0": 1}
    assert fact(facts, "TurnEnded")  # seat 0 was the last to maneuver: the turn ends
    assert not unit(state, i2).retreated and unit(state, i2).damage == 0  # stood up, healed


def test_battle_example_fig28():
    """Blue (military VII) attacks with 2 archers; red (military IV) holds infantry and
    cavalry. Blue keeps one archer and red the infantry, so blue's archer must leave."""
    state = with_levels(with_levels(start(2), 0, military=7), 1, military=4)
    home = "w_strathclyde"
    target = "w_lothian"
    state = clear(state, home, target)
    state, red_inf = put(state, 1, "infantry", target)
    state, red_cav = put(state, 1, "cavalry", target)
    state, b1 = put(state, 0, "archer", home)
    state, b2 = put(state, 0, "archer", home)
    state = at_maneuvers(at_war(state, 0, 1), 0, 3, rest=(1,))
    assert target in state.gmap.neighbours[home]
    state = act(state, 0, f"move {b1} {target}")
    state = act(state, 0, f"move {b2} {target}")
    state, facts = step(state, 0, "done")
    assert fact(facts, "BattleStarted")["damage"] == [4, 4]
    assert sorted(SPEC.to_move(state)) == [0, 1]
    state = act(state, 1, f"hit {b1} 3")  # 2 life + 1 for the Commander: dies
    assert SPEC.view(state, 0)["battle"]["your_hits"] == []  # red's hits are secret
    assert SPEC.view(state, 1)["battle"]["your_hits"] == [[1, b1, 3]]
    state = act(state, 1, f"hit {b2} 1")
    state, facts = step(state, 0, f"hit {red_cav} 4")
    resolved = fact(facts, "BattleResolved")
    assert sorted(resolved["killed"]) == sorted([b1, red_cav])
    assert resolved["vp"] == {"0": 3, "1": 2}
    assert resolved["withdrawn"] == {str(b2): home}
    assert unit(state, b2).province == home and unit(state, b2).ap == 0
    assert unit(state, red_inf).province == target and owner(state, target) == 1
    assert state.wars[0].damaged


def test_auto_assigns_the_rest_after_hits_by_hand():
    """Battle: damage is assigned by the other side; what is not assigned by hand is assigned
    automatically."""
    state, (i1, i2, i3, cav), _ = _attack_wessex()
    targets = [u for u in state.units if u.id in (i1, i2, i3, cav)]
    # cavalry already given 4 by hand: the other 3 kill one infantry and make one retreat
    assert auto_allocate(state, targets, 3, {cav: 4}) == {i1: 2, i2: 1}
