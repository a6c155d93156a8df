"""Location tiles: taking, timing, losing, and the 8 special actions (rulebook p. 3 and p. 6).

Board helpers.LAYOUT: tavern C7 and H7, paddock S3 and L7, farm R12 and M16, oasis H13 and F18.
LAYOUT2 (oracle, harbor, barn, tower): oracle H4, harbor Q8, barn G13 and C17, tower P14 and M18.
"""

import pytest

from pbem.games.base import ErrorCode, GameError
from pbem.games.kingdom_builder import SPEC
from pbem.games.kingdom_builder.board import name
from pbem.games.kingdom_builder.locations import free_of_terrain
from pbem.games.kingdom_builder.rules import ready_tiles

from .helpers import h, kinds, play, position, refused, targets

LAYOUT2 = (("oracle", False), ("harbor", False), ("barn", False), ("tower", False))


# -- taking, using and losing tiles ---------------------------------------------------------
def test_a_tile_is_taken_when_building_next_to_a_location():
    state, facts = play(position(played="C"), 0, "build B6")
    assert facts[1] == {"kind": "TileTaken", "seat": 0, "location": "tavern", "hex": "C7"}
    assert state.held[0] == {h("C7")} and state.tiles_left[state.tile_index(h("C7"))] == 1


def test_only_one_tile_per_location_hex_per_player():
    state = position({0: ["B6"]}, played="C", held={0: ["C7"]})
    state, facts = play(state, 0, "build C6")
    assert "TileTaken" not in kinds(facts) and state.tiles_left[state.tile_index(h("C7"))] == 1


def test_no_tile_when_the_location_has_none_left():
    state = position({1: ["B6"], 2: ["C6"]}, players=3, played="C", held={1: ["C7"], 2: ["C7"]})
    assert state.tiles_left[state.tile_index(h("C7"))] == 0
    state, facts = play(state, 0, "build D7")
    assert "TileTaken" not in kinds(facts) and state.held[0] == frozenset()


def test_a_new_tile_works_from_the_next_turn_only():
    state = position({0: ["B6", "H9", "I9", "J9"]}, played="C", held={0: ["C7"]}, fresh=["C7"])
    error = refused(state, 0, "tavern K9")
    assert error.code == ErrorCode.ILLEGAL and "next turn" in error.message
    assert "tavern" not in ready_tiles(state, 0)
    state, _ = play(state, 0, "build C6 D7 C8")
    while state.seat != 0:
        state, _ = play(state, state.seat, SPEC.format_move(SPEC.default_move(state, state.seat)))
    assert "tavern" in ready_tiles(state, 0)


def test_a_new_tile_does_not_keep_the_turn_open():
    state, facts = play(position(played="C"), 0, "build B6 C6 D7")
    assert "TileTaken" in kinds(facts) and state.seat == 1


def test_each_tile_once_per_turn_before_or_after_but_not_during_the_mandatory_action():
    state = position({0: ["B6", "H9", "I9", "J9"]}, played="G", held={0: ["C7"]})
    assert "tavern K9" in targets(state, 0, "tavern")  # before the mandatory action
    mid, _ = play(state, 0, "build J8")
    assert targets(mid, 0, "tavern") == [] and "not in between" in refused(mid, 0, "tavern K9").message
    after, _ = play(state, 0, "build J8 K9 K8")
    assert after.seat == 0 and "tavern L9" in targets(after, 0, "tavern")  # after it
    state, facts = play(state, 0, "tavern K9")
    assert facts[0]["tile"] == "C7" and targets(state, 0, "tavern") == []
    assert "already used" in refused(state, 0, "tavern G9").message


def test_two_tiles_of_one_kind_give_two_uses():
    state = position({0: ["B6", "G8", "H9", "I9", "J9"]}, played="G", held={0: ["C7", "H7"]})
    state, facts = play(state, 0, "tavern K9", "tavern G9")
    assert [f["tile"] for f in facts if f["kind"] == "SettlementBuilt"] == ["C7", "H7"]


def test_a_tile_is_lost_when_no_own_settlement_is_next_to_its_location_and_not_taken_again():
    state = position({0: ["K8", "K9"]}, played="G", held={0: ["L7"]})
    state, facts = play(state, 0, "paddock K8 to I8")
    assert facts[1] == {"kind": "TileLost", "seat": 0, "location": "paddock", "hex": "L7"}
    assert state.held[0] == frozenset() and state.tiles_left[state.tile_index(h("L7"))] == 1
    state, facts = play(state, 0, "build K8")
    assert "TileTaken" not in kinds(facts)


def test_moving_next_to_a_location_takes_its_tile():
    state = position({0: ["R3", "J8"]}, played="G", held={0: ["S3"]})
    state, facts = play(state, 0, "paddock J8 to L8")
    assert facts[1] == {"kind": "TileTaken", "seat": 0, "location": "paddock", "hex": "L7"}
    assert state.held[0] == {h("S3"), h("L7")} and h("L7") in state.fresh


# -- the 8 locations ---------------------------------------------------------------------------
def test_oracle_builds_on_the_played_terrain_next_to_own_settlements():
    state = position({0: ["I4"]}, played="T", held={0: ["H4"]}, layout=LAYOUT2)
    assert targets(state, 0, "oracle") == ["oracle J3", "oracle J4"]
    state, facts = play(state, 0, "oracle J4")
    assert facts[0] == {"kind": "SettlementBuilt", "seat": 0, "hex": "J4", "action": "oracle", "tile": "H4"}
    assert state.supply[0] == 38 and state.built == 0


