"""Play a game with seeded random players, with no store: for the conformance suite, game
tests and benchmarks. Pure: the only randomness is the seeded rngs passed in."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pbem.games.base import AnySpec, Fact, SeededRng, Standing, State, evolve_all


@dataclass
class Playthrough:
    """A finished (or stopped) game: every fact in order, the moves that caused them."""

    spec: AnySpec
    players: int
    options: dict[str, str]
    facts: list[Fact] = field(default_factory=list)
    moves: list[tuple[int, str]] = field(default_factory=list)  # (seat, formatted move)
    state: State = None

    @property
    def standings(self) -> list[Standing] | None:
        return self.spec.outcome(self.state)


StepHook = Callable[[State, int, Any, list[Fact], State], None]


def fold(spec: AnySpec, facts: list[Fact], state: State = None) -> State:
    return evolve_all(spec.evolve, state, facts)


def play_random(
    spec: AnySpec,
    players: int,
    seed: int,
    options: Mapping[str, str] | None = None,
    max_moves: int = 200_000,
    on_step: StepHook | None = None,
) -> Playthrough:
    """Seeded random legal moves for every seat until the game ends.

    ``on_step(before, seat, move, facts, after)`` runs after every move, for invariants.
    Raises RuntimeError if the game does not end within ``max_moves``.
    """
    normalized = spec.normalize_options(options or {}, players)
    dice = SeededRng(f"dice-{seed}")
    chooser = random.Random(f"players-{seed}")
    play = Playthrough(spec, players, normalized)
    play.facts = spec.setup(players, normalized, dice)
    play.state = fold(spec, play.facts)
    for _ in range(max_moves):
        seats = spec.to_move(play.state)
        if not seats:
            return play
        seat = seats[chooser.randrange(len(seats))]
        move = spec.random_move(play.state, seat, chooser)
        before = play.state
        facts = spec.decide(before, seat, move, dice)
        play.state = fold(spec, facts, before)
        play.facts.extend(facts)
        play.moves.append((seat, spec.format_move(move)))
        if on_step:
            on_step(before, seat, move, facts, play.state)
    raise RuntimeError(f"{spec.name}: no end after {max_moves} moves (seed {seed}, {players} players)")
