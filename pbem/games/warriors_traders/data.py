"""Rules numbers and maps of Warriors & Traders, read once from the package's JSON files.

``data/rules.json`` holds the development board, unit and cost tables; ``data/map_west.json``
and ``data/map_east.json`` the two sides of the board. Values the seed did not give (they were
pictures) are labelled ``approximation`` in those files. An owner of the box may replace them;
``validate_rules`` and ``validate_map`` check the constraints the rulebook states, and the
package refuses to load data that breaks them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pbem.games.tables import load_table

TRACKS = ("production", "trade", "military")
RESOURCES = ("food", "goods", "weapons", "gold")
ARMY_KINDS = ("infantry", "archer", "cavalry")
PROVINCE_TYPES = ("capital", "trade_center", "ordinary", "conquered")
LEVELS = ("I", "II", "III", "IV", "V", "VI", "VII")


@dataclass(frozen=True)
class Province:
    id: str
    name: str
    type: str
    vp: int
    country: str
    resources: tuple[tuple[str, int], ...]

    def amount(self, resource: str) -> int:
        return dict(self.resources).get(resource, 0)


@dataclass(frozen=True)
class Country:
    id: str
    name: str
    order: int
    provinces: tuple[str, ...]


@dataclass(frozen=True)
class GameMap:
    name: str
    title: str
    countries: tuple[Country, ...]
    provinces: dict[str, Province]
    neighbours: dict[str, tuple[str, ...]]
    edges: tuple[tuple[str, str, str], ...]
    index: dict[str, int]

    def country(self, country_id: str) -> Country:
        return next(c for c in self.countries if c.id == country_id)


TRACK_KEYS = (
    "tokens_to_reach_level",
    "production_food_multiplier",
    "production_goods_multiplier",
    "trade_bank_ratio",
    "trade_routes",
    "military_weapons_multiplier",
    "military_action_points",
)
Tracks = dict[str, list[int]]
# the rulebook's constraints on the tracks' values: (whether the table keeps it, the rule)
TRACK_RULES: tuple[tuple[Callable[[Tracks], bool], str], ...] = (
    (
        lambda t: t["tokens_to_reach_level"][0] == 0,
        "level I is free for everyone: tokens_to_reach_level[0] must be 0 (L414-415)",
    ),
    (
        lambda t: all(v >= 1 for v in t["tokens_to_reach_level"][1:]),
        "every level above I needs at least one token space",
    ),
    (lambda t: t["tokens_to_reach_level"][3] >= 3, "level IV needs at least 3 token spaces (FAQ L996-997)"),
    (
        lambda t: (t["production_food_multiplier"][2], t["production_goods_multiplier"][2]) == (1, 2),
        "production III multiplies food by 1 and goods by 2 (Fig. 13)",
    ),
    (
        lambda t: t["production_food_multiplier"][3] > t["production_food_multiplier"][2],
        "production IV gives more food than III (FAQ L898)",
    ),
    (lambda t: t["military_weapons_multiplier"][0] == 0, "military I multiplies weapons by 0 (Fig. 13)"),
    (lambda t: t["trade_bank_ratio"][0] == 7, "trade I exchanges 7:1 with the bank (L932)"),
    (lambda t: all(r >= 1 for r in t["trade_bank_ratio"]), "bank ratios must be at least 1"),
    (
        lambda t: t["military_action_points"][0] >= 2,
        "an army at military level I must be able to step into a neighbouring province "
        "and fight (L633-652): military_action_points[0] must be at least 2",
    ),
    (
        lambda t: t["trade_routes"] == [0, 1, 1, 2, 2, 3, 3],
        "trade routes open at II, IV and VI (L460-463): expected 0,1,1,2,2,3,3",
    ),
)


def _seven_levels(values: object) -> bool:
    return isinstance(values, list) and len(values) == 7 and all(isinstance(v, int) and v >= 0 for v in values)


def _track_problems(table: Tracks) -> list[str]:
    problems = [rule for keeps, rule in TRACK_RULES if not keeps(table)]
    for key in TRACK_KEYS[1:]:
        values = table[key]
        ordered = values if key != "trade_bank_ratio" else [-v for v in values]
        if any(b < a for a, b in itertools.pairwise(ordered)):
            problems.append(f"tracks.{key} must not get worse at a higher level")
    return problems


def _unit_problems(raw: Mapping[str, Any]) -> list[str]:
    units = raw.get("units", {})
    problems = [
        f"units.{kind}.{stat} must be a non-negative integer"
        for kind in (*ARMY_KINDS, "princess", "fort")
        for stat in ("strength", "toughness", "upkeep", "kill_vp", "pieces")
        if not isinstance(units.get(kind, {}).get(stat), int) or units[kind][stat] < 0
    ]
    if units.get("fort", {}).get("max_per_province") != 2:
        problems.append("at most two forts stand in a province (L605, L728)")
    barbarians = units.get("barbarian_army", {}).get("strength_by_turn", [])
    if len(barbarians) != raw.get("turns", {}).get("value", 10):
        problems.append("units.barbarian_army.strength_by_turn needs one value per turn")
    return problems


def validate_rules(raw: Mapping[str, Any]) -> list[str]:
    """Every way ``raw`` (the rules.json content) breaks a constraint of the rulebook."""
    tracks = raw.get("tracks", {})
    table: Tracks = {key: tracks.get(key, {}).get("value") for key in TRACK_KEYS}
    unreadable = [
        f"tracks.{key} must be 7 non-negative integers (levels I-VII)"
        for key, values in table.items()
        if not _seven_levels(values)
    ]
    if unreadable:
        return unreadable  # the rules below read these tables
    return _track_problems(table) + _unit_problems(raw)


PROVINCE_VP = {"capital": 3, "trade_center": 2, "ordinary": 1, "conquered": 1}


def _province_problems(province: Any, seen: set[str]) -> list[str]:  # one JSON object of the map
    problems = []
    pid = province.get("id")
    if pid in seen:
        problems.append(f"province {pid!r} appears twice")
    seen.add(pid)
    kind = province.get("type")
    if kind not in PROVINCE_TYPES:
        problems.append(f"{pid}: unknown type {kind!r}")
    elif province.get("vp") != PROVINCE_VP[kind]:
        problems.append(f"{pid}: a {kind} gives {PROVINCE_VP[kind]} VP (L529-537)")
    resources = province.get("resources", {})
    if resources.get("gold"):
        problems.append(f"{pid}: gold never comes from provinces (L328)")
    if any(r not in RESOURCES or not isinstance(n, int) or n < 0 for r, n in resources.items()):
        problems.append(f"{pid}: resources must be non-negative counts of food, goods, weapons")
    return problems


def _country_problems(country: Mapping[str, Any], seen: set[str]) -> list[str]:
    problems = []
    provinces = country.get("provinces") or []
    types = [p.get("type") for p in provinces]
    name = country.get("id", "?")
    if types.count("capital") != 1 or types.count("trade_center") != 1:
        problems.append(f"{name}: a country has one capital and one trade centre")
    if not 3 <= len(provinces) <= 7:
        problems.append(f"{name}: a country has 3 to 7 provinces (Table 1), not {len(provinces)}")
    for province in provinces:
        problems += _province_problems(province, seen)
    return problems


def _edge_problems(edges: list[Mapping[str, Any]], seen: set[str], pairs: set[frozenset[str]]) -> list[str]:
    problems = []
    for edge in edges:
        a, b = edge.get("a"), edge.get("b")
        if a not in seen or b not in seen or a == b:
            problems.append(f"edge {a}-{b} must join two different known provinces")
            continue
        if edge.get("kind") not in ("land", "sea"):
            problems.append(f"edge {a}-{b}: kind must be land or sea")
        if frozenset((a, b)) in pairs:
            problems.append(f"edge {a}-{b} appears twice")
        pairs.add(frozenset((a, b)))
    return problems


def validate_map(raw: Mapping[str, Any]) -> list[str]:
    """Every way a map file breaks the rulebook's constraints on countries and provinces."""
    problems: list[str] = []
    countries = raw.get("countries") or []
    if len(countries) != 8:
        problems.append(f"a map has 8 countries (L172-173), not {len(countries)}")
    orders = sorted(c.get("order") for c in countries if isinstance(c.get("order"), int))
    if orders != list(range(1, len(countries) + 1)):
        problems.append("countries need distinct play-order numbers 1..N")
    seen: set[str] = set()
    for country in countries:
        problems += _country_problems(country, seen)
    pairs: set[frozenset[str]] = set()
    problems += _edge_problems(raw.get("edges") or [], seen, pairs)
    if seen and not problems and not _connected(seen, pairs):
        problems.append("every province must be reachable from every other")
    return problems


