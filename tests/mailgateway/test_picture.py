"""The contract of ``pillow-lunasvg`` (LunaSVG as a Pillow plugin) as pbem uses it
(``mailgateway.picture``), checked against the pinned versions: what the adapter asks of the
library must keep answering so (the scale, the fonts registered once, an error for a picture it
cannot read, the pixels as RGB), and the PNG the adapter encodes from those pixels."""

from __future__ import annotations

import struct
import threading
import zlib
from importlib.metadata import version
from pathlib import Path

import pytest

from mailgateway import picture
from mailgateway.picture import draw, font_files, on_white, picture_of, png_of, prepared, with_family

WORDS = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="60" viewBox="0 0 200 60" '
    'font-family="sans-serif" font-size="14">'
    '<rect x="2" y="2" width="196" height="56" fill="#2471a3"/>'
    '<text x="8" y="30" fill="#fff">{}</text></svg>'
)


def pixels_of(png: bytes) -> tuple[int, int, bytes]:
    """Width, height and RGB pixels of a PNG as ``png_of`` writes it (one IDAT, rows
    unfiltered), its chunks' checksums checked."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks = 8, {}
    while position < len(png):
        (length,) = struct.unpack(">I", png[position : position + 4])
        kind, body = png[position + 4 : position + 8], png[position + 8 : position + 8 + length]
        assert struct.unpack(">I", png[position + 8 + length : position + 12 + length])[0] == zlib.crc32(kind + body)
        chunks[kind] = body
        position += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    assert (depth, colour) == (8, 2) and b"IEND" in chunks
    rows = zlib.decompress(chunks[b"IDAT"])
    stride = 1 + 3 * width
    assert len(rows) == height * stride and all(rows[row * stride] == 0 for row in range(height))
    return width, height, b"".join(rows[row * stride + 1 : (row + 1) * stride] for row in range(height))


def pinned(name: str) -> str:
    lock = Path(__file__).resolve().parents[2] / "constraints.txt"
    return next(line.split("==")[1].strip() for line in lock.read_text().splitlines() if line.startswith(f"{name}=="))


@pytest.mark.parametrize("name", ["pillow-lunasvg", "pillow", "isal"])
def test_the_installed_library_is_the_pinned_version(name):
    assert version(name) == pinned(name)


def test_a_font_family_is_found_once():
    family, fonts = font_files()
    assert family == "DejaVu Sans"  # fonts-dejavu-core, which CI and the container install
    assert [path.name for path in fonts] == ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf"]
    assert font_files() is font_files()


def test_no_font_installed_means_no_family(tmp_path):
    assert font_files((str(tmp_path), str(tmp_path / "absent"))) == ("", ())


def test_the_generic_family_is_named_as_the_font_found():
    svg = with_family('<svg font-family="sans-serif"><text font-family="Comic, serif">x</text></svg>', "DejaVu Sans")
    assert svg == '<svg font-family="DejaVu Sans"><text font-family="Comic, DejaVu Sans">x</text></svg>'


def test_words_are_drawn_with_the_fonts_registered():
    """The generic family draws the same glyphs as the family named outright (LunaSVG has no
    font of its own and would draw no words: the positive control is the picture without)."""
    generic = picture_of(WORDS.format("Žluťoučký kůň, źdźbło"))
    named = picture_of(WORDS.replace("sans-serif", "DejaVu Sans").format("Žluťoučký kůň, źdźbło"))
    empty = picture_of(WORDS.format(""))
    assert generic is not None and named is not None and empty is not None
    assert generic.png == named.png
    assert pixels_of(generic.png)[2] != pixels_of(empty.png)[2] and len(generic.png) > len(empty.png) + 200


def test_the_scale_draws_the_picture_at_the_width_asked():
    data = prepared(WORDS.format("scaled"))
    png, width, height = draw(data, 0.5)
    assert pixels_of(png)[:2] == (100, 30) and (width, height) == (100, 30)
    full, width, height = draw(data, 1.0)
    assert pixels_of(full)[:2] == (200, 60) == (width, height) and full != png


def test_a_picture_is_drawn_on_white():
    """What the picture leaves empty is white (LunaSVG draws on a transparent canvas; the
    adapter puts a white rectangle under it); the positive control: its own colour where it
    draws one, also when its box does not start at 0, 0."""
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="-10 -5 20 10">'
        '<rect x="-10" y="-5" width="5" height="10" fill="#f00"/></svg>'
    )
    assert '<rect x="-10" y="-5" width="20" height="10" fill="#fff"' in on_white(svg)
    empty = on_white('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="2" />')
    assert empty == (
        '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="2">'
        '<rect x="0" y="0" width="4" height="2" fill="#fff" stroke="none"/></svg>'
    )
    shown = picture_of(svg)
    assert shown is not None
    width, height, pixels = pixels_of(shown.png)
    assert (width, height) == (20, 10)
    row = [pixels[3 * x : 3 * x + 3] for x in range(width)]
    assert row[0] == b"\xff\x00\x00" and row[-1] == b"\xff\xff\xff"


def test_the_png_holds_the_pixels_it_was_given():
    pixels = bytes(range(256)) * 3 * 5  # 5 rows of 256 pixels, no two alike in a row
    png = png_of(pixels[: 3 * 64 * 20], 64, 20)
    assert pixels_of(png) == (64, 20, pixels[: 3 * 64 * 20])


@pytest.mark.parametrize(
    "svg",
    [
        "<svg",  # no root element the adapter can read
        '<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0"/>',
        "<html><svg></html>",
    ],
)
def test_a_picture_that_says_no_size_is_a_value_error(svg):
    with pytest.raises(ValueError):
        picture_of(svg)


@pytest.mark.parametrize("data", [b"not a picture", b"<svg", b'<svg xmlns="http://www.w3.org/2000/svg"/>'])
def test_a_picture_lunasvg_cannot_read_is_a_value_error(data):
    """Pillow's refusal (not an SVG, or an SVG of no size) is the sender's dead letter."""
    with pytest.raises(ValueError):
        draw(data, 1.0)


def test_a_picture_over_pillows_bound_is_a_value_error():
    """Pillow refuses a picture whose own size, at a pixel a unit, is over twice its bound
    (some 179 million pixels), whatever the scale it is drawn at: the sender's dead letter,
    not a crash."""
    huge = '<svg xmlns="http://www.w3.org/2000/svg" width="20000" height="20000" viewBox="0 0 20000 20000"/>'
    with pytest.raises(ValueError):
        picture_of(huge)
    assert picture_of(huge.replace("20000", "2000")) is not None  # the positive control


def test_pictures_drawn_in_two_threads_are_alike():
    """LunaSVG's fonts are one table for the process: the pictures are drawn one at a time,
    and a thread draws what another does."""
    here = picture.drawn(WORDS.format("thread"))
    there: list[object] = []
    workers = [threading.Thread(target=lambda: there.append(picture.drawn(WORDS.format("thread")))) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert here is not None and there == [here] * 3


def test_the_same_picture_is_drawn_once_for_the_mails_that_share_it(monkeypatch):
    drawings: list[float] = []

    def counted(data, scale):
        drawings.append(scale)
        return draw(data, scale)

    monkeypatch.setattr(picture, "draw", counted)
    svg = WORDS.format("kept once")
    first, again = picture_of(svg), picture_of(svg)
    assert first is again and len(drawings) == 1
    other = picture_of(WORDS.format("another board"))
    assert other is not None and other.png != first.png and len(drawings) == 2
    assert picture.drawn(svg) == first and len(drawings) == 3  # anew, as the benchmark times it


def test_a_picture_too_large_is_drawn_narrower_and_else_left_out(monkeypatch):
    monkeypatch.setattr(picture, "MAX_PNG_BYTES", 1)
    assert picture.drawn(WORDS.format("never fits")) is None
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 360 200" font-family="sans-serif" font-size="14">'
        '<circle cx="180" cy="100" r="90" fill="#2471a3"/><text x="20" y="30">drawn narrower</text></svg>'
    )
    full = len(draw(prepared(svg), 1.0)[0])
    monkeypatch.setattr(picture, "MAX_PNG_BYTES", full - 1)
    shown = picture.drawn(svg)
    assert shown is not None and shown.width < 360 and shown.shown_width == shown.width
