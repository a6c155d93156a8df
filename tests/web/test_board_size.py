"""The size a board picture is shown at: its main text comes out at 12 px or more."""

from __future__ import annotations

import re

import pytest

from pbem.games import catalog
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


@pytest.mark.parametrize("name", DRAWN)
def test_every_games_board_is_shown_with_its_main_text_at_12_px_or_more(client, games, name):
    body = client.get(f"/games/{games.running[name]}").get_data(as_text=True)
    found = re.search(
        r'<img src="[^"]+board.svg" alt="[^"]*" width="(\d+)" height="(\d+)" '
        r'data-text-px="([0-9.]+)" data-view-width="([0-9.]+)">',
        body,
    )
    assert found, f"{name}: no sized board picture"
    width, height, text_px, view_width = (float(value) for value in found.groups())
    assert width / view_width * text_px >= 11.99 and width >= view_width
    picture = client.get(f"/games/{games.running[name]}/board.svg").get_data(as_text=True)
    assert board_size(picture).width == width and board_size(picture).height == height
