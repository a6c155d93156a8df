"""Setup, options, hidden cards, views, turn ends, history lines and the turn-file hooks."""

from collections import Counter

import pytest

from pbem.games.base import ErrorCode, GameError, SeededRng, can_see
from pbem.games.kingdom_builder import SPEC
from pbem.games.simulate import fold

from .helpers import OPTIONS, kinds, play, position


def _start(players=3, options=OPTIONS, seed=1):
    facts = SPEC.setup(players, SPEC.normalize_options(options, players), SeededRng(seed))
    return facts, fold(SPEC, facts)


def test_setup_uses_the_chosen_sections_and_cards():
    facts, state = _start()
    assert facts[0]["sections"][0] == {"quadrant": "top-left", "name": "tavern", "rotated": False}
    assert state.board.layout == (("tavern", False), ("paddock", False), ("oasis", False), ("farm", False))
    assert state.cards == ("fishermen", "merchants", "knights")
    assert state.tiles_left == (2,) * 8


def test_random_setup_draws_four_sections_and_three_cards():
    seen = Counter()
    for seed in range(30):
        facts, state = _start(players=2, options={}, seed=seed)
        names = [s["name"] for s in facts[0]["sections"]]
        assert len(set(names)) == 4 and len(set(state.cards)) == 3
        seen.update(s["rotated"] for s in facts[0]["sections"])
    assert seen[True] and seen[False]


def test_rotated_option_and_duplicates_are_refused():
    """Setup: the board is 4 different sections, each of which may lie turned (`-rotated`); a
    section or card chosen twice is refused."""
    _, state = _start(options={**OPTIONS, "top-left": "oasis-rotated", "bottom-left": "tavern"})
    assert state.board.layout[0] == ("oasis", True)
    with pytest.raises(GameError) as error:
        SPEC.normalize_options({"top-left": "farm", "top-right": "farm"}, 2)
    assert error.value.code == ErrorCode.INVALID
    with pytest.raises(GameError):
        SPEC.normalize_options({"card-1": "lords", "card-2": "lords"}, 2)
    with pytest.raises(GameError):
        SPEC.normalize_options({"top-left": "castle"}, 2)


def test_deck_order_is_secret_to_all_and_each_card_to_its_holder():
    facts, _ = _start()
    assert facts[1]["kind"] == "DeckShuffled" and facts[1]["secret"]["to"] == []
    drawn = [f for f in facts if f["kind"] == "CardDrawn"]
    assert [f["secret"]["to"] for f in drawn] == [[0], [1], [2]]
    assert not can_see(drawn[1], None) and not can_see(drawn[1], 0) and can_see(drawn[1], 1)
    started = facts[-1] if facts[-1]["kind"] == "TurnStarted" else None
    assert started == {"kind": "TurnStarted", "seat": 0, "round": 1, "terrain": drawn[0]["secret"]["data"]["terrain"]}


def test_a_view_shows_only_the_viewers_own_card():
    _, state = _start()
    assert SPEC.view(state, None)["hand"] is None
    assert SPEC.view(state, 1)["hand"] == state.hands[1] is not None
    assert SPEC.view(state, 2)["hand"] == state.hands[2]
    assert state.hands[1] not in (None,) and "hands" not in SPEC.view(state, None)


def test_the_turn_waits_for_end_while_a_tile_is_usable():
    state = position({0: ["B6", "H9", "I9", "J9"]}, played="G", held={0: ["C7"]})
    state, facts = play(state, 0, "build J8 K9 K8")
    assert state.seat == 0 and "TurnEnded" not in kinds(facts)
    assert ("end",) in SPEC.legal_moves(state, 0)
    state, facts = play(state, 0, "konec")
    assert kinds(facts)[:3] == ["TurnEnded", "CardDrawn", "TurnStarted"] and state.seat == 1


def test_using_the_last_usable_tile_ends_the_turn_by_itself():
    state = position({0: ["B6", "H9", "I9", "J9"]}, played="G", held={0: ["C7"]}, built=3)
    state, facts = play(state, 0, "tavern K9")
    assert kinds(facts)[-1] == "TurnStarted" and state.seat == 1


def test_default_move_builds_first_then_ends():
    state = position({0: ["B6", "H9", "I9", "J9"]}, played="G", held={0: ["C7"]})
    assert SPEC.default_move(state, 0)[0] == "build"
    assert SPEC.default_move(state, 1) is None
    done = position({0: ["B6", "H9", "I9", "J9"]}, played="G", held={0: ["C7"]}, built=3)
    assert SPEC.default_move(done, 0) == ("end",)


def test_end_of_turn_file_ends_only_a_finished_mandatory_action():
    assert SPEC.end_of_turn_file(position(played="G"), 0) is None
    done = position({0: ["B6", "H9", "I9", "J9"]}, played="G", held={0: ["C7"]}, built=3)
    assert SPEC.end_of_turn_file(done, 0) == ("end",)
    assert SPEC.end_of_turn_file(done, 1) is None


def test_phase_label_and_turn_template():
    state = position(played="G", seat=1)
    assert SPEC.phase_label(state) == "round 1, seat 2"
    text = SPEC.turn_template(state, 1, ["Ann", "Bob"])
    assert text.startswith("# Kingdom Builder: round 1, seat 2") and "build on:" in text


def test_history_lines_name_the_players_and_hide_drawn_cards():
    facts, _ = _start()
    names = ["Ann", "Bob", "Cyd"]
    lines = [SPEC.describe_fact(f, names) for f in facts]
    assert lines[0].startswith("Game started for 3 players; board: tavern top-left")
    assert lines[2] == "Ann drew a terrain card."
    state = position({0: ["K8", "K9"]}, played="G", held={0: ["L7"]})
    _, moved = play(state, 0, "paddock K8 to I8")
    assert SPEC.describe_fact(moved[0], names) == "Ann moved a settlement from K8 to I8 with the Paddock."
    assert "lost the Paddock tile of L7" in SPEC.describe_fact(moved[1], names)


def test_text_map_prints_coordinates_and_settlements():
    state = position({0: ["E5"], 1: ["H9"]}, played="G", held={0: ["C7"]})
    text = SPEC.render_text(SPEC.view(state, 0), ["Ann", "Bob"])
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["A", "B", "C"] and lines[0].split()[-1] == "T"
    assert lines[5].startswith(" 5  ") and "g1" in lines[5] and "g2" in lines[9]
    assert "TA Tavern C7 (1)" in text and "Ann: 39 settlements left; Tavern C7" in text
    assert "Your hidden card: Flower field" in text


def test_svg_map_shows_coordinates_locations_castles_and_settlements():
    import xml.etree.ElementTree as ET

    state = position({0: ["E5"], 1: ["H9"]}, played="G", held={0: ["C7"]})
    svg = SPEC.render_svg(SPEC.view(state, None), ["Ann", "Bob"])
    root = ET.fromstring(svg)
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "E5" in texts and "T20" in texts and "A" in texts and "20" in texts
    assert "TA 1" in texts and "PA 2" in texts  # tavern C7 has 1 tile left
    assert len(list(root.iter("{http://www.w3.org/2000/svg}polygon"))) == 400
    fills = [c.get("fill") for c in root.iter("{http://www.w3.org/2000/svg}circle")]
    assert fills.count("#e41a1c") == 2 and fills.count("#ffffff") == 2  # on the map and in the legend
    assert any(t == "Ann (red): 39 left, to move (Grass)" for t in texts)
