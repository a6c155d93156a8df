"""Legality in one place: which moves a seat may make now (``why_not``), the candidates that
``legal_moves`` filters, and the facts a legal move causes (``move_facts``).

Moves are tuples: ``("develop", "trade")``, ``("build", "infantry", "w_paris")``,
``("move", 12, "w_rouen")``, ``("hit", 12, 3)``, ``("done",)`` ...
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from pbem.games.base import secret
from pbem.games.text import _
from pbem.games.warriors_traders import battle as combat
from pbem.games.warriors_traders import development as dev
from pbem.games.warriors_traders import maneuvers as man
from pbem.games.warriors_traders import trade, words
from pbem.games.warriors_traders.data import RULES, TRACKS
from pbem.games.warriors_traders.state import State, country_seat, order, played_by, unit


def current_step(state: State) -> str:
    if state.phase == "development":
        return state.queue[0][0] if state.queue else ""
    return state.step


def short_of_food(state: State, seat: int) -> bool:
    """Whether the seat's food cannot feed all its armies (then it chooses which starve); the
    armies it has already ordered left unfed do not count."""
    need = sum(
        RULES.unit(u.kind)["upkeep"] for u in state.units if u.owner == seat and u.is_army and u.id not in state.unfed
    )
    return need > state.players[seat].has("food")


def _feeders(state: State) -> list[int]:
    if state.step != "feed":
        return []
    return [s for s in order(state) if s not in state.done and short_of_food(state, s)]


def _maneuvering(state: State) -> list[int]:
    if not (state.queue and state.step):
        return []
    return man.allocators(state) if state.step == "battle" else [state.queue[0][1]]


# the seats each phase waits for
_TO_MOVE: dict[str, Callable[[State], list[int]]] = {
    "maintenance": _feeders,
    "setup": lambda state: [
        s for s in state.seats if state.players[s].placed < RULES.raw["setup"]["development_tokens"]
    ],
    "trade": lambda state: [s for s in state.seats if s not in state.done],
    "development": lambda state: [state.queue[0][1]] if state.queue else [],
    "maneuvers": _maneuvering,
}


def to_move(state: State) -> list[int]:
    seats = _TO_MOVE.get(state.phase)
    return seats(state) if seats is not None else []


def trivial_move(state: State, seat: int) -> tuple:
    """The move that ends the seat's part of the step (also the deadline default)."""
    step = current_step(state)
    if state.phase == "setup":
        return ("develop", "production")
    if step == "battle":
        return ("auto",)
    if step in ("action1", "action2", "shift", "bonus"):
        return ("pass",)
    return ("done",)  # trade, specials, movement, princesses, feeding


def _action_steps(step: str) -> bool:
    return step in ("action1", "action2", "bonus")


def why_not(state: State, seat: int, move: tuple) -> str | None:
    """None when ``move`` is legal for ``seat`` now, else a sentence saying why not."""
    if seat not in to_move(state):
        return _("It is not your turn to move.")
    return why_not_on_turn(state, seat, move)


def why_not_on_turn(state: State, seat: int, move: tuple) -> str | None:
    """``why_not`` for a seat known to be one of ``to_move`` (the callers that check many moves,
    or have just checked the turn, do not ask again)."""
    verb, step = move[0], current_step(state)
    if state.phase == "setup":
        return None if verb == "develop" else _("Place your starting development tokens first: develop TRACK.")
    if move == trivial_move(state, seat):
        return None
    if verb == "peace" and step != "battle":  # a peace may be agreed at any decision (L775)
        return trade.why_not_peace(state, seat, move[1])
    if verb == "starve" and step not in ("feed", "battle"):
        return _why_not_unfed_order(state, seat, move[1])
    if state.phase == "trade":
        return _why_not_trade(state, seat, move)
    check = _ACTION_CHECKS.get(step) if verb in dev.ACTIONS else _ORDER_CHECKS.get((step, verb))
    if check is None:
        return _("'{verb}' is not an order for {step}.", verb=words.command(verb), step=phase_name(state))
    return check(state, seat, move)


def _why_not_starve(state: State, seat: int, move: tuple) -> str | None:
    army = unit(state, move[1])
    if army is not None and army.owner == seat and army.is_army:
        return None
    return _("Unit {unit} is not one of your armies.", unit=move[1])


def _why_not_unify(state: State, seat: int, move: tuple) -> str | None:
    if man.unification_size(state, seat):
        return None
    return _(
        "Unification needs every capital, trade centre and ordinary province of your country, once a turn "
        "(once a game with the option unification=once)."
    )


