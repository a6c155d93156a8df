"""The size a board picture says it has: the ``width`` and ``height`` of its ``img`` (and of the
narrow picture's ``<source>``), so the page keeps the picture's room while it loads; the CSS
then fits it to the column (a phone gets the picture drawn for narrow screens, whose words stay
11 px or more: ``GameSpec.render_narrow_svg``). The size is the one at which the words most of
its text is written in come out at ``READABLE_PX`` or more. Pure: reads the SVG text only,
changes nothing in it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

READABLE_PX = 12.0
DEFAULT_FONT = 16.0  # what SVG text is drawn at when nothing says otherwise

_ROOT = re.compile(r"<svg\b[^>]*>", re.S)
_VIEWBOX = re.compile(r'viewBox="\s*[-0-9.]+[\s,]+[-0-9.]+[\s,]+([0-9.]+)[\s,]+([0-9.]+)\s*"')
_SIZE = re.compile(r'\b(width|height)="([0-9.]+)(?:px)?"')
_FONT = re.compile(r'font-size="([0-9.]+)(?:px)?"')
_TEXT = re.compile(r"<text\b([^>]*)>(.*?)</text>", re.S)
_TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class BoardSize:
    width: int  # the display size in CSS pixels
    height: int
    text_px: float  # the main text's size in the picture's own units (before scaling)
    view_width: float  # the picture's own width in those units


def board_size(svg: str, readable: float = READABLE_PX) -> BoardSize | None:
    """The size to show ``svg`` at (None when it says neither a viewBox nor a size)."""
    root = _ROOT.search(svg)
    if root is None:
        return None
    head = root.group(0)
    box = _VIEWBOX.search(head)
    sizes = dict(_SIZE.findall(head.replace(box.group(0), "") if box else head))
    if box:
        width, height = float(box.group(1)), float(box.group(2))
    elif "width" in sizes and "height" in sizes:
        width, height = float(sizes["width"]), float(sizes["height"])
    else:
        return None
    if width <= 0 or height <= 0:
        return None
    root_font = _FONT.search(head)
    text_px = main_font_size(svg[root.end() :], float(root_font.group(1)) if root_font else DEFAULT_FONT)
    scale = max(1.0, readable / text_px)
    return BoardSize(round(width * scale), round(height * scale), text_px, width)


def main_font_size(body: str, inherited: float) -> float:
    """The font size most of the picture's characters are written in (each ``<text>`` counted
    by its characters; a text without its own size has the picture's)."""
    counts: Counter[float] = Counter()
    for attributes, content in _TEXT.findall(body):
        own = _FONT.search(attributes)
        counts[float(own.group(1)) if own else inherited] += len(_TAG.sub("", content).strip())
    if not counts:
        return inherited
    return max(counts.items(), key=lambda item: (item[1], item[0]))[0]
