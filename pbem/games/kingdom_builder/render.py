"""Views and pictures: the JSON view, a compact text map and an SVG hex map.

Coordinates are printed on every picture: column letters A-T across the top, row numbers
1-20 down the side (odd-numbered rows 2, 4, ... are drawn half a hex to the right).
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.svg import escape
from pbem.games.text import _, fitted, language, ngettext, pgettext, seat_name

from .board import COLUMNS, SIZE, hex_of, name
from .data import KINGDOM_CARDS, card_name, location_name, terrain_name
from .state import KBState

ABBREV = {
    "oracle": "OR",
    "farm": "FA",
    "oasis": "OA",
    "tower": "TO",
    "tavern": "TA",
    "barn": "BA",
    "harbor": "HA",
    "paddock": "PA",
}
FILL = {
    "G": "#a6d96a",
    "C": "#c98b5a",
    "D": "#f3e29b",
    "F": "#e7a6e0",
    "T": "#2e7d32",
    "W": "#6baed6",
    "M": "#8d8d8d",
    "K": "#d9d9d9",
    "L": "#fff3c4",
}
SEAT_COLOURS = ("#e41a1c", "#ffffff", "#222222", "#ff9900")


def colour_name(seat: int) -> str:
    """The colour of a seat's settlements, as the rulebook names the player colours."""
    names = (
        lambda: pgettext("colour", "red"),
        lambda: pgettext("colour", "white"),
        lambda: pgettext("colour", "black"),
        lambda: pgettext("colour", "orange"),
    )
    return names[seat]()


def tile_state(state: str) -> str:
    names = {"new": lambda: pgettext("tile", "new"), "used": lambda: pgettext("tile", "used")}
    return names[state]() if state in names else state


def _tile_state(state: KBState, seat: int, loc: int) -> str:
    if seat == state.seat and loc in state.fresh:
        return "new"
    return "used" if seat == state.seat and loc in state.used else "ready"


def make_view(state: KBState, viewer: int | None) -> dict[str, Any]:
    """What ``viewer`` sees: everything public, plus the viewer's own hidden terrain card."""
    board = state.board
    view: dict[str, Any] = {
        "players": state.players,
        "sections": [{"name": s, "rotated": r} for s, r in board.layout],
        "terrain": board.rows(),
        "castles": [name(h) for h in board.castles],
        "locations": [
            {"hex": name(h), "type": t, "tiles": state.tiles_left[i]} for i, (h, t) in enumerate(board.location_type)
        ],
        "cards": list(state.cards),
        "settlements": [[name(h) for h in sorted(homes)] for homes in state.homes],
        "supply": list(state.supply),
        "tiles": [
            [
                {"type": board.location_at(loc), "hex": name(loc), "state": _tile_state(state, s, loc)}
                for loc in sorted(state.held[s])
            ]
            for s in range(state.players)
        ],
        "seat": state.seat,
        "round": state.round,
        "played": state.played,
        "built": state.built,
        "deck": len(state.deck),
        "discard": len(state.discard),
        "removed": state.removed,
        "ending": state.ending,
        "over": state.over,
        "viewer": viewer,
        "hand": state.hands[viewer] if viewer is not None and 0 <= viewer < state.players else None,
    }
    if state.over:
        view["scores"] = [{"seat": s, "total": t, "gold": dict(g)} for s, t, g in state.final]
    return view


def _tile_text(tile: Mapping[str, Any]) -> str:
    """A location tile a player holds, with its state unless it is ready to use."""
    state = "" if tile["state"] == "ready" else f" ({tile_state(tile['state'])})"
    return f"{location_name(tile['type'])} {tile['hex']}{state}"


def _occupants(view: Mapping[str, Any]) -> dict[int, int]:
    return {hex_of(h): seat for seat, hexes in enumerate(view["settlements"]) for h in hexes}


def _cell(code: str, hex_: int, occupant: int | None, locs: dict[int, str]) -> str:
    if hex_ in locs:
        return ABBREV[locs[hex_]]
    if code == "K":
        return "KK"
    return f"{code.lower()}{'.' if occupant is None else occupant + 1}"


