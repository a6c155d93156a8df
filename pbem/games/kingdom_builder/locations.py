"""Where a settlement may go: the building rules and the 8 location tiles.

Building rule 3 ("next to your own settlements if possible") is ``adjacent_first``: among the
hexes an action allows, those touching one of the seat's settlements; only when there are
none, all of them. For the two moving tiles that keep the rule (Barn, Harbor) the settlement
being moved is lifted first: it does not count as a neighbour of its own target.
"""

from __future__ import annotations

from .board import Board
from .data import BUILDABLE, DESERT, GRASS, WATER
from .state import KBState

OPPOSITE = (1, 0, 5, 4, 3, 2)  # E<->W, NE<->SW, NW<->SE
TILE_TERRAIN = {"farm": GRASS, "oasis": DESERT, "harbor": WATER}


def free_of_terrain(state: KBState, terrain: str | None) -> list[int]:
    """Empty hexes of one terrain, in hex order."""
    if terrain is None:
        return []
    owner = state.owner
    return [h for h in state.board.by_terrain.get(terrain, ()) if owner[h] < 0]


def has_free(state: KBState, terrain: str | None) -> bool:
    owner = state.owner
    return terrain is not None and any(owner[h] < 0 for h in state.board.by_terrain.get(terrain, ()))


def touches(state: KBState, seat: int, hex_: int, ignore: int = -1) -> bool:
    owner = state.owner
    return any(owner[n] == seat and n != ignore for n in state.board.neighbours[hex_])


def next_to_own(state: KBState, seat: int, ignore: int = -1) -> set[int]:
    """Every hex touching one of the seat's settlements (but ``ignore``): the same hexes for
    which ``touches`` holds, found from the few settlements instead of asking every candidate
    (the neighbour relation is symmetric, and ``homes`` are exactly the hexes the seat owns)."""
    neighbours = state.board.neighbours
    return {n for h in state.homes[seat] if h != ignore for n in neighbours[h]}


def adjacent_first(state: KBState, seat: int, candidates: list[int], ignore: int = -1) -> list[int]:
    """Building rule 3: the candidates next to the seat's settlements, else all of them."""
    near_own = next_to_own(state, seat, ignore)
    near = [h for h in candidates if h in near_own]
    return near or candidates


def edge_hexes(state: KBState) -> list[int]:
    board: Board = state.board
    owner = state.owner
    return [h for h in sorted(board.edge) if owner[h] < 0 and board.terrain[h] in BUILDABLE]


def tavern_hexes(state: KBState, seat: int) -> list[int]:
    """Free buildable hexes just beyond the end of a straight line of >= 3 own settlements."""
    board, owner = state.board, state.owner
    found: set[int] = set()
    for d in range(6):
        forward, backward = board.steps[d], board.steps[OPPOSITE[d]]
        for start in state.homes[seat]:
            before = backward[start]
            if before >= 0 and owner[before] == seat:
                continue  # not the first settlement of its run in this direction
            length, h = 1, forward[start]
            while h >= 0 and owner[h] == seat:
                length, h = length + 1, forward[h]
            if length >= 3 and h >= 0 and owner[h] < 0 and board.terrain[h] in BUILDABLE:
                found.add(h)
    return sorted(found)


def build_targets(state: KBState, seat: int, action: str) -> list[int]:
    """Legal hexes for one new settlement by the mandatory action or a building tile."""
    if action in ("build", "oracle"):
        return adjacent_first(state, seat, free_of_terrain(state, state.played))
    if action in ("farm", "oasis"):
        return adjacent_first(state, seat, free_of_terrain(state, TILE_TERRAIN[action]))
    if action == "tower":
        return adjacent_first(state, seat, edge_hexes(state))
    if action == "tavern":
        return tavern_hexes(state, seat)
    raise ValueError(action)


def _move_terrain(state: KBState, action: str) -> str | None:
    return state.played if action == "barn" else TILE_TERRAIN[action]


def move_targets(state: KBState, seat: int, action: str, source: int) -> list[int]:
    """Legal destinations for moving the settlement on ``source`` with a moving tile."""
    if source not in state.homes[seat]:
        return []
    if action == "paddock":
        return paddock_targets(state, source)
    return adjacent_first(state, seat, free_of_terrain(state, _move_terrain(state, action)), ignore=source)


def paddock_targets(state: KBState, source: int) -> list[int]:
    board, owner = state.board, state.owner
    found = []
    for d in range(6):
        middle = board.steps[d][source]
        target = board.steps[d][middle] if middle >= 0 else -1
        if target >= 0 and owner[target] < 0 and board.terrain[target] in BUILDABLE:
            found.append(target)
    return sorted(found)


def move_options(state: KBState, seat: int, action: str) -> list[tuple[int, int]]:
    """Every (from, to) pair a moving tile allows."""
    sources = sorted(state.homes[seat])
    if action == "paddock":
        return [(s, t) for s in sources for t in paddock_targets(state, s)]
    candidates = free_of_terrain(state, _move_terrain(state, action))
    neighbours, owner = state.board.neighbours, state.owner
    counts = {t: sum(owner[n] == seat for n in neighbours[t]) for t in candidates}
    pairs = []
    for s in sources:
        near = [t for t in candidates if counts[t] > (1 if s in neighbours[t] else 0)]
        pairs += [(s, t) for t in (near or candidates)]
    return pairs


def tile_usable(state: KBState, seat: int, action: str) -> bool:
    """Whether a tile of this kind has at least one legal use now (ignoring turn order)."""
    if action in ("oracle", "farm", "oasis"):
        terrain = state.played if action == "oracle" else TILE_TERRAIN[action]
        return state.supply[seat] > 0 and has_free(state, terrain)
    if action == "tower":
        return state.supply[seat] > 0 and bool(edge_hexes(state))
    if action == "tavern":
        return state.supply[seat] > 0 and bool(tavern_hexes(state, seat))
    if action == "paddock":
        return any(paddock_targets(state, s) for s in state.homes[seat])
    return bool(state.homes[seat]) and has_free(state, _move_terrain(state, action))
