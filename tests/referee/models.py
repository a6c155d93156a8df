"""A second, minimal model of each game's scoring and end-of-game rules, written from the
rulebooks and not from the engines: it reads only the final state's plain data (who owns what)
and the facts, and states who should have won with how many points. The engines' own scoring
modules are not imported here; a difference fails ``tests/test_referee.py``."""

from __future__ import annotations

from collections import Counter
from typing import Any

Result = dict[int, tuple[int, int]]  # seat -> (rank, score)


def competition_ranks(keys: dict[int, tuple]) -> dict[int, int]:
    """Rank 1 for the best key; equal keys share a rank; the next rank skips ("1224")."""
    return {seat: 1 + sum(1 for other in keys.values() if other > key) for seat, key in keys.items()}


# -- Kingsburg (Czech p. 9 "Vítěz hry"; Polish L347-361) ---------------------------------------
def kingsburg(state: Any, facts: list[dict]) -> Result:
    """After year V, most VP wins; ties: most goods, then most buildings, else shared. The VP
    are re-added from every fact that moved a score marker (deltas, rewards, end bonuses)."""
    assert state.year == 5 and sum(f["kind"] == "EnemyRevealed" for f in facts) == 5  # five winters
    vp: Counter[int] = Counter()
    for fact in facts:
        for seat, amount in _vp_changes(fact):
            vp[seat] = max(0, vp[seat] + amount)  # the score marker never goes below 0
    keys = {}
    for seat, p in enumerate(state.players):
        assert vp[seat] == p.vp, (seat, vp[seat], p.vp)
        keys[seat] = (vp[seat], p.gold + p.wood + p.stone, len(p.buildings))
    ranks = competition_ranks(keys)
    return {seat: (ranks[seat], keys[seat][0]) for seat in keys}


def _vp_changes(fact: dict) -> list[tuple[int, int]]:
    if "seat" in fact and isinstance(fact.get("delta"), dict) and "vp" in fact["delta"]:
        return [(fact["seat"], fact["delta"]["vp"])]
    if "vp" in fact and isinstance(fact["vp"], dict):  # {seat: amount} for several players
        return [(int(s), n) for s, n in fact["vp"].items()]
    if "seat" in fact and isinstance(fact.get("vp"), int):
        return [(fact["seat"], fact["vp"])]
    if "seats" in fact and isinstance(fact.get("vp"), int):
        return [(s, fact["vp"]) for s in fact["seats"]]
    return []


# -- Ruse & Bruise (Czech L97-109 "KONEC HRY") -------------------------------------------------
SUITS = ("alchemy", "fencing", "farming", "trade", "religion", "music")


def ruse_and_bruise_score(goals: list[str]) -> int:
    """The plain sum of the goal cards, or, with a card of every suit, twice the best card of
    each suit minus 1 for every further card: whichever is more."""
    values = [(goal.split("-")[0], int(goal.split("-")[1][0])) for goal in goals]
    plain = sum(v for _, v in values)
    if {suit for suit, _ in values} != set(SUITS):
        return plain
    best = {suit: max(v for s, v in values if s == suit) for suit in SUITS}
    return max(plain, 2 * sum(best.values()) - (len(values) - len(SUITS)))


def ruse_and_bruise(state: Any, facts: list[dict]) -> Result:
    assert state.round == 6 and sum(f["kind"] == "RoundEnded" for f in facts) == 6  # six rounds
    scores = {seat: ruse_and_bruise_score(list(goals)) for seat, goals in enumerate(state.won)}
    ranks = competition_ranks({seat: (score,) for seat, score in scores.items()})
    return {seat: (ranks[seat], scores[seat]) for seat in scores}


# -- Kingdom Builder (Czech L257-269 and the kingdom cards, L271-400) ---------------------------
def kingdom_builder(state: Any, facts: list[dict]) -> Result:
    """Each kingdom card in play and the castles, counted from the map; most gold wins. The
    game ends once someone has placed his last settlement and the round is complete."""
    board, players = state.board, state.players
    turns = [f for f in facts if f["kind"] == "TurnEnded"]
    assert min(state.supply) == 0 or not state.deck, "ended before anyone ran out of settlements"
    if min(state.supply) == 0 and turns:
        assert turns[-1]["seat"] == players - 1, "the last round was not completed"
    homes = [set(h) for h in state.homes]
    near = board.neighbours
    set(board.locations) | set(board.castles)
    scores = []
    for seat in range(players):
        mine = homes[seat]
        gold = sum(3 for c in board.castles if any(n in mine for n in near[c]))
        for card in state.cards:
            gold += _kb_card(card, seat, mine, homes, state)
        scores.append(gold)
    ranks = competition_ranks({seat: (score,) for seat, score in enumerate(scores)})
    return {seat: (ranks[seat], scores[seat]) for seat in range(players)}


