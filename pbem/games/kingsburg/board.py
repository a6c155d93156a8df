"""The SVG board: the court with every group of dice in its owner's colour (a legend for the
neutral and the King's aid dice), each advisor's gifts, and each player's sheet with goods,
tokens, soldiers, the dice in hand and the buildings with their costs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.kingsburg.data import ADVISORS, BUILDINGS, COURT_SPOTS, GOODS, ROWS
from pbem.games.kingsburg.moves import spoken
from pbem.games.kingsburg.render import COLOURS, amount, enemy_line, group_text, hand_lines
from pbem.games.svg import CHAR_WIDTH, NARROW_TEXT, NARROW_WIDTH, escape, fitted, text_block
from pbem.games.text import _, pgettext, seat_name


def _colour(seat: int) -> str:
    return "#7f8c8d" if seat < 0 else COLOURS[seat % len(COLOURS)]


def gift_text(advisor: int) -> str:
    """An advisor's help in a few characters ("1g or 1w"; g/w/s = gold, wood, stone)."""

    def bundle(gift: Mapping[str, Any]) -> str:
        parts = []
        for key in ("vp", "gold", "wood", "stone", "any", "soldiers", "plus2", "peek", "alchemist"):
            n = gift.get(key)
            if not n:
                continue
            parts.append(short(key, n))
        return " ".join(parts)

    return _(" or ").join(bundle(gift) for gift in ADVISORS[advisor].gifts)


def short(key: str, n: int) -> str:
    """One part of a gift in a few characters, for the board's advisor cells."""
    forms = {
        "vp": lambda: amount("vp", n, signed=n < 0),
        "gold": lambda: pgettext("kingsburg short", "{n}g", n=n),
        "wood": lambda: pgettext("kingsburg short", "{n}w", n=n),
        "stone": lambda: pgettext("kingsburg short", "{n}s", n=n),
        "any": lambda: pgettext("kingsburg short", "{n} any", n=n),
        "soldiers": lambda: amount("soldiers", n),
        "plus2": lambda: _("+2 token"),
        "peek": lambda: _("see enemy"),
        "alchemist": lambda: _("1 good: 1 of each other"),
    }
    return forms[key]()


