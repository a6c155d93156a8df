"""The shipped data files: valid under the rulebook's constraints, labelled, and the validator
catches broken data so that an owner of the box can drop in the real numbers safely."""

import copy

import pytest

from pbem.games.warriors_traders.data import (
    MAPS,
    RAW_MAPS,
    RULES,
    build_map,
    load_rules,
    validate_map,
    validate_rules,
)


def test_shipped_rules_and_maps_are_valid():
    """Components and costs: the shipped rules and maps pass their validators."""
    assert validate_rules(RULES.raw) == []
    for raw in RAW_MAPS.values():
        assert validate_map(raw) == []


def test_component_counts_match_the_rulebook():
    """Components (L224-266): the pieces of each kind of unit."""
    assert {k: RULES.unit(k)["pieces"] for k in ("infantry", "archer", "cavalry", "princess", "fort")} == {
        "infantry": 4,
        "archer": 4,
        "cavalry": 4,
        "princess": 4,
        "fort": 8,
    }
    assert all(len(m.countries) == 8 for m in MAPS.values())
    assert RULES.value("turns") == 10 and RULES.value("storage_cap") == 20


def test_unit_strength_and_toughness_from_the_worked_examples():
    """Components: unit strength and toughness, from the worked examples (L624-632)."""
    assert [(RULES.unit(k)["strength"], RULES.unit(k)["toughness"]) for k in ("infantry", "archer", "cavalry")] == [
        (1, 1),
        (2, 2),
        (3, 3),
    ]
    assert RULES.unit("barbarian_army")["strength_by_turn"] == [1, 1, 1, 2, 2, 2, 2, 3, 3, 3]
    assert RULES.unit("barbarian_fort")["strength"] == 5


def test_approximations_are_labelled_in_the_data():
    for raw in RAW_MAPS.values():
        assert raw["confidence"] == "approximation" and "INVENTED" in raw["warning"]
    tracks = RULES.raw["tracks"]
    assert tracks["military_action_points"]["confidence"] == "approximation"
    assert tracks["trade_routes"]["confidence"] == "confirmed"
    assert RULES.unit("fort")["confidence"] == "approximation"


def test_every_country_has_one_capital_and_one_trade_centre():
    for gmap in MAPS.values():
        for country in gmap.countries:
            types = [gmap.provinces[p].type for p in country.provinces]
            assert types.count("capital") == 1 and types.count("trade_center") == 1


def _broken_map(change):
    raw = copy.deepcopy(RAW_MAPS["west"])
    change(raw)
    return validate_map(raw)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: m["countries"].pop(), "8 countries"),
        (lambda m: m["countries"][0]["provinces"][0].update(type="ordinary"), "one capital"),
        (lambda m: m["countries"][0]["provinces"][1].update(vp=3), "gives 2 VP"),
        (lambda m: m["countries"][0]["provinces"][2]["resources"].update(gold=1), "gold never"),
        (lambda m: m["edges"].append({"a": "w_meath", "b": "w_nowhere", "kind": "land"}), "known provinces"),
        (lambda m: m["edges"].append(dict(m["edges"][0])), "twice"),
        (lambda m: m["countries"][1].update(order=1), "play-order"),
        (lambda m: m.update(edges=[e for e in m["edges"] if "w_meath" not in (e["a"], e["b"])]), "reachable"),
    ],
)
def test_map_validator_rejects_broken_maps(change, message):
    problems = _broken_map(change)
    assert any(message in p for p in problems), problems


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("production_goods_multiplier", [1, 1, 1, 2, 3, 3, 4], "goods by 2"),
        ("trade_bank_ratio", [6, 6, 5, 4, 4, 3, 3], "7:1"),
        ("trade_routes", [0, 1, 2, 2, 2, 3, 3], "II, IV and VI"),
        ("tokens_to_reach_level", [0, 1, 2, 2, 3, 4, 4], "at least 3"),
        ("military_weapons_multiplier", [1, 1, 1, 2, 2, 3, 3], "weapons by 0"),
        ("military_action_points", [2, 1, 2, 3, 3, 4, 4], "not get worse"),
        ("military_action_points", [1, 2, 2, 3, 3, 4, 4], "level I must be able to step"),
        ("military_action_points", [1, 2, 3], "7 non-negative"),
    ],
)
def test_rules_validator_rejects_broken_tracks(key, value, message):
    """Invented numbers are data: a corrected rules file is checked, and a broken track is refused
    with a reason."""
    raw = copy.deepcopy(RULES.raw)
    raw["tracks"][key]["value"] = value
    problems = validate_rules(raw)
    assert any(message in p for p in problems), problems
    with pytest.raises(ValueError):
        load_rules(raw)


def test_broken_map_refuses_to_load():
    raw = copy.deepcopy(RAW_MAPS["east"])
    raw["countries"][0]["provinces"][0]["type"] = "castle"
    with pytest.raises(ValueError, match="unknown type"):
        build_map(raw)


def test_a_corrected_map_loads_without_code_changes():
    """Invented numbers are data: a map whose numbers were corrected loads without code changes."""
    raw = copy.deepcopy(RAW_MAPS["west"])
    raw["countries"][0]["provinces"][2]["resources"] = {"food": 3, "goods": 0, "weapons": 0}
    gmap = build_map(raw)
    assert gmap.provinces[raw["countries"][0]["provinces"][2]["id"]].amount("food") == 3


def test_invented_numbers_are_listed_from_the_data_so_real_ones_can_replace_them():
    invented = RULES.invented()
    assert "action points per military level I-VII: 2 2 2 3 3 4 4" in invented
    assert any(line.startswith("bank ratio") for line in invented)
    raw = copy.deepcopy(RULES.raw)
    raw["tracks"]["military_action_points"]["confidence"] = "confirmed"  # an owner of the box fixed it
    assert not any(line.startswith("action points") for line in load_rules(raw).invented())
