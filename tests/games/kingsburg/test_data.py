"""The data tables against the component list and the rulebooks' numbers."""

from collections import Counter

from pbem.games.kingsburg.data import (
    ADVISORS,
    BUILDING_KEYS,
    BUILDINGS,
    COMPONENTS,
    ENEMIES,
    ROWS,
    SOLDIER_TOKENS,
    YEAR_RANGES,
)


def test_province_sheet_has_twenty_buildings_in_five_rows_of_four():
    assert len(BUILDINGS) == 20
    assert sorted(ROWS) == [1, 2, 3, 4, 5] and all(len(row) == 4 for row in ROWS.values())
    assert {(b.row, b.column) for b in BUILDINGS.values()} == {(r, c) for r in range(1, 6) for c in range(1, 5)}


def test_building_vp_add_up_to_the_top_of_the_score_track():
    assert sum(b.vp for b in BUILDINGS.values()) == COMPONENTS["score_track_max"] == 59


def test_court_has_eighteen_advisors():
    """Components (p. 1): the King's court has 18 advisors, numbered 1 to 18."""
    assert sorted(ADVISORS) == list(range(1, 19))


def test_queen_gives_three_vp_not_one():
    assert ADVISORS[17].gifts == ({"any": 2, "peek": True, "vp": 3},)


def test_enemy_deck_has_twenty_five_cards_five_per_year_within_the_year_range():
    assert len(ENEMIES) == COMPONENTS["enemy_cards"] == 25
    assert Counter(e.year for e in ENEMIES.values()) == {y: 5 for y in range(1, 6)}
    for e in ENEMIES.values():
        low, high = YEAR_RANGES[e.year]
        assert low <= e.strength <= high


def test_disputed_demons_card_keeps_both_readings():
    demons = ENEMIES["y4_demons_6"]
    assert demons.reading("primary") == (
        {"gold": 0, "wood": 0, "stone": 0, "any": 4, "buildings": 0, "vp": 1},
        {"gold": 1, "wood": 0, "stone": 0, "any": 0, "vp": 1},
    )
    assert demons.reading("alternative")[0]["buildings"] == 1
    assert demons.reading("alternative")[1]["vp"] == 0
    assert sum(1 for e in ENEMIES.values() if e.alternative) == 1


def test_goblins_3_card_matches_the_battle_example():
    goblins = ENEMIES["y1_goblins_3"]
    numbers = (goblins.strength, goblins.defeat["gold"], goblins.defeat["buildings"], goblins.victory["stone"])
    assert numbers == (3, 1, 1, 1)


def test_component_counts():
    assert COMPONENTS["coloured_dice_per_player"] * 5 + COMPONENTS["white_dice"] == 21
    assert COMPONENTS["years"] == 5 and COMPONENTS["phases_per_year"] == 8
    assert SOLDIER_TOKENS == (0, 1, 1, 2, 3, 4)


def test_every_building_is_found_by_its_english_and_czech_name():
    for b in BUILDINGS.values():
        assert BUILDING_KEYS[b.name.lower().replace(" ", "").replace("'", "")] == b.id
        assert b.id in BUILDING_KEYS.values()
    assert BUILDING_KEYS["straznivez"] == "guard_tower" and BUILDING_KEYS["sochu"] == "statue"


def test_costs_of_the_seed_examples():
    assert BUILDINGS["statue"].cost == (2, 0, 0) and BUILDINGS["statue"].vp == 3
    assert BUILDINGS["inn"].cost == (1, 1, 0) and BUILDINGS["guard_tower"].cost == (1, 0, 1)
    assert BUILDINGS["palisade"].cost == (0, 2, 0)
    assert BUILDINGS["barricade"].cost[1] + BUILDINGS["blacksmith"].cost[1] == 3
    assert BUILDINGS["farms"].cost == (2, 3, 1)


def test_every_table_names_its_source():
    from pbem.games.kingsburg.data import RAW

    tables = [key for key in RAW if key not in ("about", "sources")]
    assert sorted(RAW["sources"]) == sorted(tables)