def _kb_card(card: str, seat: int, mine: set[int], homes: list[set[int]], state: Any) -> int:
    board, near = state.board, state.board.neighbours
    special = set(board.locations) | set(board.castles)
    rows = Counter(h // 20 for h in mine)
    groups = _groups(mine, near)
    if card == "fishermen":
        return sum(1 for h in mine if board.terrain[h] != "W" and any(board.terrain[n] == "W" for n in near[h]))
    if card == "miners":
        return sum(1 for h in mine if any(board.terrain[n] == "M" for n in near[h]))
    if card == "workers":
        return sum(1 for h in mine if any(n in special for n in near[h]))
    if card == "discoverers":
        return len(rows)
    if card == "knights":
        return 2 * max(rows.values(), default=0)
    if card == "hermits":
        return len(groups)
    if card == "citizens":
        return max((len(g) for g in groups), default=0) // 2
    if card == "merchants":
        linked = set()
        for group in groups:
            touched = {s for h in group for s in near[h] if s in special}
            if len(touched) >= 2:
                linked |= touched
        return 4 * len(linked)
    if card == "farmers":
        sections = Counter(board.sector[h] for h in mine)
        return 3 * min(sections.get(q, 0) for q in range(4))
    if card == "lords":
        gold = 0
        for quarter in range(4):
            counts = {s: sum(1 for h in homes[s] if board.sector[h] == quarter) for s in range(len(homes))}
            levels = sorted({c for c in counts.values() if c > 0}, reverse=True)
            for award, level in zip((12, 6), levels, strict=False):
                if counts[seat] == level:
                    gold += award
        return gold
    raise AssertionError(f"the referee does not know the kingdom card {card!r}")


def _groups(homes: set[int], near) -> list[set[int]]:
    seen: set[int] = set()
    groups = []
    for start in sorted(homes):
        if start in seen:
            continue
        group, todo = {start}, [start]
        while todo:
            for n in near[todo.pop()]:
                if n in homes and n not in group:
                    group.add(n)
                    todo.append(n)
        seen |= group
        groups.append(group)
    return groups


# -- Warriors & Traders (Czech L529-537, L801-850) ----------------------------------------------
PROVINCE_VP = {"capital": 3, "trade_center": 2, "ordinary": 1, "conquered": 1}
THRESHOLDS = {2: 42, 3: 37, 4: 33, 5: 30, 6: 27}


def warriors_traders(state: Any, facts: list[dict]) -> Result:
    """VP: provinces by type (capital 3, trade centre 2, others 1), 3 per standing fort, kill
    and bought VP, 3 per title held alone; the game ends after turn 10 or at the end of the
    turn in which someone reached the threshold; most VP wins (free-for-all games)."""
    assert not state.config.alliance, "the referee models free-for-all games"
    gmap = state.gmap
    scores = {}
    for seat, player in enumerate(state.players):
        owned = [p for p, o in zip(gmap.provinces, state.owners, strict=False) if o == seat]
        provinces = sum(PROVINCE_VP[gmap.provinces[p].type] for p in owned)
        forts = 3 * sum(1 for u in state.units if u.owner == seat and u.kind == "fort")
        scores[seat] = provinces + forts + player.kills + player.bought
    for track in range(3):  # a title goes to the one player with the most tokens on the track
        tokens = [p.tokens[track] for p in state.players]
        leaders = [s for s, t in enumerate(tokens) if t == max(tokens)]
        if len(leaders) == 1:
            scores[leaders[0]] += 3
    turn_ends = [f for f in facts if f["kind"] == "TurnEnded"]
    assert state.turn == len(turn_ends) and (state.turn == 10 or max(scores.values()) >= THRESHOLDS[len(scores)])
    ranks = competition_ranks({seat: (score,) for seat, score in scores.items()})
    return {seat: (ranks[seat], scores[seat]) for seat in scores}


REFEREES = {
    "kingsburg": kingsburg,
    "ruse-and-bruise": ruse_and_bruise,
    "kingdom-builder": kingdom_builder,
    "warriors-traders": warriors_traders,
}
