"""Commands: canonical text, English and Czech keywords, and the errors for bad input."""

import copy

import pytest

from pbem.games.base import ErrorCode, GameError
from pbem.games.kingsburg import SPEC
from pbem.games.kingsburg.moves import (
    Build,
    Give,
    Influence,
    Lose,
    Pass,
    Recruit,
    Reroll,
    Take,
    Token,
    TownHall,
    format_move,
    parse_text,
)
from tests.support.contract import refused_when_parsed

from .support import ANN, BRIAN, at, new_game, play, refused, run, with_players

MOVES = [
    Pass(),
    Take(("gold",)),
    Take(()),
    Take(("gold", "gold", "stone")),
    Give("wood"),
    Influence(8, (5, 3)),
    Influence(12, (6, 4), (2,), True, True, Take(("wood", "stone"))),
    Influence(6, (6,), choice=Give("stone")),
    Build("guard_tower"),
    Build("merchants_guild"),
    Recruit(2, 1, 2, 1),
    Reroll(True),
    Reroll(False, 4),
    Reroll(False, 3, True),
    TownHall("plus2"),
    TownHall("wood"),
    Lose(("gold", "wood")),
    Token(3),
]


@pytest.mark.parametrize("move", MOVES, ids=format_move)
def test_format_then_parse_gives_the_move_back(move):
    assert parse_text(format_move(move)) == move


@pytest.mark.parametrize(
    ("czech", "english"),
    [
        ("ovlivni 8 s 5 3 vezmi zlato", "influence 8 with 5 3 take gold"),
        (
            "Ovlivni 12 kostky 6 4 bílá 2 +2 vyslanec vezmi dřevo kámen",
            "influence 12 with 6 4 white 2 +2 envoy take wood stone",
        ),
        ("postav strážní věž", "build guard tower"),
        ("postav Obchodnickou gildu", "build merchants' guild"),
        ("naverbuj 2 zaplať 2 zlato 2 dřevo", "recruit 2 pay 2 gold 2 wood"),
        ("přehoď vše", "reroll all"),
        ("přehoď bílou 3", "reroll white 3"),
        ("pas", "pass"),
        ("radnice +2", "townhall +2"),
        ("ztrať zlato dřevo", "lose gold wood"),
        ("žeton 4", "token 4"),
        ("dej kámen", "give stone"),
        ("vezmi nic", "take nothing"),
    ],
)
def test_czech_keywords(czech, english):
    assert parse_text(czech) == parse_text(english)


def test_short_forms():
    assert parse_text("influence 9 with 5 w4") == Influence(9, (5,), (4,))
    assert parse_text("take 2 gold") == Take(("gold", "gold"))
    assert parse_text("keep") == Pass()
    assert parse_text("recruit 0") == Pass()
    assert parse_text("build Stables") == Build("stable")


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", ErrorCode.SYNTAX),
        ("dance", ErrorCode.SYNTAX),
        ("influence x", ErrorCode.INVALID),
        ("influence 8 with 7", ErrorCode.INVALID),
        ("influence 8 with white 4", ErrorCode.INVALID),
        ("build castle", ErrorCode.INVALID),
        ("take silver", ErrorCode.INVALID),
        ("recruit", ErrorCode.INVALID),
        ("take", ErrorCode.INVALID),
        ("influence 12 with 6 6 take", ErrorCode.INVALID),
    ],
)
def test_bad_text_is_refused_with_a_code(text, code):
    with pytest.raises(GameError) as error:
        parse_text(text)
    assert error.value.code == code


def test_illegal_command_says_why_and_lists_the_legal_ones():
    state, _ = run(new_game(3))
    error = refused_when_parsed(SPEC, state, ANN, "build statue")
    assert error.code == ErrorCode.ILLEGAL
    assert "King's aid" in error.message and "take gold" in error.message
    assert error.legal == ["take gold", "take wood", "take stone"]


def test_not_your_turn():
    state = at(new_game(3), "spring", "build", order=(0, 1, 2), cursor=0)
    state = with_players(state, p0={"gold": 2}, p1={"gold": 2})
    # whose turn it is, the service checks before parsing (tests/service); the game itself
    # finds no legal move for Brian, and its decide refuses Ann's move made by Brian
    assert refused(state, BRIAN, "build statue").code == ErrorCode.ILLEGAL
    with pytest.raises(GameError) as error:
        SPEC.decide(state, BRIAN, SPEC.parse_move(state, ANN, "build statue"), None)
    assert error.value.code == ErrorCode.NOT_YOUR_TURN


