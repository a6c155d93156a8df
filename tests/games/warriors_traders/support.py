"""Helpers that build Warriors & Traders positions for the rule tests."""

from __future__ import annotations

from dataclasses import replace

from pbem.games.base import ErrorCode, GameError, SeededRng
from pbem.games.simulate import fold
from pbem.games.warriors_traders import SPEC
from pbem.games.warriors_traders.data import CUMULATIVE, RESOURCES, TRACKS
from pbem.games.warriors_traders.flow import follow_ups
from pbem.games.warriors_traders.state import BARBARIAN, State, Unit, recompute_owners, set_player
from tests.support import contract

RNG = SeededRng(7)


def start(players: int = 2, **options: str) -> State:
    """A new game with seat N playing country N of the map, before token placement."""
    return fold(SPEC, SPEC.setup(players, {"countries": "order", **options}, RNG))


def act(state: State, seat: int, text: str) -> State:
    return contract.apply(SPEC, state, seat, text, RNG)[0]


def facts_of(state: State, seat: int, text: str) -> list[dict]:
    return SPEC.decide(state, seat, SPEC.parse_move(state, seat, text), RNG)


def refused(state: State, seat: int, text: str, code: ErrorCode | None = None) -> GameError:
    """The order is refused and the state is unchanged (against a deep copy)."""
    return contract.refused(SPEC, state, seat, text, RNG, code)


def level_tokens(level: int) -> int:
    return CUMULATIVE[level - 1]


def with_levels(state: State, seat: int, production: int = 1, trade: int = 1, military: int = 1) -> State:
    tokens = tuple(level_tokens(lv) for lv in (production, trade, military))
    return set_player(state, seat, tokens=tokens)


def with_stock(state: State, seat: int, **amounts: int) -> State:
    stock = dict(zip(RESOURCES, state.players[seat].stock, strict=False))
    stock.update(amounts)
    return set_player(state, seat, stock=tuple(stock[r] for r in RESOURCES))


def clear(state: State, *provinces: str) -> State:
    units = tuple(u for u in state.units if u.province not in provinces)
    return recompute_owners(replace(state, units=units), provinces)


def put(state: State, owner: int, kind: str, province: str, **fields) -> tuple[State, int]:
    unit_id = state.next_unit
    new = Unit(unit_id, owner, kind, province, **fields)
    state = replace(state, units=(*state.units, new), next_unit=unit_id + 1)
    return recompute_owners(state, [province]), unit_id


def placed(state: State, tokens: dict[int, tuple[int, int, int]] | None = None) -> State:
    """Every seat places its three starting tokens (default: 1 on each track)."""
    for seat in state.seats:
        counts = (tokens or {}).get(seat, (1, 1, 1))
        for track, n in zip(TRACKS, counts, strict=False):
            for _ in range(n):
                state = act(state, seat, f"develop {track}")
    return state


def settle(state: State) -> State:
    return follow_ups(state)[1]  # (facts, state): the tests look at the state


def at_maneuvers(state: State, seat: int, turn: int = 1, rest: tuple[int, ...] = ()) -> State:
    """``state`` moved to ``seat``'s maneuver step of ``turn``; the seats in ``rest`` follow."""
    queue = tuple(("maneuver", s) for s in (seat, *rest))
    state = replace(state, turn=turn, phase="maneuvers", step="", queue=queue, done=frozenset())
    return settle(state)


def at_development(state: State, queue: tuple[tuple[str, int], ...]) -> State:
    return replace(state, phase="development", step="", queue=queue)


def at_trade(state: State) -> State:
    return replace(state, phase="trade", step="", done=frozenset(), offers=(), peace=())


def barbarians(state: State, province: str) -> list[Unit]:
    return [u for u in state.units if u.province == province and u.owner == BARBARIAN]


def units_of(state: State, seat: int, province: str | None = None) -> list[Unit]:
    return [u for u in state.units if u.owner == seat and (province is None or u.province == province)]


def step(state: State, seat: int, text: str) -> tuple[State, list[dict]]:
    """Apply one order; return the new state and the facts it caused."""
    return contract.apply(SPEC, state, seat, text, RNG)


def fact(facts: list[dict], kind: str) -> dict:
    return next(f for f in facts if f["kind"] == kind)


def at_war(state: State, a: int, b: int, since: int = 1) -> State:
    from pbem.games.warriors_traders.state import War

    pair = tuple(sorted((state.players[a].team, state.players[b].team)))
    return replace(state, wars=(*state.wars, War(pair, since)))
