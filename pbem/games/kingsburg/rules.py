"""What is legal, and what things cost and give: pure functions of the state.

Legality is defined here once; ``legal_moves``, ``decide`` and the parser's error messages
all read it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from functools import cache, lru_cache
from itertools import combinations_with_replacement

from pbem.games.kingsburg.data import ADVISOR_COUNT, ADVISORS, BUILDINGS, GOODS, ROWS, Enemy
from pbem.games.kingsburg.moves import (
    Build,
    Give,
    Influence,
    Lose,
    Move,
    Pass,
    Recruit,
    Reroll,
    Take,
    Token,
    TownHall,
    sort_goods,
)
from pbem.games.kingsburg.state import Choice, Player, State


# -- dice ------------------------------------------------------------------------------------
@lru_cache(maxsize=4096)
def sub_multisets(values: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every distinct sub-multiset of ``values`` (high to low), the empty one first."""
    counts = Counter(values)
    result: list[tuple[int, ...]] = [()]
    for value in sorted(counts, reverse=True):
        result = [r + (value,) * n for r in result for n in range(counts[value] + 1)]
    return tuple(sorted(result, key=len))


def statue_ready(p: Player) -> bool:
    """Statue: every die rolled this season (white ones too) shows the same number."""
    dice = p.dice + p.white
    return p.has("statue") and not p.statue_used and len(set(dice)) == 1


def chapel_ready(p: Player) -> bool:
    """Chapel: the dice rolled this season total 7 or less."""
    return p.has("chapel") and not p.chapel_used and sum(p.dice + p.white) <= 7


def may_reroll(p: Player) -> bool:
    return not p.rerolls_done and (statue_ready(p) or chapel_ready(p))


def reroll_moves(p: Player) -> list[Move]:
    moves: list[Move] = []
    if statue_ready(p):
        moves.append(Reroll(False, p.dice[0], False))
        if p.white:
            moves.append(Reroll(False, p.white[0], True))
    if chapel_ready(p):
        moves.append(Reroll(True))
    return [*moves, Pass()]


def new_order(state: State) -> tuple[int, ...]:
    """Lowest total first; ties keep the previous relative order (rulebook, step a)."""
    position = {seat: i for i, seat in enumerate(state.order)}
    return tuple(sorted(state.order, key=lambda s: (sum(state.players[s].dice + state.players[s].white), position[s])))


# -- influence -------------------------------------------------------------------------------
def influence_moves(state: State, seat: int) -> list[Influence]:
    """Every group the seat may place now (without a stated gift choice)."""
    return list(_influences(state, seat))


def _influences(state: State, seat: int) -> Iterator[Influence]:
    p = state.players[seat]
    if p.passed or not p.dice:
        return
    market = p.has("market") and not p.market_used
    envoy = state.envoy == seat
    for coloured in sub_multisets(p.dice)[1:]:
        for white in sub_multisets(p.white):
            base = sum(coloured) + sum(white)
            for plus2 in (False, True) if p.plus2 else (False,):
                total = base + 2 * plus2
                for advisor in (total, total - 1, total + 1) if market else (total,):
                    if not 1 <= advisor <= ADVISOR_COUNT:
                        continue
                    taken = state.court[advisor]
                    if not taken:
                        yield Influence(advisor, coloured, white, plus2, False)
                    elif envoy and len(taken) == 1:
                        yield Influence(advisor, coloured, white, plus2, True)


def _dice_are_the_seats(p: Player, move: Influence) -> bool:
    """The move's dice, white dice and +2 token are ones the seat holds and may place now."""
    if p.passed or not p.dice or move.choice is not None:
        return False
    if move.plus2 not in ((False, True) if p.plus2 else (False,)) or move.envoy not in (False, True):
        return False
    return move.dice in sub_multisets(p.dice)[1:] and move.white in sub_multisets(p.white)


def _advisor_is_reached(state: State, seat: int, move: Influence) -> bool:
    """The group's total (or one off it, with the Market) names the advisor, who is free or
    shared through the seat's envoy."""
    p = state.players[seat]
    total = sum(move.dice) + sum(move.white) + 2 * move.plus2
    market = p.has("market") and not p.market_used
    if move.advisor not in ((total, total - 1, total + 1) if market else (total,)):
        return False
    if not 1 <= move.advisor <= ADVISOR_COUNT:
        return False
    taken = state.court[move.advisor]
    return not move.envoy if not taken else bool(move.envoy) and state.envoy == seat and len(taken) == 1