def test_decide_refuses_an_illegal_move_and_changes_nothing():
    state, _ = run(new_game(3))
    before = copy.deepcopy(state)
    with pytest.raises(GameError) as error:
        SPEC.decide(state, ANN, Build("statue"), None)
    assert error.value.code == ErrorCode.ILLEGAL and state == before


def test_game_over_refuses_commands():
    state = with_players(at(new_game(3), "winter", "spoils", year=5, order=(0, 1, 2)))
    state, _ = run(state)
    assert refused(state, ANN, "pass").code == ErrorCode.ILLEGAL  # no legal move is left
    with pytest.raises(GameError) as error:
        SPEC.decide(state, ANN, Pass(), None)
    assert error.value.code == ErrorCode.GAME_OVER


def test_pass_on_a_gift_declines_it():
    state = at(new_game(3), "spring", "gifts", order=(0, 1, 2), gifts=((4, ANN, None),))
    assert SPEC.parse_move(state, ANN, "pass") == Take(())


def test_default_moves_pass_keep_or_take_the_first_choice():
    state, _ = run(new_game(3))
    assert SPEC.default_move(state, ANN) == Take(("gold",))
    state = at(new_game(3), "spring", "gifts", order=(0, 1, 2), gifts=((4, ANN, None),))
    assert SPEC.default_move(state, ANN) == Take(("gold",))  # a missed gift is still taken
    state = at(new_game(3), "spring", "influence", order=(0, 1, 2), cursor=0)
    state = with_players(state, p0={"dice": (6, 5, 1)})
    assert SPEC.default_move(state, ANN) == Pass()
    assert SPEC.default_move(state, BRIAN) is None


def test_every_legal_move_round_trips_through_parse_in_a_game():
    state, _ = run(new_game(3))
    for _ in range(3):
        for seat in SPEC.to_move(state):
            for move in SPEC.legal_moves(state, seat):
                assert SPEC.parse_move(state, seat, SPEC.format_move(move)) == move
        seat = SPEC.to_move(state)[0]
        state, _ = play(state, seat, SPEC.legal_texts(state, seat)[0])


def test_take_naming_a_fixed_gift_is_accepted_with_the_influence():
    state = at(new_game(3), "spring", "influence", order=(0, 1, 2), cursor=0)
    state = with_players(state, p0={"dice": (5, 3, 1)})
    assert SPEC.parse_move(state, ANN, "influence 8 with 5 3 take gold") == Influence(8, (5, 3))
    with pytest.raises(GameError) as error:
        SPEC.parse_move(state, ANN, "influence 8 with 5 3 take stone")
    assert "does not offer" in error.value.message


def test_legal_texts_list_plain_groups_and_pass_before_stated_choices():
    state = at(new_game(3), "spring", "influence", order=(0, 1, 2), cursor=0)
    state = with_players(state, p0={"dice": (6, 5, 3), "plus2": 1})
    texts = SPEC.legal_texts(state, ANN)
    assert "pass" in texts and "take" not in " ".join(texts[: texts.index("pass") + 1])
    assert len(SPEC.legal_moves(state, ANN)) > 40


def test_turn_template_names_the_phase_and_the_legal_commands():
    state = at(new_game(3), "spring", "influence", order=(0, 1, 2), cursor=0)
    state = with_players(state, p0={"dice": (6, 5, 1), "white": (2,)})
    template = SPEC.turn_template(state, ANN, ["Ann", "Brian", "Cindy"])
    assert template.startswith("# Kingsburg: year 1, spring: influence\n")
    assert "# dice in hand: 6 5 1 w2" in template and "# influence 6 with 6" in template
    assert SPEC.end_of_turn_file(state, ANN) == Pass()


def test_influence_without_dice_takes_the_one_group_that_fits_or_is_ambiguous():
    state = at(new_game(3), "spring", "influence", order=(0, 1, 2), cursor=0)
    state = with_players(state, p0={"dice": (5, 3, 2)})
    assert SPEC.parse_move(state, ANN, "influence 8") == Influence(8, (5, 3))
    error = refused_when_parsed(SPEC, state, ANN, "ovlivni 5")
    assert error.code == ErrorCode.AMBIGUOUS
    assert error.legal == ["influence 5 with 5", "influence 5 with 3 2"]
    assert refused_when_parsed(SPEC, state, ANN, "influence 18").code == ErrorCode.ILLEGAL
