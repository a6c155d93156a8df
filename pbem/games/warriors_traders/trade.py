"""The trade phase: bank exchange, trade routes, offers between players, buying VP, Monopoly;
and peace proposals, which a player at war may make at any of his decisions (the rulebook sets
no time for a peace agreement: "Válka končí okamžitě, jakmile ... hráči dosáhnou mírové
dohody")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pbem.games.text import _, ngettext
from pbem.games.warriors_traders import words
from pbem.games.warriors_traders.data import RESOURCES, RULES
from pbem.games.warriors_traders.state import (
    State,
    at_war,
    country_seat,
    has_ability,
    owns_trade_center,
    played_by,
    team,
    track_value,
)

MAX_OFFERS = 10  # per seat and trade phase, so that mail play cannot loop forever


def monopoly_holders(state: State) -> list[int]:
    return [s for s in state.seats if has_ability(state, s, "monopoly")]


def _may_trade(state: State, seat: int) -> str | None:
    if not owns_trade_center(state, seat):
        return _("Only players who hold a trade centre may trade (L334-335).")
    holders = monopoly_holders(state)
    if holders and seat not in holders:
        return _("A player has Monopoly: only players with Monopoly may trade.")
    return None


def route_between(state: State, a: int, b: int) -> bool:
    return (a, b) in state.routes or (b, a) in state.routes


def why_not_bank(state: State, seat: int, give: str, get: str, count: int) -> str | None:
    reason = _may_trade(state, seat)
    if reason:
        return reason
    if give == get:
        return _("Exchange one resource for a different one.")
    ratio = track_value(state, seat, "trade", "trade_bank_ratio")
    have = state.players[seat].has(give)
    if count < 1 or have < ratio * count:
        return _(
            "At {ratio}:1 you need {give} for {get}; you have {have}.",
            ratio=ratio,
            give=words.amount(give, ratio * max(count, 1)),
            get=words.amount(get, max(count, 1)),
            have=have,
        )
    return None


def bank_fact(state: State, seat: int, give: str, get: str, count: int) -> dict[str, Any]:
    ratio = track_value(state, seat, "trade", "trade_bank_ratio")
    return {"kind": "BankExchanged", "seat": seat, "give": give, "gave": ratio * count, "get": get, "got": count}


def why_not_route(state: State, seat: int, partner: int | None) -> str | None:
    reason = _may_trade(state, seat)
    if reason:
        return reason
    if partner is None or partner == seat:
        return _("Name another player's country.")
    opened = sum(1 for a, _b in state.routes if a == seat)
    allowed = track_value(state, seat, "trade", "trade_routes")
    if opened >= allowed:
        return ngettext(
            "Your trade level allows {n} trade route(s) and you have opened {opened}.",
            "Your trade level allows {n} trade route(s) and you have opened {opened}.",
            allowed,
            opened=opened,
        )
    if route_between(state, seat, partner):
        return _("A trade route between you is already open.")
    if not owns_trade_center(state, partner):
        return _("The partner must hold a trade centre.")
    return None


def why_not_offer(
    state: State, seat: int, partner: int | None, give: tuple[tuple[str, int], ...], get: tuple[tuple[str, int], ...]
) -> str | None:
    """Exchanges between players over a route "in any ratio" (L348-349): any resources on
    either side, none on both."""
    reason = _may_trade(state, seat)
    if reason:
        return reason
    if partner is None or partner == seat:
        return _("Name another player's country.")
    if not route_between(state, seat, partner):
        return _("Players trade only over an open trade route.")
    if _may_trade(state, partner):
        return _("That player may not trade now (no trade centre, or Monopoly).")
    return _why_not_these_goods(state, seat, give, get)


def _why_not_these_goods(
    state: State, seat: int, give: tuple[tuple[str, int], ...], get: tuple[tuple[str, int], ...]
) -> str | None:
    """The amounts offered and asked for, the offerer's stock and its offers this turn."""
    if not give or not get or any(n < 1 for _r, n in give + get) or {r for r, _n in give} & {r for r, _n in get}:
        return _("Offer positive amounts of resources for positive amounts of other resources.")
    short = [r for r, n in give if state.players[seat].has(r) < n]
    if short:
        return _("You have only {amount}.", amount=words.amount(short[0], state.players[seat].has(short[0])))
    if state.players[seat].offers_made >= MAX_OFFERS:
        return ngettext(
            "You have made {n} offers this turn, the most allowed.",
            "You have made {n} offers this turn, the most allowed.",
            MAX_OFFERS,
        )
    return None