def render_svg(v: Mapping[str, Any], names: Sequence[str]) -> str:
    cell_w, cell_h = 150, 64
    sheet_w = 4 * 92 + 20
    width = max(6 * cell_w + 20, len(v["players"]) * (sheet_w + 10) + 10)
    court_top = 70
    height = court_top + 3 * cell_h + 24 + 300
    title, *facts = heading(v, names)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        f'<text x="10" y="22" font-size="18" font-weight="bold">{escape(title)}</text>',
        f'<text x="10" y="42" font-size="12">{escape(" | ".join(facts))}</text>',
    ]
    out += _legend_svg(v, names, 10, 50)
    groups = {spot["advisor"]: spot["groups"] for spot in v["court"]}
    for a in range(1, COURT_SPOTS):
        x, y = 10 + ((a - 1) % 6) * cell_w, court_top + ((a - 1) // 6) * cell_h
        out.append(f'<rect x="{x}" y="{y}" width="{cell_w - 6}" height="{cell_h - 6}" fill="#f8f4e8" stroke="#555"/>')
        out.append(f'<text x="{x + 4}" y="{y + 13}">{a} {escape(ADVISORS[a].name)}</text>')
        out.append(f'<text x="{x + 4}" y="{y + 54}" font-size="9" fill="#444">{escape(gift_text(a))}</text>')
        dx = x + 4
        for g in groups.get(a, []):
            out.append(f"<g><title>{escape(group_text(g, names))}</title>")
            for value, white in [*((d, False) for d in g["dice"]), *((w, True) for w in g["white"])]:
                out.append(_die_svg(dx, y + 18, value, g["seat"], white))
                dx += 23
            if g["plus2"]:
                out.append(f'<text x="{dx}" y="{y + 32}">+2</text>')
                dx += 18
            if g["envoy"]:
                out.append(f'<text x="{dx}" y="{y + 32}" font-weight="bold">{escape(spoken("envoy"))}</text>')
                dx += 36
            out.append("</g>")
            dx += 6
    legend = _("Court: each group of dice in its owner colour")
    out.append(f'<text x="{width - 10}" y="{court_top - 4}" text-anchor="end" fill="#444">{escape(legend)}</text>')
    top = court_top + 3 * cell_h + 14
    for i, seat in enumerate(v["order"]):
        p = v["players"][seat]
        out += _sheet_svg(p, f"{i + 1}. {seat_name(names, seat)}", 10 + i * (sheet_w + 10), top, seat == v["envoy"])
    out.append("</svg>")
    return "\n".join(out)


def _die_svg(x: int, y: int, value: int, seat: int, white: bool) -> str:
    """One die: the seat's colour, grey for the neutral dice, white for the King's aid."""
    fill = "#ffffff" if white else _colour(seat)
    return (
        f'<rect x="{x}" y="{y}" width="20" height="20" rx="3" fill="{fill}" stroke="#222"/>'
        f'<text x="{x + 6}" y="{y + 14}" fill="{"#000" if white else "#fff"}">{value}</text>'
    )


def _legend_svg(v: Mapping[str, Any], names: Sequence[str], x: int, y: int) -> list[str]:
    """What the colours of the dice mean: each seat's, the neutral (grey) dice that block an
    advisor, the King's aid (white)."""
    out = []
    entries = [(seat, False, seat_name(names, seat)) for seat in v["order"]]
    entries += [(-1, False, _("neutral (blocks the advisor)")), (0, True, _("King's aid die"))]
    for seat, white, label in entries:
        fill = "#ffffff" if white else _colour(seat)
        out.append(
            f'<rect x="{x}" y="{y + 2}" width="10" height="10" fill="{fill}" stroke="#222"/>'
            f'<text x="{x + 14}" y="{y + 11}">{escape(label)}</text>'
        )
        x += 24 + 6 * len(label)
    return out


def sheet_words(p: Mapping[str, Any], name: str, envoy: bool) -> tuple[str, str]:
    """A player's sheet in words, as the wide board and the turn mail's caption say it: the
    name with victory points (and the envoy), then goods, tokens and soldiers."""
    head = f"{name}: {amount('vp', p['vp'])}" + (", " + spoken("envoy") if envoy else "")
    counters = _(
        "{gold}, {wood}, {stone}, {plus2}, {soldiers}",
        gold=amount("gold", p["gold"]),
        wood=amount("wood", p["wood"]),
        stone=amount("stone", p["stone"]),
        plus2=amount("plus2", p["plus2"]),
        soldiers=amount("soldiers", p["soldiers"]),
    )
    return head, counters


def _sheet_svg(p: Mapping[str, Any], name: str, x: int, y: int, envoy: bool = False) -> list[str]:
    colour = _colour(p["seat"])
    head, counters = sheet_words(p, name, envoy)
    out = [
        f'<text x="{x}" y="{y + 12}" fill="{colour}" font-size="13" font-weight="bold">{escape(head)}</text>',
        f'<text x="{x}" y="{y + 28}">{escape(counters)}</text>',
    ]
    for line in hand_lines(p):
        out.append(f'<text x="{x}" y="{y + 44}">{escape(line)}</text>')
        y += 16
    owned = set(p["buildings"])
    for r, row in enumerate(ROWS.values()):
        for c, b in enumerate(row):
            bx, by = x + c * 92, y + 36 + r * 40
            fill = colour if b in owned else "#eeeeee"
            text = "#fff" if b in owned else "#333"
            out.append(
                f'<rect x="{bx}" y="{by}" width="88" height="36" fill="{fill}" stroke="#555"/>'
                f'<text x="{bx + 3}" y="{by + 15}" fill="{text}">{escape(BUILDINGS[b].name)}</text>'
                f'<text x="{bx + 3}" y="{by + 29}" fill="{text}">{_cost_text(b)}</text>'
            )
    return out


def _cost_text(building: str) -> str:
    b = BUILDINGS[building]
    cost = " ".join(short(g, n) for g, n in zip(GOODS, b.cost, strict=False) if n)
    return f"{cost} / {amount('vp', b.vp)}"


def render_narrow_svg(v: Mapping[str, Any], names: Sequence[str], printed: bool = True) -> str:
    """The board for a narrow screen: the same content stacked in one column ``NARROW_WIDTH``
    wide (the court two advisors a row, then each player's sheet under the other), no word
    under ``NARROW_TEXT`` units. Without ``printed`` (a mail's picture) the advisors' gifts and
    the buildings' costs, which the rules fix and the board prints, are left out."""
    width, x = NARROW_WIDTH, 4
    inner = width - 2 * x
    title, *facts = heading(v, names)
    out, y = text_block(x, 18, title, 15, inner, ' font-weight="bold"')
    for fact in facts:
        lines, y = text_block(x, y, fact, 12, inner)
        out += lines
    legend, y = _narrow_legend(v, names, x, y, inner)
    out += legend
    court, y = _narrow_court(v, names, x, y + 4, inner, printed)
    out += court
    for i, seat in enumerate(v["order"]):
        sheet, y = _narrow_sheet(
            v["players"][seat], f"{i + 1}. {seat_name(names, seat)}", x, y + 10, seat == v["envoy"], printed
        )
        out += sheet
    return narrow_svg(width, round(y + 6), out)


def narrow_svg(width: int, height: int, parts: list[str]) -> str:
    """A narrow board's drawing (the web page's and the turn mail's): its parts in one SVG."""
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="{NARROW_TEXT}">'
    )
    return "\n".join([head, *parts, "</svg>"])