def is_influence_move(state: State, seat: int, move: Influence) -> bool:
    """``move in influence_moves(state, seat)``, decided for the one move: each condition
    under which ``_influences`` yields a group, checked against the move's fields."""
    return _dice_are_the_seats(state.players[seat], move) and _advisor_is_reached(state, seat, move)


def has_influence(state: State, seat: int) -> bool:
    return next(_influences(state, seat), None) is not None


def uses_market(move: Influence) -> bool:
    return sum(move.dice) + sum(move.white) + 2 * move.plus2 != move.advisor


# -- gifts -------------------------------------------------------------------------------------
def asks(advisor: int) -> bool:
    """Whether the advisor's gift needs an answer: a choice, a trade or a price in VP.
    Free fixed gifts (Jester, Squire, General, ...) are handed out automatically."""
    gifts = ADVISORS[advisor].gifts
    g = gifts[0]
    return len(gifts) > 1 or "any" in g or "alchemist" in g or g.get("vp", 0) < 0


@cache
def static_choices(advisor: int) -> tuple[Choice, ...]:
    """Every answer the advisor's gift allows in principle (stock not considered); the
    first is declining. Choices are ("take", goods...) or ("give", good)."""
    choices: list[Choice] = [("take",)]
    for bundle in ADVISORS[advisor].gifts:
        if bundle.get("alchemist"):
            choices += [("give", g) for g in GOODS]
            continue
        fixed = [g for g in GOODS for _ in range(bundle.get(g, 0))]
        for extra in combinations_with_replacement(GOODS, bundle.get("any", 0)):
            choice = ("take", *sort_goods(fixed + list(extra)))
            if choice not in choices:
                choices.append(choice)
    return tuple(choices)


def gift_choices(state: State, seat: int, advisor: int) -> list[Choice]:
    """The answers possible now: the Alchemist needs the good given, the Smuggler 1 VP."""
    p = state.players[seat]
    result = []
    for choice in static_choices(advisor):
        if choice[0] == "give" and p.stock(choice[1]) < 1:
            continue
        if len(choice) > 1 and p.vp < advisor_price(advisor):
            continue  # nobody pays VP he does not have
        result.append(choice)
    return result


def advisor_price(advisor: int) -> int:
    """VP the advisor's help costs (the Smuggler: 1), else 0."""
    return max(0, -ADVISORS[advisor].gifts[0].get("vp", 0))


def _chosen_bundle(advisor: int, choice: Choice | None) -> dict[str, int]:
    """The advisor's gift the choice picks: the first that the chosen goods cover."""
    bundles = ADVISORS[advisor].gifts
    if choice is None:
        return bundles[0]
    chosen = Counter(choice[1:])
    return next(b for b in bundles if all(chosen[g] >= b.get(g, 0) for g in GOODS))


def gift_delta(p: Player, advisor: int, choice: Choice | None) -> dict[str, int]:
    """What the gift changes. ``choice`` None: the fixed gift; ("take",) declines."""
    if choice == ("take",):
        return {}
    if choice is not None and choice[0] == "give":
        give = choice[1]
        return {g: (-1 if g == give else 1) for g in GOODS}
    bundle = _chosen_bundle(advisor, choice)
    # the goods named, or the fixed gift's goods
    delta = dict(Counter(choice[1:])) if choice is not None else {g: bundle[g] for g in GOODS if bundle.get(g)}
    for key in ("plus2", "vp"):
        if bundle.get(key):
            delta[key] = bundle[key]
    if bundle.get("soldiers"):
        # Stable: one more soldier whenever an advisor gives soldiers
        delta["soldiers"] = bundle["soldiers"] + (1 if p.has("stable") else 0)
    return delta


def names_fixed_gift(move: Influence) -> bool:
    """A stated ``take`` for an advisor without a choice, naming only goods it gives anyway
    (``influence 8 with 5 3 take gold``): harmless, so the parser drops it. ``take nothing``
    is not such a name: it declines the help, which the rulebook allows for every advisor."""
    if asks(move.advisor) or not isinstance(move.choice, Take) or not move.choice.goods:
        return False
    bundle = ADVISORS[move.advisor].gifts[0]
    return all(bundle.get(g, 0) > 0 for g in move.choice.goods)


def peeks(advisor: int) -> bool:
    return bool(ADVISORS[advisor].gifts[0].get("peek"))


def choice_move(choice: Choice) -> Take | Give:
    return Give(choice[1]) if choice[0] == "give" else Take(tuple(choice[1:]))


def move_choice(move: Take | Give) -> Choice:
    return ("give", move.good) if isinstance(move, Give) else ("take", *move.goods)


