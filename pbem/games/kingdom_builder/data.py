"""Rules data of Kingdom Builder, read once from ``kingdom_builder.json`` in this package.

Every table there names its source (the Czech rulebook, seed 003, and the board data in
``../shared/games/kingdom_builder/``). Terrains are one-letter codes as on the section maps.
"""

from __future__ import annotations

from typing import Any

from pbem.games.tables import load_table
from pbem.games.text import _, named_in, pgettext

_RAW: dict[str, Any] = load_table(__package__, "kingdom_builder.json")

TERRAINS: dict[str, dict[str, Any]] = _RAW["terrains"]
BUILDABLE: frozenset[str] = frozenset(code for code, t in TERRAINS.items() if t["buildable"])
WATER, MOUNTAIN, CASTLE, LOCATION = "W", "M", "K", "L"
GRASS, DESERT = "G", "D"
TERRAIN_BY_ID: dict[str, str] = {t["id"]: code for code, t in TERRAINS.items()}

SECTIONS: dict[str, dict[str, Any]] = _RAW["sections"]
SECTION_NAMES: tuple[str, ...] = tuple(SECTIONS)

LOCATIONS: dict[str, dict[str, Any]] = _RAW["locations"]
LOCATION_NAMES: tuple[str, ...] = tuple(LOCATIONS)
BUILD_TILES: frozenset[str] = frozenset(k for k, v in LOCATIONS.items() if v["kind"] == "build")
MOVE_TILES: frozenset[str] = frozenset(k for k, v in LOCATIONS.items() if v["kind"] == "move")

KINGDOM_CARDS: dict[str, dict[str, Any]] = _RAW["kingdom_cards"]
CARD_NAMES: tuple[str, ...] = tuple(KINGDOM_CARDS)

TERRAIN_DECK: tuple[str, ...] = tuple(
    TERRAIN_BY_ID[terrain] for terrain, count in _RAW["terrain_deck"].items() for _ in range(count)
)
SETTLEMENTS: int = _RAW["settlements_per_player"]
TILES_PER_HEX: int = _RAW["tiles_per_location_hex"]
CASTLE_GOLD: int = _RAW["castle_gold"]
MANDATORY: int = _RAW["mandatory_builds"]


def terrain_name(code: str | None) -> str:
    """The name of a terrain code ("G" -> "Grass") in the language spoken now; "none" for no card."""
    return _("none") if code is None else named_in(TERRAINS, code)


def location_name(location: str) -> str:
    return named_in(LOCATIONS, location)


def card_name(card: str) -> str:
    return named_in(KINGDOM_CARDS, card)


def spoken(word: str) -> str:
    """A command word as a player of the language spoken now types it."""
    words = {
        "build": lambda: pgettext("kingdom builder command", "build"),
        "oracle": lambda: pgettext("kingdom builder command", "oracle"),
        "farm": lambda: pgettext("kingdom builder command", "farm"),
        "oasis": lambda: pgettext("kingdom builder command", "oasis"),
        "tower": lambda: pgettext("kingdom builder command", "tower"),
        "tavern": lambda: pgettext("kingdom builder command", "tavern"),
        "barn": lambda: pgettext("kingdom builder command", "barn"),
        "harbor": lambda: pgettext("kingdom builder command", "harbor"),
        "paddock": lambda: pgettext("kingdom builder command", "paddock"),
        "end": lambda: pgettext("kingdom builder command", "end"),
        "to": lambda: pgettext("kingdom builder command", "to"),
    }
    return words[word]() if word in words else word
