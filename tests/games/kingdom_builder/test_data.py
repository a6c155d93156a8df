"""The board sections, tiles, cards and deck against the component list and the data notes."""

from collections import Counter

import pytest

from pbem.games.kingdom_builder.data import (
    BUILDABLE,
    CARD_NAMES,
    LOCATION_NAMES,
    SECTIONS,
    SETTLEMENTS,
    TERRAIN_DECK,
    TERRAINS,
    TILES_PER_HEX,
)

NAMES = {code: t["id"] for code, t in TERRAINS.items()}


@pytest.mark.parametrize("section", sorted(SECTIONS))
def test_each_section_is_10_by_10_with_known_codes(section):
    """Components: every board section is 10 by 10 hexes of known terrains."""
    rows = SECTIONS[section]["rows"]
    assert len(rows) == 10
    assert all(len(row) == 10 for row in rows)
    assert set("".join(rows)) <= set(TERRAINS)


@pytest.mark.parametrize("section", sorted(SECTIONS))
def test_terrain_counts_per_section_match_the_data(section):
    """Components: each board section holds the terrain counts its data states."""
    data = SECTIONS[section]
    counts = Counter(NAMES[code] for code in "".join(data["rows"]))
    expected = {k: v for k, v in data["terrain_counts"].items() if v}
    assert dict(counts) == expected
    assert sum(counts.values()) == 100


@pytest.mark.parametrize("section", sorted(SECTIONS))
def test_castles_and_locations_stand_where_the_data_says(section):
    """Components: each board section's castles and locations stand where its data says."""
    data = SECTIONS[section]
    rows = data["rows"]
    castles = {(r, c) for r, row in enumerate(rows) for c, code in enumerate(row) if code == "K"}
    locations = {(r, c) for r, row in enumerate(rows) for c, code in enumerate(row) if code == "L"}
    assert castles == {tuple(x) for x in data["castles"]}
    assert locations == {tuple(x) for x in data["locations"]}
    # oracle and harbor: 1 location and 2 castles; the others 2 locations and 1 castle
    assert (len(locations), len(castles)) == ((1, 2) if section in ("oracle", "harbor") else (2, 1))


def test_fourteen_location_hexes_carry_28_tiles():
    """Components (L14-69): 28 location tiles, 2 on each of the 14 location hexes."""
    hexes = sum(len(s["locations"]) for s in SECTIONS.values())
    assert hexes == 14 and hexes * TILES_PER_HEX == 28


def test_eight_sections_one_per_location_and_ten_kingdom_cards():
    """Components (L14-69): 8 board sections, one per kind of location, and 10 kingdom builder
    cards."""
    assert sorted(SECTIONS) == sorted(LOCATION_NAMES)
    assert len(CARD_NAMES) == 10


def test_terrain_deck_has_25_cards_5_per_buildable_terrain():
    """Components (L14-69): 25 terrain cards, 5 for each buildable terrain."""
    assert len(TERRAIN_DECK) == 25
    assert Counter(TERRAIN_DECK) == {code: 5 for code in BUILDABLE}
    assert {"G", "C", "D", "F", "T"} == BUILDABLE


def test_forty_settlements_per_player():
    """Components (L14-69): 40 settlements per player."""
    assert SETTLEMENTS == 40
