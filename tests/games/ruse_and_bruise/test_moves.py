"""Commands in English and Czech, abbreviations, errors, and rejections that change nothing."""

import copy

import pytest

from pbem.games.base import ErrorCode, GameError, SeededRng
from pbem.games.ruse_and_bruise.cards import CARDS, match_cards

from .helpers import SPEC, Move, apply, column, down, position, refused_when_parsed, up

HAND = ("king", "queen", "little_giant")


def _state():
    return position(
        [column("music-5", up(1, "romeo")), column("trade-4", up(1, "storm"), closed=True), column("farming-2")],
        players=3,
        hands=[HAND, ("cloak", "witch", "wizard"), ()],
    )


def test_format_and_parse_round_trip_for_every_legal_move():
    state = _state()
    for move in SPEC.legal_moves(state, 0):
        assert SPEC.parse_move(state, 0, SPEC.format_move(move)) == move
    assert SPEC.format_move(Move("play", "little_giant", 3)) == "play LITTLE-GIANT 3"


@pytest.mark.parametrize(
    "text",
    [
        "play KING 1",
        "play king 1",
        "hraj Král 1",
        "hraj kral 1",
        "zahraj KRÁL 1",
        "polož král 1",
        "King 1",
        "play König 1",
        "play 1 king",
        "PLAY Ki 1",
    ],
)
def test_english_czech_and_german_card_names_with_or_without_accents(text):
    assert SPEC.parse_move(_state(), 0, text) == Move("play", "king", 1)


@pytest.mark.parametrize(
    "text",
    ["play little giant 3", "hraj Paleček 3", "play LITTLE-GIANT 3", "play lit 3", "hraj pal 3"],
)
def test_names_of_several_words_and_abbreviations(text):
    assert SPEC.parse_move(_state(), 0, text) == Move("play", "little_giant", 3)


def test_an_abbreviation_that_fits_one_card_in_hand_is_enough():
    # "k" could be King, Cardinal (Kardinál), Kupec, Královna, Kleiner Riese ...: three of them are in hand
    assert match_cards("k") >= {"king", "queen", "cardinal", "merchant", "little_giant"}
    error = refused_when_parsed(_state(), 0, "play k 1")
    assert error.code == ErrorCode.AMBIGUOUS
    assert set(error.legal) == {"play KING 1", "play QUEEN 1", "play LITTLE-GIANT 1"}
    only_king = position([column("music-5"), column("trade-4")], hands=[("king", "romeo", "witch"), ()])
    assert SPEC.parse_move(only_king, 0, "play k 1") == Move("play", "king", 1)
    assert SPEC.parse_move(_state(), 0, "play kin 1") == Move("play", "king", 1)


def test_every_card_name_means_that_card():
    for card in CARDS.values():
        for name in (card.en, card.cs, card.de, card.token, *card.aliases):
            assert match_cards(name) == {card.id}, name


def test_unknown_card_is_invalid():
    error = refused_when_parsed(_state(), 0, "play JOKER 1")
    assert error.code == ErrorCode.INVALID and "JOKER" in error.message


def test_a_card_not_in_hand_is_illegal_and_the_error_lists_the_legal_plays():
    error = refused_when_parsed(_state(), 0, "play DRAGON 1")
    assert error.code == ErrorCode.ILLEGAL and "you hold no Dragon" in error.message
    assert "play KING 1" in error.legal and "play KING 2" not in error.legal


def test_a_column_closed_by_a_storm_is_illegal():
    error = refused_when_parsed(_state(), 0, "play KING 2")
    assert error.code == ErrorCode.ILLEGAL and "closed by a Storm" in error.message


def test_a_column_that_does_not_exist_is_invalid():
    error = refused_when_parsed(_state(), 0, "play KING 9")
    assert error.code == ErrorCode.INVALID and "no column 9" in error.message


@pytest.mark.parametrize("text", ["", "hello", "play KING", "play 1 2 KING", "pass now"])
def test_malformed_commands_are_syntax_errors(text):
    assert refused_when_parsed(_state(), 0, text).code == ErrorCode.SYNTAX


def test_another_seat_cannot_move():
    # the service says whose turn it is before parsing; the game finds no legal move for seat 1
    error = refused_when_parsed(_state(), 1, "play CLOAK 1")
    assert error.code == ErrorCode.ILLEGAL and "it is not your move" in error.message


def test_follow_up_commands_need_an_open_choice():
    error = refused_when_parsed(_state(), 0, "pass")
    assert error.code == ErrorCode.ILLEGAL and "no Cloak or Traitor choice" in error.message


def test_cloak_and_traitor_choices_in_czech():
    state = position(
        [column("music-5", down(1, "cloak")), column("trade-4", down(1, "traitor"))],
        hands=[("king", "queen"), ("romeo", "juliet")],
    )
    _, cloak = apply(state, 0, "play KING 1")
    assert SPEC.parse_move(cloak, 1, "zasuň Julie") == Move("tuck", "juliet")
    assert SPEC.parse_move(cloak, 1, "pas") == Move("pass")
    assert refused_when_parsed(cloak, 0, "play QUEEN 2").code == ErrorCode.ILLEGAL
    assert "Cloak" in refused_when_parsed(cloak, 1, "swap 2").message
    _, traitor = apply(state, 0, "play QUEEN 2")
    assert SPEC.parse_move(traitor, 1, "vyměň 1") == Move("swap", None, 1)
    assert "own column" in refused_when_parsed(traitor, 1, "swap 2").message


def test_decide_refuses_an_illegal_move_and_leaves_the_state_alone():
    state = _state()
    before = copy.deepcopy(state)
    with pytest.raises(GameError) as error:
        SPEC.decide(state, 0, Move("play", "dragon", 1), SeededRng(0))
    assert error.value.code == ErrorCode.ILLEGAL and state == before


def test_the_public_history_hides_the_card():
    state = _state()
    assert SPEC.public_move_text(state, 0, Move("play", "king", 3)) == "a card to column 3"
    assert SPEC.public_move_text(state, 0, Move("tuck", "king")) == "a card under the Cloak"
    assert SPEC.public_move_text(state, 0, Move("swap", None, 2)) == "swap 2"


def test_default_move_plays_the_first_legal_card_or_declines_a_choice():
    state = _state()
    assert SPEC.default_move(state, 0) == SPEC.legal_moves(state, 0)[0]
    assert SPEC.default_move(state, 1) is None
    cloak = position([column("music-5", down(1, "cloak")), column("trade-4")], hands=[("king",), ("romeo",)])
    _, after = apply(cloak, 0, "play KING 1")
    assert SPEC.default_move(after, 1) == Move("pass")


def test_phase_label_names_round_play_and_choice():
    state = _state()
    assert SPEC.phase_label(state) == "round 1, play 1"
    cloak = position([column("music-5", down(1, "cloak")), column("trade-4")], hands=[("king",), ("romeo",)])
    _, after = apply(cloak, 0, "play KING 1")
    assert SPEC.phase_label(after) == "round 1, play 1, cloak choice"


def test_player_counts_are_two_to_six():
    assert (SPEC.min_players, SPEC.max_players) == (2, 6)
    for bad in (1, 7):
        with pytest.raises(GameError):
            SPEC.check_players(bad)


def test_decide_refuses_something_that_is_not_a_move():
    state = _state()
    with pytest.raises(GameError) as error:
        SPEC.decide(state, 0, "play KING 1", SeededRng(0))
    assert error.value.code == ErrorCode.ILLEGAL and "play KING 1" in error.value.legal