def render_text(view: Mapping[str, Any], names: Sequence[str]) -> str:
    occupants = _occupants(view)
    locs = {hex_of(loc["hex"]): loc["type"] for loc in view["locations"]}
    lines = ["    " + "  ".join(COLUMNS[:SIZE])]
    for r, row in enumerate(view["terrain"]):
        cells = " ".join(_cell(code, r * SIZE + c, occupants.get(r * SIZE + c), locs) for c, code in enumerate(row))
        lines.append(f"{r + 1:>2}  {' ' if r % 2 else ''}{cells}")
    lines.append(
        _(
            "Hexes: {legend}; a digit is the seat whose settlement stands there.",
            legend=", ".join(label for _code, label in terrain_legend()),
        )
    )
    lines.append(
        _(
            "Locations (tiles left): {locations}",
            locations=", ".join(
                f"{ABBREV[loc['type']]} {location_name(loc['type'])} {loc['hex']} ({loc['tiles']})"
                for loc in view["locations"]
            ),
        )
    )
    lines.append(_("Kingdom cards: {cards}", cards=", ".join(card_name(c) for c in view["cards"])))
    lines += [_seat_line(view, names, seat) for seat in range(view["players"])]
    lines += [part.strip() for part in _status(view, names).split(";")]  # the final score: a line a player
    return fitted("\n".join(lines) + "\n")  # lines of words broken for a mail


def _seat_line(view: Mapping[str, Any], names: Sequence[str], seat: int) -> str:
    tiles = ", ".join(_tile_text(t) for t in view["tiles"][seat]) or _("no tiles")
    left = ngettext("{n} settlement left", "{n} settlements left", view["supply"][seat])
    return f"{seat + 1} {seat_name(names, seat)}: {left}; {tiles}"


def score_word(key: str) -> str:
    """A part of the final gold: a kingdom card's name or the castles."""
    if key in KINGDOM_CARDS:  # English keeps the card's id ("lords"), as the scores always said
        return key if language() == "en" else card_name(key)
    return _("castles") if key == "castles" else key


def _status(view: Mapping[str, Any], names: Sequence[str]) -> str:
    if view["over"]:
        scores = [
            _(
                "{who}: {gold} ({parts})",
                who=seat_name(names, s["seat"]),
                gold=ngettext("{n} gold", "{n} gold", s["total"]),
                parts=", ".join(f"{score_word(k)} {v}" for k, v in s["gold"].items()),
            )
            for s in view["scores"]
        ]
        return _("Game over. {scores}", scores="; ".join(scores))
    text = _(
        "Round {round}: {who} plays {terrain} ({built} of 3 built).",
        round=view["round"],
        who=seat_name(names, view["seat"]),
        terrain=terrain_name(view["played"]),
        built=view["built"],
    )
    if view.get("hand"):
        text += " " + _("Your hidden card: {terrain}.", terrain=terrain_name(view["hand"]))
    return text + (" " + _("Last round!") if view["ending"] else "")


# -- SVG -------------------------------------------------------------------------------------
R = 18  # hex radius
W = R * 1.7320508  # hex width
TOP, LEFT = 66, 30  # room above the map for the title line


def _centre(r: int, c: int) -> tuple[float, float]:
    return LEFT + W * (c + 0.5 + 0.5 * (r % 2)), TOP + R + 1.5 * R * r


def _hexagon(x: float, y: float, fill: str) -> str:
    points = " ".join(
        f"{x + dx:.1f},{y + dy:.1f}"
        for dx, dy in ((0, -R), (W / 2, -R / 2), (W / 2, R / 2), (0, R), (-W / 2, R / 2), (-W / 2, -R / 2))
    )
    return f'<polygon points="{points}" fill="{fill}" stroke="#555" stroke-width="0.8"/>'


def terrain_legend() -> list[tuple[str, str]]:
    """Each terrain's code as the text map prints it, with its name ("g grass", "KK castle")."""
    return [(code, f"{'KK' if code == 'K' else code.lower()} {terrain_name(code).lower()}") for code in "GCDFTWMK"]


def _wrapped(items: Sequence[str], head: str, width: int = 95) -> list[str]:
    """``head`` and the items, comma-separated, in lines of at most about ``width`` characters."""
    lines, line = [], head
    for number, item in enumerate(items):
        piece = item + ("," if number < len(items) - 1 else "")
        if len(line) + len(piece) + 1 > width and line.strip():
            lines.append(line)
            line = "  "
        line += (" " if line.strip() else "") + piece
    return [*lines, line]


