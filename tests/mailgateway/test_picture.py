"""The contract of ``resvg`` (the Python binding) as pbem uses it (``mailgateway.picture``),
checked against the pinned version: what the adapter asks of the library must keep answering
so (the transform's order, the fonts held between pictures, a panic for a bad picture, one
thread per options object)."""

from __future__ import annotations

import struct
import threading
from importlib.metadata import version
from pathlib import Path

import pytest

from mailgateway import picture
from mailgateway.picture import draw, font_files, parsed, picture_of, with_family

WORDS = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="60" viewBox="0 0 200 60" '
    'font-family="sans-serif" font-size="14">'
    '<rect x="2" y="2" width="196" height="56" fill="#2471a3"/>'
    '<text x="8" y="30" fill="#fff">{}</text></svg>'
)


def size_of(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def pinned() -> str:
    lock = Path(__file__).resolve().parents[2] / "constraints.txt"
    return next(line.split("==")[1].strip() for line in lock.read_text().splitlines() if line.startswith("resvg=="))


def test_the_installed_library_is_the_pinned_version():
    assert version("resvg") == pinned()


def test_a_font_family_is_found_and_read_once():
    family, fonts = font_files()
    assert family == "DejaVu Sans"  # fonts-dejavu-core, which CI and the container install
    assert len(fonts) == 2 and all(data[:4] in (b"\x00\x01\x00\x00", b"OTTO", b"true") for data in fonts)
    assert font_files() is font_files()


def test_no_font_installed_means_no_family(tmp_path):
    assert font_files((str(tmp_path), str(tmp_path / "absent"))) == ("", ())


def test_the_generic_family_is_named_as_the_font_found():
    svg = with_family('<svg font-family="sans-serif"><text font-family="Comic, serif">x</text></svg>', "DejaVu Sans")
    assert svg == (
        '<svg shape-rendering="crispEdges" font-family="DejaVu Sans">'
        '<text font-family="Comic, DejaVu Sans">x</text></svg>'
    )


def test_words_are_drawn_with_the_fonts_loaded():
    """The generic family draws the same glyphs as the family named outright (resvg alone
    would look for Arial and draw no words: the positive control is the picture without)."""
    generic = picture_of(WORDS.format("Žluťoučký kůň, źdźbło"))
    named = picture_of(WORDS.replace("sans-serif", "DejaVu Sans").format("Žluťoučký kůň, źdźbło"))
    empty = picture_of(WORDS.format(""))
    assert generic is not None and named is not None and empty is not None
    assert generic.png == named.png
    assert generic.png != empty.png and len(generic.png) > len(empty.png) + 200


def test_the_transform_scales_the_picture_to_the_width_asked():
    tree = parsed(WORDS.format("scaled"))
    png, height = draw(tree, 100)
    assert size_of(png) == (100, 30) and height == 30
    full, _ = draw(tree, 200)
    assert size_of(full) == (200, 60) and full != png


@pytest.mark.parametrize(
    "svg",
    [
        "<svg",  # no root element the adapter can read
        '<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0"/>',
        "<html><svg></html>",
    ],
)
def test_a_picture_resvg_cannot_read_is_a_value_error(svg):
    with pytest.raises(ValueError):
        picture_of(svg)


def test_a_panic_of_the_binding_is_a_value_error():
    """The binding stops with a Rust panic (a BaseException in Python) for a picture of no
    size; the adapter makes it a ValueError, the sender's dead letter."""
    with pytest.raises(ValueError):
        parsed('<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0"/>')


def test_each_thread_draws_with_its_own_options():
    """The binding's options may not cross threads (it panics); each thread makes its own."""
    here = picture_of(WORDS.format("thread"))
    there: list[object] = []
    worker = threading.Thread(target=lambda: there.append(picture_of(WORDS.format("thread"))))
    worker.start()
    worker.join()
    assert here is not None and there == [here]
    assert picture._fonts.options is not None


def test_the_same_picture_is_drawn_once_for_the_mails_that_share_it(monkeypatch):
    drawings: list[int] = []

    def counted(tree, width):
        drawings.append(width)
        return draw(tree, width)

    monkeypatch.setattr(picture, "draw", counted)
    svg = WORDS.format("kept once")
    first, again = picture_of(svg), picture_of(svg)
    assert first is again and len(drawings) == 1
    other = picture_of(WORDS.format("another board"))
    assert other is not None and other.png != first.png and len(drawings) == 2
    assert picture.drawn(svg) == first and len(drawings) == 3  # anew, as the benchmark times it
