"""The pure fold: one fact, one new state. Never random; every computation that needs a
choice or the rules was done in ``decide`` and written into the fact."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pbem.games.base import secret_data, update
from pbem.games.warriors_traders.data import MAPS, RESOURCES, RULES, TRACKS
from pbem.games.warriors_traders.state import (
    BARBARIAN,
    Battle,
    Config,
    Offer,
    Player,
    State,
    Unit,
    War,
    add_stock,
    bundle,
    order,
    recompute_owners,
    set_player,
    track_level,
)

Fact = dict[str, Any]


def start_state(fact: dict[str, Any]) -> State:
    config = Config(**fact["config"])
    gmap = MAPS[config.map]
    start = RULES.raw["setup"]
    players = tuple(
        Player(country, fact["teams"][seat], tuple(start["resources"].get(r, 0) for r in RESOURCES))
        for seat, country in enumerate(fact["countries"])
    )
    capitals = {
        next(p for p in gmap.country(c).provinces if gmap.provinces[p].type == "capital"): seat
        for seat, c in enumerate(fact["countries"])
    }
    units: list[Unit] = []
    owners: list[int | None] = []
    for pid, province in gmap.provinces.items():
        seat = capitals.get(pid)
        if seat is not None:
            kinds = ["fort"] + ["princess"] * start["princesses"]
            kinds += ["infantry"] * start["revised_edition_infantry"] if config.revised else []
            units += [Unit(len(units) + 1 + i, seat, k, pid) for i, k in enumerate(kinds)]
            owners.append(seat)
            continue
        kind = "fort" if province.type == "capital" else "infantry"
        units.append(Unit(len(units) + 1, BARBARIAN, kind, pid))
        owners.append(None)
    return State(config, players, tuple(units), tuple(owners), next_unit=len(units) + 1)


def _pay(state: State, seat: int, paid: dict[str, int]) -> State:
    player = state.players[seat]
    return set_player(state, seat, stock=add_stock(player, {r: -n for r, n in paid.items()}))


def _pop(state: State) -> State:
    return update(state, queue=state.queue[1:])


def _after_action(state: State, fact: dict[str, Any]) -> State:
    seat, source = fact["seat"], fact["source"]
    if source == "action":
        return _pop(state)
    if source == "bonus":
        left = state.bonus - 1
        return update(state, bonus=left, step=state.step if left else state.bonus_return)
    if source in ("university", "voivode", "master_trader"):
        used = (*state.players[seat].specials_used, source)
        return set_player(state, seat, specials_used=used)
    return state


def _with_units(state: State, changed: Mapping[int, Unit | None], added: tuple[Unit, ...] = ()) -> State:
    if not changed:  # a unit added: the others stay as they are
        return update(state, units=state.units + added)
    units = tuple(changed.get(u.id, u) for u in state.units)
    units = tuple(u for u in units if u is not None) + added
    return update(state, units=units)


def _development(state: State, fact: dict[str, Any]) -> State:
    kind, seat = fact["kind"], fact["seat"]
    state = _pay(state, seat, fact.get("paid", {}))
    if kind == "TrackDeveloped":
        player = state.players[seat]
        tokens = list(player.tokens)
        tokens[TRACKS.index(fact["track"])] += 1
        state = set_player(state, seat, tokens=tuple(tokens))
    elif kind == "ArmyBuilt" or kind == "FortBuilt":
        new = Unit(fact["unit"], seat, fact.get("army", "fort"), fact["province"])
        state = update(_with_units(state, {}, (new,)), next_unit=fact["unit"] + 1)
    elif kind == "ArmyUpgraded":
        old = next(u for u in state.units if u.id == fact["unit"])
        state = _with_units(state, {old.id: update(old, kind=fact["army"])})
    elif kind == "WarDeclared":
        pair = tuple(fact["teams"])
        wars = (*tuple(w for w in state.wars if w.teams != pair), War(pair, state.turn))
        state = update(state, wars=wars)
    return _after_action(state, fact)


def _bank_exchanged(state: State, fact: Fact) -> State:
    delta = {fact["give"]: -fact["gave"], fact["get"]: fact["got"]}
    return set_player(state, fact["seat"], stock=add_stock(state.players[fact["seat"]], delta))


def _offer_made(state: State, fact: Fact) -> State:
    seat = fact["seat"]
    offer = Offer(
        fact["offer"],
        seat,
        fact["to"],
        bundle(fact["give"], fact.get("give_n")),
        bundle(fact["get"], fact.get("get_n")),
    )
    state = set_player(state, seat, offers_made=state.players[seat].offers_made + 1)
    return update(state, offers=(*state.offers, offer), next_offer=offer.id + 1, done=state.done - {fact["to"]})


def _offer_answered(state: State, fact: Fact) -> State:
    offer = next(o for o in state.offers if o.id == fact["offer"])
    state = update(state, offers=tuple(o for o in state.offers if o.id != offer.id))
    if fact["kind"] == "OfferAccepted":
        gives, gets = dict(offer.give), dict(offer.get)
        to_offerer = {r: gets.get(r, 0) - gives.get(r, 0) for r in set(gives) | set(gets)}
        state = set_player(state, offer.seat, stock=add_stock(state.players[offer.seat], to_offerer))
        state = set_player(
            state, offer.to, stock=add_stock(state.players[offer.to], {r: -n for r, n in to_offerer.items()})
        )
    return state


def _vp_bought(state: State, fact: Fact) -> State:
    player = state.players[fact["seat"]]
    return set_player(
        state, fact["seat"], bought=player.bought + fact["count"], stock=add_stock(player, {"gold": -fact["gold"]})
    )


def _peace_proposed(state: State, fact: Fact) -> State:
    # in the trade phase a proposal brings the other side back into it, to answer
    asked = fact["teams"][1]
    targets = {s for s in state.seats if state.players[s].team == asked} if state.phase == "trade" else set()
    return update(state, peace=(*state.peace, tuple(fact["teams"])), done=state.done - targets)


def _peace_made(state: State, fact: Fact) -> State:
    pair = tuple(sorted(fact["teams"]))
    return update(
        state,
        wars=tuple(w for w in state.wars if w.teams != pair),
        peace=tuple(p for p in state.peace if tuple(sorted(p)) != pair),
    )


def _battle_resolved(state: State, fact: dict[str, Any]) -> State:
    damage: dict[int, int] = {}
    for _, uid, amount in fact["hits"]:
        damage[uid] = damage.get(uid, 0) + amount
    gone = set(fact["killed"]) | set(fact["removed"])
    changed: dict[int, Unit | None] = {}
    touched = {fact["province"]}
    for u in state.units:
        if u.id in gone:
            changed[u.id] = None
            continue
        new = update(u, damage=u.damage + damage.get(u.id, 0)) if u.id in damage else u
        key = str(u.id)
        if key in fact["retreated"]:
            new = update(new, province=fact["retreated"][key], retreated=True, ap=0, engaged=False)
            touched.add(new.province)
        elif key in fact["withdrawn"]:
            new = update(new, province=fact["withdrawn"][key], ap=0, engaged=False)
            touched.add(new.province)
        elif new.engaged and new.province == fact["province"] and fact["captured"] is not None:
            new = update(new, engaged=False)
        if new is not u:
            changed[u.id] = new
    state = _with_units(state, changed)
    for seat, points in fact["vp"].items():
        state = set_player(state, int(seat), kills=state.players[int(seat)].kills + points)
    if fact["war_damage"]:
        a, d = state.players[fact["attacker"]].team, state.players[fact["defender"]].team
        pair = tuple(sorted((a, d)))
        state = update(state, wars=tuple(update(w, damaged=True) if w.teams == pair else w for w in state.wars))
    state = recompute_owners(state, touched)
    return update(state, battle=None)


def _maneuver_started(state: State, fact: Fact) -> State:
    ap = RULES.track("military_action_points")
    points = ap[track_level(state, fact["seat"], "military") - 1]
    resting = set(fact.get("resting", ()))  # retreated armies: no action points this turn
    changed = {
        u.id: update(u, ap=0 if u.id in resting else points if u.is_army else 1)
        for u in state.units
        if u.owner == fact["seat"] and u.kind != "fort"
    }
    return update(_with_units(state, changed), step="move", round=1)


def _unit_moved(state: State, fact: Fact) -> State:
    u = next(x for x in state.units if x.id == fact["unit"])
    if fact["kind"] == "ArmyMoved":
        new = update(
            u,
            province=fact["to"],
            ap=u.ap - fact["cost"],
            engaged=fact["attack"],
            battles=u.battles + fact["attack"],
        )
    else:
        new = update(u, province=fact["to"], ap=0)
    return recompute_owners(_with_units(state, {u.id: new}), (u.province, fact["to"]))


def _battle_started(state: State, fact: Fact) -> State:
    battle = Battle(
        fact["province"],
        fact["attacker"],
        fact["defender"],
        tuple(fact["attackers"]),
        tuple(fact["defenders"]),
        tuple(fact["damage"]),
    )
    return update(state, battle=battle)


def _damage_assigned(state: State, fact: Fact) -> State:
    data = secret_data(fact)
    b = state.battle
    assert b is not None, "damage is assigned only during a battle"
    return update(state, battle=update(b, hits=(*b.hits, (fact["seat"], data["unit"], data["amount"]))))


def _unification_declared(state: State, fact: Fact) -> State:
    state = set_player(state, fact["seat"], unified=True)
    return update(state, bonus=fact["actions"], bonus_return=state.step, step="bonus")


def _refuge_chosen(state: State, fact: Fact) -> State:
    others = tuple(r for r in state.refuges if r[0] != fact["seat"])
    return update(state, refuges=(*others, (fact["seat"], fact["province"])))


def _army_starved(state: State, fact: Fact) -> State:
    """Left unfed by its owner's choice: the army dies at once."""
    state = _with_units(state, {fact["unit"]: None})
    return recompute_owners(state, state.gmap.provinces)


