"""What players see: the view dict, phase labels, history lines and the text board (the SVG
board is in board.py).

``view`` is the only place that decides what a viewer may see: the enemy deck stays hidden,
a seat sees only its own peeks and its own soldier token until they are revealed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.kingsburg.data import ADVISORS, BUILDINGS, ENEMIES, GOODS, ROWS, YEAR_RANGES
from pbem.games.kingsburg.moves import spoken
from pbem.games.kingsburg.state import State
from pbem.games.text import TEXT_WIDTH, _, fitted, ngettext, pgettext, seat_name

ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV", 5: "V"}
COLOURS = ("#c0392b", "#2471a3", "#229954", "#d4ac0d", "#7d3c98")


def phase_name(phase: str) -> str:
    """A phase of the year by the rulebook's name, in the language spoken now."""
    names = {
        "aid": lambda: _("King's aid"),
        "spring": lambda: _("spring"),
        "reward": lambda: _("King's reward"),
        "summer": lambda: _("summer"),
        "envoy": lambda: _("King's envoy"),
        "autumn": lambda: _("autumn"),
        "recruit": lambda: _("recruitment"),
        "winter": lambda: _("winter"),
    }
    return names[phase]() if phase in names else phase


def began(step: str) -> str:
    """The step that begins, named even where a phase label leaves it to the phase's name (the
    recruitment's one step): "Next: recruit." spoke English in every language."""
    return step_name(step) or (_("recruitment") if step == "recruit" else step)


def step_name(step: str) -> str:
    """A step within a phase ("" for a step that the phase's name says)."""
    names = {
        "choose": lambda: _("choose a good"),
        "reroll": lambda: _("rerolls"),
        "influence": lambda: pgettext("kingsburg step", "influence"),
        "gifts": lambda: _("gifts"),
        "build": lambda: pgettext("kingsburg step", "building"),
        "townhall": lambda: _("Town Hall"),
        "tokens": lambda: _("soldier tokens"),
        "battle": lambda: _("battle"),
        "spoils": lambda: _("losses and spoils"),
    }
    return names[step]() if step in names else ("" if step in ("recruit", "start") else step)


def enemy_name(card_id: str) -> str:
    """An enemy card's name, by its type (the rulebooks name the types)."""
    names = {
        "barbarians": lambda: _("Barbarians"),
        "goblins": lambda: _("Goblins"),
        "orcs": lambda: _("Orcs"),
        "zombies": lambda: _("Zombies"),
        "demons": lambda: _("Demons"),
        "dragons": lambda: _("Dragons"),
    }
    enemy = ENEMIES[card_id]
    return names[enemy.type]() if enemy.type in names else enemy.name


def phase_label(state: State) -> str:
    if state.over:
        return _("game over")
    step = step_name(state.step)
    label = _("year {year}, {phase}", year=state.year, phase=phase_name(state.phase))
    return f"{label}: {step}" if step else label


def card_info(card_id: str) -> dict[str, Any]:
    e = ENEMIES[card_id]
    return {"id": e.id, "name": enemy_name(card_id), "year": e.year, "strength": e.strength}


def view(state: State, viewer: int | None, to_move: list[int], label: str) -> dict[str, Any]:
    players = []
    for seat, p in enumerate(state.players):
        entry = {
            "seat": seat,
            "vp": p.vp,
            "gold": p.gold,
            "wood": p.wood,
            "stone": p.stone,
            "plus2": p.plus2,
            "soldiers": p.soldiers,
            "buildings": [b for row in ROWS.values() for b in row if b in p.buildings],
            "dice": list(p.dice),
            "white": list(p.white),
            "passed": p.passed,
            "tokens": list(p.tokens),
            "token_chosen": p.token is not None,
            "peeks": len(p.peeks),
        }
        if viewer == seat:
            entry["token"] = p.token
            entry["peeked"] = [card_info(c) for c in p.peeks]
        players.append(entry)
    court = [
        {
            "advisor": a,
            "name": ADVISORS[a].name,
            "groups": [
                {"seat": g.seat, "dice": list(g.dice), "white": list(g.white), "plus2": g.plus2, "envoy": g.envoy}
                for g in groups
            ],
        }
        for a, groups in enumerate(state.court)
        if groups
    ]
    year = min(state.year, 5)
    return {
        "game": "kingsburg",
        "viewer": viewer,
        "year": year,
        "phase": state.phase,
        "step": state.step,
        "label": label,
        "order": list(state.order),
        "to_move": to_move,
        "court": court,
        "envoy": state.envoy,
        "aid": state.aid,
        "over": state.over,
        "enemy": None if state.enemy is None else _enemy_view(state),
        "enemy_range": list(YEAR_RANGES[year]),
        "deck_left": len(state.deck),
        "options": {"reinforcements": state.reinforcements, "demons": state.demons},
        "players": players,
    }


