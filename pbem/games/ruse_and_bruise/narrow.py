"""The board for a narrow screen (``GameSpec.render_narrow_svg``): the picture of render.py in
one column ``NARROW_WIDTH`` wide: the columns two to a row with their cards under them, the
players, the hand and the scores below, each line fitted to the width."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.svg import NARROW_TEXT, NARROW_WIDTH, escape, fitted, text_block
from pbem.games.text import _, seat_name

from .cards import CARDS, suit_name
from .render import COLOURS, _shown, _svg_lines, _waiting, column_state, game_title

GAP = 6


def render_narrow_svg(view: Mapping[str, Any], names: Sequence[str], lists: bool = True) -> str:
    """The narrow board; without ``lists`` (a mail's picture) the goals each player won are
    left out (the mail's text lists them beside it), their counts, the hand and the scores
    stay."""
    x, inner = 4, NARROW_WIDTH - 8
    title = f"{game_title()}: {view['phase']}"
    if view["to_move"]:
        title += " - " + _("To move: {players}", players=", ".join(seat_name(names, seat) for seat in view["to_move"]))
    parts, y = text_block(x, 17, title, 14, inner, ' font-weight="bold"')
    if view["pending"]:
        lines, y = text_block(x, y, _waiting(view, names), 12, inner)
        parts += lines
    width = (inner - GAP) // 2
    columns = view["columns"]
    for row in range(0, len(columns), 2):
        bottoms = []
        for i, column in enumerate(columns[row : row + 2]):
            drawn, bottom = _column(column, names, x + i * (width + GAP), y, width)
            parts += drawn
            bottoms.append(bottom)
        y = max(bottoms) + 8
    below = [(_("Players:"), True), *((line, bold) for line, bold in _svg_lines(view, names) if bold or lists)]
    y += 8
    for line, bold in below:
        drawn, y = text_block(x, y, line, 12, inner, ' font-weight="bold"' if bold else "")
        parts += drawn
    height = round(y)
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{NARROW_WIDTH}" height="{height}" '
        f'viewBox="0 0 {NARROW_WIDTH} {height}" font-family="sans-serif" font-size="12">'
    )
    return "\n".join([head, *parts, "</svg>"]) + "\n"


def _column(column: Mapping[str, Any], names: Sequence[str], x: int, y: float, width: int) -> tuple[list[str], float]:
    """A goal column: its goal card, then its cards one under the other."""
    goal = column["goal"]
    fill = "#ddd" if column["closed"] else ("#cfe8cf" if column["filled"] else "#fff")
    head = _("Column {number}: {suit}", number=column["number"], suit=suit_name(goal["suit"]))
    parts = [f'<rect x="{x}" y="{y:.1f}" width="{width}" height="54" rx="6" fill="{fill}" stroke="#333"/>']
    parts.append(f'<text x="{x + 6}" y="{y + 17:.1f}">{escape(head)}</text>')
    parts.append(
        f'<text x="{x + 6}" y="{y + 44:.1f}"><tspan font-size="20">{goal["value"]}</tspan>'
        f" ({escape(column_state(column))})</text>"
    )
    y += 60
    for position, card in enumerate(column["cards"], start=1):
        drawn, y = _card(card, names, position, x, y, width)
        parts.append(drawn)
    return parts, y


def _card(
    card: Mapping[str, Any], names: Sequence[str], position: int, x: int, y: float, width: int
) -> tuple[str, float]:
    """A card in its owner's colour, its words on as many lines as they need; its title names
    the position, the owner and the card, as the wide picture's does."""
    colour = COLOURS[card["owner"] % len(COLOURS)]
    if card["card"] is None:
        label, face = (
            _("{who}: card back", who=seat_name(names, card["owner"])),
            f'fill="{colour}" stroke="#333" stroke-dasharray="4 2"',
        )
        ink = "#fff"
    else:
        name = CARDS[card["card"]].name
        label = (name if card["face_up"] else _("{card} (face down)", card=name)) + (" ↳" if card["tucked"] else "")
        face, ink = f'fill="#fff" stroke="{colour}" stroke-width="3"', "#111"
    lines = fitted(label, NARROW_TEXT + 1, width - 12)
    height = 12 + 15 * len(lines)
    title = f"<title>{position}. {escape(seat_name(names, card['owner']))}: {escape(_shown(card))}</title>"
    words = "".join(
        f'<text x="{x + 6}" y="{y + 19 + 15 * n:.1f}" fill="{ink}">{escape(line)}</text>'
        for n, line in enumerate(lines)
    )
    return (
        f'<g>{title}<rect x="{x}" y="{y:.1f}" width="{width}" height="{height}" rx="4" {face}/>{words}</g>',
        y + height + 4,
    )


def render_mail_svg(view: Mapping[str, Any], names: Sequence[str]) -> str:
    """The board picture of a mail: the narrow board without the goals won, which the mail's
    text says."""
    return render_narrow_svg(view, names, lists=False)
