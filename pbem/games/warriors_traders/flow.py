"""Everything that happens without a player's choice: the phase flow, maintenance (feeding,
collection, production and trade tax), battle starts and barbarian resolution, and the end of
turn (Merchant, the storage cap, war endings, the victory check)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem.games.warriors_traders import battle as combat
from pbem.games.warriors_traders import maneuvers as man
from pbem.games.warriors_traders import rules, scoring
from pbem.games.warriors_traders.data import RESOURCES, RULES
from pbem.games.warriors_traders.evolve import evolve
from pbem.games.warriors_traders.state import (
    State,
    has_ability,
    order,
    owned,
    track_value,
)

Fact = dict[str, Any]


def feeding_fact(state: State) -> Fact:
    """Armies eat in country order. A player short of food has first chosen which armies
    starve (``starve UNIT``, then ``done``); armies ordered left unfed earlier starve; what is
    left is fed strongest first, and the armies the remaining food cannot feed starve (FAQ: an
    army is fed in full or dies)."""
    fed: dict[str, int] = {}
    starved: list[int] = []
    for seat in order(state):
        food = state.players[seat].has("food")
        armies = sorted(
            (u for u in state.units if u.owner == seat and u.is_army),
            key=lambda u: (-RULES.unit(u.kind)["upkeep"], u.id),
        )
        eaten = 0
        for army in armies:
            need = RULES.unit(army.kind)["upkeep"]
            if army.id not in state.unfed and eaten + need <= food:
                eaten += need
            else:
                starved.append(army.id)
        fed[str(seat)] = eaten
    return {"kind": "ArmiesFed", "fed": fed, "starved": starved}


def collection(state: State, seat: int) -> dict[str, int]:
    """Symbols of the owned provinces times the multipliers (food and goods from production,
    weapons from military), plus Production tax and Trade tax gold."""
    provinces = [state.gmap.provinces[p] for p in owned(state, seat)]
    symbols = {r: sum(p.amount(r) for p in provinces) for r in RESOURCES[:3]}
    gain = {
        "food": symbols["food"] * track_value(state, seat, "production", "production_food_multiplier"),
        "goods": symbols["goods"] * track_value(state, seat, "production", "production_goods_multiplier"),
        "weapons": symbols["weapons"] * track_value(state, seat, "military", "military_weapons_multiplier"),
        "gold": 0,
    }
    if has_ability(state, seat, "production_tax"):
        gain["gold"] += sum(1 for p in provinces if p.type == "capital")
    if has_ability(state, seat, "trade_tax"):
        gain["gold"] += sum(1 for p in provinces if p.type == "trade_center")
    return gain


def maneuver_started_fact(state: State, seat: int) -> Fact:
    """The seat's maneuver begins. Its armies that retreated earlier this turn lie on their
    side and get no action points (Czech rulebook, "Pravidla ustupování": "Armády, které
    ustoupily, ztrácejí všechny své zbývající akční body"; they stand up at the end of turn)."""
    fact: Fact = {"kind": "ManeuverStarted", "seat": seat}
    resting = [u.id for u in state.units if u.owner == seat and u.is_army and u.retreated]
    if resting:
        fact["resting"] = resting
    return fact


def turn_end_fact(state: State) -> Fact:
    cap = RULES.value("storage_cap")
    doubled: dict[str, int] = {}
    discarded: dict[str, dict[str, int]] = {}
    for seat, player in enumerate(state.players):
        stock = dict(zip(RESOURCES, player.stock, strict=False))
        if has_ability(state, seat, "merchant") and stock["gold"]:
            doubled[str(seat)] = stock["gold"]
            stock["gold"] *= 2
        excess = {r: n - cap for r, n in stock.items() if n > cap}
        if excess:
            discarded[str(seat)] = excess
    ended = []
    for war in state.wars:
        if not war.damaged:
            ended.append([list(war.teams), "no damage this turn"])
        elif state.turn >= war.start + RULES.value("war_max_turns") - 1:
            ended.append([list(war.teams), "third turn over"])
    return {"kind": "TurnEnded", "turn": state.turn, "doubled": doubled, "discarded": discarded, "wars_ended": ended}


def game_end_fact(state: State) -> Fact | None:
    reached = scoring.threshold_reached(state)
    if not reached and state.turn < RULES.value("turns"):
        return None
    return {
        "kind": "GameEnded",
        "turn": state.turn,
        "reason": "victory threshold reached" if reached else "tenth turn over",
        "vp": [scoring.vp(state, s) for s in state.seats],
    }


def _battle_step(state: State) -> Fact | None:
    seat = state.queue[0][1]
    b = state.battle
    if b is None:
        provinces = man.battle_provinces(state, seat)
        if provinces:
            return man.start_battle(state, provinces[0])
        again = state.round == 1 and man.max_battles(state, seat) == 2 and man.movable_armies(state, seat, 2)
        return {
            "kind": "BattlesOver",
            "seat": seat,
            "next": "move" if again else "princess",
            "round": 2 if again else state.round,
        }
    waiting = man.allocators(state)
    if not waiting:
        return man.resolve_fact(state)
    for s in waiting:
        targets = combat.targets(state, b, s)
        if len(targets) == 1:
            return man.hit_fact(s, targets[0].id, man.remaining(b, s))
    return None


def _setup_auto(state: State) -> Fact | None:
    if rules.to_move(state):
        return None
    return {"kind": "TokensRevealed", "tokens": [list(p.tokens) for p in state.players]}


def _maintenance_auto(state: State) -> Fact | None:
    if state.step == "feed":
        return None if rules.to_move(state) else feeding_fact(state)
    return {"kind": "ResourcesCollected", "gains": {str(s): collection(state, s) for s in state.seats}}


def _trade_auto(state: State) -> Fact | None:
    waiting = rules.to_move(state)
    if not waiting:
        return {"kind": "TradeEnded"}
    for seat in waiting:
        if not rules.has_choice(state, seat):
            return {"kind": "TradeFinished", "seat": seat, "auto": True}
    return None


def _development_auto(state: State) -> Fact | None:
    if not state.queue:
        return {"kind": "DevelopmentEnded"}
    return _auto_pass(state, state.queue[0][1])


def _maneuvers_auto(state: State) -> Fact | None:
    if not state.queue:
        return turn_end_fact(state)
    seat = state.queue[0][1]
    if state.step == "":
        return maneuver_started_fact(state, seat)
    if state.step == "battle":
        return _battle_step(state)
    return _auto_pass(state, seat)


# each phase's next fact that needs nobody's choice, or None when a seat must move
_NEXT_AUTO: dict[str, Callable[[State], Fact | None]] = {
    "setup": _setup_auto,
    "between": lambda state: game_end_fact(state) or {"kind": "TurnStarted", "turn": state.turn + 1},
    "maintenance": _maintenance_auto,
    "trade": _trade_auto,
    "development": _development_auto,
    "maneuvers": _maneuvers_auto,
}


def next_auto(state: State) -> Fact | None:
    """The next fact that needs nobody's choice, or None when a seat must move."""
    auto = _NEXT_AUTO.get(state.phase)
    return auto(state) if auto is not None else None


def _auto_pass(state: State, seat: int) -> Fact | None:
    if rules.has_choice(state, seat):
        return None
    facts = rules.move_facts(state, seat, rules.trivial_move(state, seat))
    return {**facts[0], "auto": True}


def follow_ups(state: State) -> tuple[list[Fact], State]:
    facts: list[Fact] = []
    while True:
        fact = next_auto(state)
        if fact is None:
            return facts, state
        facts.append(fact)
        state = evolve(state, fact)