def offer_fact(
    state: State, seat: int, partner: int, give: tuple[tuple[str, int], ...], get: tuple[tuple[str, int], ...]
) -> dict[str, Any]:
    return {
        "kind": "OfferMade",
        "offer": state.next_offer,
        "seat": seat,
        "to": partner,
        "give": dict(give),
        "get": dict(get),
    }


def why_not_answer(state: State, seat: int, offer_id: int, accept: bool) -> str | None:
    offer = next((o for o in state.offers if o.id == offer_id), None)
    if offer is None or offer.to != seat:
        return _("There is no open offer {offer} to you.", offer=offer_id)
    if not accept:
        return None
    reason = _may_trade(state, seat) or _may_trade(state, offer.seat)
    if reason:
        return reason
    for resource, n in offer.give:
        if state.players[offer.seat].has(resource) < n:
            return _("The offering player no longer has {amount}.", amount=words.amount(resource, n))
    for resource, n in offer.get:
        if state.players[seat].has(resource) < n:
            return _("You have only {amount}.", amount=words.amount(resource, state.players[seat].has(resource)))
    return None


def why_not_buy(state: State, seat: int, count: int) -> str | None:
    if not state.config.vp_anyone and not owns_trade_center(state, seat):
        return _("Buying VP is part of the trade phase, which needs a trade centre (option vp_purchase).")
    price = RULES.value("vp_price_gold")
    if count < 1 or state.players[seat].has("gold") < price * count:
        return _(
            "{vp} cost {gold}; you have {have}.",
            vp=words.vp(max(count, 1)),
            gold=words.amount("gold", price * max(count, 1)),
            have=state.players[seat].has("gold"),
        )
    return None


def why_not_peace(state: State, seat: int, country: str) -> str | None:
    target = country_seat(state, country)
    if target is None:
        return _("No player plays {country}.", country=repr(country))
    if not at_war(state, seat, target):
        return _("You are not at war with that player.")
    if (team(state, seat), team(state, target)) in state.peace:
        return _("Your side has already proposed peace to them this turn.")
    if _engaged_between(state, team(state, seat), team(state, target)):
        return _("Armies of your two sides are about to fight: peace can be made once that battle is over.")
    return None


def _engaged_between(state: State, a: int, b: int) -> bool:
    """Whether an army of one side has entered a province of the other and waits to fight
    (a peace then would leave it standing in a neighbour's province in peacetime)."""
    sides = {a, b}
    for unit in state.units:
        if unit.engaged and unit.owner >= 0 and team(state, unit.owner) in sides:
            other = sides - {team(state, unit.owner)}
            if any(u.province == unit.province and u.owner >= 0 and team(state, u.owner) in other for u in state.units):
                return True
    return False


def peace_fact(state: State, seat: int, country: str) -> dict[str, Any]:
    target = played_by(state, country)
    mine, theirs = team(state, seat), team(state, target)
    agreed = (theirs, mine) in state.peace
    return {"kind": "PeaceMade" if agreed else "PeaceProposed", "seat": seat, "to": target, "teams": [mine, theirs]}


def trade_candidates(state: State, seat: int) -> Iterator[tuple]:
    """Trade moves worth checking (filtered by the callers), one at a time (``has_choice``
    stops at the first legal one); offers are listed one for one (any amounts are legal in
    text)."""
    player = state.players[seat]
    trading = _may_trade(state, seat) is None  # else every exchange, route and offer is refused
    others = [s for s in state.seats if s != seat]
    if trading:
        yield from _bank_candidates(state, seat)
        yield from (("route", state.players[s].country) for s in others)
        yield from _offer_candidates(state, seat, others)
    yield from ((verb, o.id) for o in state.offers if o.to == seat for verb in ("accept", "decline"))
    yield from (("buy", n) for n in range(1, player.has("gold") // RULES.value("vp_price_gold") + 1))
    yield from (("peace", state.players[s].country) for s in others)


def _bank_candidates(state: State, seat: int) -> Iterator[tuple]:
    ratio = track_value(state, seat, "trade", "trade_bank_ratio")
    for give in RESOURCES:
        most = state.players[seat].has(give) // ratio
        yield from (("bank", give, get, n) for get in RESOURCES if get != give for n in range(1, most + 1))


def _offer_candidates(state: State, seat: int, others: list[int]) -> Iterator[tuple]:
    """One of a resource for one of another, to each player over an open route."""
    for s in others:
        if route_between(state, seat, s):
            yield from (
                ("offer", state.players[s].country, ((g, 1),), ((w, 1),))
                for g in RESOURCES
                for w in RESOURCES
                if g != w
            )
