"""The automatic steps of a year: whatever happens without anybody choosing.

``advance`` is run by ``decide`` after every move (and by ``setup``): it emits facts until some
seat must answer or the game is over, so the game never waits for nobody. Each step of the
year has one handler, found in ``STEPS`` by (phase, step); a handler returns [] when the game
must wait for a seat, else the next facts (ending with the fact that moves the game on).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem.games.base import Rng, evolve_all, secret
from pbem.games.kingsburg import rules
from pbem.games.kingsburg.data import BUILDINGS, COLOURED_DICE, ENEMIES, GOODS, YEARS
from pbem.games.kingsburg.evolve import evolve
from pbem.games.kingsburg.state import PHASES, SEASONS, Choice, Player, State, delta_of

Fact = dict[str, Any]


def fold(state: State, facts: list[Fact]) -> State:
    return evolve_all(evolve, state, facts)


def advance(state: State, rng: Rng) -> tuple[list[Fact], State]:
    out: list[Fact] = []
    while not state.over:
        kind = "season" if state.phase in SEASONS else state.phase
        new = STEPS[(kind, state.step)](state, rng)
        if not new:
            break
        state = fold(state, new)
        out += new
    return out, state


def next_phase(state: State) -> Fact:
    return {"kind": "PhaseBegan", "phase": PHASES[PHASES.index(state.phase) + 1]}


# -- phase 1: the King's aid --------------------------------------------------------------------
def neediest(state: State) -> list[int]:
    """Fewest buildings, then fewest goods (phases 1 and 5)."""
    fewest = min(len(p.buildings) for p in state.players)
    seats = [s for s, p in enumerate(state.players) if len(p.buildings) == fewest]
    poorest = min(state.players[s].goods for s in seats)
    return [s for s in seats if state.players[s].goods == poorest]


def _aid_start(state: State, rng: Rng) -> list[Fact]:
    seats = neediest(state)  # year 1: everybody ties with nothing
    if len(seats) == 1:
        return [{"kind": "AidGranted", "seat": seats[0]}, next_phase(state)]
    return [{"kind": "AidTied", "seats": seats}]


def _aid_choose(state: State, rng: Rng) -> list[Fact]:
    return [] if state.pending else [next_phase(state)]


# -- productive seasons ---------------------------------------------------------------------------
def _roll(rng: Rng, n: int) -> list[int]:
    return sorted((rng.randint(1, 6) for _ in range(n)), reverse=True)


def neutral_groups(three: list[int], two: list[int]) -> list[dict[str, Any]]:
    """2 players: 3 neutral dice block the advisor of their sum, 2 more dice the advisor of
    theirs; if that one is taken the 2 dice block one advisor each (one if they are equal)."""
    groups = [{"advisor": sum(three), "dice": three}]
    if sum(two) != sum(three):
        groups.append({"advisor": sum(two), "dice": two})
    else:
        groups += [{"advisor": d, "dice": [d]} for d in sorted(set(two), reverse=True)]
    return groups


def _season_start(state: State, rng: Rng) -> list[Fact]:
    facts: list[Fact] = [
        {"kind": "GuildGoldTaken", "seat": s, "delta": {"gold": 1}}
        for s in state.order
        if state.players[s].has("merchants_guild")
    ]  # the Merchants' Guild pays before the roll
    if state.count == 2:
        three, two = _roll(rng, 3), _roll(rng, 2)
        facts.append({"kind": "NeutralDiceRolled", "three": three, "two": two, "groups": neutral_groups(three, two)})
    dice, white = [], []
    for seat, p in enumerate(state.players):
        dice.append(_roll(rng, COLOURED_DICE))
        extra = (state.phase == "spring" and state.aid == seat) + p.has("farms")
        white.append(_roll(rng, extra))
    facts.append({"kind": "DiceRolled", "season": state.phase, "dice": dice, "white": white})
    return facts


def _reroll(state: State, rng: Rng) -> list[Fact]:
    if any(rules.may_reroll(p) for p in state.players):
        return []
    order = rules.new_order(state)
    totals = [sum(p.dice + p.white) for p in state.players]
    return [{"kind": "TurnOrderSet", "order": list(order), "totals": totals}]


def _influence(state: State, rng: Rng) -> list[Fact]:
    if state.cursor < 0:
        return [{"kind": "GiftsBegan"}]
    seat = state.order[state.cursor]
    if rules.has_influence(state, seat):
        return []
    return [{"kind": "InfluencePassed", "seat": seat, "auto": True}]


def gift_facts(state: State, seat: int, advisor: int, choice: Choice | None, unable: str | None = None) -> list[Fact]:
    """The facts of one advisor's help to one seat (``choice`` None: the fixed gift). A help
    that gives nothing says whether the seat declined it or could not take it (``unable``:
    "vp" or "goods", see ``rules.declined_because``), so the history never says "declines"
    of a player who asked for the help."""
    if choice == ("take",):
        fact: Fact = {"kind": "GiftDeclined", "seat": seat, "advisor": advisor}
        if unable:
            fact["unable"] = unable
        return [fact]
    p = state.players[seat]
    fact = {"kind": "GiftReceived", "seat": seat, "advisor": advisor, "delta": rules.gift_delta(p, advisor, choice)}
    if choice is not None:
        fact["choice"] = list(choice)
    facts = [fact]
    if rules.peeks(advisor) and state.deck:
        facts.append(
            {"kind": "CardPeeked", "seat": seat, "advisor": advisor, "secret": secret([seat], {"card": state.deck[0]})}
        )
    return facts


def _gifts(state: State, rng: Rng) -> list[Fact]:
    if not state.gifts:
        return [{"kind": "StepBegan", "step": "build", "cursor": 0}]
    facts: list[Fact] = []
    seen: set[int] = set()
    for advisor, seat, stated in state.gifts:
        if seat in seen:
            continue
        seen.add(seat)  # each seat's gifts come in advisor order: only its first one now
        if not rules.asks(advisor):
            # a fixed gift is given unless the seat declined it with its influence
            facts += gift_facts(state, seat, advisor, ("take",) if stated == ("take",) else None)
        elif rules.gift_is_automatic(state, seat, advisor, stated):
            options = rules.gift_choices(state, seat, advisor)
            facts += gift_facts(
                state,
                seat,
                advisor,
                stated if stated in options else ("take",),
                rules.declined_because(state, seat, advisor, stated),
            )
    return facts


def _build(state: State, rng: Rng) -> list[Fact]:
    if state.cursor < state.count:
        seat = state.order[state.cursor]
        return [] if rules.may_build(state, seat) else [{"kind": "BuildPassed", "seat": seat, "auto": True}]
    facts: list[Fact] = []
    inn = state.phase == "summer"
    if inn:  # the Inn's +2 token comes before the Town Hall, so it can pay there
        facts += [
            {"kind": "InnTokenTaken", "seat": s, "delta": {"plus2": 1}}
            for s in state.order
            if state.players[s].has("inn")
        ]
    pending = [
        s
        for s in state.order
        if state.players[s].has("town_hall")
        and (state.players[s].goods or state.players[s].plus2 or (inn and state.players[s].has("inn")))
    ]
    return [*facts, {"kind": "StepBegan", "step": "townhall", "pending": pending}]


def _townhall(state: State, rng: Rng) -> list[Fact]:
    if state.pending:
        return []
    facts: list[Fact] = [
        {"kind": "EmbassyScored", "seat": s, "delta": {"vp": 1}} for s in state.order if state.players[s].has("embassy")
    ]
    return [*facts, {"kind": "SeasonEnded", "season": state.phase}, next_phase(state)]


# -- phases 3, 5, 7 -----------------------------------------------------------------------------------
def _reward(state: State, rng: Rng) -> list[Fact]:
    most = max(len(p.buildings) for p in state.players)
    facts: list[Fact] = [
        {"kind": "KingsRewardGiven", "seat": s, "delta": {"vp": 1}}
        for s in state.order
        if len(state.players[s].buildings) == most
    ]
    return [*facts, next_phase(state)]


def _envoy(state: State, rng: Rng) -> list[Fact]:
    facts: list[Fact] = []
    if state.envoy is not None:
        facts.append({"kind": "EnvoyReturned", "seat": state.envoy})
    seats = neediest(state)
    facts.append({"kind": "EnvoyAwarded", "seat": seats[0] if len(seats) == 1 else None})
    return [*facts, next_phase(state)]


def _recruit_start(state: State, rng: Rng) -> list[Fact]:
    return [{"kind": "StepBegan", "step": "recruit", "cursor": 0}]


def can_recruit(state: State, seat: int) -> bool:
    p = state.players[seat]
    return p.goods >= rules.soldier_price(p)


def _recruit(state: State, rng: Rng) -> list[Fact]:
    if state.cursor >= state.count:
        return [next_phase(state)]
    seat = state.order[state.cursor]
    return [] if can_recruit(state, seat) else [{"kind": "RecruitPassed", "seat": seat, "auto": True}]


# -- phase 8: winter --------------------------------------------------------------------------------
def _winter_start(state: State, rng: Rng) -> list[Fact]:
    card = ENEMIES[state.deck[0]]
    defeat, victory = card.reading(state.demons)
    facts: list[Fact] = [
        {
            "kind": "EnemyRevealed",
            "card": card.id,
            "name": card.name,
            "type": card.type,
            "strength": card.strength,
            "defeat": defeat,
            "victory": victory,
        }
    ]
    if state.reinforcements == "tokens":
        return [*facts, {"kind": "StepBegan", "step": "tokens", "pending": list(state.order)}]
    if state.reinforcements == "difference":
        dice = [rng.randint(1, 6), rng.randint(1, 6)]
        soldiers = abs(dice[0] - dice[1]) + 1
    else:
        dice = [rng.randint(1, 6)]
        soldiers = dice[0]
    return [*facts, {"kind": "ReinforcementsRolled", "seat": state.order[0], "dice": dice, "soldiers": soldiers}]


def _tokens(state: State, rng: Rng) -> list[Fact]:
    if state.pending:
        return []
    return [{"kind": "TokensRevealed", "tokens": [p.token for p in state.players]}]


def _battle(state: State, rng: Rng) -> list[Fact]:
    card = state.enemy_card
    defeat, victory = card.reading(state.demons)
    power = [rules.strength(p, card) for p in state.players]
    results = []
    for p, value in zip(state.players, power, strict=False):
        won = value > card.strength or (value == card.strength and p.has("stone_wall"))
        results.append("won" if won else "draw" if value == card.strength else "lost")
    facts = [battle_fact(state, seat, power[seat], results[seat], defeat, victory) for seat in state.order]
    winners = [s for s in state.order if results[s] == "won"]
    if winners:
        best = max(power[s] for s in winners)
        facts += [{"kind": "BestDefenderRewarded", "seat": s, "delta": {"vp": 1}} for s in winners if power[s] == best]
    return [*facts, {"kind": "StepBegan", "step": "spoils"}]


def battle_fact(
    state: State, seat: int, power: int, result: str, defeat: dict[str, int], victory: dict[str, int]
) -> Fact:
    p = state.players[seat]
    fact: Fact = {"kind": "BattleFought", "seat": seat, "strength": power, "result": result, "destroyed": []}
    if result == "won":
        _won(p, victory, fact)
    elif result == "lost":
        _lost(p, defeat, fact)
    return fact


def _won(p: Player, victory: dict[str, int], fact: Fact) -> None:
    vp = victory["vp"] + (1 if p.has("fortress") else 0)  # Fortress: 1 VP on every win
    fact["delta"] = delta_of(*(victory[g] for g in GOODS), vp=vp)
    if victory.get("any"):
        fact["owe_take"] = victory["any"]


def _lost(p: Player, defeat: dict[str, int], fact: Fact) -> None:
    lost = {g: min(p.stock(g), defeat[g]) for g in GOODS}  # nobody loses what he lacks
    left = {g: p.stock(g) - lost[g] for g in GOODS}
    owe = defeat["any"]
    if owe and (sum(left.values()) <= owe or sum(1 for v in left.values() if v) == 1):
        for g in GOODS:  # no real choice: lose what there is
            take = min(left[g], owe)
            lost[g] += take
            owe -= take
        owe = 0
    destroyed = rules.destroy_order(p.buildings)[: defeat["buildings"]]
    vp_loss = min(p.vp, sum(BUILDINGS[b].vp for b in destroyed) + defeat["vp"])
    fact["delta"] = delta_of(*(-lost[g] for g in GOODS), vp=-vp_loss)
    fact["destroyed"] = destroyed
    if owe:
        fact["owe_lose"] = owe


def _spoils(state: State, rng: Rng) -> list[Fact]:
    if any(p.owed_lose or p.owed_take for p in state.players):
        return []
    facts: list[Fact] = [{"kind": "SoldiersDismissed"}]
    if state.year < YEARS:
        return [*facts, {"kind": "YearEnded", "year": state.year}]
    return facts + final_scoring(state)


def final_scoring(state: State) -> list[Fact]:
    facts: list[Fact] = []
    for seat in state.order:
        p = state.players[seat]
        if p.has("cathedral") and p.goods >= 2:  # 1 VP for every 2 goods left
            facts.append({"kind": "CathedralScored", "seat": seat, "delta": {"vp": p.goods // 2}})
        if sum(p.tokens):  # variant: unused soldier tokens are worth their value
            facts.append({"kind": "TokensScored", "seat": seat, "delta": {"vp": sum(p.tokens)}})
    return [*facts, {"kind": "GameEnded"}]


STEPS: dict[tuple[str, str], Callable[[State, Rng], list[Fact]]] = {
    ("aid", "start"): _aid_start,
    ("aid", "choose"): _aid_choose,
    ("season", "start"): _season_start,
    ("season", "reroll"): _reroll,
    ("season", "influence"): _influence,
    ("season", "gifts"): _gifts,
    ("season", "build"): _build,
    ("season", "townhall"): _townhall,
    ("reward", "start"): _reward,
    ("envoy", "start"): _envoy,
    ("recruit", "start"): _recruit_start,
    ("recruit", "recruit"): _recruit,
    ("winter", "start"): _winter_start,
    ("winter", "tokens"): _tokens,
    ("winter", "battle"): _battle,
    ("winter", "spoils"): _spoils,
}
