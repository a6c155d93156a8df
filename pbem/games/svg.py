"""What the games' SVG pictures share: escaping text taken from data or from players.

One escape for every picture: ``html.escape`` quotes ``&``, ``<``, ``>`` and both quote marks,
so the same call is safe in element text and inside attribute values.
"""

from __future__ import annotations

import html
import textwrap


def escape(text: object) -> str:
    """``text`` made safe to put into SVG (element text or a quoted attribute)."""
    return html.escape(str(text), quote=True)


# The pictures for narrow screens (``GameSpec.render_narrow_svg``): a phone shows a page's
# column some 360 to 370 CSS pixels wide (390 px less the page's margins), so a picture at most
# this many units wide is shown at its own size or larger, and its smallest words, at least
# ``NARROW_TEXT`` units, come out at 11 px or more.
NARROW_WIDTH = 360
NARROW_TEXT = 11
CHAR_WIDTH = 0.6  # a sans-serif character's width, in font sizes (DejaVu Sans, the widest in use)


def fitted(text: str, size: float, width: float) -> list[str]:
    """``text`` broken at spaces into lines that fit ``width`` units at font size ``size``."""
    per_line = max(1, int(width / (CHAR_WIDTH * size)))
    return textwrap.wrap(text, per_line, break_on_hyphens=False) or [""]


def text_block(
    x: float, y: float, text: str, size: float, width: float, attributes: str = ""
) -> tuple[list[str], float]:
    """``text`` as ``<text>`` lines fitted to ``width`` from baseline ``y`` down, and the
    baseline after the last line."""
    out = []
    for line in fitted(text, size, width):
        out.append(f'<text x="{x}" y="{y:.1f}" font-size="{size}"{attributes}>{escape(line)}</text>')
        y += size * 1.3
    return out, y
