"""Battles: strength and life, damage allocation (the barbarians' fixed priorities), and the
resolution of one battle into a plain result (deaths, retreats, withdrawal, capture, VP)."""

from __future__ import annotations

from typing import Any

from pbem.games.warriors_traders.data import RULES
from pbem.games.warriors_traders.state import (
    BARBARIAN,
    Battle,
    State,
    Unit,
    allied,
    has_ability,
)

SIZE = {"cavalry": 3, "archer": 2, "infantry": 1, "fort": 0, "princess": -1}


def barbarian_strength(turn: int) -> int:
    values = RULES.unit("barbarian_army")["strength_by_turn"]
    return values[min(max(turn, 1), len(values)) - 1]


def toughness(state: State, u: Unit) -> int:
    if u.owner == BARBARIAN:
        return barbarian_strength(state.turn) if u.is_army else RULES.unit("barbarian_fort")["toughness"]
    return RULES.unit(u.kind)["toughness"]


def strength(state: State, u: Unit) -> int:
    if u.retreated:
        return 0  # units that retreated deal no damage (FAQ L956-962)
    if u.owner == BARBARIAN:
        return barbarian_strength(state.turn) if u.is_army else RULES.unit("barbarian_fort")["strength"]
    return RULES.unit(u.kind)["strength"]


def can_retreat(state: State, u: Unit) -> bool:
    """Barbarian armies always may; a player's armies with the Commander ability."""
    if not u.is_army or u.retreated:
        return False
    return u.owner == BARBARIAN or has_ability(state, u.owner, "commander")


def life(state: State, u: Unit) -> int:
    return toughness(state, u) - u.damage


def kill_cost(state: State, u: Unit, assigned: int = 0) -> int:
    """Further damage that kills ``u`` outright, after ``assigned`` already given to it."""
    if u.kind == "princess" or u.retreated:
        return max(1 - assigned, 0)
    extra = 1 if can_retreat(state, u) else 0
    return max(life(state, u) + extra - assigned, 0)


def fate(state: State, u: Unit, amount: int) -> str | None:
    """'dies', 'retreats' or None for ``amount`` new damage on ``u``."""
    if amount <= 0:
        return None
    if u.kind == "princess" or u.retreated:
        return "dies"
    left = life(state, u) - amount
    if can_retreat(state, u):
        return "dies" if left < 0 else ("retreats" if left == 0 else None)
    return "dies" if left <= 0 else None


def kill_vp(u: Unit) -> int:
    if u.owner == BARBARIAN:
        return RULES.unit("barbarian_army" if u.is_army else "barbarian_fort")["kill_vp"]
    return RULES.unit(u.kind)["kill_vp"]


def _largest(state: State, units: list[Unit]) -> list[Unit]:
    return sorted(units, key=lambda u: (-SIZE[u.kind], -toughness(state, u), u.id))


def targets(state: State, battle: Battle, seat: int) -> list[Unit]:
    """The enemy units ``seat`` assigns damage to in this battle."""
    ids = battle.defenders if seat == battle.attacker else battle.attackers
    by_id = {u.id: u for u in state.units}
    return [by_id[i] for i in ids if i in by_id]


def may_hit(state: State, battle: Battle, seat: int, u: Unit, hits: dict[int, int]) -> bool:
    """Princesses take damage only once every fort with them is given enough to fall."""
    if u.kind != "princess":
        return True
    return all(hits.get(f.id, 0) >= life(state, f) for f in targets(state, battle, seat) if f.kind == "fort")


def auto_allocate(
    state: State, units: list[Unit], damage: int, already: dict[int, int] | None = None
) -> dict[int, int]:
    """The barbarians' fixed priorities (L752-768), also offered to players as ``auto``:
    kill the largest army that the damage can kill, again while it suffices; then force the
    largest remaining army to retreat; the rest on the largest remaining army. Forts and then
    princesses are handled after the armies in the same way. ``already`` holds damage the
    same side assigned by hand before asking for the rest."""
    already = already or {}
    hits: dict[int, int] = {}
    ordered = _by_priority(state, units)
    killed: set[int] = {u.id for u in ordered if already.get(u.id) and kill_cost(state, u, already[u.id]) == 0}
    left = _kill_while_it_suffices(state, ordered, already, damage, hits, killed)
    left = _force_a_retreat(state, [u for u in ordered if u.id not in killed and u.is_army], already, left, hits)
    rest = [u for u in ordered if u.id not in killed] or ordered
    if left > 0 and rest:
        hits[rest[0].id] = hits.get(rest[0].id, 0) + left
    return hits


