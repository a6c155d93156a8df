"""The immutable state of a game of Warriors & Traders, and the queries every module shares."""

from __future__ import annotations

from dataclasses import dataclass

from pbem.games.base import update
from pbem.games.warriors_traders.data import (
    ARMY_KINDS,
    CUMULATIVE,
    MAPS,
    MAX_TOKENS,
    RESOURCES,
    RULES,
    TRACKS,
    GameMap,
)

BARBARIAN = -1


@dataclass(frozen=True)
class Config:
    """The game's options, fixed at setup."""

    map: str = "west"
    alliance: bool = False
    cavalry_level: int = 6  # 1-based level that unlocks cavalry
    attack_ap: int = 2  # AP an army needs to enter a hostile province (move + battle)
    vp_anyone: bool = False  # may players without a trade centre buy VP?
    revised: bool = False  # the revised edition's starting infantry
    unify_each_turn: bool = False  # unification again in a later turn (option unification=each-turn)


@dataclass(frozen=True)
class Unit:
    id: int
    owner: int  # seat, or BARBARIAN
    kind: str  # infantry / archer / cavalry / princess / fort
    province: str
    damage: int = 0
    retreated: bool = False
    ap: int = 0
    battles: int = 0
    engaged: bool = False  # entered a hostile province; its battle is pending

    @property
    def is_army(self) -> bool:
        return self.kind in ARMY_KINDS


@dataclass(frozen=True)
class Player:
    country: str
    team: int
    stock: tuple[int, int, int, int]  # food, goods, weapons, gold
    tokens: tuple[int, int, int] = (0, 0, 0)  # development tokens on production, trade, military
    kills: int = 0  # VP for killed units and destroyed forts (never lost)
    bought: int = 0  # VP bought for gold
    placed: int = 0  # starting development tokens placed
    specials_used: tuple[str, ...] = ()
    unified: bool = False
    offers_made: int = 0

    def has(self, resource: str) -> int:
        return self.stock[RESOURCES.index(resource)]


@dataclass(frozen=True)
class War:
    teams: tuple[int, int]
    start: int  # the turn of the declaration
    damaged: bool = False  # damage was dealt as part of this war this turn


@dataclass(frozen=True)
class Offer:
    id: int
    seat: int
    to: int
    give: tuple[tuple[str, int], ...]  # (resource, amount), in resource order
    get: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Battle:
    province: str
    attacker: int
    defender: int  # seat owning the province, or BARBARIAN
    attackers: tuple[int, ...]
    defenders: tuple[int, ...]
    damage: tuple[int, int]  # (dealt by the attacker, dealt by the defender)
    hits: tuple[tuple[int, int, int], ...] = ()  # (seat, unit, amount), secret until resolved


@dataclass(frozen=True)
class State:
    config: Config
    players: tuple[Player, ...]
    units: tuple[Unit, ...]
    owners: tuple[int | None, ...]  # per province, in map order
    next_unit: int = 1
    turn: int = 0
    phase: str = "setup"  # setup / trade / development / maneuvers / over
    step: str = ""
    queue: tuple[tuple[str, int], ...] = ()  # (step, seat) still to come in this phase
    done: frozenset[int] = frozenset()
    round: int = 1
    battles: tuple[str, ...] = ()
    battle: Battle | None = None
    bonus: int = 0
    bonus_return: str = ""
    wars: tuple[War, ...] = ()
    routes: tuple[tuple[int, int], ...] = ()  # (opener, partner)
    offers: tuple[Offer, ...] = ()
    next_offer: int = 1
    peace: tuple[tuple[int, int], ...] = ()  # (team proposing, team asked)
    refuges: tuple[tuple[int, str], ...] = ()  # (seat, preferred retreat province) this maneuver
    unfed: tuple[int, ...] = ()  # armies their owners ordered left unfed at the next feeding (FAQ L886-887)

    @property
    def gmap(self) -> GameMap:
        return MAPS[self.config.map]

    @property
    def seats(self) -> range:
        return range(len(self.players))


# -- small helpers ----------------------------------------------------------------------------
def set_player(state: State, seat: int, **changes) -> State:
    players = list(state.players)
    players[seat] = update(players[seat], **changes)
    return update(state, players=tuple(players))


def bundle(amounts: dict[str, int] | str, amount: int | None = None) -> tuple[tuple[str, int], ...]:
    """Resources with amounts, in resource order; also reads an older fact's one resource
    (``bundle("food", 5)``)."""
    if isinstance(amounts, str):
        return ((amounts, int(amount or 0)),)
    return tuple((r, amounts[r]) for r in RESOURCES if amounts.get(r))


def bundle_text(items: tuple[tuple[str, int], ...] | dict[str, int]) -> str:
    pairs = items.items() if isinstance(items, dict) else items
    return " ".join(f"{n} {r}" for r, n in pairs)


