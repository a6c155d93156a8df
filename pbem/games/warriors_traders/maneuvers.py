"""The maneuver phase: army steps by action points, battles started and resolved, damage
assignment, princess steps and the unification bonus."""

from __future__ import annotations

from typing import Any

from pbem.games.base import secret
from pbem.games.text import _, ngettext
from pbem.games.warriors_traders import battle as combat
from pbem.games.warriors_traders.data import RULES
from pbem.games.warriors_traders.state import (
    BARBARIAN,
    Battle,
    State,
    allied,
    at_war,
    has_ability,
    owner,
    unit,
)


def hostile(state: State, seat: int, province: str) -> bool:
    """Barbarians are there, or it belongs to a player at war with ``seat``."""
    holder = owner(state, province)
    barbarians = any(u.owner == BARBARIAN for u in state.units if u.province == province)
    return barbarians or (holder is not None and at_war(state, seat, holder))


def max_battles(state: State, seat: int) -> int:
    return 2 if has_ability(state, seat, "double_strike") else 1


def why_not_move(state: State, seat: int, unit_id: int, dest: str) -> str | None:
    """None when army ``unit_id`` may step into ``dest`` now, else the reason."""
    u = unit(state, unit_id)
    if u is None or u.owner != seat or not u.is_army:
        return _("Unit {unit} is not one of your armies.", unit=unit_id)
    if dest not in state.gmap.provinces:
        return _("There is no province {province}.", province=repr(dest))
    if dest not in state.gmap.neighbours[u.province]:
        return _(
            "{province} is not next to {where}, where unit {unit} stands.",
            province=dest,
            where=u.province,
            unit=unit_id,
        )
    if u.engaged:
        return _("Unit {unit} entered a hostile province and must fight there first.", unit=unit_id)
    if u.battles >= state.round:
        return _("Unit {unit} has fought and cannot move again this round.", unit=unit_id)
    if u.ap < 1:
        return _("Unit {unit} has no action points left.", unit=unit_id)
    if hostile(state, seat, dest):
        if u.ap < state.config.attack_ap:
            return ngettext(
                "Unit {unit} has {n} action point(s); entering {province} to fight needs {need} (one "
                "for the step, one for the battle).",
                "Unit {unit} has {n} action point(s); entering {province} to fight needs {need} (one "
                "for the step, one for the battle).",
                u.ap,
                unit=unit_id,
                province=dest,
                need=state.config.attack_ap,
            )
        if u.battles >= max_battles(state, seat):
            return _("Unit {unit} has used its battle for this turn.", unit=unit_id)
        return None
    holder = owner(state, dest)
    if holder is not None and not allied(state, seat, holder):
        return _("{province} belongs to another player and you are not at war with them.", province=dest)
    return None


def move_facts(state: State, seat: int, unit_id: int, dest: str) -> list[dict[str, Any]]:
    attack = hostile(state, seat, dest)
    cost = state.config.attack_ap if attack else 1
    return [{"kind": "ArmyMoved", "seat": seat, "unit": unit_id, "to": dest, "cost": cost, "attack": attack}]


def movable_armies(state: State, seat: int, round_: int) -> list[int]:
    return [
        u.id
        for u in state.units
        if u.owner == seat and u.is_army and not u.engaged and u.ap >= 1 and u.battles < round_
    ]


def refuge_options(state: State, seat: int) -> list[str]:
    """Provinces next to a battle ``seat`` is about to fight, where it may ask its retreating
    or withdrawing units (and, as attacker, retreating barbarians) to go."""
    if state.step == "battle" and state.battle is not None:
        fronts = [state.battle.province]
    else:
        fronts = battle_provinces(state, seat)
    gmap = state.gmap
    near = {p for f in fronts for p in gmap.neighbours[f]} - set(fronts)
    return [p for p in gmap.provinces if p in near]


def why_not_refuge(state: State, seat: int, province: str) -> str | None:
    if province not in refuge_options(state, seat):
        return _("{province} is not next to a battle you are about to fight.", province=province)
    if (seat, province) in state.refuges:
        return _("Your refuge is already {province}.", province=province)
    return None


def why_not_princess(state: State, seat: int, unit_id: int, dest: str) -> str | None:
    u = unit(state, unit_id)
    if u is None or u.owner != seat or u.kind != "princess":
        return _("Unit {unit} is not one of your princesses.", unit=unit_id)
    if dest not in state.gmap.neighbours[u.province]:
        return _(
            "{province} is not next to {where}, where princess {unit} stands.",
            province=dest,
            where=u.province,
            unit=unit_id,
        )
    if u.ap < 1:
        return _("Princess {unit} has already moved this turn.", unit=unit_id)
    holder = owner(state, dest)
    free = not any(x.province == dest for x in state.units)
    if not free and not (holder is not None and allied(state, seat, holder)):
        return _("A princess may only step into your own or a free province; {province} is neither.", province=dest)
    return None


