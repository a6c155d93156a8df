"""The board for a narrow screen (``GameSpec.render_narrow_svg``): the map of render.py with two
countries to a row, ``NARROW_WIDTH`` wide; a province's circle shows how many units of each kind
stand there and its title says them all, and the text picture's list of the provinces follows
the map, each line fitted to the width (tap the picture for the map at full size)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Rings:
    """Where a country's provinces stand: on an ellipse ``across`` by ``down`` (radii) in the
    middle of a cell ``CELL`` wide and ``high`` tall."""

    across: float = RING
    down: float = RING
    high: float = CELL


SQUARE = Rings()  # the web's narrow board: round rings in square cells
FLAT = Rings(across=60, down=46, high=146)  # a mail's picture: rings pressed flat, a third lower


def layout(map_name: str, top: float, rings: Rings = SQUARE) -> dict[str, tuple[float, float]]:
    """Province centres: countries two to a row in play order, provinces on a ring."""
    points: dict[str, tuple[float, float]] = {}
    for i, country in enumerate(MAPS[map_name].countries):
        cx, cy = 4 + CELL * (i % 2 + 0.5), top + rings.high * (i // 2 + 0.5)
        n = len(country.provinces)
        for j, pid in enumerate(country.provinces):
            angle = 2 * math.pi * j / n - math.pi / 2
            points[pid] = (cx + rings.across * math.cos(angle), cy + rings.down * math.sin(angle))
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


def _map(view: Mapping[str, Any], names: Sequence[str], top: float, rings: Rings = SQUARE) -> list[str]:
    gmap = MAPS[view["map"]]
    pos = layout(view["map"], top, rings)
    units = _units_by_province(view)
    out = _borders(gmap.edges, pos, apart=rings is FLAT)
    for i, country in enumerate(gmap.countries):
        cx, cy = 4 + CELL * (i % 2 + 0.5), top + rings.high * (i // 2 + 0.5)
        lines = fitted(f"{country.name} ({country.order})", NARROW_TEXT, 2 * (rings.across - DOT) - 4)[:3]
        for n, line in enumerate(lines):
            y = cy + 4 + 13 * (n - (len(lines) - 1) / 2)
            out.append(f'<text x="{cx:.1f}" y="{y:.1f}" text-anchor="middle" fill="#555">{escape(line)}</text>')
    for prov in view["provinces"]:
        out += _province(prov, units.get(prov["id"], []), names, *pos[prov["id"]], titled=rings is SQUARE)
    return out


def _borders(edges: Sequence[tuple[str, str, str]], pos: Mapping[str, tuple[float, float]], apart: bool) -> list[str]:
    """The borders, land and sea (dashed): on the page as two paths, in a mail's picture
    (``apart``) a path each, which its renderer draws in half the time of the two long paths
    whose lines cross the whole map (docs/benchmarks.md)."""
    out = []
    for sea, dash in ((False, ""), (True, ' stroke-dasharray="5 3"')):
        ways = [
            f"M{pos[a][0]:.1f} {pos[a][1]:.1f}L{pos[b][0]:.1f} {pos[b][1]:.1f}"
            for a, b, kind in edges
            if (kind == "sea") == sea
        ]
        shapes = ways if apart else [" ".join(ways)] if ways else []
        out += [f'<path d="{way}" fill="none" stroke="#aaa"{dash}/>' for way in shapes]
    return out


def _province(
    prov: Mapping[str, Any], present: list[dict[str, Any]], names: Sequence[str], x: float, y: float, titled: bool
) -> list[str]:
    """A province's circle in its holder's colour, its name's first letters above it, its
    units counted inside; its title (``titled``: not in a mail's picture, where nobody can
    point at it) says everything the text picture does."""
    owner = prov["owner"]
    holder, barbarian = _holder(names, prov, present)
    fill = COLOURS[owner % len(COLOURS)] if owner is not None else ("#777" if barbarian else "#eee")
    width = ' stroke-width="3"' if prov["type"] == "capital" else ""
    short = prov["id"].split("_", 1)[-1][:5] + TYPE_MARK[prov["type"]]
    ink = "#111" if fill == "#eee" else "#fff"
    drawn = [
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{DOT}" fill="{fill}" stroke="#333"{width}/>',
        f'<text x="{x:.1f}" y="{y - DOT - 3:.1f}" text-anchor="middle">{escape(short)}</text>',
        f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" fill="{ink}">{escape(counted(present))}</text>',
    ]
    if not titled:
        return drawn
    said = f"{prov['id']}{TYPE_MARK[prov['type']]} ({holder}): {' '.join(_unit_text(u) for u in present)}"
    title = f"{escape(prov['name'])} ({escape(words.province_key(prov['type']))}): {escape(said)}"
    return [f"<g><title>{title}</title>", *drawn, "</g>"]


def render_mail_svg(view: Mapping[str, Any], names: Sequence[str]) -> str:
    """The board picture of a mail: the narrow board's map alone, its rings pressed flat; the
    lines above it are the mail's words beside it (``mail_caption``), the lists under it are
    in the text part."""
    gmap = MAPS[view["map"]]
    height = round(4 + FLAT.high * ((len(gmap.countries) + 1) // 2) + 4)
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{NARROW_WIDTH}" height="{height}" '
        f'viewBox="0 0 {NARROW_WIDTH} {height}" font-family="sans-serif" font-size="{NARROW_TEXT}">'
    )
    return "\n".join([head, *_map(view, names, 4, FLAT), "</svg>"])


def mail_caption(view: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """The lines above the map (title, victory, the players' lines, wars, offers, a battle),
    which a mail says in words beside its picture."""
    text = render_text(view, names).splitlines()
    return text[: next((i for i, line in enumerate(text) if line.startswith("[")), len(text))]
