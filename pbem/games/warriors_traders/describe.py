"""One line of history per fact, with the seats' names."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pbem.games.text import seat_name
from pbem.games.warriors_traders.data import RULES
from pbem.games.warriors_traders.state import bundle, bundle_text

Fact = dict[str, Any]


def _name(names: Sequence[str], seat: Any) -> str:
    if isinstance(seat, str) and seat.lstrip("-").isdigit():
        seat = int(seat)
    if seat == -1:
        return "the barbarians"
    return seat_name(names, seat) if isinstance(seat, int) else f"seat {seat}"


def _approximate(table: str) -> str:
    """A mark on history lines whose numbers come from an invented table."""
    return " (approximate numbers)" if RULES.raw["tracks"][table].get("confidence") == "approximation" else ""


def _amounts(amounts: dict[str, int]) -> str:
    return ", ".join(f"{n} {r}" for r, n in amounts.items() if n) or "nothing"


TEXT: dict[str, Callable[[Fact, Sequence[str]], str]] = {
    "GameStarted": lambda f, n: f"The game starts on the {f['config']['map']} map (approximate): " + ", ".join(
        f"{_name(n, s)} plays {c}" for s, c in enumerate(f["countries"])) + ". Invented numbers in play "
        "until the real board is known: " + "; ".join(RULES.invented()) + ".",
    "TurnStarted": lambda f, n: f"Turn {f['turn']} begins.",
    "StarvationOrdered": lambda f, n: f"{_name(n, f['seat'])} orders army {f['unit']} left unfed at the next "
                                      "feeding; it will starve then.",
    "ArmyStarved": lambda f, n: f"{_name(n, f['seat'])} leaves army {f['unit']} unfed; it starves.",
    "FeedingChosen": lambda f, n: f"{_name(n, f['seat'])} feeds the rest of its armies.",
    "ArmiesFed": lambda f, n: "Armies are fed: " + ", ".join(
        f"{_name(n, s)} {food} food" for s, food in f["fed"].items()) + (
        f"; units {', '.join(map(str, f['starved']))} starve." if f["starved"] else "."),
    "ResourcesCollected": lambda f, n: f"Collection{_approximate('production_goods_multiplier')}: " + "; ".join(
        f"{_name(n, s)} {_amounts(g)}" for s, g in f["gains"].items()) + ".",
    "TokenPlaced": lambda f, n: f"{_name(n, f['seat'])} places a starting development token "
                                "(hidden until everybody has placed theirs).",
    "TokensRevealed": lambda f, n: "Starting tokens (production/trade/military): " + "; ".join(
        f"{_name(n, s)} {'/'.join(map(str, t))}" for s, t in enumerate(f["tokens"])) + ".",
    "TrackDeveloped": lambda f, n: f"{_name(n, f['seat'])} develops {f['track']}" + (
        f" ({f['source']})." if f["source"] not in ("action", "setup") else "."),
    "ArmyBuilt": lambda f, n: f"{_name(n, f['seat'])} builds {f['army']} {f['unit']} in {f['province']} "
                              f"for {_amounts(f['paid'])}.",
    "FortBuilt": lambda f, n: f"{_name(n, f['seat'])} builds fort {f['unit']} in {f['province']}.",
    "ArmyUpgraded": lambda f, n: f"{_name(n, f['seat'])} reinforces unit {f['unit']} to {f['army']}.",
    "WarDeclared": lambda f, n: f"{_name(n, f['seat'])} declares war on {_name(n, f['against'])}!",
    "Passed": lambda f, n: f"{_name(n, f['seat'])} passes ({f['step']}).",
    "TokenShifted": lambda f, n: f"{_name(n, f['seat'])} moves a development token from {f['from']} to {f['to']}.",
    "BankExchanged": lambda f, n: f"{_name(n, f['seat'])} trades {f['gave']} {f['give']} to the bank for "
                                  f"{f['got']} {f['get']}{_approximate('trade_bank_ratio')}.",
    "RouteOpened": lambda f, n: f"{_name(n, f['seat'])} opens a trade route to {_name(n, f['to'])}.",
    "OfferMade": lambda f, n: f"Offer {f['offer']}: {_name(n, f['seat'])} offers {_name(n, f['to'])} "
                              f"{bundle_text(bundle(f['give'], f.get('give_n')))} for "
                              f"{bundle_text(bundle(f['get'], f.get('get_n')))}.",
    "OfferAccepted": lambda f, n: f"{_name(n, f['seat'])} accepts offer {f['offer']}.",
    "OfferDeclined": lambda f, n: f"{_name(n, f['seat'])} declines offer {f['offer']}.",
    "VPBought": lambda f, n: f"{_name(n, f['seat'])} buys {f['count']} VP for {f['gold']} gold.",
    "PeaceProposed": lambda f, n: f"{_name(n, f['seat'])} proposes peace to {_name(n, f['to'])}.",
    "PeaceMade": lambda f, n: f"{_name(n, f['seat'])} accepts peace with {_name(n, f['to'])}; the war is over.",
    "TradeFinished": lambda f, n: f"{_name(n, f['seat'])} has finished trading.",
    "TradeEnded": lambda f, n: "The trade phase ends.",
    "DevelopmentEnded": lambda f, n: "The development phase ends.",
    "ManeuverStarted": lambda f, n: f"{_name(n, f['seat'])} maneuvers" + (
        "; retreated " + ", ".join(map(str, f["resting"])) + " lie on their side without action points."
        if f.get("resting") else "."),
    "ArmyMoved": lambda f, n: f"{_name(n, f['seat'])} moves unit {f['unit']} to {f['to']}" + (
        " to attack." if f["attack"] else "."),
    "PrincessMoved": lambda f, n: f"{_name(n, f['seat'])} moves princess {f['unit']} to {f['to']}.",
    "RefugeChosen": lambda f, n: f"{_name(n, f['seat'])} names {f['province']} as the way out after battle.",
    "MovementEnded": lambda f, n: f"{_name(n, f['seat'])} ends movement.",
    "BattleStarted": lambda f, n: f"Battle in {f['province']}: {_name(n, f['attacker'])} against "
                                  f"{_name(n, f['defender'])} ({f['damage'][0]} against {f['damage'][1]} damage).",
    "DamageAssigned": lambda f, n: f"{_name(n, f['seat'])} assigns damage (hidden until the battle resolves).",
    "BattleResolved": lambda f, n: _battle_line(f, n),
    "BattlesOver": lambda f, n: f"{_name(n, f['seat'])}'s battles are over" + (
        "; Double strike: a second maneuver." if f["next"] == "move" else "."),
    "UnificationDeclared": lambda f, n: f"{_name(n, f['seat'])} unifies their country ({f['size']} provinces) "
                                        f"and gains {f['actions']} actions.",
    "ManeuverEnded": lambda f, n: f"{_name(n, f['seat'])} ends the maneuvers.",
    "TurnEnded": lambda f, n: f"Turn {f['turn']} ends" + "".join(
        f"; {_name(n, s)} doubles {g} gold" for s, g in f["doubled"].items()) + "".join(
        f"; {_name(n, s)} returns {_amounts(d)}" for s, d in f["discarded"].items()) + "".join(
        f"; war between side {a + 1} and side {b + 1} ends ({why})" for (a, b), why in f["wars_ended"]) + ".",
    "GameEnded": lambda f, n: f"The game ends after turn {f['turn']} ({f['reason']}).",
}


def _battle_line(f: Fact, names: Sequence[str]) -> str:
    parts = [f"Battle in {f['province']} resolved"]
    if f["killed"]:
        parts.append(f"killed {', '.join(map(str, f['killed']))}")
    if f["retreated"]:
        parts.append("retreated " + ", ".join(f"{u} to {p}" for u, p in f["retreated"].items()))
    if f["withdrawn"]:
        parts.append("the attacker withdraws to " + sorted(set(f["withdrawn"].values()))[0])
    if f["removed"]:
        parts.append(f"removed without a way out: {', '.join(map(str, f['removed']))}")
    if f["captured"] is not None:
        parts.append(f"{_name(names, f['captured'])} takes the province")
    parts += [f"{_name(names, s)} scores {v} VP" for s, v in f["vp"].items()]
    return "; ".join(parts) + "."


def describe_fact(fact: Fact, names: Sequence[str]) -> str:
    text = TEXT.get(fact["kind"])
    line = text(fact, names) if text else fact["kind"]
    return line + (" (automatic)" if fact.get("auto") else "")