def test_farm_builds_on_grass():
    state = position({0: ["S12"]}, played="C", held={0: ["R12"]})
    assert targets(state, 0, "farm") == ["farm S11", "farm T11", "farm T12"]


def test_oasis_builds_on_desert_anywhere_when_none_is_adjacent():
    state = position({0: ["I13"]}, played="C", held={0: ["H13"]})
    expected = [f"oasis {name(x)}" for x in free_of_terrain(state, "D")]
    assert targets(state, 0, "oasis") == expected and len(expected) > 20


def test_farm_is_skipped_when_no_grass_is_free():
    """Farm: builds one more settlement on grass; with no grass hex free it offers nothing."""
    grass = [name(x) for x in range(400) if position().board.terrain[x] == "G"]
    state = position({0: ["S12"], 1: grass}, played="C", held={0: ["R12"]}, supply={1: 5})
    assert targets(state, 0, "farm") == [] and "farm" not in [m[0] for m in SPEC.legal_moves(state, 0)]


def test_tower_builds_on_the_board_edge_next_to_own_settlements_if_possible():
    state = position({0: ["Q14"]}, played="G", held={0: ["P14"]}, layout=LAYOUT2)
    edge = targets(state, 0, "tower")
    assert len(edge) > 40 and all(m.split()[1][0] in "AT" or m.split()[1][1:] in ("1", "20") for m in edge)
    state = position({0: ["Q14", "T16"]}, played="G", held={0: ["P14"]}, layout=LAYOUT2)
    assert targets(state, 0, "tower") == ["tower T15", "tower T17"]


def test_tavern_extends_a_straight_line_of_three_at_either_end():
    """Tavern: builds one more settlement at either end of a straight line of three own settlements."""
    state = position({0: ["B6", "H9", "I9", "J9"]}, played="C", held={0: ["C7"]})
    assert targets(state, 0, "tavern") == ["tavern G9", "tavern K9"]
    assert "tavern L9" not in targets(state, 0, "tavern")


def test_tavern_lines_run_diagonally_too_and_skip_unbuildable_ends():
    state = position({0: ["B6", "E5", "E6", "F7"]}, played="C", held={0: ["C7"]})
    assert targets(state, 0, "tavern") == ["tavern F8"]  # the other end, D4, is a castle


def test_tavern_needs_at_least_three_in_a_line():
    """Tavern: builds one more settlement only where three own settlements stand in a line."""
    state = position({0: ["B6", "H9", "I9"]}, played="C", held={0: ["C7"]})
    assert targets(state, 0, "tavern") == []


def test_barn_moves_a_settlement_to_the_played_terrain_next_to_the_others():
    state = position({0: ["H13", "K11"]}, played="D", held={0: ["G13"]}, layout=LAYOUT2)
    moves = targets(state, 0, "barn")
    assert [m for m in moves if m.startswith("barn K11")] == ["barn K11 to G12", "barn K11 to H12", "barn K11 to I13"]
    assert [m for m in moves if m.startswith("barn H13")] == ["barn H13 to J11", "barn H13 to J12"]
    state, facts = play(state, 0, "barn K11 to I13")
    assert facts[0] == {
        "kind": "SettlementMoved",
        "seat": 0,
        "from": "K11",
        "to": "I13",
        "action": "barn",
        "tile": "G13",
    }
    assert state.supply[0] == 38 and state.owner[h("K11")] == -1


def test_harbor_moves_onto_water_next_to_the_other_settlements():
    state = position({0: ["R8", "M8"]}, played="G", held={0: ["Q8"]}, layout=LAYOUT2)
    moves = targets(state, 0, "harbor")
    assert [m for m in moves if m.startswith("harbor R8")] == ["harbor R8 to M7", "harbor R8 to N7", "harbor R8 to L8"]
    # no water next to R8, so M8 may go to any free water hex
    from_m8 = [m for m in moves if m.startswith("harbor M8")]
    assert len(from_m8) == len(free_of_terrain(state, "W"))
    state, facts = play(state, 0, "harbor R8 to N7")
    assert kinds(facts)[:2] == ["SettlementMoved", "TileLost"] and state.board.terrain[h("N7")] == "W"


def test_harbor_is_the_only_way_onto_water():
    state = position({0: ["R8"]}, played="G", held={0: ["Q8"]}, layout=LAYOUT2)
    water = {x for x in range(400) if state.board.terrain[x] == "W"}
    for move in SPEC.legal_moves(state, 0):
        if move[0] != "harbor":
            assert move[-1] not in water
    with pytest.raises(GameError):
        SPEC.parse_move(state, 0, "paddock R8 to P8")


def test_paddock_jumps_exactly_two_hexes_over_anything_ignoring_adjacency():
    """Paddock: moves one own settlement exactly two hexes in a straight line, over anything,
    wherever the others stand."""
    state = position({0: ["K8", "A1"], 1: ["M8"]}, played="G", held={0: ["L7"]})
    from_k8 = [m for m in targets(state, 0, "paddock") if m.startswith("paddock K8")]
    # L6 is reached over the paddock location L7; M8 is occupied; none is next to A1
    assert sorted(from_k8) == sorted(
        ["paddock K8 to L6", "paddock K8 to J6", "paddock K8 to I8", "paddock K8 to J10", "paddock K8 to L10"]
    )
    assert "paddock K8 to K10" not in from_k8  # not a straight line
