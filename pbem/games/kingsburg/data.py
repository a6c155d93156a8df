"""Kingsburg rules data, loaded once from ``kingsburg.json`` next to this module.

The numbers (costs, VP, battle values, advisor gifts, enemy cards) come from
``../shared/games/kingsburg/data.json``; its NOTES.md names the source of each. The rule
numbers (three coloured dice, the soldier tokens 0,1,1,2,3,4, ...) are from the Czech rulebook
(seed 000) and agree with the Polish one (seed 004).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pbem.games.tables import load_table
from pbem.games.text import fold_key, named

GOODS = ("gold", "wood", "stone")


@dataclass(frozen=True)
class Building:
    id: str
    row: int
    column: int
    names: dict[str, str | None]
    aliases: tuple[str, ...]
    cost: tuple[int, int, int]  # gold, wood, stone
    vp: int
    battle: int
    battle_vs: dict[str, int]  # total modifier against an enemy type (replaces ``battle``)

    @property
    def name(self) -> str:
        return named(self.names, self.id)


@dataclass(frozen=True)
class Advisor:
    value: int
    names: dict[str, str | None]
    gifts: tuple[dict[str, Any], ...]  # alternative bundles; the player takes one

    @property
    def name(self) -> str:
        return named(self.names, str(self.value))


@dataclass(frozen=True)
class Enemy:
    id: str
    year: int
    type: str
    name: str
    strength: int
    defeat: dict[str, int]
    victory: dict[str, int]
    alternative: dict[str, dict[str, int]] | None = None

    def reading(self, demons: str) -> tuple[dict[str, int], dict[str, int]]:
        """(defeat, victory) under the chosen reading of the one disputed card."""
        if demons == "alternative" and self.alternative:
            return self.alternative["defeat"], self.alternative["victory"]
        return self.defeat, self.victory


RAW = load_table(__package__, "kingsburg.json")

BUILDINGS: dict[str, Building] = {
    b["id"]: Building(
        b["id"],
        b["row"],
        b["column"],
        b["names"],
        tuple(b["aliases"]),
        tuple(b["cost"][g] for g in GOODS),
        b["vp"],
        b["battle"],
        dict(b["battle_vs"]),
    )
    for b in RAW["buildings"]
}
# rows[r] lists the building ids of row r from left to right (columns I-IV)
ROWS: dict[int, tuple[str, ...]] = {
    r: tuple(b.id for b in sorted(BUILDINGS.values(), key=lambda b: b.column) if b.row == r)
    for r in sorted({b.row for b in BUILDINGS.values()})
}
ADVISORS: dict[int, Advisor] = {a["value"]: Advisor(a["value"], a["names"], tuple(a["gifts"])) for a in RAW["advisors"]}
ENEMIES: dict[str, Enemy] = {
    e["id"]: Enemy(
        e["id"], e["year"], e["type"], e["name"], e["strength"], e["defeat"], e["victory"], e.get("alternative")
    )
    for e in RAW["enemies"]
}
YEAR_RANGES: dict[int, tuple[int, int]] = {int(k): tuple(v) for k, v in RAW["year_ranges"].items()}
SOLDIER_TOKENS: tuple[int, ...] = tuple(RAW["soldier_tokens"])
COMPONENTS: dict[str, int] = RAW["components"]
YEARS = COMPONENTS["years"]
COLOURED_DICE = COMPONENTS["coloured_dice_per_player"]
ADVISOR_COUNT = len(ADVISORS)  # advisors 1 to 18; the court has one spot per number
COURT_SPOTS = ADVISOR_COUNT + 1  # index 0 is unused, so an advisor's number is its index


def _building_keys() -> dict[str, str]:
    keys: dict[str, str] = {}
    for b in BUILDINGS.values():
        for name in (b.id, *b.names.values(), *b.aliases):
            if name:
                keys[fold_key(name)] = b.id
    return keys


BUILDING_KEYS = _building_keys()
