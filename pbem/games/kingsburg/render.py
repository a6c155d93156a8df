"""What players see: the view dict, phase labels, history lines, text and SVG pictures.

``view`` is the only place that decides what a viewer may see: the enemy deck stays hidden,
a seat sees only its own peeks and its own soldier token until they are revealed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.kingsburg.data import ADVISORS, BUILDINGS, COURT_SPOTS, ENEMIES, GOODS, ROWS, YEAR_RANGES
from pbem.games.kingsburg.moves import goods_text
from pbem.games.kingsburg.state import State
from pbem.games.svg import escape
from pbem.games.text import seat_name

ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV", 5: "V"}
PHASE_NAMES = {"aid": "King's aid", "spring": "spring", "reward": "King's reward", "summer": "summer",
               "envoy": "King's envoy", "autumn": "autumn", "recruit": "recruitment", "winter": "winter"}
STEP_NAMES = {"choose": "choose a good", "reroll": "rerolls", "influence": "influence", "gifts": "gifts",
              "build": "building", "townhall": "Town Hall", "recruit": "", "tokens": "soldier tokens",
              "battle": "battle", "spoils": "losses and spoils", "start": ""}
COLOURS = ("#c0392b", "#2471a3", "#229954", "#d4ac0d", "#7d3c98")


def phase_label(state: State) -> str:
    if state.over:
        return "game over"
    step = STEP_NAMES.get(state.step, state.step)
    label = f"year {state.year}, {PHASE_NAMES[state.phase]}"
    return f"{label}: {step}" if step else label


def card_info(card_id: str) -> dict[str, Any]:
    e = ENEMIES[card_id]
    return {"id": e.id, "name": e.name, "year": e.year, "strength": e.strength}


def view(state: State, viewer: int | None, to_move: list[int], label: str) -> dict[str, Any]:
    players = []
    for seat, p in enumerate(state.players):
        entry = {
            "seat": seat, "vp": p.vp, "gold": p.gold, "wood": p.wood, "stone": p.stone,
            "plus2": p.plus2, "soldiers": p.soldiers,
            "buildings": [b for row in ROWS.values() for b in row if b in p.buildings],
            "dice": list(p.dice), "white": list(p.white), "passed": p.passed,
            "tokens": list(p.tokens), "token_chosen": p.token is not None, "peeks": len(p.peeks),
        }
        if viewer == seat:
            entry["token"] = p.token
            entry["peeked"] = [card_info(c) for c in p.peeks]
        players.append(entry)
    court = [{"advisor": a, "name": ADVISORS[a].name,
              "groups": [{"seat": g.seat, "dice": list(g.dice), "white": list(g.white),
                          "plus2": g.plus2, "envoy": g.envoy} for g in groups]}
             for a, groups in enumerate(state.court) if groups]
    year = min(state.year, 5)
    return {
        "game": "kingsburg", "viewer": viewer, "year": year, "phase": state.phase, "step": state.step,
        "label": label, "order": list(state.order), "to_move": to_move, "court": court,
        "envoy": state.envoy, "aid": state.aid, "over": state.over,
        "enemy": None if state.enemy is None else _enemy_view(state),
        "enemy_range": list(YEAR_RANGES[year]), "deck_left": len(state.deck),
        "options": {"reinforcements": state.reinforcements, "demons": state.demons},
        "players": players,
    }


def _enemy_view(state: State) -> dict[str, Any]:
    e = state.enemy_card
    defeat, victory = e.reading(state.demons)
    return {**card_info(e.id), "type": e.type, "defeat": dict(defeat), "victory": dict(victory)}


# -- history lines ------------------------------------------------------------------------------
def delta_text(delta: Mapping[str, int]) -> str:
    labels = {"gold": "gold", "wood": "wood", "stone": "stone", "plus2": "+2 token",
              "soldiers": "soldier", "vp": "VP"}
    parts = []
    for key in ("gold", "wood", "stone", "plus2", "soldiers", "vp"):
        n = delta.get(key, 0)
        if n:
            plural = "s" if abs(n) > 1 and key in ("plus2", "soldiers") else ""
            parts.append(f"{n:+d} {labels[key]}{plural}")
    return ", ".join(parts) or "nothing"


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _paid(delta: Mapping[str, int]) -> str:
    """The goods a delta takes away, as positive amounts ("1 gold, 2 wood")."""
    return ", ".join(f"{-delta[g]} {g}" for g in GOODS if delta.get(g, 0) < 0) or "nothing"


def _card_text(data: Mapping[str, Any]) -> str:
    card = data.get("card")
    return f" ({ENEMIES[card].name} {ENEMIES[card].strength})" if card in ENEMIES else ""


def _stated_choice(choice: Sequence[str] | None) -> str:
    """The gift answer given with an influence, as the history shows it."""
    if not choice:
        return ""
    if choice[0] == "give":
        return f", to give {choice[1]} for the help"
    return ", declining the help" if len(choice) == 1 else f", to take {goods_text(tuple(choice[1:]))}"


def _declined(fact: Mapping[str, Any], who: str) -> str:
    """A help that gives nothing: declined by choice, or not possible (and why)."""
    advisor = ADVISORS[fact["advisor"]]
    unable = fact.get("unable")
    if unable == "vp":
        price = -advisor.gifts[0].get("vp", 0)
        return f"{who} cannot pay the {advisor.name} {price} VP (has none), so gets no help."
    if unable == "goods":
        return f"{who} has no good to give the {advisor.name}, so gets no help."
    return f"{who} declines the help of the {advisor.name}."


def describe_fact(fact: Mapping[str, Any], names: Sequence[str]) -> str:
    kind = fact["kind"]
    who = seat_name(names, fact.get("seat"))
    delta = delta_text(fact.get("delta", {}))
    texts = {
        "GameStarted": lambda: "Kingsburg begins; turn order: "
        + ", ".join(seat_name(names, s) for s in fact.get("order", [])),
        "EnemyDeckPrepared": lambda: "One enemy card of each year was stacked face down.",
        "PhaseBegan": lambda: f"Phase: {PHASE_NAMES.get(fact['phase'], fact['phase'])}.",
        "StepBegan": lambda: f"Next: {STEP_NAMES.get(fact['step']) or fact['step']}.",
        "AidGranted": lambda: f"The King's aid: {who} rolls a white die this spring.",
        "AidTied": lambda: "The King's aid: a good of choice for "
        + ", ".join(seat_name(names, s) for s in fact["seats"]) + ".",
        "AidTaken": lambda: f"{who} takes {delta} from the King.",
        "GuildGoldTaken": lambda: f"{who}'s Merchants' Guild pays 1 gold.",
        "NeutralDiceRolled": lambda: "Neutral dice block advisors "
        + ", ".join(str(g["advisor"]) for g in fact["groups"]) + ".",
        "DiceRolled": lambda: "Dice: " + "; ".join(
            f"{seat_name(names, s)} {' '.join(map(str, d))}" + "".join(f" w{w}" for w in fact["white"][s])
            for s, d in enumerate(fact["dice"])) + ".",
        "DiceRerolled": lambda: f"{who} rerolls with the {fact['building'].title()}: "
        + " ".join(map(str, fact["dice"])) + "".join(f" w{w}" for w in fact["white"]) + ".",
        "RerollsKept": lambda: f"{who} keeps the dice.",
        "TurnOrderSet": lambda: "Turn order: " + ", ".join(seat_name(names, s) for s in fact["order"]) + ".",
        "AdvisorInfluenced": lambda: f"{who} influences advisor {fact['advisor']} "
        f"({ADVISORS[fact['advisor']].name}) with " + " ".join(map(str, fact["dice"]))
        + "".join(f" w{w}" for w in fact["white"]) + (" +2" if fact["plus2"] else "")
        + (" and the Market" if fact["market"] else "") + (" using the King's envoy" if fact["envoy"] else "")
        + _stated_choice(fact.get("choice")) + ".",
        "InfluencePassed": lambda: f"{who} passes" + (" (no group fits)" if fact.get("auto") else "") + ".",
        "GiftsBegan": lambda: "The advisors give their help.",
        "GiftReceived": lambda: f"{ADVISORS[fact['advisor']].name} gives {who} {delta}.",
        "GiftDeclined": lambda: _declined(fact, who),
        "CardPeeked": lambda: f"{who} looks at the top enemy card"
        + _card_text(fact.get("secret", {}).get("data", {})) + ".",
        "BuildingBuilt": lambda: f"{who} builds the {BUILDINGS[fact['building']].name}"
        + (" (King's envoy)" if fact["envoy"] else "") + f": {delta}.",
        "BuildPassed": lambda: f"{who} does not build.",
        "InnTokenTaken": lambda: f"{who}'s Inn gives a +2 token.",
        "TownHallUsed": lambda: f"{who}'s Town Hall: {delta}.",
        "TownHallSkipped": lambda: f"{who} does not use the Town Hall.",
        "EmbassyScored": lambda: f"{who}'s Embassy gives 1 VP.",
        "SeasonEnded": lambda: f"End of {fact['season']}.",
        "KingsRewardGiven": lambda: f"The King rewards {who} (most buildings): +1 VP.",
        "EnvoyReturned": lambda: f"The King's envoy leaves {who} unused.",
        "EnvoyAwarded": lambda: f"The King's envoy goes to {who}.",
        "SoldiersRecruited": lambda: f"{who} recruits {_count(fact['delta']['soldiers'], 'soldier')} "
        f"for {_paid(fact['delta'])}.",
        "RecruitPassed": lambda: f"{who} recruits nobody.",
        "EnemyRevealed": lambda: f"The enemy of year {ROMAN.get(ENEMIES[fact['card']].year)}: "
        f"{fact['name']}, strength {fact['strength']}.",
        "ReinforcementsRolled": lambda: f"{who} rolls " + " ".join(map(str, fact["dice"]))
        + f": the King sends {fact['soldiers']} soldiers to everybody.",
        "TokenChosen": lambda: f"{who} chooses a soldier token"
        + (f" ({fact['secret']['data']['token']})" if "data" in fact.get("secret", {}) else "") + ".",
        "TokensRevealed": lambda: "Soldier tokens: " + ", ".join(
            f"{seat_name(names, s)} {t}" for s, t in enumerate(fact["tokens"])) + ".",
        "BattleFought": lambda: f"{who} fights with strength {fact['strength']}: {fact['result']}"
        + (f", {delta}" if fact.get("delta") else "")
        + "".join(f", loses the {BUILDINGS[b].name}" for b in fact["destroyed"])
        + (f", owes {fact['owe_lose']} goods" if fact.get("owe_lose") else "")
        + (f", may take {fact['owe_take']} goods" if fact.get("owe_take") else "") + ".",
        "BestDefenderRewarded": lambda: f"{who} fought best: +1 VP.",
        "GoodsLost": lambda: f"{who} gives up {_paid(fact['delta'])}.",
        "SpoilsTaken": lambda: f"{who} takes {delta} as spoils.",
        "SoldiersDismissed": lambda: "The soldiers go home.",
        "YearEnded": lambda: f"End of year {ROMAN.get(fact['year'], fact['year'])}.",
        "CathedralScored": lambda: f"{who}'s Cathedral: {delta}.",
        "TokensScored": lambda: f"{who}'s unused soldier tokens: {delta}.",
        "GameEnded": lambda: "The five years are over.",
    }
    maker = texts.get(kind)
    return maker() if maker else kind


# -- plain text -----------------------------------------------------------------------------------
def _dice_text(dice: Sequence[int], white: Sequence[int], plus2: bool = False) -> str:
    return " ".join([*map(str, dice), *(f"w{w}" for w in white), *(["+2"] if plus2 else [])])


def render_text(v: Mapping[str, Any], names: Sequence[str]) -> str:
    lines = [f"Kingsburg - {v['label']}"]
    if v["to_move"]:
        lines.append("Waiting for: " + ", ".join(seat_name(names, s) for s in v["to_move"]))
    low, high = v["enemy_range"]
    enemy = v["enemy"]
    lines.append(f"Enemy: {enemy['name']} strength {enemy['strength']}" if enemy else
                 f"Enemy this year: strength {low}-{high} ({v['deck_left']} cards left)")
    lines.append(f"King's envoy: {seat_name(names, v['envoy'])}" + (
        f"   King's aid (white die): {seat_name(names, v['aid'])}" if v["aid"] is not None else ""))
    if v["court"]:
        lines.append("Court:")
        for spot in v["court"]:
            groups = "; ".join(
                f"{'neutral' if g['seat'] < 0 else seat_name(names, g['seat'])} "
                f"[{_dice_text(g['dice'], g['white'], g['plus2'])}]" + (" envoy" if g["envoy"] else "")
                for g in spot["groups"])
            lines.append(f"  {spot['advisor']:>2} {spot['name']:<14} {groups}")
    for position, seat in enumerate(v["order"], start=1):
        lines += _player_text(v["players"][seat], position, seat_name(names, seat), seat == v["envoy"])
    return "\n".join(lines) + "\n"


def _player_text(p: Mapping[str, Any], position: int, name: str, envoy: bool) -> list[str]:
    head = (f"{position}. {name}: {p['vp']} VP, {p['gold']} gold, {p['wood']} wood, {p['stone']} stone, "
            f"{p['plus2']} +2, {p['soldiers']} soldiers" + (", envoy" if envoy else ""))
    lines = [head]
    if p["dice"] or p["white"]:
        lines.append(f"   dice in hand: {_dice_text(p['dice'], p['white'])}" + (" (passed)" if p["passed"] else ""))
    if p["tokens"]:
        lines.append("   soldier tokens: " + " ".join(map(str, p["tokens"])))
    if p.get("token") is not None:
        lines.append(f"   your token this winter: {p['token']}")
    for card in p.get("peeked", []):
        lines.append(f"   you saw the enemy: {card['name']} strength {card['strength']}")
    owned = set(p["buildings"])
    for row in ROWS.values():
        cells = [f"[{'x' if b in owned else ' '}] {BUILDINGS[b].name:<16}" for b in row]
        lines.append("   " + "".join(cells).rstrip())
    return lines


# -- SVG ------------------------------------------------------------------------------------------
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
            parts.append({"vp": f"{n:+d} VP" if n < 0 else f"{n} VP", "gold": f"{n}g", "wood": f"{n}w",
                          "stone": f"{n}s", "any": f"{n} any", "soldiers": f"{n} soldier" + ("s" if n > 1 else ""),
                          "plus2": "+2 token", "peek": "see enemy", "alchemist": "1 good: 1 of each other"}[key])
        return " ".join(parts)

    return " or ".join(bundle(gift) for gift in ADVISORS[advisor].gifts)


def render_svg(v: Mapping[str, Any], names: Sequence[str]) -> str:
    cell_w, cell_h = 150, 64
    sheet_w = 4 * 92 + 20
    width = max(6 * cell_w + 20, len(v["players"]) * (sheet_w + 10) + 10)
    court_top = 70
    height = court_top + 3 * cell_h + 24 + 300
    enemy = v["enemy"]
    waiting = ", ".join(seat_name(names, s) for s in v["to_move"])
    facts = [f"turn order: {', '.join(seat_name(names, s) for s in v['order'])}",
             f"Enemy: {enemy['name']} strength {enemy['strength']}" if enemy else
             "Enemy this year: strength {}-{} ({} cards left)".format(*v["enemy_range"], v["deck_left"]),
             f"King's envoy: {seat_name(names, v['envoy'])}"]
    if v["aid"] is not None:
        facts.append(f"King's aid (white die): {seat_name(names, v['aid'])}")
    title = f"Kingsburg - {v['label']}" + (f" - Waiting for: {waiting}" if waiting else "")
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
           f'<text x="10" y="22" font-size="18" font-weight="bold">{escape(title)}</text>',
           f'<text x="10" y="42" font-size="12">{escape(" | ".join(facts))}</text>']
    out += _legend_svg(v, names, 10, 50)
    groups = {spot["advisor"]: spot["groups"] for spot in v["court"]}
    for a in range(1, COURT_SPOTS):
        x, y = 10 + ((a - 1) % 6) * cell_w, court_top + ((a - 1) // 6) * cell_h
        out.append(f'<rect x="{x}" y="{y}" width="{cell_w - 6}" height="{cell_h - 6}" fill="#f8f4e8" stroke="#555"/>')
        out.append(f'<text x="{x + 4}" y="{y + 13}">{a} {escape(ADVISORS[a].name)}</text>')
        out.append(f'<text x="{x + 4}" y="{y + 54}" font-size="9" fill="#444">{escape(gift_text(a))}</text>')
        dx = x + 4
        for g in groups.get(a, []):
            owner = "neutral" if g["seat"] < 0 else seat_name(names, g["seat"])
            said = f'{owner} [{_dice_text(g["dice"], g["white"], g["plus2"])}]' + (" envoy" if g["envoy"] else "")
            out.append(f'<g><title>{escape(said)}</title>')
            for value, white in [*((d, False) for d in g["dice"]), *((w, True) for w in g["white"])]:
                out.append(_die_svg(dx, y + 18, value, g["seat"], white))
                dx += 23
            if g["plus2"]:
                out.append(f'<text x="{dx}" y="{y + 32}">+2</text>')
                dx += 18
            if g["envoy"]:
                out.append(f'<text x="{dx}" y="{y + 32}" font-weight="bold">envoy</text>')
                dx += 36
            out.append("</g>")
            dx += 6
    out.append(f'<text x="{width - 10}" y="{court_top - 4}" text-anchor="end" fill="#444">Court: '
               'each group of dice in its owner colour</text>')
    top = court_top + 3 * cell_h + 14
    for i, seat in enumerate(v["order"]):
        p = v["players"][seat]
        out += _sheet_svg(p, f"{i + 1}. {seat_name(names, seat)}", 10 + i * (sheet_w + 10), top, seat == v["envoy"])
    out.append("</svg>")
    return "\n".join(out)


def _die_svg(x: int, y: int, value: int, seat: int, white: bool) -> str:
    """One die: the seat's colour, grey for the neutral dice, white for the King's aid."""
    fill = "#ffffff" if white else _colour(seat)
    return (f'<rect x="{x}" y="{y}" width="20" height="20" rx="3" fill="{fill}" stroke="#222"/>'
            f'<text x="{x + 6}" y="{y + 14}" fill="{"#000" if white else "#fff"}">{value}</text>')


def _legend_svg(v: Mapping[str, Any], names: Sequence[str], x: int, y: int) -> list[str]:
    """What the colours of the dice mean: each seat's, the neutral (grey) dice that block an
    advisor, the King's aid (white)."""
    out = []
    entries = [(seat, False, seat_name(names, seat)) for seat in v["order"]]
    entries += [(-1, False, "neutral (blocks the advisor)"), (0, True, "King's aid die")]
    for seat, white, label in entries:
        fill = "#ffffff" if white else _colour(seat)
        out.append(f'<rect x="{x}" y="{y + 2}" width="10" height="10" fill="{fill}" stroke="#222"/>'
                   f'<text x="{x + 14}" y="{y + 11}">{escape(label)}</text>')
        x += 24 + 6 * len(label)
    return out