def _by_priority(state: State, units: list[Unit]) -> list[Unit]:
    """The armies from the largest, then the forts, then the princesses."""
    return (
        [u for u in _largest(state, units) if u.is_army]
        + [u for u in units if u.kind == "fort"]
        + [u for u in units if u.kind == "princess"]
    )


def _next_kill(
    state: State, ordered: list[Unit], already: dict[int, int], killed: set[int], left: int
) -> tuple[Unit, int] | None:
    """The first unit in the order that ``left`` damage kills (a princess only once every
    fort is killed), with the damage that takes."""
    for u in ordered:
        if u.id in killed or (u.kind == "princess" and any(f.kind == "fort" and f.id not in killed for f in ordered)):
            continue
        cost = kill_cost(state, u, already.get(u.id, 0))
        if 0 < cost <= left:
            return u, cost
    return None


def _kill_while_it_suffices(
    state: State, ordered: list[Unit], already: dict[int, int], left: int, hits: dict[int, int], killed: set[int]
) -> int:
    """Kills unit after unit into ``hits`` and ``killed``; returns the damage left."""
    while left > 0:
        found = _next_kill(state, ordered, already, killed, left)
        if found is None:
            break
        u, cost = found
        hits[u.id] = hits.get(u.id, 0) + cost
        left -= cost
        killed.add(u.id)
    return left


def _force_a_retreat(state: State, alive: list[Unit], already: dict[int, int], left: int, hits: dict[int, int]) -> int:
    """Forces the largest living army to retreat when the damage left suffices; returns the
    damage left."""
    if alive and can_retreat(state, alive[0]):
        to_retreat = life(state, alive[0]) - already.get(alive[0].id, 0)
        if 0 < to_retreat <= left:
            hits[alive[0].id] = to_retreat
            left -= to_retreat
    return left


def _presence(state: State, gone: set[int]) -> dict[str, set[int]]:
    present: dict[str, set[int]] = {p: set() for p in state.gmap.provinces}
    for u in state.units:
        if u.id not in gone:
            present[u.province].add(u.owner)
    return present


def _player_refuge(state: State, seat: int, origin: str, present: dict[str, set[int]], wish: str | None) -> str | None:
    """An adjacent province of the player (or an ally) or a free one: the player's stated
    refuge when it is one of them, else own first, then free, in map order."""
    near = [p for p in state.gmap.neighbours[origin]]
    own = [p for p in near if present[p] and all(o >= 0 and allied(state, seat, o) for o in present[p])]
    free = [p for p in near if not present[p]]
    if wish in own + free:
        return wish
    return (own + free)[0] if own or free else None


def _barbarian_refuge(state: State, origin: str, present: dict[str, set[int]], wish: str | None) -> str | None:
    """Free province, barbarian capital, barbarian trade centre, other barbarian province
    (L740-750); among equals the attacker chooses (its stated refuge), else map order."""
    near = state.gmap.neighbours[origin]
    provinces = state.gmap.provinces
    barbarian = [p for p in near if present[p] == {BARBARIAN}]
    for group in (
        [p for p in near if not present[p]],
        [p for p in barbarian if provinces[p].type == "capital"],
        [p for p in barbarian if provinces[p].type == "trade_center"],
        barbarian,
    ):
        if group:
            return wish if wish in group else group[0]
    return None


