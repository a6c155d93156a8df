"""The immutable state of a Kingsburg game and small helpers to read and update it.

Everything is a frozen dataclass or a tuple, so ``evolve`` can share unchanged parts between
versions and the service can cache any past state.
"""

from __future__ import annotations

from dataclasses import dataclass

from pbem.games.base import update
from pbem.games.kingsburg.data import COURT_SPOTS, ENEMIES, GOODS, ROWS, Enemy

STOCK_KEYS = ("gold", "wood", "stone", "plus2", "soldiers", "vp")

# The eight phases of a year, in order (rulebook, "Průběh hry").
PHASES = ("aid", "spring", "reward", "summer", "envoy", "autumn", "recruit", "winter")
SEASONS = ("spring", "summer", "autumn")

# A pre-stated or answered gift choice: ("take", good, ...) or ("give", good); () = decline.
Choice = tuple[str, ...]


@dataclass(frozen=True)
class Placement:
    """One dice group on an advisor. ``seat`` is -1 for the neutral dice of a 2-player game."""

    seat: int
    dice: tuple[int, ...] = ()
    white: tuple[int, ...] = ()
    plus2: bool = False
    envoy: bool = False
    choice: Choice | None = None  # a gift choice stated together with the influence


@dataclass(frozen=True)
class Player:
    gold: int = 0
    wood: int = 0
    stone: int = 0
    plus2: int = 0
    soldiers: int = 0
    vp: int = 0
    buildings: frozenset[str] = frozenset()
    dice: tuple[int, ...] = ()  # coloured dice still in hand this season
    white: tuple[int, ...] = ()  # white dice still in hand this season
    statue_used: bool = False
    chapel_used: bool = False
    rerolls_done: bool = False
    market_used: bool = False
    passed: bool = False
    tokens: tuple[int, ...] = ()  # soldier tokens not yet played (variant)
    token: int | None = None  # the token chosen this winter, hidden until all have chosen
    peeks: tuple[str, ...] = ()  # enemy cards this seat has looked at (General, Queen)
    owed_lose: int = 0  # goods of choice still to give up after a lost battle
    owed_take: int = 0  # goods of choice still to take after a won battle

    @property
    def goods(self) -> int:
        return self.gold + self.wood + self.stone

    def stock(self, key: str) -> int:
        return getattr(self, key)

    def has(self, building: str) -> bool:
        return building in self.buildings


@dataclass(frozen=True)
class State:
    players: tuple[Player, ...]
    reinforcements: str = "die"  # die | difference | tokens
    demons: str = "primary"  # reading of the disputed Demons card (year IV)
    year: int = 1
    phase: str = "aid"
    step: str = ""
    order: tuple[int, ...] = ()  # turn order, first player first
    cursor: int = -1  # index into ``order`` of the seat to act in sequential steps
    pending: tuple[int, ...] = ()  # seats still to answer in simultaneous steps
    built: int = 0  # buildings the current builder has built this turn
    court: tuple[tuple[Placement, ...], ...] = ((),) * COURT_SPOTS  # index = advisor number
    gifts: tuple[tuple[int, int, Choice | None], ...] = ()  # (advisor, seat, stated choice) to hand out
    deck: tuple[str, ...] = ()  # enemy cards, this year's on top; hidden
    enemy: str | None = None  # the card revealed this winter
    envoy: int | None = None  # seat holding the King's envoy
    aid: int | None = None  # seat rolling the King's white die this spring
    over: bool = False

    @property
    def count(self) -> int:
        return len(self.players)

    @property
    def enemy_card(self) -> Enemy:
        """The enemy revealed this winter (only asked for once one is)."""
        assert self.enemy is not None, "no enemy is revealed yet"
        return ENEMIES[self.enemy]


def with_player(state: State, seat: int, player: Player) -> State:
    players = list(state.players)
    players[seat] = player
    return update(state, players=tuple(players))


def apply_delta(player: Player, delta: dict[str, int]) -> Player:
    """Add a stock delta (gold, wood, stone, plus2, soldiers, vp) to a player."""
    if not delta:
        return player
    return update(player, **{k: getattr(player, k) + v for k, v in delta.items()})


def row_prefix_ok(buildings: frozenset[str]) -> bool:
    """Each row is filled from the left: used by the invariant tests."""
    for row in ROWS.values():
        owned = [b in buildings for b in row]
        if owned != sorted(owned, reverse=True):
            return False
    return True


def delta_of(gold: int = 0, wood: int = 0, stone: int = 0, **more: int) -> dict[str, int]:
    """A delta dict without zero entries (facts stay short)."""
    values = dict(zip(GOODS, (gold, wood, stone), strict=False), **more)
    return {k: v for k, v in values.items() if v}