def heading(v: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """The lines above the narrow board: its title (the season, whom it waits for), the turn
    order, the enemy, the envoy and the King's aid."""
    waiting = ", ".join(seat_name(names, s) for s in v["to_move"])
    title = f"Kingsburg - {v['label']}" + (" - " + _("Waiting for: {players}", players=waiting) if waiting else "")
    facts = [
        _("turn order: {order}", order=", ".join(seat_name(names, s) for s in v["order"])),
        enemy_line(v),
        _("King's envoy: {player}", player=seat_name(names, v["envoy"])),
    ]
    if v["aid"] is not None:
        facts.append(_("King's aid (white die): {player}", player=seat_name(names, v["aid"])))
    return [title, *facts]


def _narrow_legend(v: Mapping[str, Any], names: Sequence[str], x: int, y: float, width: int) -> tuple[list[str], float]:
    """The dice colours, as many to a line as fit."""
    entries = [(seat, False, seat_name(names, seat)) for seat in v["order"]]
    entries += [(-1, False, _("neutral (blocks the advisor)")), (0, True, _("King's aid die"))]
    out, dx = [], x
    for seat, white, label in entries:
        room = 16 + CHAR_WIDTH * NARROW_TEXT * len(label)
        if dx > x and dx + room > x + width:
            dx, y = x, y + 16
        fill = "#ffffff" if white else _colour(seat)
        out.append(
            f'<rect x="{dx}" y="{y + 2:.1f}" width="11" height="11" fill="{fill}" stroke="#222"/>'
            f'<text x="{dx + 15}" y="{y + 12:.1f}">{escape(label)}</text>'
        )
        dx += round(room) + 10
    return out, y + 20


def _narrow_court(
    v: Mapping[str, Any], names: Sequence[str], x: int, y: float, width: int, printed: bool = True, columns: int = 2
) -> tuple[list[str], float]:
    """The advisors ``columns`` to a row; each cell as tall as its groups of dice need. Two
    columns (the web's) under a line saying whose dice are whose; three (a mail's) with the
    legend above it alone, for each word drawn costs time for every mail."""
    out = []
    if columns == 2:
        legend = _("Court: each group of dice in its owner colour")
        out.append(f'<text x="{x}" y="{y + 11:.1f}" fill="#444">{escape(legend)}</text>')
        y += 18
    groups = {spot["advisor"]: spot["groups"] for spot in v["court"]}
    cell_w = (width - 6 * (columns - 1)) // columns
    advisors = list(range(1, COURT_SPOTS))
    for row in range(0, len(advisors), columns):
        cells = [
            _narrow_advisor(a, groups.get(a, []), names, x + i * (cell_w + 6), y, cell_w, printed)
            for i, a in enumerate(advisors[row : row + columns])
        ]
        height = max(h for _, h in cells)
        for i, (parts, _h) in enumerate(cells):
            cx = x + i * (cell_w + 6)
            out.append(
                f'<rect x="{cx}" y="{y:.1f}" width="{cell_w}" height="{height:.1f}" fill="#f8f4e8" stroke="#555"/>'
            )
            out += parts
        y += height + 6
    return out, y


def _narrow_advisor(
    a: int, groups: list[Mapping[str, Any]], names: Sequence[str], x: int, y: float, width: int, printed: bool = True
) -> tuple[list[str], float]:
    """One advisor's cell: its number and name, the groups of dice on it, its gifts."""
    out, bottom = text_block(x + 4, y + 13, f"{a} {ADVISORS[a].name}", NARROW_TEXT, width - 8, ' font-weight="bold"')
    dx, dy = x + 4, bottom - 8
    for g in groups:
        pieces = [*((d, False) for d in g["dice"]), *((w, True) for w in g["white"])]
        need = 23 * len(pieces) + (20 if g["plus2"] else 0) + (40 if g["envoy"] else 0)
        if dx > x + 4 and dx + need > x + width:
            dx, dy = x + 4, dy + 24
        out.append(f"<g><title>{escape(group_text(g, names))}</title>")
        for value, white in pieces:
            out.append(_die_svg(dx, round(dy), value, g["seat"], white))
            dx += 23
        if g["plus2"]:
            out.append(f'<text x="{dx}" y="{dy + 14:.1f}">+2</text>')
            dx += 20
        if g["envoy"]:
            out.append(f'<text x="{dx}" y="{dy + 14:.1f}" font-weight="bold">{escape(spoken("envoy"))}</text>')
            dx += 40
        out.append("</g>")
        dx += 6
    if groups:
        dy += 24
    if not printed:
        return out, dy + 4 - y
    gifts, bottom = text_block(x + 4, dy + 11, gift_text(a), NARROW_TEXT, width - 8, ' fill="#444"')
    return out + gifts, bottom - 14 + 8 - y


def _narrow_sheet(
    p: Mapping[str, Any], name: str, x: int, y: float, envoy: bool, printed: bool = True
) -> tuple[list[str], float]:
    """A player's sheet: name and counters, the dice in hand, the buildings four to a row,
    their names on two lines where one is too long."""
    colour = _colour(p["seat"])
    head = f"{name}: {amount('vp', p['vp'])}" + (", " + spoken("envoy") if envoy else "")
    counters = _(
        "{gold}, {wood}, {stone}, {plus2}, {soldiers}",
        gold=amount("gold", p["gold"]),
        wood=amount("wood", p["wood"]),
        stone=amount("stone", p["stone"]),
        plus2=amount("plus2", p["plus2"]),
        soldiers=amount("soldiers", p["soldiers"]),
    )
    out, y = text_block(x, y + 13, head, 13, NARROW_WIDTH - 2 * x, f' fill="{colour}" font-weight="bold"')
    for line in [counters, *hand_lines(p)]:
        lines, y = text_block(x, y, line, NARROW_TEXT, NARROW_WIDTH - 2 * x)
        out += lines
    owned = set(p["buildings"])
    cell_w = (NARROW_WIDTH - 2 * x) // 4
    high = 44 if printed else 31  # a name on two lines, and the cost under it
    y -= 8
    for row in ROWS.values():
        for c, b in enumerate(row):
            bx = x + c * cell_w
            fill, ink = (colour, "#fff") if b in owned else ("#eeeeee", "#333")
            out.append(f'<rect x="{bx}" y="{y:.1f}" width="{cell_w - 3}" height="{high}" fill="{fill}" stroke="#555"/>')
            label = fitted(BUILDINGS[b].name, NARROW_TEXT, cell_w - 7)[:2]
            for n, line in enumerate(label):
                out.append(f'<text x="{bx + 3}" y="{y + 13 + n * 13:.1f}" fill="{ink}">{escape(line)}</text>')
            if printed:
                out.append(f'<text x="{bx + 3}" y="{y + 40:.1f}" fill="{ink}">{escape(_cost_text(b))}</text>')
        y += high + 3
    return out, y