def _armies_fed(state: State, fact: Fact) -> State:
    state = _with_units(state, {i: None for i in fact["starved"]})
    for seat, food in fact["fed"].items():
        state = set_player(state, int(seat), stock=add_stock(state.players[int(seat)], {"food": -food}))
    state = recompute_owners(state, state.gmap.provinces)
    return update(state, step="collect", unfed=())


def _resources_collected(state: State, fact: Fact) -> State:
    for seat, gain in fact["gains"].items():
        state = set_player(state, int(seat), stock=add_stock(state.players[int(seat)], gain))
    players = tuple(update(p, offers_made=0) for p in state.players)
    return update(state, players=players, phase="trade", step="", done=frozenset(), offers=())


def _trade_ended(state: State, fact: Fact) -> State:
    seats = order(state)
    queue = [("action1", s) for s in seats] + [("action2", s) for s in reversed(seats)]
    queue += [("special", s) for s in seats] + [("shift", s) for s in seats]
    players = tuple(update(p, specials_used=()) for p in state.players)
    return update(state, players=players, phase="development", queue=tuple(queue), offers=())


def _turn_ended(state: State, fact: dict[str, Any]) -> State:
    for seat in state.seats:
        gain = {"gold": fact["doubled"].get(str(seat), 0)}
        for resource, n in fact["discarded"].get(str(seat), {}).items():
            gain[resource] = gain.get(resource, 0) - n
        state = set_player(state, seat, stock=add_stock(state.players[seat], gain))
    if state.config.unify_each_turn:  # a unification may be declared again next turn
        state = update(state, players=tuple(update(p, unified=False) for p in state.players))
    units = tuple(
        update(u, damage=0, retreated=False, ap=0, battles=0, engaged=False)
        if (u.damage or u.retreated or u.ap or u.battles or u.engaged)
        else u
        for u in state.units
    )
    ended = {tuple(pair) for pair, _ in fact["wars_ended"]}
    wars = tuple(update(w, damaged=False) for w in state.wars if w.teams not in ended)
    # peace proposals stand until the end of the turn (they can be answered at any decision)
    return update(state, units=units, wars=wars, phase="between", step="", queue=(), battle=None, peace=())


