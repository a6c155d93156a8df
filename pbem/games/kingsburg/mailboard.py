"""The board picture of a mail (``GameSpec.render_mail_svg``): the narrow board's legend and
court (three advisors to a row), then one building grid for all the players, each building
marked under its name in the colour of every player who built it. The lines above the narrow
board (``heading``) and each player's counters and dice in hand are the mail's words beside
the picture (``mail_caption``); the printed costs and gifts are in the rules.

One grid instead of a grid per player: the names of the twenty buildings are drawn once
however many play, which makes a two-player picture a third lower and a third cheaper to
draw (docs/benchmarks.md), and shows at a glance who holds what."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.kingsburg.board import _colour, _narrow_court, _narrow_legend, heading, narrow_svg, sheet_words
from pbem.games.kingsburg.data import BUILDINGS, ROWS
from pbem.games.kingsburg.render import hand_lines
from pbem.games.svg import NARROW_TEXT, NARROW_WIDTH, escape, fitted, text_block
from pbem.games.text import _, seat_name

MARK = 6  # the height of the strip under a building's name where its builders' colours stand


def render_mail_svg(v: Mapping[str, Any], names: Sequence[str]) -> str:
    x, inner = 4, NARROW_WIDTH - 8
    out, y = _narrow_legend(v, names, x, 4, inner)
    court, y = _narrow_court(v, names, x, y + 4, inner, printed=False, columns=3)
    out += court
    grid, y = _grid(v, x, y + 2)
    out += grid
    return narrow_svg(NARROW_WIDTH, round(y + 4), out)


def mail_caption(v: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """The lines the narrow board shows above its legend, and each player's sheet less its
    buildings (name, victory points, goods, tokens, soldiers, dice in hand), said in the
    mail's words."""
    return heading(v, names) + [
        _counters(v["players"][seat], f"{i + 1}. {seat_name(names, seat)}", seat == v["envoy"])
        for i, seat in enumerate(v["order"])
    ]


def _counters(p: Mapping[str, Any], name: str, envoy: bool) -> str:
    """A player's name and victory points, their goods, tokens and soldiers, their dice in
    hand, on one line."""
    return "; ".join([*sheet_words(p, name, envoy), *hand_lines(p)])


def _grid(v: Mapping[str, Any], x: int, y: float) -> tuple[list[str], float]:
    """The buildings four to a row, each name on one or two lines, and under it a strip with
    one place per player (in turn order): the player's colour where they built it."""
    order = list(v["order"])
    owned = {seat: set(v["players"][seat]["buildings"]) for seat in order}
    cell_w = (NARROW_WIDTH - 2 * x) // 4
    high = 29 + MARK
    legend = _("Buildings: a bar in each builder's colour")
    out, y = text_block(x, y + 11, legend, NARROW_TEXT, NARROW_WIDTH - 2 * x, ' fill="#444"')
    y -= 8
    for row in ROWS.values():
        for c, b in enumerate(row):
            bx = x + c * cell_w
            out.append(
                f'<rect x="{bx}" y="{y:.1f}" width="{cell_w - 3}" height="{high}" fill="#eeeeee" stroke="#555"/>'
            )
            for n, line in enumerate(fitted(BUILDINGS[b].name, NARROW_TEXT, cell_w - 7)[:2]):
                out.append(f'<text x="{bx + 3}" y="{y + 12 + n * 12:.1f}" fill="#333">{escape(line)}</text>')
            place = (cell_w - 3) / len(order)
            for i, seat in enumerate(order):
                if b in owned[seat]:
                    out.append(
                        f'<rect x="{bx + i * place:.1f}" y="{y + high - MARK:.1f}" width="{place:.1f}" '
                        f'height="{MARK}" fill="{_colour(seat)}"/>'
                    )
        y += high + 3
    return out, y