def unification_size(state: State, seat: int) -> int | None:
    """Provinces counted for the bonus when ``seat`` may declare unification now, else None."""
    player = state.players[seat]
    if player.unified:
        return None
    gmap = state.gmap
    provinces = gmap.country(player.country).provinces
    mine = {p for p in provinces if owner(state, p) == seat}
    required = {p for p in provinces if gmap.provinces[p].type != "conquered"}
    if not required <= mine:
        return None
    return len(mine)


def bonus_actions(size: int) -> int:
    table = RULES.value("unification_actions")
    sizes = sorted(int(k) for k in table)
    return table[str(min(max(size, sizes[0]), sizes[-1]))]


# -- battles --------------------------------------------------------------------------------
def battle_provinces(state: State, seat: int) -> list[str]:
    found = {u.province for u in state.units if u.owner == seat and u.engaged}
    return [p for p in state.gmap.provinces if p in found]


def start_battle(state: State, province: str) -> dict[str, Any]:
    attackers = [u for u in state.units if u.province == province and u.engaged]
    defenders = [u for u in state.units if u.province == province and not u.engaged]
    seat = attackers[0].owner
    defender = BARBARIAN if any(u.owner == BARBARIAN for u in defenders) else owner(state, province)
    return {
        "kind": "BattleStarted",
        "province": province,
        "attacker": seat,
        "defender": BARBARIAN if defender is None else defender,
        "attackers": [u.id for u in attackers],
        "defenders": [u.id for u in defenders],
        "damage": [
            sum(combat.strength(state, u) for u in attackers),
            sum(combat.strength(state, u) for u in defenders),
        ],
    }


def side_damage(b: Battle, seat: int) -> int:
    return b.damage[0] if seat == b.attacker else (b.damage[1] if seat == b.defender else 0)


def assigned(b: Battle, seat: int) -> dict[int, int]:
    out: dict[int, int] = {}
    for s, uid, amount in b.hits:
        if s == seat:
            out[uid] = out.get(uid, 0) + amount
    return out


def remaining(b: Battle, seat: int) -> int:
    return side_damage(b, seat) - sum(assigned(b, seat).values())


def allocators(state: State) -> list[int]:
    """Seats that still have damage to assign in the current battle."""
    b = state.battle
    if b is None:
        return []
    seats = [b.attacker] + ([b.defender] if b.defender >= 0 and b.defender != b.attacker else [])
    return [s for s in seats if remaining(b, s) > 0 and combat.targets(state, b, s)]


def why_not_hit(state: State, seat: int, unit_id: int, amount: int) -> str | None:
    b = state.battle
    if b is None or seat not in allocators(state):
        return _("You have no damage to assign now.")
    left = remaining(b, seat)
    if not 1 <= amount <= left:
        return _("You have {left} damage left to assign, not {amount}.", left=left, amount=amount)
    target = next((u for u in combat.targets(state, b, seat) if u.id == unit_id), None)
    if target is None:
        return _("Unit {unit} is not an enemy unit in the battle at {province}.", unit=unit_id, province=b.province)
    if not combat.may_hit(state, b, seat, target, assigned(b, seat)):
        return _("Forts protect princesses: give every fort enough damage to fall first.")
    return None


def hit_fact(seat: int, unit_id: int, amount: int) -> dict[str, Any]:
    return {"kind": "DamageAssigned", "seat": seat, "secret": secret([seat], {"unit": unit_id, "amount": amount})}


def auto_hits(state: State, seat: int) -> list[dict[str, Any]]:
    b = state.battle
    assert b is not None
    before = assigned(b, seat)
    plan = combat.auto_allocate(state, combat.targets(state, b, seat), remaining(b, seat), before)
    total = {uid: before.get(uid, 0) + plan.get(uid, 0) for uid in set(before) | set(plan)}
    facts = []
    for uid, amount in plan.items():
        u = next(x for x in combat.targets(state, b, seat) if x.id == uid)
        if u.kind == "princess" and not combat.may_hit(state, b, seat, u, total):
            continue
        facts.append(hit_fact(seat, uid, amount))
    return facts


def resolve_fact(state: State) -> dict[str, Any]:
    b = state.battle
    assert b is not None
    hits: dict[int, dict[int, int]] = {b.attacker: assigned(b, b.attacker)}
    if b.defender == BARBARIAN:
        hits[BARBARIAN] = combat.auto_allocate(state, combat.targets(state, b, BARBARIAN), b.damage[1])
    elif b.defender >= 0:
        hits[b.defender] = assigned(b, b.defender)
    return {"kind": "BattleResolved", **combat.resolve(state, b, hits)}