def _sheet_svg(p: Mapping[str, Any], name: str, x: int, y: int, envoy: bool = False) -> list[str]:
    colour = _colour(p["seat"])
    out = [f'<text x="{x}" y="{y + 12}" fill="{colour}" font-size="13" font-weight="bold">{escape(name)}: '
           f'{p["vp"]} VP{", envoy" if envoy else ""}</text>',
           f'<text x="{x}" y="{y + 28}">{p["gold"]} gold, {p["wood"]} wood, {p["stone"]} stone, '
           f'{p["plus2"]} +2, {p["soldiers"]} soldiers</text>']
    lines = []
    if p["dice"] or p["white"]:
        lines.append(f"dice in hand: {_dice_text(p['dice'], p['white'])}" + (" (passed)" if p["passed"] else ""))
    if p["tokens"]:
        lines.append("soldier tokens: " + " ".join(map(str, p["tokens"])))
    if p.get("token") is not None:
        lines.append(f"your token this winter: {p['token']}")
    lines += [f"you saw the enemy: {card['name']} strength {card['strength']}" for card in p.get("peeked", [])]
    for line in lines:
        out.append(f'<text x="{x}" y="{y + 44}">{escape(line)}</text>')
        y += 16
    owned = set(p["buildings"])
    for r, row in enumerate(ROWS.values()):
        for c, b in enumerate(row):
            bx, by = x + c * 92, y + 36 + r * 40
            fill = colour if b in owned else "#eeeeee"
            text = "#fff" if b in owned else "#333"
            out.append(f'<rect x="{bx}" y="{by}" width="88" height="36" fill="{fill}" stroke="#555"/>'
                       f'<text x="{bx + 3}" y="{by + 15}" fill="{text}">{escape(BUILDINGS[b].name)}</text>'
                       f'<text x="{bx + 3}" y="{by + 29}" fill="{text}">{_cost_text(b)}</text>')
    return out


def _cost_text(building: str) -> str:
    b = BUILDINGS[building]
    cost = " ".join(f"{n}{g[0]}" for g, n in zip(GOODS, b.cost, strict=False) if n)
    return f"{cost} / {b.vp} VP"