def _enemy_view(state: State) -> dict[str, Any]:
    e = state.enemy_card
    defeat, victory = e.reading(state.demons)
    return {**card_info(e.id), "type": e.type, "defeat": dict(defeat), "victory": dict(victory)}


# -- history lines ------------------------------------------------------------------------------
def amount(key: str, n: int, signed: bool = False) -> str:
    """``n`` of a good or counter ("2 gold", "+1 VP", "3 soldiers"), in the counting form of
    the language spoken now."""
    shown = f"{n:+d}" if signed else str(n)
    forms = {
        "gold": lambda: ngettext("{n} gold", "{n} gold", abs(n), n=shown),
        "wood": lambda: ngettext("{n} wood", "{n} wood", abs(n), n=shown),
        "stone": lambda: ngettext("{n} stone", "{n} stone", abs(n), n=shown),
        "plus2": lambda: ngettext("{n} +2 token", "{n} +2 tokens", abs(n), n=shown),
        "soldiers": lambda: ngettext("{n} soldier", "{n} soldiers", abs(n), n=shown),
        "vp": lambda: ngettext("{n} VP", "{n} VP", abs(n), n=shown),
        "goods": lambda: ngettext("{n} good", "{n} goods", abs(n), n=shown),
    }
    return forms[key]() if key in forms else f"{shown} {key}"


def delta_text(delta: Mapping[str, int]) -> str:
    parts = [
        amount(key, delta[key], signed=True)
        for key in ("gold", "wood", "stone", "plus2", "soldiers", "vp")
        if delta.get(key, 0)
    ]
    return ", ".join(parts) or pgettext("goods", "nothing")


def _paid(delta: Mapping[str, int]) -> str:
    """The goods a delta takes away, as positive amounts ("1 gold, 2 wood")."""
    return ", ".join(amount(g, -delta[g]) for g in GOODS if delta.get(g, 0) < 0) or pgettext("goods", "nothing")


def _card_text(data: Mapping[str, Any]) -> str:
    card = data.get("card")
    return f" ({enemy_name(card)} {ENEMIES[card].strength})" if card in ENEMIES else ""


def _stated_choice(choice: Sequence[str] | None) -> str:
    """The gift answer given with an influence, as the history shows it."""
    if not choice:
        return ""
    if choice[0] == "give":
        return _(", to give {good} for the help", good=spoken(choice[1]))
    if len(choice) == 1:
        return _(", declining the help")
    taken = tuple(choice[1:])
    return _(", to take {goods}", goods=", ".join(amount(g, taken.count(g)) for g in GOODS if g in taken))


def _declined(fact: Mapping[str, Any], who: str) -> str:
    """A help that gives nothing: declined by choice, or not possible (and why)."""
    advisor = ADVISORS[fact["advisor"]]
    unable = fact.get("unable")
    if unable == "vp":
        price = -advisor.gifts[0].get("vp", 0)
        return _(
            "{who} cannot pay the {advisor} {price} (has none), so gets no help.",
            who=who,
            advisor=advisor.name,
            price=amount("vp", price),
        )
    if unable == "goods":
        return _("{who} has no good to give the {advisor}, so gets no help.", who=who, advisor=advisor.name)
    return _("{who} declines the help of the {advisor}.", who=who, advisor=advisor.name)


def _dice_list(dice: Sequence[int], white: Sequence[int]) -> str:
    return " ".join([*map(str, dice), *(f"w{w}" for w in white)])


