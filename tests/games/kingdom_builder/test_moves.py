"""Command text: English and Czech keywords, coordinates, round trips and refusals."""

from dataclasses import replace

import pytest

from pbem.games.base import ErrorCode, GameError
from pbem.games.kingdom_builder import SPEC

from .helpers import h, position, refused_when_parsed

LAYOUT2 = (("oracle", False), ("harbor", False), ("barn", False), ("tower", False))


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("build E4", ("build", h("E4"))),
        ("build e4 f4, e5", ("build", h("E4"), h("F4"), h("E5"))),
        ("postav E4", ("build", h("E4"))),
        ("Stavba E4", ("build", h("E4"))),
        ("E4", ("build", h("E4"))),
    ],
)
def test_build_in_english_and_czech(text, move):
    assert SPEC.parse_move(position(played="G"), 0, text) == move


@pytest.mark.parametrize(
    "text",
    [
        "harbor R8 to M7",
        "přístav R8 na M7",
        "PRISTAV r8 do m7",
        "harbour R8 -> M7",
        "harbor R8 M7",
    ],
)
def test_moving_tiles_in_english_and_czech(text):
    state = position({0: ["R8", "M8"]}, played="G", held={0: ["Q8"]}, layout=LAYOUT2)
    assert SPEC.parse_move(state, 0, text) == ("harbor", h("R8"), h("M7"))


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("krčma K9", "tavern"),
        ("tavern K9", "tavern"),
        ("výběh K8 do I8", "paddock"),
    ],
)
def test_tile_keywords_with_accents(text, kind):
    state = position({0: ["B6", "H9", "I9", "J9", "K8"]}, played="G", held={0: ["C7", "L7"]})
    assert SPEC.parse_move(state, 0, text)[0] == kind


def test_end_in_czech_and_english():
    state = position({0: ["B6", "H9", "I9", "J9"]}, played="G", held={0: ["C7"]}, built=3)
    assert SPEC.parse_move(state, 0, "konec") == SPEC.parse_move(state, 0, "End") == ("end",)


def test_format_and_parse_round_trip_for_every_legal_move():
    states = [
        position({0: ["B6", "H9", "I9", "J9", "K8"]}, played="G", held={0: ["C7", "L7"]}),
        position(
            {0: ["R8", "M8", "I4", "H13", "Q14"]}, played="D", held={0: ["Q8", "H4", "G13", "P14"]}, layout=LAYOUT2
        ),
    ]
    for state in states:
        for move in SPEC.legal_moves(state, 0):
            assert SPEC.parse_move(state, 0, SPEC.format_move(move)) == move
    assert SPEC.format_move(("harbor", h("R8"), h("M7"))) == "harbor R8 to M7"
    assert SPEC.format_move(("build", h("C4"), h("D4"))) == "build C4 D4"


def test_unknown_word_is_a_syntax_error():
    error = refused_when_parsed(position(), 0, "settle C4")
    assert error.code == ErrorCode.SYNTAX and "build C4" in error.message


def test_a_hex_off_the_map_is_invalid():
    error = refused_when_parsed(position(), 0, "build Z99")
    assert error.code == ErrorCode.INVALID and "'z99'" in error.message.lower()


def test_wrong_number_of_hexes_is_invalid():
    assert refused_when_parsed(position(), 0, "build E4 F4 E5 E6").code == ErrorCode.INVALID
    assert refused_when_parsed(position(), 0, "end E4").code == ErrorCode.INVALID


def test_an_illegal_hex_says_why_and_lists_the_legal_hexes():
    error = refused_when_parsed(position({0: ["E5"]}, played="G"), 0, "build J8")
    assert error.code == ErrorCode.ILLEGAL and "J8" in error.message and "E4, F5, E6" in error.message


def test_a_bare_hex_matching_several_moves_is_ambiguous():
    state = position({0: ["S12"]}, played="G", held={0: ["R12"]})
    error = refused_when_parsed(state, 0, "S11")
    assert error.code == ErrorCode.AMBIGUOUS and set(error.legal) == {"build S11", "farm S11"}


def test_a_moving_tile_with_only_a_target_is_resolved_or_ambiguous():
    one = position({0: ["R8"]}, played="G", held={0: ["Q8"]}, layout=LAYOUT2)
    assert SPEC.parse_move(one, 0, "harbor M7") == ("harbor", h("R8"), h("M7"))
    two = position({0: ["R8", "M8"]}, played="G", held={0: ["Q8"]}, layout=LAYOUT2)
    assert refused_when_parsed(two, 0, "harbor M7").code == ErrorCode.AMBIGUOUS


def test_not_your_turn_and_game_over():
    assert refused_when_parsed(position(), 1, "build E4").code == ErrorCode.NOT_YOUR_TURN
    assert refused_when_parsed(replace(position(), over=True), 0, "build E4").code == ErrorCode.GAME_OVER


def test_a_tile_you_do_not_hold_is_refused():
    error = refused_when_parsed(position(played="G"), 0, "tavern K9")
    assert error.code == ErrorCode.ILLEGAL and "no Tavern tile" in error.message


def test_decide_refuses_malformed_moves():
    from pbem.games.base import SeededRng

    for move in [("barn", 5), ("fly", 3), ("build", 400), ("end", 1), "build"]:
        with pytest.raises(GameError):
            SPEC.decide(position(), 0, move, SeededRng(0))
