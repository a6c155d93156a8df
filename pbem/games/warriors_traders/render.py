"""Pictures of a view: plain text for mail, SVG for the web (a generated layout: countries on
a grid in play order, provinces on a ring inside each), and the turn-file template."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.svg import escape
from pbem.games.text import _, ngettext, pgettext, seat_name
from pbem.games.warriors_traders import words
from pbem.games.warriors_traders.data import LEVELS, MAPS, RESOURCES
from pbem.games.warriors_traders.state import State

SHORT = {"infantry": "I", "archer": "A", "cavalry": "C", "princess": "P", "fort": "F"}
COLOURS = ("#c0392b", "#2e6fba", "#2e8b57", "#d4a017", "#7d3c98", "#e67e22")
TYPE_MARK = {"capital": "*", "trade_center": "$", "ordinary": "", "conquered": "~"}


def _who(names: Sequence[str], seat: int | None) -> str:
    if seat is None:
        return pgettext("warriors-traders province", "free")
    if seat == -1:
        return _("barbarians")
    return seat_name(names, seat)


def _holder(names: Sequence[str], prov: Mapping[str, Any], present: Sequence[Mapping[str, Any]]) -> tuple[str, bool]:
    """Who holds a province as the picture says it, and whether that is the barbarians (a
    free province where barbarian units stand is theirs)."""
    if prov["owner"] is None and any(u["owner"] == -1 for u in present):
        return _("barbarians"), True
    return _who(names, prov["owner"]), prov["owner"] == -1


def _units_by_province(view: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for u in view["units"]:
        out.setdefault(u["province"], []).append(u)
    return out


def _unit_text(u: Mapping[str, Any]) -> str:
    marks = ("!" if u["engaged"] else "") + ("v" if u["retreated"] else "") + (f"-{u['damage']}" if u["damage"] else "")
    owner = "b" if u["owner"] == -1 else str(u["owner"] + 1)
    return f"{SHORT[u['kind']]}{u['id']}/{owner}{marks}"


def _player_line(view: Mapping[str, Any], p: Mapping[str, Any], names: Sequence[str]) -> str:
    who = _who(names, p["seat"])
    if p.get("hidden"):
        return _(
            "{who} ({country}): {placed} of 3 starting tokens placed (hidden until all are placed)",
            who=who,
            country=p["country_name"],
            placed=p["tokens_placed"],
        )
    levels = " ".join(f"{words.track_letter(t)}{LEVELS[lv - 1]}({p['tokens'][t]})" for t, lv in p["levels"].items())
    # commas, so that "food 2, goods 1" never reads as a count of the next word ("2 goods")
    stock = ", ".join(f"{words.resource(r)} {n}" for r, n in p["stock"].items())
    country = (
        _("{country} side {side}", country=p["country_name"], side=p["team"] + 1)
        if view["alliance"]
        else p["country_name"]
    )
    return _(
        "{who} ({country}): {vp} VP | {stock} | {levels} | AP {ap} bank {ratio}:1",
        who=who,
        country=country,
        vp=p["vp"],
        stock=stock,
        levels=levels,
        ap=p["action_points"],
        ratio=p["bank_ratio"],
    )


def render_text(view: Mapping[str, Any], names: Sequence[str]) -> str:
    title = words.map_title(view["map"], view["map_title"])
    lines = [
        _("{game} — {map} (approximate data) — {label}", game=words.title(), map=title, label=view["label"]),
        _("Victory at {vp} VP per alliance", vp=view["threshold"])
        if view["alliance"]
        else _("Victory at {vp} VP", vp=view["threshold"]),
    ]
    lines += [_player_line(view, p, names) for p in view["players"]]
    for w in view["wars"]:
        lines.append(
            _(
                "War: side {a} against side {b} since turn {turn}",
                a=w["teams"][0] + 1,
                b=w["teams"][1] + 1,
                turn=w["since"],
            )
        )
    for o in view["offers"]:
        lines.append(
            _(
                "Offer {offer}: {who} gives {give} to {partner} for {get}",
                offer=o["id"],
                who=_who(names, o["from"]),
                give=words.bundle(o["give"]),
                partner=_who(names, o["to"]),
                get=words.bundle(o["get"]),
            )
        )
    if view["battle"]:
        b = view["battle"]
        lines.append(
            _(
                "Battle in {province}: {attacker} ({a} damage) against {defender} ({d} damage)",
                province=b["province"],
                attacker=_who(names, b["attacker"]),
                a=b["damage"][0],
                defender=_who(names, b["defender"]),
                d=b["damage"][1],
            )
        )
    units = _units_by_province(view)
    country = None
    for prov in view["provinces"]:
        if prov["country"] != country:
            country = prov["country"]
            lines.append(f"[{country}]")
        present = units.get(prov["id"], [])
        holder, _barbarian = _holder(names, prov, present)
        lines.append(f"  {prov['id']}{TYPE_MARK[prov['type']]} ({holder}): {' '.join(_unit_text(u) for u in present)}")
    lines.append(
        _(
            "Units: I infantry, A archer, C cavalry, P princess, F fort; /N owner seat, b barbarian; "
            "! must fight, v retreated, -N damage. * capital, $ trade centre, ~ conquered."
        )
    )
    return "\n".join(lines)


def layout(map_name: str) -> dict[str, tuple[int, int]]:
    """Province centres: countries on a 4-column grid in play order, provinces on a ring."""
    gmap = MAPS[map_name]
    points: dict[str, tuple[int, int]] = {}
    for i, country in enumerate(gmap.countries):
        cx, cy = 130 + (i % 4) * 240, 130 + (i // 4) * 240
        n = len(country.provinces)
        for j, pid in enumerate(country.provinces):
            angle = 2 * math.pi * j / n - math.pi / 2
            points[pid] = (round(cx + 70 * math.cos(angle)), round(cy + 70 * math.sin(angle)))
    return points


def _header_lines(view: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """The text picture's lines before the provinces: title, victory, players, wars, offers,
    battle."""
    lines = render_text(view, names).splitlines()
    return lines[: next((i for i, line in enumerate(lines) if line.startswith("[")), len(lines))]


def render_svg(view: Mapping[str, Any], names: Sequence[str]) -> str:
    gmap = MAPS[view["map"]]
    pos = layout(view["map"])
    units = _units_by_province(view)
    rows = (len(gmap.countries) + 3) // 4
    header = _header_lines(view, names)
    top = 14 + 17 * len(header)
    height = top + rows * 240 + 60
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 980 {height}" font-family="sans-serif">',
        f"<title>{escape(words.map_title(view['map'], view['map_title']))} — {escape(view['label'])}</title>",
    ]
    for number, line in enumerate(header):  # the title line first, bold
        bold = ' font-weight="bold" font-size="15"' if number == 0 else ' font-size="12.5"'
        out.append(f'<text x="10" y="{18 + 17 * number}"{bold}>{escape(line)}</text>')
    out.append(f'<g transform="translate(0 {top})">')
    for a, b, kind in gmap.edges:
        (x1, y1), (x2, y2) = pos[a], pos[b]
        dash = ' stroke-dasharray="6 4"' if kind == "sea" else ""
        out.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#999"{dash}/>')
    for i, country in enumerate(gmap.countries):
        cx, cy = 130 + (i % 4) * 240, 130 + (i // 4) * 240
        out.append(
            f'<g><title>[{escape(country.id)}]</title><text x="{cx}" y="{cy + 4}" text-anchor="middle" '
            f'font-size="13" fill="#555">{escape(country.name)} ({country.order})</text></g>'
        )
    for prov in view["provinces"]:
        x, y = pos[prov["id"]]
        owner = prov["owner"]
        present = units.get(prov["id"], [])
        holder, barbarian = _holder(names, prov, present)
        fill = COLOURS[owner % len(COLOURS)] if owner is not None else ("#777" if barbarian else "#eee")
        width = ' stroke-width="3"' if prov["type"] == "capital" else ""
        said = f"{prov['id']}{TYPE_MARK[prov['type']]} ({holder}): {' '.join(_unit_text(u) for u in present)}"
        kind = words.province_key(prov["type"])
        out.append(
            f"<g><title>{escape(prov['name'])} ({escape(kind)}): {escape(said)}</title>"
            f'<circle cx="{x}" cy="{y}" r="26" fill="{fill}" stroke="#333"'
            f"{width}/>"
            f'<text x="{x}" y="{y - 30}" text-anchor="middle" font-size="10">'
            f"{escape(prov['id'].split('_', 1)[-1])}{TYPE_MARK[prov['type']]}</text>"
            f'<text x="{x}" y="{y + 4}" text-anchor="middle" font-size="9" fill="#fff">'
            f"{escape(' '.join(SHORT[u['kind']] for u in present))}</text></g>"
        )
    out.append("</g>")
    scores = [_("{who}: {vp} VP", who=_who(names, p["seat"]), vp=p.get("vp", "?")) for p in view["players"]]
    legend = _("{scores} — approximate map", scores="  ".join(scores))
    out.append(f'<text x="10" y="{top + rows * 240 + 20}" font-size="13">{escape(legend)}</text>')
    units_legend = render_text(view, names).splitlines()[-1]
    out.append(f'<text x="10" y="{top + rows * 240 + 42}" font-size="11">{escape(units_legend)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def turn_template(state: State, seat: int, names: Sequence[str], label: str, legal: list[str]) -> str:
    player = state.players[seat]
    stock = ", ".join(f"{words.resource(r)} {n}" for r, n in zip(RESOURCES, player.stock, strict=False))
    lines = [
        f"# {words.title()}: {label}",
        "# "
        + _(
            "{who} plays {country}; stock: {stock}",
            who=_who(names, seat),
            country=state.gmap.country(player.country).name,
            stock=stock,
        ),
        "# " + _("One order per line; the file is checked whole. Czech keywords work too (see the docs)."),
        "# " + _("APPROXIMATE NUMBERS: these are invented until the real board is transcribed"),
        "# " + _("(docs/games/warriors-traders.md); the rules data holds them:"),
    ]
    lines += [f"#   {line}" for line in words.invented()]
    lines += ["# " + _("Legal orders now (first 60):")]
    lines += [f"#   {text}" for text in legal[:60]]
    if len(legal) > 60:
        lines.append("#   " + ngettext("... and {n} more", "... and {n} more", len(legal) - 60))
    lines.append(
        "# "
        + _(
            "The file ends with the order that closes your part of this step ({orders}).",
            orders=" / ".join(words.closing_orders()),
        )
    )
    return "\n".join(lines) + "\n"