def _influenced(fact: Mapping[str, Any], who: str) -> str:
    dice = _dice_list(fact["dice"], fact["white"]) + (" +2" if fact["plus2"] else "")
    line = _(
        "{who} influences advisor {advisor} ({name}) with {dice}",
        who=who,
        advisor=fact["advisor"],
        name=ADVISORS[fact["advisor"]].name,
        dice=dice,
    )
    if fact["market"]:
        line += _(" and the Market")
    if fact["envoy"]:
        line += _(" using the King's envoy")
    return line + _stated_choice(fact.get("choice")) + "."


def _fought(fact: Mapping[str, Any], who: str, delta: str) -> str:
    results = {
        "won": lambda: pgettext("battle", "won"),
        "lost": lambda: pgettext("battle", "lost"),
        "draw": lambda: pgettext("battle", "draw"),
    }
    result = results[fact["result"]]() if fact["result"] in results else str(fact["result"])
    line = _("{who} fights with strength {strength}: {result}", who=who, strength=fact["strength"], result=result)
    if fact.get("delta"):
        line += f", {delta}"
    line += "".join(_(", loses the {building}", building=BUILDINGS[b].name) for b in fact["destroyed"])
    if fact.get("owe_lose"):
        line += _(", owes {goods}", goods=amount("goods", fact["owe_lose"]))
    if fact.get("owe_take"):
        line += _(", may take {goods}", goods=amount("goods", fact["owe_take"]))
    return line + "."


