"""The size a board picture is shown at: its main text comes out at 12 px or more."""

from __future__ import annotations

import re

import pytest

from pbem.games import catalog
from pbem.games.svg import NARROW_TEXT, NARROW_WIDTH
from pbem.web.boards import board_size, main_font_size

DRAWN = sorted(name for name in catalog() if name not in ("hidden-pig", "long-pig"))


def test_small_words_are_scaled_up_and_the_shape_is_kept():
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 900 300" font-size="11">'
        '<text x="1" y="1">a long line of board words</text><text font-size="20">Title</text></svg>'
    )
    size = board_size(svg)
    assert size is not None and size.text_px == 11.0 and size.view_width == 900.0
    assert size.width == round(900 * 12 / 11) and size.height == round(300 * 12 / 11)
    assert size.width / size.view_width * size.text_px >= 12


def test_large_words_keep_the_pictures_own_size_and_sizes_without_a_viewbox_count():
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="400px" height="200"><text font-size="14">x y z</text></svg>'
    size = board_size(svg)
    assert size is not None and (size.width, size.height, size.text_px) == (400, 200, 14.0)


@pytest.mark.parametrize("svg", ["", "<p>no picture</p>", '<svg viewBox="0 0 0 10"></svg>', "<svg></svg>"])
def test_no_size_when_the_picture_says_none(svg):
    assert board_size(svg) is None


def test_the_main_size_is_the_one_most_characters_have():
    body = '<text font-size="9">ab</text><text>cdefgh</text><text font-size="13"><tspan>ijk</tspan></text>'
    assert main_font_size(body, 11.0) == 11.0
    assert main_font_size("", 10.0) == 10.0


FONT = re.compile(r'font-size="([0-9.]+)"')


def smallest_text(svg: str) -> float:
    """The smallest font size any text of ``svg`` is drawn at (an element without one has its
    nearest ancestor's; the pictures set one on the root)."""
    sizes = [float(size) for size in FONT.findall(svg)]
    assert sizes, "the picture says no font size"
    return min(sizes)


@pytest.mark.parametrize("stage", ["started", "running", "finished"])
@pytest.mark.parametrize("name", DRAWN)
def test_every_games_narrow_board_is_360_units_wide_with_no_word_under_11(client, games, name, stage):
    game_id = getattr(games, stage)[name]
    body = client.get(f"/games/{game_id}").get_data(as_text=True)
    found = re.search(r'<source media="\(max-width: 40rem\)" srcset="([^"]+board-narrow.svg)" width="(\d+)"', body)
    assert found, f"{name}: no picture for narrow screens"
    for url in (found.group(1), f"/games/{game_id}/seat/{games.service.seat_token(game_id, 0)}/board-narrow.svg"):
        picture = client.get(url).get_data(as_text=True)
        size = board_size(picture)
        assert size is not None and size.view_width <= NARROW_WIDTH
        assert smallest_text(picture) >= NARROW_TEXT, url


def test_the_smallest_text_is_found():
    assert smallest_text('<svg font-size="11"><text font-size="14">a</text><text font-size="9">b</text></svg>') == 9
