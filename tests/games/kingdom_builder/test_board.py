"""Hex geometry of the assembled map: coordinates, neighbours across seams, rotation, edges."""

from pbem.games.kingdom_builder.board import build_board, name, parse_hex, step

from .helpers import LAYOUT, h


def names(hexes):
    return sorted(name(x) for x in hexes)


def test_coordinates_are_column_letter_and_row_number():
    assert name(0) == "A1" and name(19) == "T1" and name(20) == "A2" and name(399) == "T20"
    assert parse_hex("c4") == 3 * 20 + 2 and parse_hex(" H13 ") == 12 * 20 + 7
    assert parse_hex("U1") is None and parse_hex("A21") is None and parse_hex("A0") is None


def test_neighbours_of_an_even_row_hex():
    # row 5 (index 4) is flush left: neighbours above are the same column and the one to the left
    board = build_board(LAYOUT)
    assert names(board.neighbours[h("E5")]) == ["D4", "D5", "D6", "E4", "E6", "F5"]


def test_neighbours_of_an_odd_row_hex():
    board = build_board(LAYOUT)
    assert names(board.neighbours[h("E6")]) == ["D6", "E5", "E7", "F5", "F6", "F7"]


def test_the_centre_hex_touches_all_four_sections_across_the_seams():
    """The rulebook's picture example of a board of 4 sections (L73): the hex at the centre touches
    all four sections across the seams."""
    board = build_board(LAYOUT)
    around = board.neighbours[h("J10")]
    assert names(around) == ["I10", "J11", "J9", "K10", "K11", "K9"]
    assert {board.sector[x] for x in around} == {0, 1, 2, 3}


def test_vertical_seam_in_an_odd_row_and_horizontal_seam():
    board = build_board(LAYOUT)
    assert names(board.neighbours[h("J6")]) == ["I6", "J5", "J7", "K5", "K6", "K7"]
    assert names(board.neighbours[h("E11")]) == ["D10", "D11", "D12", "E10", "E12", "F11"]
    assert names(board.neighbours[h("E10")]) == ["D10", "E11", "E9", "F10", "F11", "F9"]


def test_corners_and_edges_have_fewer_neighbours():
    board = build_board(LAYOUT)
    assert names(board.neighbours[h("A1")]) == ["A2", "B1"]
    assert names(board.neighbours[h("T2")]) == ["S2", "T1", "T3"]
    assert h("J1") in board.edge and h("A10") in board.edge and h("J10") not in board.edge
    assert len(board.edge) == 76


def test_straight_steps_follow_the_hex_axes():
    # E, W, NE, NW, SE, SW from an even row and from an odd row
    """The hex board: the six straight steps from a hex, in an even and an odd row, and off the
    board's edge."""
    assert [name(step(h("E5"), d)) for d in range(6)] == ["F5", "D5", "E4", "D4", "E6", "D6"]
    assert [name(step(h("E6"), d)) for d in range(6)] == ["F6", "D6", "F5", "E5", "F7", "E7"]
    assert step(h("A1"), 3) == -1


def test_a_rotated_section_is_turned_180_degrees():
    board = build_board((("oasis", True), ("paddock", False), ("tavern", False), ("farm", False)))
    # oasis row 9 is all water; turned, it becomes row 1 of the map
    assert "".join(board.terrain[0:10]) == "WWWWWWWWWW"
    # oasis (row 2, col 7) location and (row 7, col 1) castle move to (7, 2) and (2, 8)
    assert board.location_at(h("C8")) == "oasis" and h("I3") in board.castles
    # the section's top row "DDCWWTTGGG" becomes the bottom row, read right to left
    assert "".join(board.terrain[9 * 20 : 9 * 20 + 10]) == "GGGTTWWCDD"
