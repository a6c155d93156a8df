"""The board pictures show the whole public game: every item of a game's text picture (split at
its separators) is also said by its SVG picture, in a text or in a title (a tooltip that
screen readers read too). One test per game whose picture is held to that."""

from __future__ import annotations

import html
import re

import pytest

from pbem.games import get_spec
from tests.web.conftest import play_some, players

SEPARATORS = re.compile(r"[,;:()|]|\s{2,}|\[[ x]\]")
LENGTHS = (6, 30, 90, 400)  # moves: early, middle, late, to the end


def text_items(text: str) -> set[str]:
    """The pieces of a text picture: each line split at punctuation, wide gaps and [x] boxes."""
    return {" ".join(part.split()) for line in text.splitlines() for part in SEPARATORS.split(line)} - {""}


def svg_says(svg: str) -> str:
    """Everything an SVG picture says in words: its texts and titles, as one line."""
    said = re.findall(r"<(text|title)\b[^>]*>(.*?)</\1>", svg, re.S)
    return " ".join(" ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split()) for _, body in said)


def pictures(service, game_id: str, seat: int | None = None) -> tuple[str, str]:
    summary = service.summary(game_id, viewer=service.game(game_id).emails[seat] if seat is not None else None)
    spec = get_spec(summary["game"])
    return spec.render_text(summary["view"], summary["seats"]), spec.render_svg(summary["view"], summary["seats"])


def missing_from_svg(service, game_id: str, seat: int | None = None, skip_lines: int = 0) -> list[str]:
    """The items of the text picture (after its first ``skip_lines`` lines) the SVG does not say."""
    text, svg = pictures(service, game_id, seat)
    said = svg_says(svg)
    return sorted(item for item in text_items("\n".join(text.splitlines()[skip_lines:])) if item not in said)


@pytest.fixture(scope="module")
def played(games):
    """Games of each type stopped after each of LENGTHS moves."""
    made = {}
    for name in ("kingsburg", "ruse-and-bruise", "kingdom-builder", "warriors-traders"):
        spec = get_spec(name)
        for moves in LENGTHS:
            game_id = games.service.create(
                name, players(spec, spec.max_players if moves == 30 else None), seed=bytes([moves % 256]) * 32
            )
            play_some(games.service, game_id, seed=moves, moves=moves)
            made[name, moves] = game_id
    return made


@pytest.mark.parametrize("moves", LENGTHS)
def test_kingsburg_svg_shows_every_public_item_of_the_text_board(games, played, moves):
    game_id = played["kingsburg", moves]
    assert missing_from_svg(games.service, game_id) == []
    assert missing_from_svg(games.service, game_id, seat=0) == []  # the seat's own token and peeks too


@pytest.mark.parametrize("moves", LENGTHS)
def test_ruse_and_bruise_svg_shows_every_public_item_of_the_text_board(games, played, moves):
    game_id = played["ruse-and-bruise", moves]
    assert missing_from_svg(games.service, game_id) == []
    assert missing_from_svg(games.service, game_id, seat=0) == []  # the seat's hand too


@pytest.mark.parametrize("moves", LENGTHS)
def test_kingdom_builder_svg_shows_every_public_item_of_the_text_board(games, played, moves):
    """The text map's 21 lines are checked hex by hex (the SVG draws them as hexagons, each
    settlement with a title naming its player); every line after the map is checked item by item."""
    game_id = played["kingdom-builder", moves]
    for seat in (None, 0):
        assert missing_from_svg(games.service, game_id, seat, skip_lines=21) == []
    text, svg = pictures(games.service, game_id)
    columns = "ABCDEFGHIJKLMNOPQRST"
    settled = [
        (f"{columns[c]}{r}", cell[1])
        for r, line in enumerate(text.splitlines()[1:21], start=1)
        for c, cell in enumerate(line.split()[1:])
        if cell[1:].isdigit()
    ]
    assert settled or moves < 10
    names = games.service.game(game_id).names
    for where, seat in settled:  # the title names the player, not the seat's number
        assert f"<title>{where}: settlement of {names[int(seat) - 1]}</title>" in svg


@pytest.mark.parametrize("moves", LENGTHS)
def test_warriors_and_traders_svg_shows_every_public_item_of_the_text_board(games, played, moves):
    """Players, wars, offers, battles and the approximate-data label as lines; each province's
    line of the text picture as its circle's title."""
    game_id = played["warriors-traders", moves]
    assert missing_from_svg(games.service, game_id) == []
    assert missing_from_svg(games.service, game_id, seat=0) == []
    _text, svg = pictures(games.service, game_id)
    assert "(approximate data)" in svg_says(svg) and "approximate map" in svg_says(svg)


def test_kingsburg_svg_has_whose_turn_a_dice_legend_and_every_advisors_gift(games, played):
    from pbem.games.kingsburg.board import gift_text

    game_id = played["kingsburg", 6]
    summary = games.service.summary(game_id)
    svg = get_spec("kingsburg").render_svg(summary["view"], summary["seats"])
    said = svg_says(svg)
    waiting = ", ".join(w["name"] for w in summary["waiting_for"])
    assert f"Kingsburg - {summary['phase']} - Waiting for: {waiting}" in said
    assert "neutral (blocks the advisor)" in said and "King's aid die" in said
    assert all(gift_text(advisor) in said for advisor in range(1, 19))
    assert gift_text(4) == "1g or 1w" and gift_text(14) == "-1 VP 3 any"


def test_the_check_notices_an_item_missing_from_the_picture():
    assert text_items("Kingsburg - year 1\n1. ann: 2 VP, 3 gold\n   [x] Statue") == {
        "Kingsburg - year 1",
        "1. ann",
        "2 VP",
        "3 gold",
        "Statue",
    }
    assert svg_says("<svg><text>2 VP</text><g><title>3 &amp; gold</title></g></svg>") == "2 VP 3 & gold"
