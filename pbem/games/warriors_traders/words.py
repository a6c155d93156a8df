"""The game's nouns in the language spoken now (``pbem.games.text``): resources with their
counting forms, tracks, units, province types, maps, phases and steps. The stored facts and the
canonical orders keep the English keys; only what a reader reads goes through here. The Czech
and Polish words are those of ``glossary.json``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from pbem.games.text import _, ngettext, pgettext
from pbem.games.warriors_traders.data import RULES

# "{n} food": one counting form per language (Czech and Polish have three)
AMOUNTS: dict[str, Callable[[int], str]] = {
    "food": lambda n: ngettext("{n} food", "{n} food", n),
    "goods": lambda n: ngettext("{n} goods", "{n} goods", n),
    "weapons": lambda n: ngettext("{n} weapons", "{n} weapons", n),
    "gold": lambda n: ngettext("{n} gold", "{n} gold", n),
}
RESOURCE: dict[str, Callable[[], str]] = {
    "food": lambda: pgettext("warriors-traders resource", "food"),
    "goods": lambda: pgettext("warriors-traders resource", "goods"),
    "weapons": lambda: pgettext("warriors-traders resource", "weapons"),
    "gold": lambda: pgettext("warriors-traders resource", "gold"),
}
TRACK: dict[str, Callable[[], str]] = {
    "production": lambda: pgettext("warriors-traders track", "production"),
    "trade": lambda: pgettext("warriors-traders track", "trade"),
    "military": lambda: pgettext("warriors-traders track", "military"),
}
UNIT: dict[str, Callable[[], str]] = {
    "infantry": lambda: pgettext("warriors-traders unit", "infantry"),
    "archer": lambda: pgettext("warriors-traders unit", "archer"),
    "cavalry": lambda: pgettext("warriors-traders unit", "cavalry"),
    "princess": lambda: pgettext("warriors-traders unit", "princess"),
    "fort": lambda: pgettext("warriors-traders unit", "fort"),
}
PROVINCE_TYPE: dict[str, Callable[[], str]] = {
    "capital": lambda: pgettext("warriors-traders province", "capital"),
    "trade_center": lambda: pgettext("warriors-traders province", "trade centre"),
    "ordinary": lambda: pgettext("warriors-traders province", "ordinary province"),
    "conquered": lambda: pgettext("warriors-traders province", "conquered province"),
}
MAP_TITLE: dict[str, Callable[[], str]] = {
    "west": lambda: _("Western Europe (approximate map)"),
    "east": lambda: _("Eastern Europe (approximate map)"),
}
STEP: dict[str, Callable[[], str]] = {
    "action1": lambda: _("the first action"),
    "action2": lambda: _("the second action"),
    "special": lambda: _("special actions"),
    "shift": lambda: _("moving a development token"),
    "move": lambda: _("army movement"),
    "battle": lambda: _("damage assignment"),
    "princess": lambda: _("princess movement"),
    "bonus": lambda: _("unification bonus actions"),
    "feed": lambda: _("feeding the armies"),
}
PHASE: dict[str, Callable[[], str]] = {
    "setup": lambda: pgettext("warriors-traders phase", "setup"),
    "maintenance": lambda: pgettext("warriors-traders phase", "maintenance"),
    "trade": lambda: pgettext("warriors-traders phase", "trade"),
    "development": lambda: pgettext("warriors-traders phase", "development"),
    "maneuvers": lambda: pgettext("warriors-traders phase", "maneuvers"),
    "between": lambda: pgettext("warriors-traders phase", "between"),
    "over": lambda: pgettext("warriors-traders phase", "game over"),
}
THE_PHASE: dict[str, Callable[[], str]] = {
    "maintenance": lambda: _("the maintenance phase"),
    "trade": lambda: _("the trade phase"),
    "development": lambda: _("the development phase"),
    "maneuvers": lambda: _("the maneuvers phase"),
    "setup": lambda: _("the setup phase"),
    "between": lambda: _("the between phase"),
    "over": lambda: _("the over phase"),
}


def _said(table: Mapping[str, Callable[[], str]], key: str) -> str:
    return table[key]() if key in table else key


def resource(name: str) -> str:
    return _said(RESOURCE, name)


def track(name: str) -> str:
    return _said(TRACK, name)


def unit(kind: str) -> str:
    return _said(UNIT, kind)


def province_type(kind: str) -> str:
    return _said(PROVINCE_TYPE, kind)


def map_title(name: str, fallback: str) -> str:
    return MAP_TITLE[name]() if name in MAP_TITLE else fallback


def phase(name: str) -> str:
    return _said(PHASE, name)


def step_name(step: str, phase_name: str) -> str:
    """A step's name; a phase without steps is named as a whole ("the trade phase")."""
    if step in STEP:
        return STEP[step]()
    return THE_PHASE[phase_name]() if phase_name in THE_PHASE else phase_name


