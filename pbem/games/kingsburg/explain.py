"""Sentences that say why a command is not legal now (the legal moves are listed with them)."""

from __future__ import annotations

from collections import Counter

from pbem.games.kingsburg import rules
from pbem.games.kingsburg.data import ADVISOR_COUNT, ADVISORS, BUILDINGS, ROWS
from pbem.games.kingsburg.moves import Build, Influence, Recruit, Reroll, Take, Token, TownHall
from pbem.games.kingsburg.render import phase_label
from pbem.games.kingsburg.state import State

STEP_NEEDS = {
    "choose": "choose one good from the King ('take gold', 'take wood' or 'take stone')",
    "reroll": "use the Statue or Chapel ('reroll 4', 'reroll all') or keep the dice ('pass')",
    "influence": "influence an advisor ('influence 8 with 5 3') or 'pass'",
    "gifts": "answer an advisor's gift ('take ...', 'give ...' or 'take nothing')",
    "build": "build ('build statue') or 'pass'",
    "townhall": "use the Town Hall ('townhall wood', 'townhall +2') or 'pass'",
    "recruit": "recruit soldiers ('recruit 2') or 'pass'",
    "tokens": "choose a soldier token ('token 2')",
    "spoils": "choose the goods to lose or take ('lose gold wood', 'take stone')",
}


def why_illegal(state: State, seat: int, move: object, text: str) -> str:
    step = state.step
    need = STEP_NEEDS.get(step, "wait")
    reason = None
    if isinstance(move, Influence) and step == "influence":
        reason = _influence(state, seat, move)
    elif isinstance(move, Build) and step == "build":
        reason = _build(state, seat, move)
    elif isinstance(move, Recruit) and step == "recruit":
        p = state.players[seat]
        price = rules.soldier_price(p)
        paid = move.gold + move.wood + move.stone
        if move.gold < 0:
            reason = f"you cannot pay {move.soldiers * price} goods for {move.soldiers} soldiers"
        elif paid != move.soldiers * price:
            reason = f"{move.soldiers} soldiers cost {move.soldiers * price} goods, not {paid}"
        else:
            reason = "you do not have those goods"
    elif isinstance(move, Reroll) and step == "reroll":
        reason = ("the Chapel needs dice totalling 7 or less, once a season" if move.all else
                  "the Statue needs all your dice equal, once a season; name the value they show")
    elif isinstance(move, TownHall) and step == "townhall":
        reason = f"you have no {'+2 token' if move.pay == 'plus2' else move.pay} to pay"
    elif isinstance(move, Token) and step == "tokens":
        left = ", ".join(map(str, state.players[seat].tokens))
        reason = f"your soldier tokens left are {left}"
    elif isinstance(move, Take) and step in ("gifts", "spoils", "choose"):
        reason = "that is not one of the choices you have"
    if reason:
        return f"{text!r} is not legal: {reason}."
    return f"{text!r} is not legal now ({phase_label(state)}): {need}."


def _influence(state: State, seat: int, move: Influence) -> str:
    p = state.players[seat]
    if not 1 <= move.advisor <= ADVISOR_COUNT:
        return f"the advisors are numbered 1 to {ADVISOR_COUNT}"
    for hand, used, colour in ((p.dice, move.dice, ""), (p.white, move.white, "white ")):
        missing = Counter(used) - Counter(hand)
        if missing:
            shown = " ".join(map(str, sorted(hand, reverse=True))) or "none"
            return f"you have no {colour}die showing {next(iter(missing))} (your {colour}dice: {shown})"
    if move.plus2 and not p.plus2:
        return "you have no +2 token"
    total = sum(move.dice) + sum(move.white) + 2 * move.plus2
    if total != move.advisor:
        if abs(total - move.advisor) > 1:
            return f"the group sums to {total}, not {move.advisor}"
        if not p.has("market"):
            return f"the group sums to {total}, not {move.advisor}, and you have no Market"
        if p.market_used:
            return "you have already used the Market this season"
    taken = state.court[move.advisor]
    if taken and not move.envoy:
        who = "the neutral dice" if taken[0].seat < 0 else f"seat {taken[0].seat + 1}"
        extra = " (add 'envoy' to use the King's envoy)" if state.envoy == seat else ""
        return f"advisor {move.advisor} is already influenced by {who} this season{extra}"
    if move.envoy and state.envoy != seat:
        return "you do not hold the King's envoy"
    if move.envoy and not taken:
        return f"advisor {move.advisor} is free; the envoy is only for an advisor already influenced"
    if move.envoy and len(taken) > 1:
        return f"advisor {move.advisor} already has two groups"
    if move.choice is not None:
        return f"the {ADVISORS[move.advisor].name} does not offer that"
    return "that group cannot be placed"


def _build(state: State, seat: int, move: Build) -> str:
    p = state.players[seat]
    b = BUILDINGS[move.building]
    if move.building in p.buildings:
        return f"you already have the {b.name}"
    row = ROWS[b.row]
    left = row[b.column - 2] if b.column > 1 else None
    if left and left not in p.buildings:
        return f"the {b.name} needs the {BUILDINGS[left].name} to its left first"
    if not rules.may_build(state, seat):
        return "you have already built this season"
    g, w, s = rules.cost(p, move.building)
    return (f"the {b.name} costs {g} gold, {w} wood, {s} stone and you have "
            f"{p.gold} gold, {p.wood} wood, {p.stone} stone")