def _connected(nodes: set[str], pairs: set[frozenset[str]]) -> bool:
    start = next(iter(nodes))
    reached, frontier = {start}, [start]
    while frontier:
        node = frontier.pop()
        for pair in pairs:
            if node in pair:
                (other,) = pair - {node}
                if other not in reached:
                    reached.add(other)
                    frontier.append(other)
    return reached == nodes


def build_map(raw: Mapping[str, Any]) -> GameMap:
    problems = validate_map(raw)
    if problems:
        raise ValueError(f"map {raw.get('name')!r} is not valid: " + "; ".join(problems))
    provinces: dict[str, Province] = {}
    countries = []
    for country in sorted(raw["countries"], key=lambda c: c["order"]):
        ids = []
        for p in country["provinces"]:
            resources = tuple((r, int(p["resources"].get(r, 0))) for r in RESOURCES[:3])
            provinces[p["id"]] = Province(p["id"], p["name"], p["type"], p["vp"], country["id"], resources)
            ids.append(p["id"])
        countries.append(Country(country["id"], country["name"], country["order"], tuple(ids)))
    near: dict[str, set[str]] = {pid: set() for pid in provinces}
    edges = []
    for edge in raw["edges"]:
        near[edge["a"]].add(edge["b"])
        near[edge["b"]].add(edge["a"])
        edges.append((edge["a"], edge["b"], edge["kind"]))
    order = list(provinces)
    return GameMap(
        raw["name"],
        raw["title"],
        tuple(countries),
        provinces,
        {p: tuple(sorted(n, key=order.index)) for p, n in near.items()},
        tuple(edges),
        {p: i for i, p in enumerate(order)},
    )