def describe_fact(fact: Mapping[str, Any], names: Sequence[str]) -> str:
    kind = fact["kind"]
    who = seat_name(names, fact.get("seat"))
    delta = delta_text(fact.get("delta", {}))

    def seats(key: str) -> str:
        return ", ".join(seat_name(names, s) for s in fact.get(key, []))

    texts = {
        "GameStarted": lambda: _("Kingsburg begins; turn order: {order}", order=seats("order")),
        "EnemyDeckPrepared": lambda: _("One enemy card of each year was stacked face down."),
        "PhaseBegan": lambda: _("Phase: {phase}.", phase=phase_name(fact["phase"])),
        "StepBegan": lambda: _("Next: {step}.", step=began(fact["step"])),
        "AidGranted": lambda: _("The King's aid: {who} rolls a white die this spring.", who=who),
        "AidTied": lambda: _("The King's aid: a good of choice for {players}.", players=seats("seats")),
        "AidTaken": lambda: _("{who} takes {delta} from the King.", who=who, delta=delta),
        "GuildGoldTaken": lambda: _("{who}'s Merchants' Guild pays {gold}.", who=who, gold=amount("gold", 1)),
        "NeutralDiceRolled": lambda: _(
            "Neutral dice block advisors {advisors}.", advisors=", ".join(str(g["advisor"]) for g in fact["groups"])
        ),
        "DiceRolled": lambda: _(
            "Dice: {dice}.",
            dice="; ".join(
                f"{seat_name(names, s)} {_dice_list(d, fact['white'][s])}" for s, d in enumerate(fact["dice"])
            ),
        ),
        "DiceRerolled": lambda: _(
            "{who} rerolls with the {building}: {dice}.",
            who=who,
            building=BUILDINGS[fact["building"]].name,
            dice=_dice_list(fact["dice"], fact["white"]),
        ),
        "RerollsKept": lambda: _("{who} keeps the dice.", who=who),
        "TurnOrderSet": lambda: _("Turn order: {order}.", order=seats("order")),
        "AdvisorInfluenced": lambda: _influenced(fact, who),
        "InfluencePassed": lambda: (
            _("{who} passes (no group fits).", who=who) if fact.get("auto") else _("{who} passes.", who=who)
        ),
        "GiftsBegan": lambda: _("The advisors give their help."),
        "GiftReceived": lambda: _(
            "{advisor} gives {who} {delta}.", advisor=ADVISORS[fact["advisor"]].name, who=who, delta=delta
        ),
        "GiftDeclined": lambda: _declined(fact, who),
        "CardPeeked": lambda: _(
            "{who} looks at the top enemy card{card}.", who=who, card=_card_text(fact.get("secret", {}).get("data", {}))
        ),
        "BuildingBuilt": lambda: (
            _(
                "{who} builds the {building} (King's envoy): {delta}.",
                who=who,
                building=BUILDINGS[fact["building"]].name,
                delta=delta,
            )
            if fact["envoy"]
            else _(
                "{who} builds the {building}: {delta}.", who=who, building=BUILDINGS[fact["building"]].name, delta=delta
            )
        ),
        "BuildPassed": lambda: _("{who} does not build.", who=who),
        "InnTokenTaken": lambda: _("{who}'s Inn gives a +2 token.", who=who),
        "TownHallUsed": lambda: _("{who}'s Town Hall: {delta}.", who=who, delta=delta),
        "TownHallSkipped": lambda: _("{who} does not use the Town Hall.", who=who),
        "EmbassyScored": lambda: _("{who}'s Embassy gives {vp}.", who=who, vp=amount("vp", 1)),
        "SeasonEnded": lambda: _("End of {season}.", season=phase_name(fact["season"])),
        "KingsRewardGiven": lambda: _(
            "The King rewards {who} (most buildings): {vp}.", who=who, vp=amount("vp", 1, signed=True)
        ),
        "EnvoyReturned": lambda: _("The King's envoy leaves {who} unused.", who=who),
        "EnvoyAwarded": lambda: _("The King's envoy goes to {who}.", who=who),
        "SoldiersRecruited": lambda: _(
            "{who} recruits {soldiers} for {paid}.",
            who=who,
            soldiers=amount("soldiers", fact["delta"]["soldiers"]),
            paid=_paid(fact["delta"]),
        ),
        "RecruitPassed": lambda: _("{who} recruits nobody.", who=who),
        "EnemyRevealed": lambda: _(
            "The enemy of year {year}: {name}, strength {strength}.",
            year=ROMAN.get(ENEMIES[fact["card"]].year),
            name=enemy_name(fact["card"]),
            strength=fact["strength"],
        ),
        "ReinforcementsRolled": lambda: _(
            "{who} rolls {dice}: the King sends {soldiers} to everybody.",
            who=who,
            dice=" ".join(map(str, fact["dice"])),
            soldiers=amount("soldiers", fact["soldiers"]),
        ),
        "TokenChosen": lambda: (
            _("{who} chooses a soldier token ({token}).", who=who, token=fact["secret"]["data"]["token"])
            if "data" in fact.get("secret", {})
            else _("{who} chooses a soldier token.", who=who)
        ),
        "TokensRevealed": lambda: _(
            "Soldier tokens: {tokens}.",
            tokens=", ".join(f"{seat_name(names, s)} {t}" for s, t in enumerate(fact["tokens"])),
        ),
        "BattleFought": lambda: _fought(fact, who, delta),
        "BestDefenderRewarded": lambda: _("{who} fought best: {vp}.", who=who, vp=amount("vp", 1, signed=True)),
        "GoodsLost": lambda: _("{who} gives up {goods}.", who=who, goods=_paid(fact["delta"])),
        "SpoilsTaken": lambda: _("{who} takes {delta} as spoils.", who=who, delta=delta),
        "SoldiersDismissed": lambda: _("The soldiers go home."),
        "YearEnded": lambda: _("End of year {year}.", year=ROMAN.get(fact["year"], fact["year"])),
        "CathedralScored": lambda: _("{who}'s Cathedral: {delta}.", who=who, delta=delta),
        "TokensScored": lambda: _("{who}'s unused soldier tokens: {delta}.", who=who, delta=delta),
        "GameEnded": lambda: _("The five years are over."),
    }
    maker = texts.get(kind)
    return maker() if maker else kind


# -- plain text -----------------------------------------------------------------------------------
def _dice_text(dice: Sequence[int], white: Sequence[int], plus2: bool = False) -> str:
    return " ".join([*map(str, dice), *(f"w{w}" for w in white), *(["+2"] if plus2 else [])])


