"""The board for a narrow screen (``GameSpec.render_narrow_svg``): the map of render.py with two
countries to a row, ``NARROW_WIDTH`` wide; a province's circle shows how many units of each kind
stand there and its title says them all, and the text picture's list of the provinces follows
the map, each line fitted to the width (tap the picture for the map at full size)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.svg import NARROW_TEXT, NARROW_WIDTH, escape, fitted, text_block
from pbem.games.warriors_traders import words
from pbem.games.warriors_traders.data import MAPS
from pbem.games.warriors_traders.render import (
    COLOURS,
    SHORT,
    TYPE_MARK,
    _holder,
    _unit_text,
    _units_by_province,
    render_text,
)

CELL = (NARROW_WIDTH - 8) / 2  # a country's square
RING = 56  # the radius its provinces stand on
DOT = 17  # a province's radius


def layout(map_name: str, top: float) -> dict[str, tuple[float, float]]:
    """Province centres: countries two to a row in play order, provinces on a ring."""
    points: dict[str, tuple[float, float]] = {}
    for i, country in enumerate(MAPS[map_name].countries):
        cx, cy = 4 + CELL * (i % 2 + 0.5), top + CELL * (i // 2 + 0.5)
        n = len(country.provinces)
        for j, pid in enumerate(country.provinces):
            angle = 2 * math.pi * j / n - math.pi / 2
            points[pid] = (cx + RING * math.cos(angle), cy + RING * math.sin(angle))
    return points


def counted(units: Sequence[Mapping[str, Any]]) -> str:
    """The units of a province in a few letters: "F 4P" for a fort and four princesses."""
    counts = Counter(SHORT[u["kind"]] for u in units)
    return " ".join(f"{n if n > 1 else ''}{kind}" for kind, n in counts.items())


def render_narrow_svg(view: Mapping[str, Any], names: Sequence[str], lists: bool = True) -> str:
    """The narrow board; without ``lists`` (a mail's picture) it ends under the map: the list
    of the provinces and the units' legend are in the mail's text beside it."""
    x, inner = 4, NARROW_WIDTH - 8
    text = render_text(view, names).splitlines()
    first_province = next((i for i, line in enumerate(text) if line.startswith("[")), len(text))
    parts, y = text_block(x, 17, text[0], 14, inner, ' font-weight="bold"')
    for line in text[1:first_province]:
        drawn, y = text_block(x, y, line, 12, inner)
        parts += drawn
    gmap = MAPS[view["map"]]
    top = y + 4
    parts += _map(view, names, top)
    y = top + CELL * ((len(gmap.countries) + 1) // 2) + 16
    for line in text[first_province:] if lists else []:
        indent = x + 10 if line.startswith(" ") else x
        weight = "" if line.startswith(" ") else ' font-weight="bold"'
        drawn, y = text_block(indent, y, line.strip(), 12, inner - (indent - x), weight)
        parts += drawn
    height = round(y)
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{NARROW_WIDTH}" height="{height}" '
        f'viewBox="0 0 {NARROW_WIDTH} {height}" font-family="sans-serif" font-size="{NARROW_TEXT}">'
        f"<title>{escape(words.map_title(view['map'], view['map_title']))} — {escape(view['label'])}</title>"
    )
    return "\n".join([head, *parts, "</svg>"])


def _map(view: Mapping[str, Any], names: Sequence[str], top: float) -> list[str]:
    gmap = MAPS[view["map"]]
    pos = layout(view["map"], top)
    units = _units_by_province(view)
    out = []
    for a, b, kind in gmap.edges:
        (x1, y1), (x2, y2) = pos[a], pos[b]
        dash = ' stroke-dasharray="5 3"' if kind == "sea" else ""
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#aaa"{dash}/>')
    for i, country in enumerate(gmap.countries):
        cx, cy = 4 + CELL * (i % 2 + 0.5), top + CELL * (i // 2 + 0.5)
        lines = fitted(f"{country.name} ({country.order})", NARROW_TEXT, 2 * (RING - DOT) - 4)[:3]
        for n, line in enumerate(lines):
            y = cy + 4 + 13 * (n - (len(lines) - 1) / 2)
            out.append(f'<text x="{cx:.1f}" y="{y:.1f}" text-anchor="middle" fill="#555">{escape(line)}</text>')
    for prov in view["provinces"]:
        out += _province(prov, units.get(prov["id"], []), names, *pos[prov["id"]])
    return out


def _province(
    prov: Mapping[str, Any], present: list[dict[str, Any]], names: Sequence[str], x: float, y: float
) -> list[str]:
    """A province's circle in its holder's colour, its name's first letters above it, its
    units counted inside; its title says everything the text picture does."""
    owner = prov["owner"]
    holder, barbarian = _holder(names, prov, present)
    fill = COLOURS[owner % len(COLOURS)] if owner is not None else ("#777" if barbarian else "#eee")
    width = ' stroke-width="3"' if prov["type"] == "capital" else ""
    said = f"{prov['id']}{TYPE_MARK[prov['type']]} ({holder}): {' '.join(_unit_text(u) for u in present)}"
    short = prov["id"].split("_", 1)[-1][:5] + TYPE_MARK[prov["type"]]
    ink = "#111" if fill == "#eee" else "#fff"
    return [
        f"<g><title>{escape(prov['name'])} ({escape(words.province_key(prov['type']))}): {escape(said)}</title>",
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{DOT}" fill="{fill}" stroke="#333"{width}/>',
        f'<text x="{x:.1f}" y="{y - DOT - 3:.1f}" text-anchor="middle">{escape(short)}</text>',
        f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" fill="{ink}">{escape(counted(present))}</text>',
        "</g>",
    ]


def render_mail_svg(view: Mapping[str, Any], names: Sequence[str]) -> str:
    """The board picture of a mail: the narrow board without the lists the mail's text says."""
    return render_narrow_svg(view, names, lists=False)
