"""Helpers for the Kingsburg tests: a scripted rng, games started from chosen facts, and
states placed at a chosen step with chosen stocks (for the rulebooks' worked examples)."""

from __future__ import annotations

from dataclasses import replace

from pbem.games.base import ErrorCode, GameError, SeededRng, secret
from pbem.games.kingsburg import SPEC
from pbem.games.kingsburg.flow import advance
from pbem.games.kingsburg.state import Placement, State
from pbem.games.simulate import fold
from tests.support import contract

ANN, BRIAN, CINDY, DAVID, EVE = range(5)
NAMES = ["Ann", "Brian", "Cindy", "David", "Eve"]
DECK = ["y1_goblins_3", "y2_goblins_4", "y3_demons_6", "y4_demons_6", "y5_dragons_9"]


class Script:
    """Dice in the order given, then seeded ones; checks every value against its range."""

    def __init__(self, *values: int, seed: int = 0):
        self.values = list(values)
        self.fallback = SeededRng(seed)

    def randint(self, low: int, high: int) -> int:
        if not self.values:
            return self.fallback.randint(low, high)
        value = self.values.pop(0)
        assert low <= value <= high, (value, low, high)
        return value

    def shuffle(self, items):
        return self.fallback.shuffle(items)

    def choice(self, items):
        return self.fallback.choice(items)


def new_game(players: int = 4, order: list[int] | None = None, deck: list[str] | None = None, **options: str) -> State:
    """A game folded from its first two facts, standing at the start of year 1."""
    opts = {"reinforcements": "die", "demons": "primary", **options}
    facts = [
        {
            "kind": "GameStarted",
            "players": players,
            "options": opts,
            "order": order if order is not None else list(range(players)),
        },
        {"kind": "EnemyDeckPrepared", "secret": secret([], {"deck": deck or DECK})},
    ]
    return fold(SPEC, facts)


def run(state: State, rng=None) -> tuple[State, list[dict]]:
    facts, state = advance(state, rng or Script())
    return state, facts


def play(state: State, seat: int, text: str, rng=None) -> tuple[State, list[dict]]:
    return contract.apply(SPEC, state, seat, text, rng or Script())


def with_players(state: State, **by_seat: dict) -> State:
    """``with_players(state, p0={"gold": 2}, p3={"buildings": {...}})``"""
    players = list(state.players)
    for key, changes in by_seat.items():
        seat = int(key[1:])
        if "buildings" in changes:
            changes = {**changes, "buildings": frozenset(changes["buildings"])}
        players[seat] = replace(players[seat], **changes)
    return replace(state, players=tuple(players))


def at(state: State, phase: str, step: str, **changes) -> State:
    return replace(state, phase=phase, step=step, **changes)


def kinds(facts: list[dict]) -> list[str]:
    return [f["kind"] for f in facts]


def of_kind(facts: list[dict], kind: str) -> list[dict]:
    return [f for f in facts if f["kind"] == kind]


def influencing(players=3, **by_seat):
    state = at(new_game(players), "spring", "influence", order=tuple(range(players)), cursor=0)
    defaults = {f"p{s}": {"dice": (6, 6, 6)} for s in range(players)}
    for key, value in by_seat.items():
        defaults[key] = {**defaults.get(key, {}), **value}
    return with_players(state, **defaults)


def refused(state, seat, text, code: ErrorCode | None = None) -> GameError:
    """The command is refused and the state is unchanged (against a deep copy)."""
    return contract.refused(SPEC, state, seat, text, Script(), code)


def gifts_for(advisor, seat=ANN, choice=None, **stock):
    """A state whose only placed group is ``seat``'s on ``advisor``; gifts then run."""
    state = influencing()
    court = list(state.court)
    court[advisor] = (Placement(seat, (6,), choice=choice),)
    state = replace(state, court=tuple(court), step="influence", cursor=-1)
    state = with_players(state, **{f"p{seat}": stock})
    return run(state)
