"""One line of history per fact, with the seats' names, in the language spoken now."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pbem.games.text import _, ngettext, seat_name
from pbem.games.warriors_traders import words
from pbem.games.warriors_traders.data import RULES
from pbem.games.warriors_traders.state import bundle

Fact = dict[str, Any]


def _name(names: Sequence[str], seat: Any) -> str:
    if isinstance(seat, str) and seat.lstrip("-").isdigit():
        seat = int(seat)
    if seat == -1:
        return _("the barbarians")
    return seat_name(names, seat) if isinstance(seat, int) else _("seat {seat}", seat=seat)


def _approximate(table: str) -> str:
    """A mark on history lines whose numbers come from an invented table."""
    return _(" (approximate numbers)") if RULES.raw["tracks"][table].get("confidence") == "approximation" else ""


def _units(ids: Sequence[Any]) -> str:
    return ", ".join(map(str, ids))


def _offered(items: Any, counts: Any) -> str:
    return words.bundle(bundle(items, counts))


def _started(f: Fact, n: Sequence[str]) -> str:
    plays = ", ".join(_("{who} plays {country}", who=_name(n, s), country=c) for s, c in enumerate(f["countries"]))
    return _(
        "The game starts on the {map} map (approximate): {plays}. Invented numbers in play until the real "
        "board is known: {invented}.",
        map=words.map_side(f["config"]["map"]),
        plays=plays,
        invented="; ".join(words.invented()),
    )


def _fed(f: Fact, n: Sequence[str]) -> str:
    fed = ", ".join(_("{who} {food}", who=_name(n, s), food=words.amount("food", food)) for s, food in f["fed"].items())
    if f["starved"]:
        return _("Armies are fed: {fed}; units {units} starve.", fed=fed, units=_units(f["starved"]))
    return _("Armies are fed: {fed}.", fed=fed)


def _developed(f: Fact, n: Sequence[str]) -> str:
    track = words.track(f["track"])
    if f["source"] in ("action", "setup"):
        return _("{who} develops {track}.", who=_name(n, f["seat"]), track=track)
    return _(
        "{who} develops {track} ({source}).", who=_name(n, f["seat"]), track=track, source=words.source(f["source"])
    )


def _maneuver(f: Fact, n: Sequence[str]) -> str:
    if f.get("resting"):
        return _(
            "{who} maneuvers; retreated {units} lie on their side without action points.",
            who=_name(n, f["seat"]),
            units=_units(f["resting"]),
        )
    return _("{who} maneuvers.", who=_name(n, f["seat"]))


def _moved(f: Fact, n: Sequence[str]) -> str:
    if f["attack"]:
        return _(
            "{who} moves unit {unit} to {province} to attack.",
            who=_name(n, f["seat"]),
            unit=f["unit"],
            province=f["to"],
        )
    return _("{who} moves unit {unit} to {province}.", who=_name(n, f["seat"]), unit=f["unit"], province=f["to"])


def _battles_over(f: Fact, n: Sequence[str]) -> str:
    if f["next"] == "move":
        return _("{who}'s battles are over; Double strike: a second maneuver.", who=_name(n, f["seat"]))
    return _("{who}'s battles are over.", who=_name(n, f["seat"]))


def _turn_ended(f: Fact, n: Sequence[str]) -> str:
    parts = [_("Turn {turn} ends", turn=f["turn"])]
    parts += [_("{who} doubles {gold}", who=_name(n, s), gold=words.amount("gold", g)) for s, g in f["doubled"].items()]
    parts += [
        _("{who} returns {resources}", who=_name(n, s), resources=words.amounts(d)) for s, d in f["discarded"].items()
    ]
    parts += [
        _("war between side {a} and side {b} ends ({why})", a=a + 1, b=b + 1, why=words.war_end(why))
        for (a, b), why in f["wars_ended"]
    ]
    return "; ".join(parts) + "."


TEXT: dict[str, Callable[[Fact, Sequence[str]], str]] = {
    "GameStarted": _started,
    "TurnStarted": lambda f, n: _("Turn {turn} begins.", turn=f["turn"]),
    "StarvationOrdered": lambda f, n: _(
        "{who} orders army {unit} left unfed at the next feeding; it will starve then.",
        who=_name(n, f["seat"]),
        unit=f["unit"],
    ),
    "ArmyStarved": lambda f, n: _(
        "{who} leaves army {unit} unfed; it starves.", who=_name(n, f["seat"]), unit=f["unit"]
    ),
    "FeedingChosen": lambda f, n: _("{who} feeds the rest of its armies.", who=_name(n, f["seat"])),
    "ArmiesFed": _fed,
    "ResourcesCollected": lambda f, n: _(
        "Collection{approximate}: {gains}.",
        approximate=_approximate("production_goods_multiplier"),
        gains="; ".join(f"{_name(n, s)} {words.amounts(g)}" for s, g in f["gains"].items()),
    ),
    "TokenPlaced": lambda f, n: _(
        "{who} places a starting development token (hidden until everybody has placed theirs).", who=_name(n, f["seat"])
    ),
    "TokensRevealed": lambda f, n: _(
        "Starting tokens (production/trade/military): {tokens}.",
        tokens="; ".join(f"{_name(n, s)} {'/'.join(map(str, t))}" for s, t in enumerate(f["tokens"])),
    ),
    "TrackDeveloped": _developed,
    "ArmyBuilt": lambda f, n: _(
        "{who} builds {army} {unit} in {province} for {paid}.",
        who=_name(n, f["seat"]),
        army=words.unit(f["army"]),
        unit=f["unit"],
        province=f["province"],
        paid=words.amounts(f["paid"]),
    ),
    "FortBuilt": lambda f, n: _(
        "{who} builds fort {unit} in {province}.", who=_name(n, f["seat"]), unit=f["unit"], province=f["province"]
    ),
    "ArmyUpgraded": lambda f, n: _(
        "{who} reinforces unit {unit} to {army}.", who=_name(n, f["seat"]), unit=f["unit"], army=words.unit(f["army"])
    ),
    "WarDeclared": lambda f, n: _(
        "{who} declares war on {enemy}!", who=_name(n, f["seat"]), enemy=_name(n, f["against"])
    ),
    "Passed": lambda f, n: _("{who} passes ({step}).", who=_name(n, f["seat"]), step=words.passed_step(f["step"])),
    "TokenShifted": lambda f, n: _(
        "{who} moves a development token from {source} to {target}.",
        who=_name(n, f["seat"]),
        source=words.track(f["from"]),
        target=words.track(f["to"]),
    ),
    "BankExchanged": lambda f, n: _(
        "{who} trades {gave} to the bank for {got}{approximate}.",
        who=_name(n, f["seat"]),
        gave=words.amount(f["give"], f["gave"]),
        got=words.amount(f["get"], f["got"]),
        approximate=_approximate("trade_bank_ratio"),
    ),
    "RouteOpened": lambda f, n: _(
        "{who} opens a trade route to {partner}.", who=_name(n, f["seat"]), partner=_name(n, f["to"])
    ),
    "OfferMade": lambda f, n: _(
        "Offer {offer}: {who} offers {partner} {give} for {get}.",
        offer=f["offer"],
        who=_name(n, f["seat"]),
        partner=_name(n, f["to"]),
        give=_offered(f["give"], f.get("give_n")),
        get=_offered(f["get"], f.get("get_n")),
    ),
    "OfferAccepted": lambda f, n: _("{who} accepts offer {offer}.", who=_name(n, f["seat"]), offer=f["offer"]),
    "OfferDeclined": lambda f, n: _("{who} declines offer {offer}.", who=_name(n, f["seat"]), offer=f["offer"]),
    "VPBought": lambda f, n: _(
        "{who} buys {vp} for {gold}.",
        who=_name(n, f["seat"]),
        vp=words.vp(f["count"]),
        gold=words.amount("gold", f["gold"]),
    ),
    "PeaceProposed": lambda f, n: _(
        "{who} proposes peace to {enemy}.", who=_name(n, f["seat"]), enemy=_name(n, f["to"])
    ),
    "PeaceMade": lambda f, n: _(
        "{who} accepts peace with {enemy}; the war is over.", who=_name(n, f["seat"]), enemy=_name(n, f["to"])
    ),
    "TradeFinished": lambda f, n: _("{who} has finished trading.", who=_name(n, f["seat"])),
    "TradeEnded": lambda f, n: _("The trade phase ends."),
    "DevelopmentEnded": lambda f, n: _("The development phase ends."),
    "ManeuverStarted": _maneuver,
    "ArmyMoved": _moved,
    "PrincessMoved": lambda f, n: _(
        "{who} moves princess {unit} to {province}.", who=_name(n, f["seat"]), unit=f["unit"], province=f["to"]
    ),
    "RefugeChosen": lambda f, n: _(
        "{who} names {province} as the way out after battle.", who=_name(n, f["seat"]), province=f["province"]
    ),
    "MovementEnded": lambda f, n: _("{who} ends movement.", who=_name(n, f["seat"])),
    "BattleStarted": lambda f, n: _(
        "Battle in {province}: {attacker} against {defender} ({a} against {d} damage).",
        province=f["province"],
        attacker=_name(n, f["attacker"]),
        defender=_name(n, f["defender"]),
        a=f["damage"][0],
        d=f["damage"][1],
    ),
    "DamageAssigned": lambda f, n: _(
        "{who} assigns damage (hidden until the battle resolves).", who=_name(n, f["seat"])
    ),
    "BattleResolved": lambda f, n: _battle_line(f, n),
    "BattlesOver": _battles_over,
    "UnificationDeclared": lambda f, n: ngettext(
        "{who} unifies their country ({size} provinces) and gains {n} action.",
        "{who} unifies their country ({size} provinces) and gains {n} actions.",
        f["actions"],
        who=_name(n, f["seat"]),
        size=f["size"],
    ),
    "ManeuverEnded": lambda f, n: _("{who} ends the maneuvers.", who=_name(n, f["seat"])),
    "TurnEnded": _turn_ended,
    "GameEnded": lambda f, n: _(
        "The game ends after turn {turn} ({reason}).", turn=f["turn"], reason=words.end_reason(f["reason"])
    ),
}


def _battle_line(f: Fact, names: Sequence[str]) -> str:
    parts = [_("Battle in {province} resolved", province=f["province"])]
    if f["killed"]:
        parts.append(_("killed {units}", units=_units(f["killed"])))
    if f["retreated"]:
        moves = [_("{unit} to {province}", unit=u, province=p) for u, p in f["retreated"].items()]
        parts.append(_("retreated {moves}", moves=", ".join(moves)))
    if f["withdrawn"]:
        parts.append(_("the attacker withdraws to {province}", province=sorted(set(f["withdrawn"].values()))[0]))
    if f["removed"]:
        parts.append(_("removed without a way out: {units}", units=_units(f["removed"])))
    if f["captured"] is not None:
        parts.append(_("{who} takes the province", who=_name(names, f["captured"])))
    parts += [_("{who} scores {vp}", who=_name(names, s), vp=words.vp(v)) for s, v in f["vp"].items()]
    return "; ".join(parts) + "."


def describe_fact(fact: Fact, names: Sequence[str]) -> str:
    text = TEXT.get(fact["kind"])
    line = text(fact, names) if text else fact["kind"]
    return line + (_(" (automatic)") if fact.get("auto") else "")