@dataclass(frozen=True)
class Rules:
    raw: dict[str, Any]

    def track(self, key: str) -> list[int]:
        return self.raw["tracks"][key]["value"]

    def cumulative(self) -> list[int]:
        total, out = 0, []
        for spaces in self.track("tokens_to_reach_level"):
            total += spaces
            out.append(total)
        return out

    def unit(self, kind: str) -> dict[str, Any]:
        return self.raw["units"][kind]

    def value(self, key: str) -> Any:
        return self.raw[key]["value"]

    def invented(self) -> list[str]:
        """The numbers marked "approximation" (invented until the real play-mat and unit card
        are transcribed), one short line each, for the turn template and the history."""
        lines = []
        for key, label in INVENTED_TRACKS.items():
            table = self.raw["tracks"][key]
            if table.get("confidence") == "approximation":
                lines.append(f"{label} I-VII: {' '.join(map(str, table['value']))}")
        for kind in ("princess", "fort"):
            unit = self.raw["units"][kind]
            if unit.get("confidence") == "approximation":
                lines.append(f"{kind} strength/toughness: {unit['strength']}/{unit['toughness']}")
        return lines


# the track tables whose numbers the pictures did not give, as players read them
INVENTED_TRACKS = {
    "military_action_points": "action points per military level",
    "trade_bank_ratio": "bank ratio (X:1) per trade level",
    "production_food_multiplier": "food multiplier per production level",
    "production_goods_multiplier": "goods multiplier per production level",
    "military_weapons_multiplier": "weapons multiplier per military level",
    "tokens_to_reach_level": "token spaces per level",
}


def _load(name: str) -> dict[str, Any]:
    return load_table(__package__, f"data/{name}")


def load_rules(raw: Mapping[str, Any] | None = None) -> Rules:
    raw = dict(raw) if raw is not None else _load("rules.json")
    problems = validate_rules(raw)
    if problems:
        raise ValueError("rules data is not valid: " + "; ".join(problems))
    return Rules(raw)


RULES = load_rules()
MAPS: dict[str, GameMap] = {name: build_map(_load(f"map_{name}.json")) for name in ("west", "east")}
RAW_MAPS: dict[str, dict[str, Any]] = {name: _load(f"map_{name}.json") for name in ("west", "east")}
CUMULATIVE = tuple(RULES.cumulative())
MAX_TOKENS = CUMULATIVE[-1]