def declined_because(state: State, seat: int, advisor: int, stated: Choice | None) -> str | None:
    """Why a gift that was not declined on purpose gives nothing: ``"vp"`` when the seat cannot
    pay the advisor's price in VP (the Smuggler at 0 VP), ``"goods"`` when it has no good to
    give (the Alchemist with empty stores); None when the seat declines by choice."""
    if stated == ("take",):
        return None
    if state.players[seat].vp < advisor_price(advisor):
        return "vp"
    if any(c[0] == "give" for c in static_choices(advisor)) and gift_choices(state, seat, advisor) == [("take",)]:
        return "goods"
    return None


def gift_is_automatic(state: State, seat: int, advisor: int, stated: Choice | None) -> bool:
    if not asks(advisor):
        return True
    options = gift_choices(state, seat, advisor)
    return stated in options or options == [("take",)]


# -- building ------------------------------------------------------------------------------------
def cost(p: Player, building: str) -> tuple[int, int, int]:
    """Cost in gold, wood, stone; the Crane takes 1 gold off columns III and IV."""
    b = BUILDINGS[building]
    gold, wood, stone = b.cost
    if b.column >= 3 and p.has("crane"):
        gold = max(0, gold - 1)
    return gold, wood, stone


def buildable(p: Player) -> list[str]:
    """Buildings the player may build now: next in its row, not owned, affordable."""
    result = []
    for row in ROWS.values():
        for building in row:
            if building in p.buildings:
                continue
            g, w, s = cost(p, building)
            if p.gold >= g and p.wood >= w and p.stone >= s:
                result.append(building)
            break  # only the leftmost missing building of each row
    return result


def may_build(state: State, seat: int) -> bool:
    if state.built >= 2 or (state.built == 1 and state.envoy != seat):
        return False
    return bool(buildable(state.players[seat]))


# -- recruiting ------------------------------------------------------------------------------------
def soldier_price(p: Player) -> int:
    return 1 if p.has("barracks") else 2


def recruit_moves(p: Player) -> list[Recruit]:
    price = soldier_price(p)
    moves = []
    for g in range(p.gold + 1):
        for w in range(p.wood + 1):
            for s in range(p.stone + 1):
                paid = g + w + s
                if paid and paid % price == 0:
                    moves.append(Recruit(paid // price, g, w, s))
    return moves


def default_payment(p: Player, soldiers: int) -> Recruit | None:
    """``recruit N`` without a payment: pay one good at a time from the kind held most,
    sparing gold on ties (gold is in every building's cost)."""
    left = {"gold": p.gold, "wood": p.wood, "stone": p.stone}
    paid = {g: 0 for g in GOODS}
    for _ in range(soldiers * soldier_price(p)):
        good = max(("stone", "wood", "gold"), key=lambda g: left[g])
        if left[good] == 0:
            return None
        left[good] -= 1
        paid[good] += 1
    return Recruit(soldiers, paid["gold"], paid["wood"], paid["stone"])


# -- winter ----------------------------------------------------------------------------------------
def strength(p: Player, enemy: Enemy) -> int:
    bonus = 0
    for building in p.buildings:
        b = BUILDINGS[building]
        bonus += b.battle_vs.get(enemy.type, b.battle)
    return p.soldiers + bonus


def destroy_order(buildings: frozenset[str]) -> list[str]:
    """Rightmost column first, top row first within a column (rulebook, losses b)."""
    return sorted(buildings, key=lambda b: (-BUILDINGS[b].column, BUILDINGS[b].row))


def goods_choices(p: Player, n: int) -> list[tuple[str, ...]]:
    """The ways to give up ``n`` goods of choice from the player's stock."""
    result = []
    for combo in combinations_with_replacement(GOODS, n):
        if all(combo.count(g) <= p.stock(g) for g in GOODS):
            result.append(tuple(combo))
    return result


def token_moves(p: Player) -> list[Move]:
    return [Token(v) for v in sorted(set(p.tokens))]


def townhall_moves(p: Player) -> list[Move]:
    moves: list[Move] = [TownHall(k) for k in ("gold", "wood", "stone", "plus2") if p.stock(k) > 0]
    return [*moves, Pass()] if moves else []


def aid_moves() -> list[Move]:
    return [Take((g,)) for g in GOODS]


def spoils_moves(p: Player) -> list[Move]:
    return [Take(c) for c in combinations_with_replacement(GOODS, p.owed_take)]


def lose_moves(p: Player) -> list[Move]:
    return [Lose(c) for c in goods_choices(p, p.owed_lose)]


def build_moves(state: State, seat: int) -> list[Move]:
    if not may_build(state, seat):
        return []
    return [*(Build(b) for b in buildable(state.players[seat])), Pass()]
