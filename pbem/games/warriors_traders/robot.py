"""A purposeful random player, for the conformance suite and the seeded test runs: it ends
steps often enough that games finish quickly, and prefers building and attacking."""

from __future__ import annotations

import random

from pbem.games.warriors_traders import rules
from pbem.games.warriors_traders.data import TRACKS
from pbem.games.warriors_traders.maneuvers import hostile
from pbem.games.warriors_traders.state import State

STAY = {"feed": 0.6, "trade": 0.45, "special": 0.4, "shift": 0.85, "move": 0.2, "princess": 0.5, "battle": 0.3}
PREFER = {
    "develop": 3,
    "build": 4,
    "fort": 4,
    "upgrade": 2,
    "war": 1,
    "move": 3,
    "buy": 3,
    "bank": 2,
    "offer": 1,
    "accept": 3,
    "route": 2,
    "peace": 2,
    "unify": 20,
    "hit": 1,
    "princess": 1,
    "refuge": 0.01,
}


def choose(state: State, seat: int, moves: list[tuple], rng: random.Random) -> tuple:
    trivial = rules.trivial_move(state, seat)
    others = [m for m in moves if m != trivial]
    step = rules.current_step(state) or state.phase
    if not others or (trivial in moves and rng.random() < STAY.get(step, 0.03)):
        return trivial if trivial in moves else moves[rng.randrange(len(moves))]
    pool = others + ([trivial] if trivial in moves else [])
    weights = [_weight(state, seat, m) for m in others] + ([0.5] if trivial in moves else [])
    return rng.choices(pool, weights)[0]


def _weight(state: State, seat: int, move: tuple) -> float:
    """Each seat favours one track (so that high levels and their abilities come into play)."""
    weight = PREFER.get(move[0], 1)
    if move[0] == "develop" and TRACKS.index(move[1]) == seat % 3:
        weight *= 6
    if move[0] == "move" and _attacks(state, seat, move):
        weight *= 3
    return weight


def _attacks(state: State, seat: int, move: tuple) -> bool:
    return hostile(state, seat, move[2])