def add_stock(player: Player, delta: dict[str, int]) -> tuple[int, int, int, int]:
    return tuple(player.stock[i] + delta.get(r, 0) for i, r in enumerate(RESOURCES))  # type: ignore[return-value]


def unit(state: State, unit_id: int) -> Unit | None:
    for u in state.units:
        if u.id == unit_id:
            return u
    return None


def owner(state: State, province: str) -> int | None:
    return state.owners[state.gmap.index[province]]


def level(tokens: int) -> int:
    """1-based level reached with ``tokens`` development tokens on a track."""
    if 0 <= tokens <= MAX_TOKENS:
        return _LEVELS[tokens]  # the rules ask this for every candidate move
    return _count_level(tokens)


def _count_level(tokens: int) -> int:
    reached = 1
    for lvl, needed in enumerate(CUMULATIVE, start=1):
        if tokens >= needed:
            reached = lvl
    return reached


_LEVELS = tuple(_count_level(tokens) for tokens in range(MAX_TOKENS + 1))


def track_level(state: State, seat: int, track: str) -> int:
    return level(state.players[seat].tokens[TRACKS.index(track)])


def track_value(state: State, seat: int, track: str, key: str) -> int:
    return RULES.track(key)[track_level(state, seat, track) - 1]


ABILITY_LEVEL = {
    "masonry": ("production", 4),
    "reinforcements": ("production", 5),
    "production_tax": ("production", 6),
    "university": ("production", 7),
    "merchant": ("trade", 4),
    "trade_tax": ("trade", 5),
    "master_trader": ("trade", 6),
    "monopoly": ("trade", 7),
    "archers": ("military", 3),
    "commander": ("military", 4),
    "double_strike": ("military", 6),
    "voivode": ("military", 7),
}


def has_ability(state: State, seat: int, ability: str) -> bool:
    if ability == "cavalry":
        return track_level(state, seat, "military") >= state.config.cavalry_level
    track, lvl = ABILITY_LEVEL[ability]
    return track_level(state, seat, track) >= lvl


def can_build_kind(state: State, seat: int, kind: str) -> bool:
    return kind == "infantry" or has_ability(state, seat, "archers" if kind == "archer" else "cavalry")


def team(state: State, seat: int) -> int:
    return state.players[seat].team


def allied(state: State, a: int, b: int) -> bool:
    return a >= 0 and b >= 0 and team(state, a) == team(state, b)


def at_war(state: State, a: int, b: int) -> bool:
    if a < 0 or b < 0:
        return False
    pair = tuple(sorted((team(state, a), team(state, b))))
    return any(w.teams == pair for w in state.wars)


def country_seat(state: State, country: str) -> int | None:
    for seat, player in enumerate(state.players):
        if player.country == country:
            return seat
    return None


def played_by(state: State, country: str) -> int:
    """The seat of a country a legal order named (legality already checked that one plays it)."""
    seat = country_seat(state, country)
    assert seat is not None, f"no seat plays {country}"
    return seat


# Where each map's trade centres stand in ``State.owners`` (the maps are fixed data): the trade
# rules ask "does this seat hold one?" for every candidate trade.
_TRADE_CENTRES = {
    name: tuple(i for i, p in enumerate(gmap.provinces.values()) if p.type == "trade_center")
    for name, gmap in MAPS.items()
}


def owns_trade_center(state: State, seat: int) -> bool:
    owners = state.owners
    return any(owners[i] == seat for i in _TRADE_CENTRES[state.config.map])


def owned(state: State, seat: int) -> list[str]:
    return [p for p, o in zip(state.gmap.provinces, state.owners, strict=False) if o == seat]


def pieces_on_board(state: State, seat: int, kind: str) -> int:
    return sum(1 for u in state.units if u.owner == seat and u.kind == kind)


def order(state: State) -> list[int]:
    """Seats by the play-order number of their country, lowest first."""
    gmap = state.gmap
    return sorted(state.seats, key=lambda s: gmap.country(state.players[s].country).order)


def recompute_owners(state: State, provinces) -> State:
    """Province tokens follow the pieces: the holder keeps a province while any of its pieces
    stay; otherwise an ally with pieces there takes it; without player pieces it is free."""
    owners = list(state.owners)
    gmap = state.gmap
    holders: dict[str, set[int]] = {province: set() for province in provinces}
    for u in state.units:  # one pass over the pieces, not one per province
        if u.province in holders and u.owner >= 0 and not u.engaged:
            holders[u.province].add(u.owner)
    for province, seats in holders.items():
        present = sorted(seats)
        i = gmap.index[province]
        if owners[i] in present:
            continue
        owners[i] = present[0] if present else None
    return update(state, owners=tuple(owners))
