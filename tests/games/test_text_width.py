"""Every game's text picture (``render_text``: the board in a mail's text part, on the CLI) is
laid out for the mail's width: no line over 72 characters but a URL, in every language, at the
start, in the middle and at the end of a game, as every seat and the public see it."""

from __future__ import annotations

import pytest

from pbem import i18n
from pbem.games import get_spec
from pbem.games.base import SeededRng
from pbem.games.simulate import fold, play_random
from pbem.games.text import TEXT_WIDTH, fitted

GAMES = ("kingsburg", "kingdom-builder", "warriors-traders", "ruse-and-bruise")
# long names, as players have them, so a line with names is as long as it gets
NAMES = ["tomek.kowalski", "anna.novakova", "jiri.dvoracek"]


def too_long(text: str) -> list[str]:
    return [line for line in text.splitlines() if len(line) > TEXT_WIDTH and "://" not in line]


def states(name: str, players: int) -> dict[str, object]:
    spec = get_spec(name)
    play = play_random(spec, players, seed=3)
    opening = len(spec.setup(players, play.options, SeededRng("dice-3")))
    return {
        "start": fold(spec, play.facts[:opening]),
        "middle": fold(spec, play.facts[: len(play.facts) // 2]),
        "end": play.state,
    }


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("name", GAMES)
def test_every_line_of_a_text_board_fits_the_mail(name, players):
    spec = get_spec(name)
    checked = 0
    for moment, state in states(name, players).items():
        for viewer in [None, *range(players)]:
            view = spec.view(state, viewer)
            for lang in ("en", "cs", "pl"):
                with i18n.speaking(lang):
                    text = spec.render_text(view, NAMES[:players])
                assert not too_long(text), (moment, viewer, lang, too_long(text))
                checked += 1
    assert checked == 3 * (players + 1) * 3


def test_a_long_line_breaks_between_the_parts_of_a_list_first():
    line = "Units: I infantry, A archer, C cavalry, P princess, F fort; /N owner seat, b barbarian; ! must fight"
    assert fitted(line).split("\n") == [
        "Units: I infantry, A archer, C cavalry, P princess, F fort;",
        "  /N owner seat, b barbarian; ! must fight",
    ]


def test_a_long_indented_line_stays_one_block():
    line = "  anna.novakova (blue): hand 3, deck 3, discard 19; goals won: Fencing 5, Alchemy 3, Trade 2"
    lines = fitted(line).split("\n")
    assert lines == [
        "  anna.novakova (blue): hand 3, deck 3, discard 19;",
        "    goals won: Fencing 5, Alchemy 3, Trade 2",
    ]


def test_lines_that_fit_urls_and_long_words_are_kept_as_they_are():
    grid = "   A  B  C  D\n 1 g  g  c  " + "d " * 20
    assert fitted(grid) == grid
    url = "Board: https://example.org/" + "a" * 80
    word = "x" * 80 + " y"
    assert fitted(url) == url
    assert fitted(word) == word


def test_the_positive_control_a_long_line_is_found():
    assert too_long("x " * 40) and not too_long(fitted("x " * 40))