def render_text(v: Mapping[str, Any], names: Sequence[str]) -> str:
    lines = [f"Kingsburg - {v['label']}"]
    if v["to_move"]:
        lines.append(_("Waiting for: {players}", players=", ".join(seat_name(names, s) for s in v["to_move"])))
    lines.append(enemy_line(v))
    lines.append(
        _("King's envoy: {player}", player=seat_name(names, v["envoy"]))
        + (
            "   " + _("King's aid (white die): {player}", player=seat_name(names, v["aid"]))
            if v["aid"] is not None
            else ""
        )
    )
    if v["court"]:
        lines.append(_("Court:"))
        for spot in v["court"]:
            groups = "; ".join(group_text(g, names) for g in spot["groups"])
            lines.append(f"  {spot['advisor']:>2} {ADVISORS[spot['advisor']].name:<14} {groups}")
    for position, seat in enumerate(v["order"], start=1):
        lines += _player_text(v["players"][seat], position, seat_name(names, seat), seat == v["envoy"])
    return fitted("\n".join(lines) + "\n")  # lines of words broken for a mail


def enemy_line(v: Mapping[str, Any]) -> str:
    enemy = v["enemy"]
    if enemy:
        return _("Enemy: {name} strength {strength}", name=enemy_name(enemy["id"]), strength=enemy["strength"])
    low, high = v["enemy_range"]
    return ngettext(
        "Enemy this year: strength {low}-{high} ({n} card left)",
        "Enemy this year: strength {low}-{high} ({n} cards left)",
        v["deck_left"],
        low=low,
        high=high,
    )


def group_text(g: Mapping[str, Any], names: Sequence[str]) -> str:
    owner = _("neutral") if g["seat"] < 0 else seat_name(names, g["seat"])
    envoy = " " + spoken("envoy") if g["envoy"] else ""
    return f"{owner} [{_dice_text(g['dice'], g['white'], g['plus2'])}]{envoy}"


def holdings(p: Mapping[str, Any]) -> str:
    """A seat's counters: "3 VP, 2 gold, 1 wood, 0 stone, 1 +2, 2 soldiers"."""
    return _(
        "{vp}, {gold}, {wood}, {stone}, {plus2}, {soldiers}",
        vp=amount("vp", p["vp"]),
        gold=amount("gold", p["gold"]),
        wood=amount("wood", p["wood"]),
        stone=amount("stone", p["stone"]),
        plus2=amount("plus2", p["plus2"]),
        soldiers=amount("soldiers", p["soldiers"]),
    )


def hand_lines(p: Mapping[str, Any]) -> list[str]:
    lines = []
    if p["dice"] or p["white"]:
        dice = _dice_text(p["dice"], p["white"])
        lines.append(
            _("dice in hand: {dice} (passed)", dice=dice) if p["passed"] else _("dice in hand: {dice}", dice=dice)
        )
    if p["tokens"]:
        lines.append(_("soldier tokens: {tokens}", tokens=" ".join(map(str, p["tokens"]))))
    if p.get("token") is not None:
        lines.append(_("your token this winter: {token}", token=p["token"]))
    lines += [
        _("you saw the enemy: {name} strength {strength}", name=enemy_name(card["id"]), strength=card["strength"])
        for card in p.get("peeked", [])
    ]
    return lines


def _player_text(p: Mapping[str, Any], position: int, name: str, envoy: bool) -> list[str]:
    head = f"{position}. {name}: {holdings(p)}" + (", " + spoken("envoy") if envoy else "")
    lines = [head, *("   " + line for line in hand_lines(p))]
    return lines + building_grid(set(p["buildings"]))


def building_grid(owned: set[str], width: int = TEXT_WIDTH) -> list[str]:
    """The buildings in the rows of a player's board, ``[x]`` for built: each column as wide as
    its longest name, two spaces apart, or one where that is too wide for a ``width``-character
    line; where even that is, the rows unaligned (the longer Polish names), the cells two spaces
    apart or one."""
    rows = [[f"[{'x' if b in owned else ' '}] {BUILDINGS[b].name}" for b in row] for row in ROWS.values()]
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    layouts = [(gap, widths) for gap in ("  ", " ")] + [(gap, [0] * len(widths)) for gap in ("  ", " ")]
    for gap, columns in layouts:
        lines = ["   " + gap.join(cell.ljust(w) for cell, w in zip(row, columns, strict=True)).rstrip() for row in rows]
        if max(map(len, lines)) <= width:
            break
    return lines