def _svg_lines(view: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """The text under the map: the locations with their tiles, the kingdom cards, and each
    player's settlements left and location tiles (as the text picture says them)."""
    lines = _wrapped(
        [
            f"{ABBREV[loc['type']]} {location_name(loc['type'])} {loc['hex']} ({loc['tiles']})"
            for loc in view["locations"]
        ],
        _("Locations (tiles left):"),
    )
    lines.append(_("Kingdom cards: {cards}", cards=", ".join(card_name(c) for c in view["cards"])))
    lines += [_seat_line(view, names, seat) for seat in range(view["players"])]
    return lines


def render_svg(view: Mapping[str, Any], names: Sequence[str]) -> str:
    occupants = _occupants(view)
    locs = {hex_of(loc["hex"]): loc for loc in view["locations"]}
    width = LEFT + W * (SIZE + 0.5) + 10
    lines = _svg_lines(view, names)
    status = textwrap.wrap(_status(view, names), 85)
    if view["over"]:  # the title says so; each player's gold gets a line of its own below
        lines += [part.strip() for part in _status(view, names).split(";")]
        status = [_("Game over.")]
    height = TOP + 1.5 * R * SIZE + R + 44 + 16 * (len(lines) + view["players"])
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif">',
        f'<rect width="{width:.0f}" height="{height:.0f}" fill="#fafafa"/>',
    ]
    for number, line in enumerate(status[:3]):  # the title line: whose turn and what they play
        parts.append(f'<text x="8" y="{14 + 14 * number}" font-size="12.5" font-weight="bold">{escape(line)}</text>')
    for c in range(SIZE):
        parts.append(
            f'<text x="{LEFT + W * (c + 0.5):.1f}" y="{TOP - 8}" font-size="11" '
            f'text-anchor="middle">{COLUMNS[c]}</text>'
        )
    for r, row in enumerate(view["terrain"]):
        _x, y = _centre(r, 0)
        parts.append(f'<text x="4" y="{y + 4:.1f}" font-size="11">{r + 1}</text>')
        for c, code in enumerate(row):
            parts += _hex_parts(r, c, code, occupants.get(r * SIZE + c), locs.get(r * SIZE + c), names)
    y = TOP + 1.5 * R * SIZE + R + 12
    x = 8
    for code, label in terrain_legend():  # "Hexes:" of the text picture, as colours
        parts.append(
            f'<rect x="{x}" y="{y - 9:.0f}" width="10" height="10" fill="{FILL[code]}" stroke="#555"/>'
            f'<text x="{x + 13}" y="{y:.0f}" font-size="11">{escape(label)}</text>'
        )
        x += 22 + 6 * len(label)
    legend = _("Hexes: a digit is the seat whose settlement stands there.")
    parts.append(f"<title>{escape(legend)}</title>")
    for seat in range(view["players"]):  # the colours' legend
        y += 16
        label = _(
            "{who} ({colour}): {n} left", who=seat_name(names, seat), colour=colour_name(seat), n=view["supply"][seat]
        )
        if view["over"]:
            label += ", " + ngettext("{n} gold", "{n} gold", view["scores"][seat]["total"])
        elif seat == view["seat"]:
            label += ", " + _("to move ({terrain})", terrain=terrain_name(view["played"]))
        parts.append(f'<circle cx="{LEFT + 6}" cy="{y - 4:.0f}" r="5" fill="{SEAT_COLOURS[seat]}" stroke="#000"/>')
        parts.append(f'<text x="{LEFT + 16}" y="{y:.0f}" font-size="12">{escape(label)}</text>')
    for line in lines:
        y += 16
        parts.append(f'<text x="8" y="{y:.0f}" font-size="12">{escape(line)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _hex_parts(
    r: int, c: int, code: str, occupant: int | None, loc: Mapping[str, Any] | None, names: Sequence[str]
) -> list[str]:
    x, y = _centre(r, c)
    parts = [_hexagon(x, y, FILL.get(code, "#fff"))]
    label = f"{COLUMNS[c]}{r + 1}"
    if occupant is not None:
        settled = _("{hex}: settlement of {who}", hex=label, who=seat_name(names, occupant))
        parts.append(f"<title>{escape(settled)}</title>")
    if loc is not None:
        parts.append(
            f'<text x="{x:.1f}" y="{y + 1:.1f}" font-size="8" text-anchor="middle" '
            f'font-weight="bold">{ABBREV[loc["type"]]} {loc["tiles"]}</text>'
        )
        tiles = ngettext(
            "{tile} {hex}: {n} tile left",
            "{tile} {hex}: {n} tiles left",
            loc["tiles"],
            tile=location_name(loc["type"]),
            hex=label,
        )
        parts.append(f"<title>{escape(tiles)}</title>")
    elif code == "K":
        parts.append(f'<text x="{x:.1f}" y="{y + 4:.1f}" font-size="12" text-anchor="middle">&#9820;</text>')
    if occupant is not None:
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y + 3:.1f}" r="{R * 0.42:.1f}" fill="{SEAT_COLOURS[occupant]}" '
            f'stroke="#000" stroke-width="1.2"/>'
        )
    colour = "#fff" if code in "TM" and occupant is None else "#333"
    parts.append(
        f'<text x="{x:.1f}" y="{y - R * 0.45:.1f}" font-size="6" text-anchor="middle" fill="{colour}">{label}</text>'
    )
    return parts