def amount(name: str, n: int) -> str:
    """``n`` of a resource, counted ("3 zlaté", "5 zlatých")."""
    return AMOUNTS[name](n) if name in AMOUNTS else f"{n} {name}"


def amounts(items: Mapping[str, int] | Iterable[tuple[str, int]], nothing: bool = True) -> str:
    """A bundle of resources for prose ("2 food, 1 gold"); "nothing" when empty."""
    pairs = items.items() if isinstance(items, Mapping) else items
    text = ", ".join(amount(r, n) for r, n in pairs if n)
    return text or (_("nothing") if nothing else "")


def vp(n: int) -> str:
    return ngettext("{n} VP", "{n} VP", n)


def invented() -> list[str]:
    """``RULES.invented()`` in the reader's words: the numbers invented until the real board
    is known."""
    labels = {
        "military_action_points": lambda: _("action points per military level"),
        "trade_bank_ratio": lambda: _("bank ratio (X:1) per trade level"),
        "production_food_multiplier": lambda: _("food multiplier per production level"),
        "production_goods_multiplier": lambda: _("goods multiplier per production level"),
        "military_weapons_multiplier": lambda: _("weapons multiplier per military level"),
        "tokens_to_reach_level": lambda: _("token spaces per level"),
    }
    lines = []
    for key, label in labels.items():
        table = RULES.raw["tracks"][key]
        if table.get("confidence") == "approximation":
            lines.append(f"{label()} I-VII: {' '.join(map(str, table['value']))}")
    for kind in ("princess", "fort"):
        row = RULES.unit(kind)
        if row.get("confidence") == "approximation":
            lines.append(
                _(
                    "{unit} strength/toughness: {strength}/{toughness}",
                    unit=unit(kind),
                    strength=row["strength"],
                    toughness=row["toughness"],
                )
            )
    return lines


# Keys that English history lines print as they are stored ("passes (action1)", "develops
# trade (master_trader)"); other languages name them.
KEYS: dict[str, Callable[[], str]] = {
    "action1": lambda: pgettext("warriors-traders step", "action1"),
    "action2": lambda: pgettext("warriors-traders step", "action2"),
    "special": lambda: pgettext("warriors-traders step", "special"),
    "shift": lambda: pgettext("warriors-traders step", "shift"),
    "move": lambda: pgettext("warriors-traders step", "move"),
    "princess": lambda: pgettext("warriors-traders step", "princess"),
    "bonus": lambda: pgettext("warriors-traders step", "bonus"),
    "battle": lambda: pgettext("warriors-traders step", "battle"),
    "feed": lambda: pgettext("warriors-traders step", "feed"),
    "master_trader": lambda: pgettext("warriors-traders ability", "master_trader"),
    "university": lambda: pgettext("warriors-traders ability", "university"),
    "voivode": lambda: pgettext("warriors-traders ability", "voivode"),
    "commander": lambda: pgettext("warriors-traders ability", "commander"),
    "masonry": lambda: pgettext("warriors-traders ability", "masonry"),
    "reinforcements": lambda: pgettext("warriors-traders ability", "reinforcements"),
}
MAP_SIDE: dict[str, Callable[[], str]] = {
    "west": lambda: pgettext("warriors-traders map", "west"),
    "east": lambda: pgettext("warriors-traders map", "east"),
}
REASONS: dict[str, Callable[[], str]] = {
    "no damage this turn": lambda: _("no damage this turn"),
    "third turn over": lambda: _("third turn over"),
    "victory threshold reached": lambda: _("victory threshold reached"),
    "tenth turn over": lambda: _("tenth turn over"),
}


def source(key: str) -> str:
    """Which slot paid for an action (an ability's key, "bonus")."""
    return _said(KEYS, key)


def passed_step(key: str) -> str:
    return _said(KEYS, key)