Check = Callable[[State, int, tuple], "str | None"]
# which steps take a development action, and the check of an action there
_ACTION_CHECKS: dict[str, Check] = {
    "action1": dev.why_not_action,
    "action2": dev.why_not_action,
    "bonus": dev.why_not_action,
    "special": dev.why_not_special,
}
# the check of each other order, by the step it is given at and its verb
_ORDER_CHECKS: dict[tuple[str, str], Check] = {
    ("feed", "starve"): _why_not_starve,
    ("shift", "shift"): lambda state, seat, move: dev.why_not_shift(state, seat, move[1], move[2]),
    ("move", "unify"): _why_not_unify,
    ("princess", "unify"): _why_not_unify,
    ("move", "refuge"): lambda state, seat, move: man.why_not_refuge(state, seat, move[1]),
    ("battle", "refuge"): lambda state, seat, move: man.why_not_refuge(state, seat, move[1]),
    ("move", "move"): lambda state, seat, move: man.why_not_move(state, seat, move[1], move[2]),
    ("princess", "princess"): lambda state, seat, move: man.why_not_princess(state, seat, move[1], move[2]),
    ("battle", "hit"): lambda state, seat, move: man.why_not_hit(state, seat, move[1], move[2]),
}


def _why_not_trade(state: State, seat: int, move: tuple) -> str | None:
    verb = move[0]
    if verb == "bank":
        return trade.why_not_bank(state, seat, move[1], move[2], move[3])
    if verb == "route":
        return trade.why_not_route(state, seat, country_seat(state, move[1]))
    if verb == "offer":
        return trade.why_not_offer(state, seat, country_seat(state, move[1]), *move[2:])
    if verb in ("accept", "decline"):
        return trade.why_not_answer(state, seat, move[1], verb == "accept")
    if verb == "buy":
        return trade.why_not_buy(state, seat, move[1])
    return _("'{verb}' is not an order for the trade phase.", verb=words.command(verb))


def _why_not_unfed_order(state: State, seat: int, unit_id: int) -> str | None:
    """FAQ L886-887: a player with food for all may still leave armies unfed (they starve). By
    mail the choice is an order given at any earlier decision, for the next feeding, so that
    the game does not wait for every player at every turn's start."""
    army = unit(state, unit_id)
    if army is None or army.owner != seat or not army.is_army:
        return _("Unit {unit} is not one of your armies.", unit=unit_id)
    if unit_id in state.unfed:
        return _("Army {unit} is already to be left unfed at the next feeding.", unit=unit_id)
    return None


def phase_name(state: State) -> str:
    """The step's name in the reader's words ("the first action"; "the trade phase")."""
    return words.step_name(current_step(state), state.phase)


def candidates(state: State, seat: int) -> Iterator[tuple]:
    """Moves worth checking now; ``legal_moves`` keeps those ``why_not`` accepts."""
    step = current_step(state)
    if state.phase == "setup":
        yield from (("develop", t) for t in TRACKS)
        return
    yield trivial_move(state, seat)
    if state.phase != "trade" and step != "battle":  # the trade phase lists its own
        yield from (("peace", state.players[s].country) for s in state.seats if s != seat)
    if step == "feed":
        yield from (("starve", u.id) for u in state.units if u.owner == seat and u.is_army)
    yield from _step_candidates(state, seat, step)
    if step in ("move", "battle"):
        yield from (("refuge", p) for p in man.refuge_options(state, seat))
    if step == "battle":
        yield from _hits(state, seat)


def _hits(state: State, seat: int) -> Iterator[tuple]:
    """Each hit the seat may still allot to each enemy unit of the battle."""
    if state.battle is not None:
        left = man.remaining(state.battle, seat)
        for u in combat.targets(state, state.battle, seat):
            yield from (("hit", u.id, n) for n in range(1, left + 1))


def _step_candidates(state: State, seat: int, step: str) -> Iterator[tuple]:
    """The candidates of the trade phase, the actions, the token shift and the movements."""
    if state.phase == "trade":
        yield from trade.trade_candidates(state, seat)
    elif _action_steps(step) or (step == "special" and dev.specials_left(state, seat)):
        yield from dev.action_candidates(state, seat)  # without a special slot left, each is refused
    elif step == "shift":
        yield from (("shift", a, b) for a in TRACKS for b in TRACKS if a != b)
    elif step in ("move", "princess"):
        yield ("unify",)
        yield from _unit_moves(state, seat, step)


def _unit_moves(state: State, seat: int, kind: str) -> Iterator[tuple]:
    """Each step to a neighbouring province of the seat's armies (``move``) or princesses
    (``princess``) with action points left."""
    for u in state.units:
        if u.owner == seat and (u.is_army if kind == "move" else u.kind == "princess") and u.ap > 0:
            yield from ((kind, u.id, p) for p in state.gmap.neighbours[u.province])


def legal(state: State, seat: int) -> list[tuple]:
    if seat not in to_move(state):
        return []  # every move would be refused: it is not the seat's turn
    seen: list[tuple] = []
    for move in candidates(state, seat):
        if move not in seen and why_not_on_turn(state, seat, move) is None:
            seen.append(move)
    return seen


