"""Hand-built Kingdom Builder positions for the rule tests.

The fixed board (printed by ``print_map`` below) is: Tavern top-left, Paddock top-right,
Oasis bottom-left, Farm bottom-right, all upright.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from pbem.games.base import ErrorCode, GameError, SeededRng
from pbem.games.kingdom_builder import SPEC
from pbem.games.kingdom_builder.board import parse_hex
from pbem.games.kingdom_builder.state import KBState
from tests.support import contract

LAYOUT = (("tavern", False), ("paddock", False), ("oasis", False), ("farm", False))
OPTIONS = {
    "top-left": "tavern",
    "top-right": "paddock",
    "bottom-left": "oasis",
    "bottom-right": "farm",
    "card-1": "fishermen",
    "card-2": "merchants",
    "card-3": "knights",
}


def hexes(*names: str) -> list[int]:
    return [parse_hex(n) for n in names]


def h(name: str) -> int:
    return parse_hex(name)


def position(
    settlements: Mapping[int, Iterable[str]] | None = None,
    *,
    players: int = 2,
    played: str | None = "G",
    seat: int = 0,
    built: int = 0,
    held: Mapping[int, Iterable[str]] | None = None,
    fresh: Iterable[str] = (),
    used: Iterable[str] = (),
    supply: Mapping[int, int] | None = None,
    cards: tuple[str, ...] = ("fishermen", "merchants", "knights"),
    layout: tuple = LAYOUT,
    deck: tuple[str, ...] = ("C", "D", "F", "T", "G"),
    hands: tuple[str | None, ...] | None = None,
) -> KBState:
    """A state on the fixed board with settlements and tiles placed by hand."""
    start = {
        "kind": "GameStarted",
        "players": players,
        "cards": list(cards),
        "sections": [{"quadrant": "q", "name": n, "rotated": r} for n, r in layout],
    }
    state = SPEC.evolve(None, start)
    owner = list(state.owner)
    homes = []
    placed = {seat_: hexes(*names) for seat_, names in (settlements or {}).items()}
    for s in range(players):
        for hex_ in placed.get(s, []):
            owner[hex_] = s
        homes.append(frozenset(placed.get(s, [])))
    counts = [40 - len(homes[s]) for s in range(players)]
    for s, n in (supply or {}).items():
        counts[s] = n
    held_sets = [frozenset(hexes(*(held or {}).get(s, ()))) for s in range(players)]
    tiles_left = tuple(2 - sum(loc in hs for hs in held_sets) for loc in state.board.locations)
    return replace(
        state,
        owner=tuple(owner),
        homes=tuple(homes),
        supply=tuple(counts),
        played=played,
        seat=seat,
        built=built,
        held=tuple(held_sets),
        taken=tuple(held_sets),
        tiles_left=tiles_left,
        fresh=frozenset(hexes(*fresh)),
        used=frozenset(hexes(*used)),
        deck=deck,
        hands=hands if hands is not None else ("F",) * players,
    )


def play(state: KBState, seat: int, *texts: str) -> tuple[KBState, list[dict]]:
    """Apply moves given as text; returns the new state and all facts."""
    facts: list[dict] = []
    rng = SeededRng(7)
    for text in texts:
        state, new = contract.apply(SPEC, state, seat, text, rng)
        facts += new
    return state, facts


def refused(state: KBState, seat: int, text: str, code: ErrorCode | None = None) -> GameError:
    """The move is refused (with ``code`` when given) and nothing changed (the shared contract)."""
    return contract.refused(SPEC, state, seat, text, SeededRng(1), code)


def refused_when_parsed(state: KBState, seat: int, text: str, code: ErrorCode | None = None) -> GameError:
    return contract.refused_when_parsed(SPEC, state, seat, text, code)


def targets(state: KBState, seat: int, kind: str) -> list[str]:
    """Formatted legal moves of one kind."""
    return [SPEC.format_move(m) for m in SPEC.legal_moves(state, seat) if m[0] == kind]


def kinds(facts: list[dict]) -> list[str]:
    return [f["kind"] for f in facts]


def print_map() -> str:  # pragma: no cover - a debugging aid
    return SPEC.render_text(SPEC.view(position(), None), ["A", "B"])