def map_side(name: str) -> str:
    return _said(MAP_SIDE, name)


def war_end(reason: str) -> str:
    return _said(REASONS, reason)


def end_reason(reason: str) -> str:
    return _said(REASONS, reason)


def title() -> str:
    """The game's name as the rulebook of the language spoken now prints it."""
    return _("Warriors & Traders")


TRACK_LETTER: dict[str, Callable[[], str]] = {
    "production": lambda: pgettext("warriors-traders track letter", "P"),
    "trade": lambda: pgettext("warriors-traders track letter", "T"),
    "military": lambda: pgettext("warriors-traders track letter", "M"),
}
PROVINCE_KEY: dict[str, Callable[[], str]] = {
    "capital": lambda: pgettext("warriors-traders province type", "capital"),
    "trade_center": lambda: pgettext("warriors-traders province type", "trade_center"),
    "ordinary": lambda: pgettext("warriors-traders province type", "ordinary"),
    "conquered": lambda: pgettext("warriors-traders province type", "conquered"),
}
# The order words a player writes (the glossary's "commands"); parse_move reads them back.
COMMAND: dict[str, Callable[[], str]] = {
    "develop": lambda: pgettext("warriors-traders command", "develop"),
    "build": lambda: pgettext("warriors-traders command", "build"),
    "fort": lambda: pgettext("warriors-traders command", "fort"),
    "upgrade": lambda: pgettext("warriors-traders command", "upgrade"),
    "war": lambda: pgettext("warriors-traders command", "war"),
    "pass": lambda: pgettext("warriors-traders command", "pass"),
    "done": lambda: pgettext("warriors-traders command", "done"),
    "shift": lambda: pgettext("warriors-traders command", "shift"),
    "bank": lambda: pgettext("warriors-traders command", "bank"),
    "route": lambda: pgettext("warriors-traders command", "route"),
    "offer": lambda: pgettext("warriors-traders command", "offer"),
    "accept": lambda: pgettext("warriors-traders command", "accept"),
    "decline": lambda: pgettext("warriors-traders command", "decline"),
    "buy": lambda: pgettext("warriors-traders command", "buy"),
    "peace": lambda: pgettext("warriors-traders command", "peace"),
    "move": lambda: pgettext("warriors-traders command", "move"),
    "princess": lambda: pgettext("warriors-traders command", "princess"),
    "unify": lambda: pgettext("warriors-traders command", "unify"),
    "hit": lambda: pgettext("warriors-traders command", "hit"),
    "auto": lambda: pgettext("warriors-traders command", "auto"),
    "refuge": lambda: pgettext("warriors-traders command", "refuge"),
    "starve": lambda: pgettext("warriors-traders command", "starve"),
    "for": lambda: pgettext("warriors-traders command", "for"),
    "vp": lambda: pgettext("warriors-traders command", "vp"),
}


def track_letter(name: str) -> str:
    return _said(TRACK_LETTER, name)


def province_key(kind: str) -> str:
    """A province's type as the board's tooltip names it (English: the data's key)."""
    return _said(PROVINCE_KEY, kind)


def command(verb: str) -> str:
    return _said(COMMAND, verb)


def closing_orders() -> list[str]:
    return [command("done"), command("pass"), command("auto")]


def bundle(items: Mapping[str, int] | Iterable[tuple[str, int]]) -> str:
    """Amounts as an offer lists them ("2 food 1 gold")."""
    pairs = items.items() if isinstance(items, Mapping) else items
    return " ".join(amount(r, n) for r, n in pairs)


# the keys of a Standing's details (scoring.standings), as the final scores name them
SCORE: dict[str, Callable[[], str]] = {
    "country": lambda: pgettext("warriors-traders score", "country"),
    "sources": lambda: pgettext("warriors-traders score", "sources"),
    "provinces": lambda: pgettext("warriors-traders score", "provinces"),
    "forts": lambda: pgettext("warriors-traders score", "forts"),
    "kills": lambda: pgettext("warriors-traders score", "kills"),
    "bought": lambda: pgettext("warriors-traders score", "bought"),
    "titles": lambda: pgettext("warriors-traders score", "titles"),
    "team": lambda: pgettext("warriors-traders score", "team"),
    "team_vp": lambda: pgettext("warriors-traders score", "team vp"),
}


def score_label(key: str) -> str:
    return SCORE[key]() if key in SCORE else key.replace("_", " ")
