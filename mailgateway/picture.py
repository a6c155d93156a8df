"""The board picture of a mail as a PNG: the one adapter of ``resvg-py`` (resvg, the SVG
renderer written in Rust, as a wheel: nothing to install from the operating system, unlike
cairosvg's cairo library; and in one run here it drew the Kingdom Builder map in less time than
cairosvg, docs/mail.md "Board pictures").

Bounded: the SVG is at most ``MAX_SVG_BYTES`` (the queue's packed form is checked too), the
picture at most ``MAX_WIDTH`` x ``MAX_HEIGHT`` pixels, the PNG at most ``MAX_PNG_BYTES``: a
picture that comes out larger is drawn again smaller, and one that never fits is left out (the
mail says where the board is on the web instead). Shapes are drawn without anti-aliasing
(``crisp_edges``): a board of flat colours then compresses to a third and is drawn in a third
of the time; the words keep theirs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import resvg_py

MAX_PNG_BYTES = 150 * 1024
MAX_SVG_BYTES = 2_000_000
MAX_WIDTH = 400  # pixels: a 360-unit picture for narrow screens is drawn at its own size
MIN_WIDTH = 240
MAX_HEIGHT = 2400
SHRINK = 0.8  # each try after a PNG too large is this much narrower

_ROOT = re.compile(r"<svg\b[^>]*>", re.S)
_VIEWBOX = re.compile(r'viewBox="\s*[-0-9.]+[\s,]+[-0-9.]+[\s,]+([0-9.]+)[\s,]+([0-9.]+)\s*"')
_SIZE = re.compile(r'\b(width|height)="([0-9.]+)(?:px)?"')


def own_size(svg: str) -> tuple[float, float]:
    """The picture's own width and height in its units (its viewBox, else its width and
    height); ValueError when it says none."""
    root = _ROOT.search(svg)
    if root is None:
        raise ValueError("not an SVG picture")
    box = _VIEWBOX.search(root.group(0))
    if box:
        width, height = float(box.group(1)), float(box.group(2))
    else:
        sizes = dict(_SIZE.findall(root.group(0)))
        width, height = float(sizes.get("width", 0)), float(sizes.get("height", 0))
    if not (0 < width < 100_000 and 0 < height < 100_000):
        raise ValueError("the picture says no size")
    return width, height


def first_width(width: float, height: float) -> int:
    """The width to draw at first: 1.5 times the picture's own, within the bounds."""
    scale = min(1.0, MAX_WIDTH / width, MAX_HEIGHT / height)
    return max(1, round(width * scale))


def draw(svg: str, width: int) -> bytes:
    """The PNG of ``svg`` ``width`` pixels wide (ValueError when resvg cannot draw it)."""
    return bytes(
        resvg_py.svg_to_bytes(
            svg_string=svg,
            width=width,
            background="#ffffff",
            shape_rendering="crisp_edges",
        )
    )


@dataclass(frozen=True)
class Picture:
    png: bytes
    width: int  # pixels
    height: int
    shown_width: int  # CSS pixels to show it at: the picture's own width, or less

    @property
    def shown_height(self) -> int:
        return round(self.height * self.shown_width / self.width)


def picture_of(svg: str) -> Picture | None:
    """The PNG of a board; None when even the narrowest is larger than ``MAX_PNG_BYTES``.
    ValueError for a picture that cannot be drawn."""
    if len(svg.encode("utf-8")) > MAX_SVG_BYTES:
        raise ValueError(f"the picture is larger than {MAX_SVG_BYTES} bytes")
    own_width, own_height = own_size(svg)
    width = first_width(own_width, own_height)
    while True:
        png = draw(svg, width)
        if len(png) <= MAX_PNG_BYTES:
            height = max(1, round(width * own_height / own_width))
            return Picture(png, width, height, min(width, round(own_width)))
        if width <= MIN_WIDTH:
            return None
        width = max(MIN_WIDTH, int(width * SHRINK))