def _token_placed(state: State, fact: Fact) -> State:
    player = state.players[fact["seat"]]
    tokens = list(player.tokens)
    tokens[TRACKS.index(secret_data(fact)["track"])] += 1
    return set_player(state, fact["seat"], tokens=tuple(tokens), placed=player.placed + 1)


def _tokens_revealed(state: State, fact: Fact) -> State:
    players = tuple(update(p, tokens=tuple(t)) for p, t in zip(state.players, fact["tokens"], strict=False))
    return update(state, players=players, phase="between")


def _passed(state: State, fact: Fact) -> State:
    if fact["step"] == "bonus":
        return update(state, bonus=0, step=state.bonus_return)
    return _pop(state)


def _token_shifted(state: State, fact: Fact) -> State:
    player = state.players[fact["seat"]]
    tokens = list(player.tokens)
    tokens[TRACKS.index(fact["from"])] -= 1
    tokens[TRACKS.index(fact["to"])] += 1
    return _pop(set_player(state, fact["seat"], tokens=tuple(tokens)))


# the new state after each kind of fact
ROUTES: dict[str, Callable[[State, Fact], State]] = {
    "TrackDeveloped": _development,
    "ArmyBuilt": _development,
    "FortBuilt": _development,
    "ArmyUpgraded": _development,
    "WarDeclared": _development,
    "TokenPlaced": _token_placed,
    "TokensRevealed": _tokens_revealed,
    "Passed": _passed,
    "TokenShifted": _token_shifted,
    # the trade phase
    "BankExchanged": _bank_exchanged,
    "RouteOpened": lambda state, fact: update(state, routes=(*state.routes, (fact["seat"], fact["to"]))),
    "OfferMade": _offer_made,
    "OfferAccepted": _offer_answered,
    "OfferDeclined": _offer_answered,
    "VPBought": _vp_bought,
    "PeaceProposed": _peace_proposed,
    "PeaceMade": _peace_made,
    "TradeFinished": lambda state, fact: update(state, done=state.done | {fact["seat"]}),
    # the maneuvers
    "ManeuverStarted": _maneuver_started,
    "ArmyMoved": _unit_moved,
    "PrincessMoved": _unit_moved,
    "MovementEnded": lambda state, fact: update(state, step="battle", battle=None),
    "BattleStarted": _battle_started,
    "DamageAssigned": _damage_assigned,
    "BattleResolved": _battle_resolved,
    "BattlesOver": lambda state, fact: update(state, step=fact["next"], round=fact["round"]),
    "UnificationDeclared": _unification_declared,
    "RefugeChosen": _refuge_chosen,
    "ManeuverEnded": lambda state, fact: update(_pop(state), step="", refuges=()),
    # the turn's flow
    "TurnStarted": lambda state, fact: update(
        state, turn=fact["turn"], phase="maintenance", step="feed", done=frozenset()
    ),
    "StarvationOrdered": lambda state, fact: update(
        state, unfed=(*state.unfed, fact["unit"])
    ),  # starves at the next feeding
    "ArmyStarved": _army_starved,
    "FeedingChosen": lambda state, fact: update(state, done=state.done | {fact["seat"]}),
    "ArmiesFed": _armies_fed,
    "ResourcesCollected": _resources_collected,
    "TradeEnded": _trade_ended,
    "DevelopmentEnded": lambda state, fact: update(
        state, phase="maneuvers", step="", queue=tuple(("maneuver", s) for s in order(state))
    ),
    "TurnEnded": _turn_ended,
    "GameEnded": lambda state, fact: update(state, phase="over", step="", queue=()),
}


def evolve(state: State | None, fact: Fact) -> State:
    kind = fact["kind"]
    if kind == "GameStarted":
        return start_state(fact)
    assert state is not None
    if kind not in ROUTES:
        raise ValueError(f"unknown fact {kind}")
    return ROUTES[kind](state, fact)