def has_choice(state: State, seat: int) -> bool:
    """Whether ``seat`` has a legal move other than the one that ends its part of the step. A
    peace proposal alone does not make the game wait outside the trade phase (else a player at
    war would be asked at every step); it can be sent at any decision the player faces."""
    if seat not in to_move(state):
        return False  # every move would be refused: it is not the seat's turn
    trivial = trivial_move(state, seat)
    return any(
        m != trivial and (m[0] != "peace" or state.phase == "trade") and why_not_on_turn(state, seat, m) is None
        for m in candidates(state, seat)
    )


def move_facts(state: State, seat: int, move: tuple) -> list[dict[str, Any]]:
    """The facts of a legal move (follow-ups are added by ``flow``)."""
    verb, step = move[0], current_step(state)
    if state.phase == "setup":
        return [{"kind": "TokenPlaced", "seat": seat, "secret": secret([seat], {"track": move[1]})}]
    if verb == "starve" and step != "feed":
        return [{"kind": "StarvationOrdered", "seat": seat, "unit": move[1]}]
    if state.phase == "trade":
        return _trade_facts(state, seat, move)
    if verb == "peace":
        return [trade.peace_fact(state, seat, move[1])]
    if step == "feed":
        if verb == "starve":
            return [{"kind": "ArmyStarved", "seat": seat, "unit": move[1]}]
        return [{"kind": "FeedingChosen", "seat": seat}]
    if verb in dev.ACTIONS:
        return _action_facts(state, seat, move, step)
    facts = _ORDER_FACTS.get(verb)
    if facts is None:
        raise ValueError(f"no facts for {move!r}")
    return facts(state, seat, move, step)


def _action_facts(state: State, seat: int, move: tuple, step: str) -> list[dict[str, Any]]:
    source = (
        "action"
        if step in ("action1", "action2")
        else ("bonus" if step == "bonus" else dev.special_slot(state, seat, move))
    )
    assert source is not None, "why_not found a slot that pays for the order"
    return dev.action_facts(state, seat, move, source)


def _unification_facts(state: State, seat: int, move: tuple, step: str) -> list[dict[str, Any]]:
    size = man.unification_size(state, seat)
    assert size is not None, "why_not checked that unification may be declared"
    return [{"kind": "UnificationDeclared", "seat": seat, "size": size, "actions": man.bonus_actions(size)}]


# the facts of the development and maneuver orders other than the actions, by verb:
# (state, seat, move, step) -> the facts
_ORDER_FACTS: dict[str, Callable[[State, int, tuple, str], list[dict[str, Any]]]] = {
    "pass": lambda state, seat, move, step: [{"kind": "Passed", "seat": seat, "step": step}],
    "done": lambda state, seat, move, step: [
        {
            "kind": {"special": "Passed", "move": "MovementEnded", "princess": "ManeuverEnded"}[step],
            "seat": seat,
            "step": step,
        }
    ],
    "shift": lambda state, seat, move, step: [{"kind": "TokenShifted", "seat": seat, "from": move[1], "to": move[2]}],
    "unify": _unification_facts,
    "move": lambda state, seat, move, step: man.move_facts(state, seat, move[1], move[2]),
    "refuge": lambda state, seat, move, step: [{"kind": "RefugeChosen", "seat": seat, "province": move[1]}],
    "princess": lambda state, seat, move, step: [
        {"kind": "PrincessMoved", "seat": seat, "unit": move[1], "to": move[2]}
    ],
    "hit": lambda state, seat, move, step: [man.hit_fact(seat, move[1], move[2])],
    "auto": lambda state, seat, move, step: man.auto_hits(state, seat),
}


def _trade_facts(state: State, seat: int, move: tuple) -> list[dict[str, Any]]:
    verb = move[0]
    if verb == "done":
        return [{"kind": "TradeFinished", "seat": seat}]
    if verb == "bank":
        return [trade.bank_fact(state, seat, move[1], move[2], move[3])]
    if verb == "route":
        return [{"kind": "RouteOpened", "seat": seat, "to": country_seat(state, move[1])}]
    if verb == "offer":
        return [trade.offer_fact(state, seat, played_by(state, move[1]), *move[2:])]
    if verb in ("accept", "decline"):
        return [{"kind": "OfferAccepted" if verb == "accept" else "OfferDeclined", "seat": seat, "offer": move[1]}]
    if verb == "buy":
        return [{"kind": "VPBought", "seat": seat, "count": move[1], "gold": move[1] * RULES.value("vp_price_gold")}]
    if verb == "peace":
        return [trade.peace_fact(state, seat, move[1])]
    raise ValueError(f"no facts for {move!r}")


__all__ = ["has_choice", "legal", "move_facts", "to_move", "trivial_move", "why_not"]
