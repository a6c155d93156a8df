"""Sentences that say why a command is not legal now (the legal moves are listed with them)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from pbem.games.kingsburg import rules
from pbem.games.kingsburg.data import ADVISOR_COUNT, ADVISORS, BUILDINGS, ROWS
from pbem.games.kingsburg.moves import (
    Build,
    Give,
    Influence,
    Lose,
    Pass,
    Recruit,
    Reroll,
    Take,
    Token,
    TownHall,
    say_move,
    spoken,
)
from pbem.games.kingsburg.render import amount, phase_label
from pbem.games.kingsburg.state import Player, State
from pbem.games.text import _


def _example(legal: Sequence[object], kind: type, fallback: object, fits: Callable[[Any], bool] = bool) -> object:
    """The first legal move of ``kind`` (that ``fits``), so an example is one the player may
    send now (never "build Statue" to a player who has it); ``fallback`` when ``legal`` has none
    (the sentence of a refusal may be asked without the legal moves)."""
    return next((m for m in legal if isinstance(m, kind) and fits(m)), fallback)


def step_need(step: str, legal: Sequence[object] = ()) -> str:
    """What a step asks of a player, with example commands in the language spoken now, drawn
    from ``legal`` (the player's legal moves) when it has one of the kind."""

    def q(move: object) -> str:
        return repr(say_move(move))  # type: ignore[arg-type]

    needs = {
        "choose": lambda: _(
            "choose one good from the King ({gold}, {wood} or {stone})",
            gold=q(Take(("gold",))),
            wood=q(Take(("wood",))),
            stone=q(Take(("stone",))),
        ),
        "reroll": lambda: _(
            "use the Statue or Chapel ({one}, {all}) or keep the dice ({keep})",
            one=q(_example(legal, Reroll, Reroll(False, 4), lambda m: not m.all)),
            all=q(_example(legal, Reroll, Reroll(True), lambda m: m.all)),
            keep=q(Pass()),
        ),
        "influence": lambda: _(
            "influence an advisor ({example}) or {skip}",
            example=q(_example(legal, Influence, Influence(8, (5, 3)), lambda m: m.choice is None)),
            skip=q(Pass()),
        ),
        "gifts": lambda: _(
            "answer an advisor's gift ({take}, {give} or {nothing})",
            take=repr(say_move(Take(())).split()[0] + " ..."),
            give=repr(say_move(Give("gold")).split()[0] + " ..."),
            nothing=q(Take(())),
        ),
        "build": lambda: _(
            "build ({example}) or {skip}", example=q(_example(legal, Build, Build("statue"))), skip=q(Pass())
        ),
        "townhall": lambda: _(
            "use the Town Hall ({wood}, {plus2}) or {skip}",
            wood=q(TownHall("wood")),
            plus2=q(TownHall("plus2")),
            skip=q(Pass()),
        ),
        "recruit": lambda: _(
            "recruit soldiers ({example}) or {skip}",
            example=repr(" ".join(say_move(_example(legal, Recruit, Recruit(2, 0, 0, 0))).split()[:2])),  # type: ignore[arg-type]
            skip=q(Pass()),
        ),
        "tokens": lambda: _("choose a soldier token ({example})", example=q(_example(legal, Token, Token(2)))),
        "spoils": lambda: _(
            "choose the goods to lose or take ({lose}, {take})",
            lose=q(_example(legal, Lose, Lose(("gold", "wood")))),
            take=q(_example(legal, Take, Take(("stone",)))),
        ),
    }
    return needs[step]() if step in needs else _("wait")


def why_illegal(state: State, seat: int, move: object, text: str, legal: Sequence[object] = ()) -> str:
    steps, explain = _REASONS.get(type(move), ((), None))
    reason = explain(state, seat, move) if explain is not None and state.step in steps else None
    if reason:
        return _("{text} is not legal: {reason}.", text=repr(text), reason=reason)
    need = step_need(state.step, legal)
    return _("{text} is not legal now ({phase}): {need}.", text=repr(text), phase=phase_label(state), need=need)


def _recruit(state: State, seat: int, move: Recruit) -> str:
    price = rules.soldier_price(state.players[seat])
    paid = move.gold + move.wood + move.stone
    if move.gold < 0:
        return _(
            "you cannot pay {goods} for {soldiers}",
            goods=amount("goods", move.soldiers * price),
            soldiers=amount("soldiers", move.soldiers),
        )
    if paid != move.soldiers * price:
        return _(
            "{soldiers} cost {goods}, not {paid}",
            soldiers=amount("soldiers", move.soldiers),
            goods=amount("goods", move.soldiers * price),
            paid=paid,
        )
    return _("you do not have those goods")


def _reroll(state: State, seat: int, move: Reroll) -> str:
    if move.all:
        return _("the Chapel needs dice totalling 7 or less, once a season")
    return _("the Statue needs all your dice equal, once a season; name the value they show")


def _townhall(state: State, seat: int, move: TownHall) -> str:
    if move.pay == "plus2":
        return _("you have no +2 token to pay")
    return _("you have no {good} to pay", good=spoken(move.pay))


def _token(state: State, seat: int, move: Token) -> str:
    left = ", ".join(map(str, state.players[seat].tokens))
    return _("your soldier tokens left are {left}", left=left)


def _take(state: State, seat: int, move: Take) -> str:
    return _("that is not one of the choices you have")


def _dice_missing(p: Player, move: Influence) -> str | None:
    for hand, used, white in ((p.dice, move.dice, False), (p.white, move.white, True)):
        missing = Counter(used) - Counter(hand)
        if missing:
            shown = " ".join(map(str, sorted(hand, reverse=True))) or _("none")
            value = next(iter(missing))
            return (
                _("you have no white die showing {value} (your white dice: {shown})", value=value, shown=shown)
                if white
                else _("you have no die showing {value} (your dice: {shown})", value=value, shown=shown)
            )
    if move.plus2 and not p.plus2:
        return _("you have no +2 token")
    return None


def _wrong_sum(p: Player, move: Influence) -> str | None:
    total = sum(move.dice) + sum(move.white) + 2 * move.plus2
    if total == move.advisor:
        return None
    if abs(total - move.advisor) > 1:
        return _("the group sums to {total}, not {advisor}", total=total, advisor=move.advisor)
    if not p.has("market"):
        return _("the group sums to {total}, not {advisor}, and you have no Market", total=total, advisor=move.advisor)
    if p.market_used:
        return _("you have already used the Market this season")
    return None


def _advisor_taken(state: State, seat: int, move: Influence) -> str | None:
    taken = state.court[move.advisor]
    if taken and not move.envoy:
        who = _("the neutral dice") if taken[0].seat < 0 else _("seat {seat}", seat=taken[0].seat + 1)
        if state.envoy == seat:
            return _(
                "advisor {advisor} is already influenced by {who} this season (add {envoy} to use the King's envoy)",
                advisor=move.advisor,
                who=who,
                envoy=repr(say_move(Influence(1, (1,), envoy=True)).split()[-1]),
            )
        return _("advisor {advisor} is already influenced by {who} this season", advisor=move.advisor, who=who)
    if move.envoy and state.envoy != seat:
        return _("you do not hold the King's envoy")
    if move.envoy and not taken:
        return _("advisor {advisor} is free; the envoy is only for an advisor already influenced", advisor=move.advisor)
    if move.envoy and len(taken) > 1:
        return _("advisor {advisor} already has two groups", advisor=move.advisor)
    return None


def _influence(state: State, seat: int, move: Influence) -> str:
    p = state.players[seat]
    if not 1 <= move.advisor <= ADVISOR_COUNT:
        return _("the advisors are numbered 1 to {count}", count=ADVISOR_COUNT)
    problem = _dice_missing(p, move) or _wrong_sum(p, move) or _advisor_taken(state, seat, move)
    if problem:
        return problem
    if move.choice is not None:
        return _("the {advisor} does not offer that", advisor=ADVISORS[move.advisor].name)
    return _("that group cannot be placed")


def _build(state: State, seat: int, move: Build) -> str:
    p = state.players[seat]
    b = BUILDINGS[move.building]
    if move.building in p.buildings:
        return _("you already have the {building}", building=b.name)
    row = ROWS[b.row]
    left = row[b.column - 2] if b.column > 1 else None
    if left and left not in p.buildings:
        return _("the {building} needs the {left} to its left first", building=b.name, left=BUILDINGS[left].name)
    if not rules.may_build(state, seat):
        return _("you have already built this season")
    g, w, s = rules.cost(p, move.building)
    return _(
        "the {building} costs {cost} and you have {have}",
        building=b.name,
        cost=", ".join((amount("gold", g), amount("wood", w), amount("stone", s))),
        have=", ".join((amount("gold", p.gold), amount("wood", p.wood), amount("stone", p.stone))),
    )


# the steps at which each kind of move is played, and what says why it is not legal there
_REASONS: dict[type, tuple[tuple[str, ...], Callable[[State, int, Any], str]]] = {
    Influence: (("influence",), _influence),
    Build: (("build",), _build),
    Recruit: (("recruit",), _recruit),
    Reroll: (("reroll",), _reroll),
    TownHall: (("townhall",), _townhall),
    Token: (("tokens",), _token),
    Take: (("gifts", "spoils", "choose"), _take),
}
