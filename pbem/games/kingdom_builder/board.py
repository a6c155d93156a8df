"""The assembled 20 x 20 hex map: four 10 x 10 sections in a 2 x 2 rectangle.

Hexes are pointy-top in odd-r offset layout (odd rows shifted half a hex right); a hex is the
index ``row * 20 + col``. A person writes it as the column letter A-T and the row number 1-20
(``C4`` is column C, fourth row from the top). A section may lie rotated by 180 degrees:
``(r, c) -> (9 - r, 9 - c)``, which keeps the odd-r parity across the seams.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .data import SECTIONS

SIZE = 20
HALF = 10
HEXES = SIZE * SIZE
COLUMNS = "ABCDEFGHIJKLMNOPQRST"
# The 6 straight-line directions as (drow, dcol) for even rows and for odd rows:
# E, W, NE, NW, SE, SW.
_EVEN = ((0, 1), (0, -1), (-1, 0), (-1, -1), (1, 0), (1, -1))
_ODD = ((0, 1), (0, -1), (-1, 1), (-1, 0), (1, 1), (1, 0))
QUADRANTS = ("top-left", "top-right", "bottom-left", "bottom-right")

Layout = tuple[tuple[str, bool], ...]  # (section name, rotated) for the 4 quadrants


def name(hex_: int) -> str:
    """``47`` -> ``"H3"``: column letter, then row number from 1."""
    return f"{COLUMNS[hex_ % SIZE]}{hex_ // SIZE + 1}"


_BY_NAME = {name(h): h for h in range(HEXES)}


def parse_hex(text: str) -> int | None:
    """``"h3"`` -> ``47``; None if the text is no hex of the map."""
    return _BY_NAME.get(text.strip().upper())


def hex_of(text: str) -> int:
    """The hex of a name the game wrote itself (a stored fact, a view); KeyError if none."""
    return _BY_NAME[text.strip().upper()]


def step(hex_: int, direction: int) -> int:
    """The neighbour of a hex in one of the 6 directions, or -1 off the map."""
    row, col = divmod(hex_, SIZE)
    dr, dc = (_ODD if row & 1 else _EVEN)[direction]
    row, col = row + dr, col + dc
    return row * SIZE + col if 0 <= row < SIZE and 0 <= col < SIZE else -1


@dataclass(frozen=True)
class Board:
    """Everything fixed about one assembled map; built once per layout."""

    layout: Layout
    terrain: tuple[str, ...]  # terrain code per hex
    location_type: tuple[tuple[int, str], ...]  # (location hex, location name), sorted by hex
    castles: tuple[int, ...]
    sector: tuple[int, ...]  # quadrant 0-3 per hex
    edge: frozenset[int]
    by_terrain: dict[str, tuple[int, ...]]
    neighbours: tuple[tuple[int, ...], ...]
    steps: tuple[tuple[int, ...], ...]  # steps[direction][hex] -> hex or -1
    near_location: tuple[tuple[int, ...], ...]  # location hexes adjacent to each hex

    def __hash__(self) -> int:
        return hash(self.layout)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and other.layout == self.layout

    @property
    def locations(self) -> tuple[int, ...]:
        return tuple(h for h, _ in self.location_type)

    def location_at(self, hex_: int) -> str:
        return dict(self.location_type)[hex_]

    def rows(self) -> list[str]:
        return ["".join(self.terrain[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE)]


def section_hex(quadrant: int, rotated: bool, r: int, c: int) -> int:
    """Global hex of a section's own (row, col) placed in ``quadrant``."""
    if rotated:
        r, c = HALF - 1 - r, HALF - 1 - c
    qr, qc = divmod(quadrant, 2)
    return (qr * HALF + r) * SIZE + qc * HALF + c


def _placed(layout: Layout) -> tuple[list[str], list[int], list[tuple[int, str]], list[int]]:
    """Each hex's terrain and quadrant, the locations (hex, section) and the castles' hexes of
    the four sections laid out."""
    terrain = [""] * HEXES
    sector = [0] * HEXES
    locations: list[tuple[int, str]] = []
    castles: list[int] = []
    for quadrant, (section, rotated) in enumerate(layout):
        data = SECTIONS[section]
        for r, row in enumerate(data["rows"]):
            for c, code in enumerate(row):
                h = section_hex(quadrant, rotated, r, c)
                terrain[h], sector[h] = code, quadrant
        locations += [(section_hex(quadrant, rotated, r, c), section) for r, c in data["locations"]]
        castles += [section_hex(quadrant, rotated, r, c) for r, c in data["castles"]]
    return terrain, sector, locations, castles


def _hexes_by_terrain(terrain: list[str]) -> dict[str, tuple[int, ...]]:
    by_terrain: dict[str, list[int]] = {}
    for h, code in enumerate(terrain):
        by_terrain.setdefault(code, []).append(h)
    return {code: tuple(hexes) for code, hexes in by_terrain.items()}


def _on_edge(h: int) -> bool:
    return h // SIZE in (0, SIZE - 1) or h % SIZE in (0, SIZE - 1)


@lru_cache(maxsize=64)
def build_board(layout: Layout) -> Board:
    """Assemble 4 sections; raises ValueError for an unknown or repeated section."""
    names = [section for section, _ in layout]
    if len(layout) != 4 or len(set(names)) != 4 or any(n not in SECTIONS for n in names):
        raise ValueError(f"a board needs 4 different sections, not {names}")
    terrain, sector, locations, castles = _placed(layout)
    steps = tuple(tuple(step(h, d) for h in range(HEXES)) for d in range(6))
    neighbours = tuple(tuple(steps[d][h] for d in range(6) if steps[d][h] >= 0) for h in range(HEXES))
    location_set = {h for h, _ in locations}
    return Board(
        layout=layout,
        terrain=tuple(terrain),
        location_type=tuple(sorted(locations)),
        castles=tuple(sorted(castles)),
        sector=tuple(sector),
        edge=frozenset(filter(_on_edge, range(HEXES))),
        by_terrain=_hexes_by_terrain(terrain),
        neighbours=neighbours,
        steps=steps,
        near_location=tuple(tuple(n for n in neighbours[h] if n in location_set) for h in range(HEXES)),
    )