def _move_group(
    state: State,
    ids: list[int],
    origin: str,
    present: dict[str, set[int]],
    moves: dict[str, str],
    removed: list[int],
    attacker: int,
) -> None:
    if not ids:
        return
    owner_seat = next(u.owner for u in state.units if u.id == ids[0])
    wishes = dict(state.refuges)
    dest = (
        _barbarian_refuge(state, origin, present, wishes.get(attacker))
        if owner_seat == BARBARIAN
        else _player_refuge(state, owner_seat, origin, present, wishes.get(owner_seat))
    )
    if dest is None:
        removed.extend(ids)  # nowhere to go: removed, and nobody scores them
        return
    for i in ids:
        moves[str(i)] = dest
    present[dest].add(owner_seat)


def _total_hits(hits: dict[int, dict[int, int]]) -> dict[int, int]:
    total: dict[int, int] = {}
    for side in hits.values():
        for uid, amount in side.items():
            total[uid] = total.get(uid, 0) + amount
    return total


def _fates(
    state: State, battle: Battle, by_id: dict[int, Unit], total: dict[int, int]
) -> tuple[list[int], list[int], dict[str, int]]:
    """The units killed, the units retreating and the VP each killer scores."""
    killed, retreating = [], []
    vp: dict[str, int] = {}
    for uid in sorted(total):
        u = by_id[uid]
        outcome = fate(state, u, total[uid])
        if outcome == "dies":
            killed.append(uid)
            killer = battle.attacker if uid in battle.defenders else battle.defender
            if killer >= 0:
                vp[str(killer)] = vp.get(str(killer), 0) + kill_vp(u)
        elif outcome == "retreats":
            retreating.append(uid)
    return killed, retreating, vp


def _defenders_retreat(
    state: State,
    battle: Battle,
    by_id: dict[int, Unit],
    retreating: list[int],
    present: dict[str, set[int]],
    moves: dict[str, str],
    removed: list[int],
) -> None:
    """The retreating defenders go, owner by owner, each owner's group to one refuge."""
    defenders = [i for i in retreating if i in battle.defenders]
    for owner_seat in sorted({by_id[i].owner for i in defenders}):
        group = [i for i in defenders if by_id[i].owner == owner_seat]
        _move_group(state, group, battle.province, present, moves, removed, battle.attacker)


def _withdraw_or_capture(
    state: State,
    battle: Battle,
    gone: set[int],
    present: dict[str, set[int]],
    withdrawn: dict[str, str],
    removed: list[int],
) -> int | None:
    """Attackers left alive beside living defenders withdraw (into ``withdrawn``); alone, they
    capture the province: its capturer's seat, else None."""
    attackers_alive = [i for i in battle.attackers if i not in gone]
    if not attackers_alive:
        return None
    if any(i not in gone for i in battle.defenders):
        _move_group(state, attackers_alive, battle.province, present, withdrawn, removed, battle.attacker)
        return None
    return battle.attacker


def resolve(state: State, battle: Battle, hits: dict[int, dict[int, int]]) -> dict[str, Any]:
    """The result of a battle given each side's hits ``{seat: {unit: amount}}`` (barbarian
    hits under BARBARIAN). Deterministic; the caller puts it in a public fact."""
    by_id = {u.id: u for u in state.units}
    total = _total_hits(hits)
    killed, retreating, vp = _fates(state, battle, by_id, total)
    present = _presence(state, set(killed) | set(retreating) | set(battle.attackers))
    moves: dict[str, str] = {}
    removed: list[int] = []
    _defenders_retreat(state, battle, by_id, retreating, present, moves, removed)
    gone = set(killed) | set(retreating)
    present[battle.province] = {by_id[i].owner for i in battle.defenders if i not in gone}
    att_retreat = [i for i in retreating if i in battle.attackers]
    _move_group(state, att_retreat, battle.province, present, moves, removed, battle.attacker)
    withdrawn: dict[str, str] = {}
    captured = _withdraw_or_capture(state, battle, gone, present, withdrawn, removed)
    return {
        "province": battle.province,
        "attacker": battle.attacker,
        "defender": battle.defender,
        "hits": [[seat, uid, amount] for seat, side in sorted(hits.items()) for uid, amount in sorted(side.items())],
        "killed": killed,
        "retreated": moves,
        "withdrawn": withdrawn,
        "removed": removed,
        "vp": vp,
        "captured": captured,
        "war_damage": battle.defender >= 0 and sum(total.values()) > 0,
    }
