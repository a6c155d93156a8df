"""The board for a narrow screen (``GameSpec.render_narrow_svg``): the map of render.py drawn
``NARROW_WIDTH`` wide, its hexes without their own coordinates (the column letters and row
numbers at the edges say them, and each hex's title), the lines under it fitted to the width."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.svg import NARROW_TEXT, NARROW_WIDTH, escape, text_block
from pbem.games.text import _, ngettext, seat_name

from .board import COLUMNS, SIZE, hex_of
from .data import location_name, terrain_name
from .render import ABBREV, FILL, SEAT_COLOURS, _occupants, _status, _svg_lines, colour_name, terrain_legend

LEFT = 20  # room for the row numbers
W = (NARROW_WIDTH - LEFT - 4) / (SIZE + 0.5)  # a hex's width
R = W / 3**0.5  # and its radius


def _centre(r: int, c: int, top: float) -> tuple[float, float]:
    return LEFT + W * (c + 0.5 + 0.5 * (r % 2)), top + R + 1.5 * R * r


def render_narrow_svg(view: Mapping[str, Any], names: Sequence[str], lists: bool = True) -> str:
    """The narrow board; without ``lists`` (a mail's picture) the lines under the legend (the
    locations' tiles, the kingdom cards, the players' supplies) are left out: the mail's text
    says them beside it. The final score stays."""
    x, inner = 4, NARROW_WIDTH - 8
    title = _("Game over.") if view["over"] else _status(view, names)
    parts, y = text_block(x, 16, title, 12.5, inner, ' font-weight="bold"')
    top = y + 8
    parts += [
        f'<text x="{LEFT + W * (c + 0.5):.1f}" y="{top - 3:.1f}" text-anchor="middle">{COLUMNS[c]}</text>'
        for c in range(SIZE)
    ]
    occupants = _occupants(view)
    locs = {hex_of(loc["hex"]): loc for loc in view["locations"]}
    for r, row in enumerate(view["terrain"]):
        parts.append(f'<text x="1" y="{_centre(r, 0, top)[1] + 4:.1f}">{r + 1}</text>')
        for c, code in enumerate(row):
            parts += _hex(r, c, code, occupants.get(r * SIZE + c), locs.get(r * SIZE + c), top, names)
    y = top + 1.5 * R * SIZE + R + 16
    legend, y = _legend(view, names, x, y, inner)
    parts += legend
    lines = _svg_lines(view, names) if lists else []
    if view["over"]:
        lines += [part.strip() for part in _status(view, names).split(";")]
    for line in lines:
        drawn, y = text_block(x, y, line, 12, inner)
        parts += drawn
    height = round(y)
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{NARROW_WIDTH}" height="{height}" '
        f'viewBox="0 0 {NARROW_WIDTH} {height}" font-family="sans-serif" font-size="{NARROW_TEXT}">'
        f'<rect width="{NARROW_WIDTH}" height="{height}" fill="#fafafa"/>'
    )
    return "\n".join([head, *parts, "</svg>"])


def _hex(
    r: int, c: int, code: str, occupant: int | None, loc: Mapping[str, Any] | None, top: float, names: Sequence[str]
) -> list[str]:
    """One hex: its terrain's colour, a location's letters or a castle, a settlement's disc;
    its title says the hex, the settlement's owner and the tiles left."""
    x, y = _centre(r, c, top)
    label = f"{COLUMNS[c]}{r + 1}"
    said = label
    points = " ".join(
        f"{x + dx:.1f},{y + dy:.1f}"
        for dx, dy in ((0, -R), (W / 2, -R / 2), (W / 2, R / 2), (0, R), (-W / 2, R / 2), (-W / 2, -R / 2))
    )
    parts = [f'<polygon points="{points}" fill="{FILL.get(code, "#fff")}" stroke="#555" stroke-width="0.6"/>']
    if occupant is not None:
        said = _("{hex}: settlement of {who}", hex=label, who=seat_name(names, occupant))
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{R * 0.55:.1f}" fill="{SEAT_COLOURS[occupant]}" stroke="#000"/>'
        )
    elif loc is not None:
        said = ngettext(
            "{tile} {hex}: {n} tile left",
            "{tile} {hex}: {n} tiles left",
            loc["tiles"],
            tile=location_name(loc["type"]),
            hex=label,
        )
        parts.append(
            f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" font-weight="bold">{ABBREV[loc["type"]]}</text>'
        )
    elif code == "K":
        parts.append(f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle">&#9820;</text>')
    return [f"<g><title>{escape(said)}</title>", *parts, "</g>"]


def _legend(view: Mapping[str, Any], names: Sequence[str], x: int, y: float, width: int) -> tuple[list[str], float]:
    """The terrains' colours as many to a line as fit, then each player's colour and supply."""
    out, dx = [], x
    for code, label in terrain_legend():
        room = 16 + 0.6 * NARROW_TEXT * len(label)
        if dx > x and dx + room > x + width:
            dx, y = x, y + 16
        out.append(
            f'<rect x="{dx}" y="{y - 10:.1f}" width="11" height="11" fill="{FILL[code]}" stroke="#555"/>'
            f'<text x="{dx + 14:.0f}" y="{y:.1f}">{escape(label)}</text>'
        )
        dx += round(room) + 6
    y += 18
    for seat in range(view["players"]):
        label = _(
            "{who} ({colour}): {n} left", who=seat_name(names, seat), colour=colour_name(seat), n=view["supply"][seat]
        )
        if view["over"]:
            label += ", " + ngettext("{n} gold", "{n} gold", view["scores"][seat]["total"])
        elif seat == view["seat"]:
            label += ", " + _("to move ({terrain})", terrain=terrain_name(view["played"]))
        out.append(f'<circle cx="{x + 6}" cy="{y - 4:.1f}" r="6" fill="{SEAT_COLOURS[seat]}" stroke="#000"/>')
        drawn, y = text_block(x + 16, y, label, 12, width - 16)
        out += drawn
    return out, y + 4


def render_mail_svg(view: Mapping[str, Any], names: Sequence[str]) -> str:
    """The board picture of a mail: the narrow board without the lists the mail's text says."""
    return render_narrow_svg(view, names, lists=False)
