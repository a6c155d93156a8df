"""Final scoring: the 10 kingdom cards (3 are in play) and the castles.

Each card function takes the state and returns the gold of every seat, in seat order.
Rules: rulebook p. 5 (pictograms restated in ../shared/games/kingdom_builder/data.json).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .board import SIZE
from .data import CASTLE_GOLD, MOUNTAIN, WATER
from .state import KBState

Gold = list[int]


def areas(state: KBState, seat: int) -> list[frozenset[int]]:
    """The seat's settlement areas: groups of its settlements connected by adjacency."""
    homes, neighbours = state.homes[seat], state.board.neighbours
    seen: set[int] = set()
    groups = []
    for start in sorted(homes):
        if start in seen:
            continue
        group, todo = {start}, [start]
        while todo:
            for n in neighbours[todo.pop()]:
                if n in homes and n not in group:
                    group.add(n)
                    todo.append(n)
        seen |= group
        groups.append(frozenset(group))
    return groups


def _count_touching(state: KBState, seat: int, wanted: Callable[[int], bool], skip: Iterable[str] = ()) -> int:
    board, skipped = state.board, set(skip)
    return sum(
        1 for h in state.homes[seat] if board.terrain[h] not in skipped and any(wanted(n) for n in board.neighbours[h])
    )


def fishermen(state: KBState) -> Gold:
    """1 per settlement next to water; a settlement standing on water scores nothing."""
    terrain = state.board.terrain
    return [_count_touching(state, s, lambda n: terrain[n] == WATER, skip=(WATER,)) for s in range(state.players)]


def miners(state: KBState) -> Gold:
    """1 per settlement next to a mountain."""
    terrain = state.board.terrain
    return [_count_touching(state, s, lambda n: terrain[n] == MOUNTAIN) for s in range(state.players)]


def _special(state: KBState) -> frozenset[int]:
    return frozenset(state.board.locations) | frozenset(state.board.castles)


def workers(state: KBState) -> Gold:
    """1 per settlement next to a location or castle hex."""
    special = _special(state)
    return [_count_touching(state, s, special.__contains__) for s in range(state.players)]


def merchants(state: KBState) -> Gold:
    """4 per location/castle hex joined by one of your areas to another location/castle hex."""
    special, neighbours = _special(state), state.board.neighbours
    gold = []
    for seat in range(state.players):
        linked: set[int] = set()
        for area in areas(state, seat):
            touched = {n for h in area for n in neighbours[h] if n in special}
            if len(touched) >= 2:
                linked |= touched
        gold.append(4 * len(linked))
    return gold


def _row_counts(state: KBState, seat: int) -> dict[int, int]:
    counts: dict[int, int] = {}
    for h in state.homes[seat]:
        counts[h // SIZE] = counts.get(h // SIZE, 0) + 1
    return counts


def discoverers(state: KBState) -> Gold:
    """1 per horizontal row with at least one of your settlements."""
    return [len(_row_counts(state, s)) for s in range(state.players)]


def knights(state: KBState) -> Gold:
    """2 per settlement in your fullest horizontal row (one row only)."""
    return [2 * max(_row_counts(state, s).values(), default=0) for s in range(state.players)]


def hermits(state: KBState) -> Gold:
    """1 per separate settlement area."""
    return [len(areas(state, s)) for s in range(state.players)]


def citizens(state: KBState) -> Gold:
    """1 per 2 settlements of your largest area (rounded down)."""
    return [max((len(a) for a in areas(state, s)), default=0) // 2 for s in range(state.players)]


def sector_counts(state: KBState, seat: int) -> list[int]:
    counts = [0, 0, 0, 0]
    for h in state.homes[seat]:
        counts[state.board.sector[h]] += 1
    return counts


def farmers(state: KBState) -> Gold:
    """3 per settlement in the section where you have fewest; 0 if a section has none."""
    return [3 * min(sector_counts(state, s)) for s in range(state.players)]


def lords(state: KBState) -> Gold:
    """Per section: 12 to everyone with the most settlements, 6 to everyone with the next
    count; a player with no settlement in a section gets nothing there."""
    per_seat = [sector_counts(state, s) for s in range(state.players)]
    gold = [0] * state.players
    for sector in range(4):
        counts = [per_seat[s][sector] for s in range(state.players)]
        levels = sorted({c for c in counts if c > 0}, reverse=True)
        for award, level in zip((12, 6), levels, strict=False):
            for s in range(state.players):
                if counts[s] == level:
                    gold[s] += award
    return gold


def castles(state: KBState) -> Gold:
    """3 per castle hex next to at least one of your settlements."""
    board, owner = state.board, state.owner
    return [
        CASTLE_GOLD * sum(1 for c in board.castles if any(owner[n] == s for n in board.neighbours[c]))
        for s in range(state.players)
    ]


CARDS: dict[str, Callable[[KBState], Gold]] = {
    "fishermen": fishermen,
    "miners": miners,
    "merchants": merchants,
    "workers": workers,
    "discoverers": discoverers,
    "knights": knights,
    "hermits": hermits,
    "lords": lords,
    "citizens": citizens,
    "farmers": farmers,
}


def final_scores(state: KBState) -> list[dict]:
    """Every seat's gold per kingdom card (in the order of the cards), then castles, and total."""
    by_card = {card: CARDS[card](state) for card in state.cards}
    castle_gold = castles(state)
    scores = []
    for seat in range(state.players):
        gold = {card: by_card[card][seat] for card in state.cards}
        gold["castles"] = castle_gold[seat]
        scores.append({"seat": seat, "gold": gold, "total": sum(gold.values())})
    return scores
