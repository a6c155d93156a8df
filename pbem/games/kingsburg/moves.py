"""Kingsburg moves: small frozen dataclasses, their canonical text, and the text parser.

The parser only turns words into a candidate move; ``game.parse_move`` then resolves the
candidate against the legal moves, so legality lives in one place (``rules``). English, Czech
and Polish keywords are accepted; accents and case do not matter ("dřevo" = "drevo" = "Wood",
"złoto" = "zloto"). ``format_move`` writes the canonical English text (stored); ``say_move``
writes the same move with the words of the language spoken now (mails, pages), and the parser
reads both back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pbem.games.base import invalid, syntax
from pbem.games.kingsburg.data import ADVISOR_COUNT, BUILDING_KEYS, BUILDINGS, GOODS
from pbem.games.text import _, fold_key, pgettext


@dataclass(frozen=True)
class Pass:
    """Pass / keep the dice / do not build / recruit nobody / skip the Town Hall."""


@dataclass(frozen=True)
class Take:
    """Goods chosen: the King's aid, a gift, battle spoils. ``()`` declines a gift."""

    goods: tuple[str, ...]


@dataclass(frozen=True)
class Give:
    """The Alchemist: give one good of this kind, take one of each other kind."""

    good: str


@dataclass(frozen=True)
class Influence:
    advisor: int
    dice: tuple[int, ...]  # coloured dice, high to low
    white: tuple[int, ...] = ()
    plus2: bool = False
    envoy: bool = False
    choice: Take | Give | None = None  # the gift choice stated in advance


@dataclass(frozen=True)
class Build:
    building: str


@dataclass(frozen=True)
class Recruit:
    soldiers: int
    gold: int
    wood: int
    stone: int


@dataclass(frozen=True)
class Reroll:
    all: bool  # Chapel: every die; otherwise Statue: one die
    value: int = 0
    white: bool = False


@dataclass(frozen=True)
class TownHall:
    pay: str  # gold, wood, stone or plus2


@dataclass(frozen=True)
class Lose:
    goods: tuple[str, ...]


@dataclass(frozen=True)
class Token:
    value: int


Move = Pass | Take | Give | Influence | Build | Recruit | Reroll | TownHall | Lose | Token


def sort_goods(goods: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted(goods, key=GOODS.index))


# -- formatting ----------------------------------------------------------------------------
Word = Callable[[str], str]  # a command word's key -> the word written


def english(key: str) -> str:
    return key


def spoken(key: str) -> str:
    """A command word in the language spoken now (the context tells translators it is typed)."""
    words = {
        "pass": lambda: pgettext("kingsburg command", "pass"),
        "take": lambda: pgettext("kingsburg command", "take"),
        "give": lambda: pgettext("kingsburg command", "give"),
        "influence": lambda: pgettext("kingsburg command", "influence"),
        "with": lambda: pgettext("kingsburg command", "with"),
        "white": lambda: pgettext("kingsburg command", "white"),
        "envoy": lambda: pgettext("kingsburg command", "envoy"),
        "build": lambda: pgettext("kingsburg command", "build"),
        "recruit": lambda: pgettext("kingsburg command", "recruit"),
        "pay": lambda: pgettext("kingsburg command", "pay"),
        "reroll": lambda: pgettext("kingsburg command", "reroll"),
        "all": lambda: pgettext("kingsburg command", "all"),
        "townhall": lambda: pgettext("kingsburg command", "townhall"),
        "lose": lambda: pgettext("kingsburg command", "lose"),
        "token": lambda: pgettext("kingsburg command", "token"),
        "nothing": lambda: pgettext("kingsburg command", "nothing"),
        "gold": lambda: pgettext("kingsburg command", "gold"),
        "wood": lambda: pgettext("kingsburg command", "wood"),
        "stone": lambda: pgettext("kingsburg command", "stone"),
    }
    return words[key]() if key in words else key


def goods_text(goods: tuple[str, ...], word: Word = english) -> str:
    if not goods:
        return word("nothing")
    parts = []
    for good in GOODS:
        n = goods.count(good)
        if n:
            parts.append(word(good) if n == 1 else f"{n} {word(good)}")
    return " ".join(parts)


def choice_text(choice: Take | Give, word: Word = english) -> str:
    if isinstance(choice, Give):
        return f"{word('give')} {word(choice.good)}"
    return f"{word('take')} {goods_text(choice.goods, word)}"


def format_move(move: Move) -> str:
    """The canonical text: English words, stored with the move."""
    return write_move(move, english)


def say_move(move: Move) -> str:
    """The move as a player of the language spoken now writes it."""
    return write_move(move, spoken)


def _write_influence(move: Influence, word: Word) -> str:
    words = [word("influence"), str(move.advisor), word("with"), *map(str, move.dice)]
    words += [f"{word('white')} {w}" for w in move.white]
    words += ["+2"] * move.plus2 + [word("envoy")] * move.envoy
    if move.choice is not None:
        words.append(choice_text(move.choice, word))
    return " ".join(words)


def _write_build(move: Build, word: Word) -> str:
    names = BUILDINGS[move.building].names
    name = names["en"] if word is english else BUILDINGS[move.building].name
    return f"{word('build')} {(name or move.building).lower()}"


def _write_recruit(move: Recruit, word: Word) -> str:
    paid = ("gold",) * move.gold + ("wood",) * move.wood + ("stone",) * move.stone
    return f"{word('recruit')} {move.soldiers} {word('pay')} {goods_text(paid, word)}"


def _write_reroll(move: Reroll, word: Word) -> str:
    if move.all:
        return f"{word('reroll')} {word('all')}"
    return f"{word('reroll')} {word('white')} {move.value}" if move.white else f"{word('reroll')} {move.value}"


# the writer of each kind of move: the move and the words of one language -> its text
_WRITERS: dict[type, Callable[[Any, Word], str]] = {
    Pass: lambda move, word: word("pass"),
    Take: choice_text,
    Give: choice_text,
    Influence: _write_influence,
    Build: _write_build,
    Recruit: _write_recruit,
    Reroll: _write_reroll,
    TownHall: lambda move, word: f"{word('townhall')} {'+2' if move.pay == 'plus2' else word(move.pay)}",
    Lose: lambda move, word: f"{word('lose')} {goods_text(move.goods, word)}",
    Token: lambda move, word: f"{word('token')} {move.value}",
}


def write_move(move: Move, word: Word) -> str:
    writer = _WRITERS.get(type(move))
    if writer is None:
        raise TypeError(f"not a Kingsburg move: {move!r}")
    return writer(move, word)


# -- parsing -------------------------------------------------------------------------------
# folded keyword -> meaning (English, Czech, Polish; without accents after folding, the
# glossary's command words: pbem/games/kingsburg/glossary.json)
WORDS = {
    **dict.fromkeys(
        ["pass", "keep", "done", "skip", "pas", "nech", "ponech", "hotovo", "dost", "pasuj", "dalej", "gotowe"], "pass"
    ),
    **dict.fromkeys(["take", "choose", "vezmi", "beru", "vyber", "wez", "biore"], "take"),
    **dict.fromkeys(["give", "dej", "vrat", "vymen", "oddaj", "zamien"], "give"),
    **dict.fromkeys(["influence", "inf", "ovlivni", "ovlivnit", "wplyn", "wplyw"], "influence"),
    **dict.fromkeys(["build", "postav", "stavim", "zbuduj", "buduj"], "build"),
    **dict.fromkeys(["recruit", "naverbuj", "verbuj", "werbuj", "zwerbuj", "rekrutuj"], "recruit"),
    **dict.fromkeys(["reroll", "prehod", "prehazuji", "przerzuc", "rzuc"], "reroll"),
    **dict.fromkeys(["townhall", "radnice", "ratusz"], "townhall"),
    **dict.fromkeys(["lose", "ztrat", "ztracim", "odevzdej", "strac", "trace"], "lose"),
    **dict.fromkeys(["token", "zeton"], "token"),
}
GOOD_WORDS = {
    **dict.fromkeys(["gold", "zlato", "zlata", "zloto", "zlota"], "gold"),
    **dict.fromkeys(["wood", "drevo", "dreva", "drewno", "drewna"], "wood"),
    **dict.fromkeys(["stone", "kamen", "kameny", "kamene", "kamien", "kamienia", "kamienie", "kamieni"], "stone"),
}
NOTHING = {"nothing", "none", "nic"}
WITH = {"with", "s", "se", "kostky", "kostkami", "and", "a", "z", "koscmi", "i"}
WHITE = {"white", "w", "bila", "bile", "bilou", "biala"}
PLUS2 = {"+2", "plus2", "2+", "plus"}
ENVOY = {"envoy", "vyslanec", "vyslance", "vyslancem", "wyslannik", "wyslannika"}
ALL = {"all", "vse", "vsechny", "vsechno", "wszystkie", "wszystko"}
PAY = {"pay", "zaplat", "platim", "za", "zaplac", "place"}


def _tokens(text: str) -> list[str]:
    raw = text.replace(",", " ").replace(";", " ").split()
    return [t if t in PLUS2 else fold_key(t) for t in raw]


def _int(token: str, what: str, text: str) -> int:
    if not token.isdigit():
        raise invalid(
            _("In {text}, {token} should be a number ({what}).", text=repr(text), token=repr(token), what=what)
        )
    return int(token)


def parse_goods(tokens: list[str], text: str) -> tuple[str, ...]:
    """``2 gold wood`` -> (gold, gold, wood); ``nothing`` -> ()."""
    goods: list[str] = []
    count = 1
    for token in tokens:
        if token in NOTHING:
            continue
        if token.isdigit():
            count = int(token)
            continue
        if token not in GOOD_WORDS:
            raise invalid(
                _(
                    "In {text}, {token} is not a good; goods are {goods}.",
                    text=repr(text),
                    token=repr(token),
                    goods=", ".join(spoken(g) for g in GOODS),
                )
            )
        goods += [GOOD_WORDS[token]] * count
        count = 1
    return sort_goods(goods)


def _parse_choice(tokens: list[str], text: str) -> Take | Give:
    verb = WORDS.get(tokens[0])
    if verb == "give":
        goods = parse_goods(tokens[1:], text)
        if len(goods) != 1:
            raise invalid(_("In {text}, name exactly one good to give to the Alchemist.", text=repr(text)))
        return Give(goods[0])
    if len(tokens) < 2:
        raise invalid(
            _(
                "{text}: say what to take, e.g. {example} (or {nothing}).",
                text=repr(text),
                example=repr(say_move(Take(("gold",)))),
                nothing=repr(say_move(Take(()))),
            )
        )
    return Take(parse_goods(tokens[1:], text))


def _parse_advisor(tokens: list[str], text: str) -> int:
    if not tokens:
        raise invalid(
            _(
                "{text}: say which advisor (1-{count}) and which dice, e.g. {example}.",
                text=repr(text),
                count=ADVISOR_COUNT,
                example=repr(say_move(Influence(8, (5, 3)))),
            )
        )
    advisor = _int(tokens[0], _("the advisor, 1-{count}", count=ADVISOR_COUNT), text)
    if not 1 <= advisor <= ADVISOR_COUNT:
        raise invalid(
            _(
                "In {text}, {advisor} is not an advisor: the court has advisors 1 to {count}.",
                text=repr(text),
                advisor=advisor,
                count=ADVISOR_COUNT,
            )
        )
    return advisor


def _not_a_die(token: str, text: str) -> Exception:
    return invalid(
        _(
            "In {text}, {token} is not a die, '+2', {envoy} or {take}.",
            text=repr(text),
            token=repr(token),
            envoy=repr(spoken("envoy")),
            take=repr(spoken("take") + " ..."),
        )
    )


def _read_group(tokens: list[str], text: str, group: dict[str, Any]) -> None:
    """Reads the words after the advisor into ``group`` (its dice, white dice, +2, envoy and
    the gift's choice stated in advance)."""
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if WORDS.get(token) in ("take", "give"):
            group["choice"] = _parse_choice(tokens[i:], text)
            return
        if token in PLUS2:
            group["plus2"] = True
        elif token in ENVOY:
            group["envoy"] = True
        elif token in WHITE and i + 1 < len(tokens) and tokens[i + 1].isdigit():
            group["white"].append(int(tokens[i + 1]))
            i += 1
        elif token.startswith("w") and token[1:].isdigit():
            group["white"].append(int(token[1:]))
        elif token.isdigit():
            group["dice"].append(int(token))
        elif token not in WITH:
            raise _not_a_die(token, text)
        i += 1


def _parse_influence(tokens: list[str], text: str) -> Influence:
    advisor = _parse_advisor(tokens, text)
    group: dict[str, Any] = {"dice": [], "white": [], "plus2": False, "envoy": False, "choice": None}
    _read_group(tokens[1:], text, group)
    dice, white = group["dice"], group["white"]
    if any(not 1 <= d <= 6 for d in dice + white):
        raise invalid(_("In {text}, dice show 1 to 6.", text=repr(text)))
    if white and not dice:
        raise invalid(_("{text} names no coloured die; every group needs at least one.", text=repr(text)))
    # no dice at all: "influence 8" asks for any group that fits (resolved in game.parse_move)
    return Influence(
        advisor,
        tuple(sorted(dice, reverse=True)),
        tuple(sorted(white, reverse=True)),
        group["plus2"],
        group["envoy"],
        group["choice"],
    )


def _parse_recruit(tokens: list[str], text: str) -> Recruit | Pass:
    if not tokens:
        raise invalid(
            _("{text}: say how many soldiers, e.g. {example}.", text=repr(text), example=repr(f"{spoken('recruit')} 2"))
        )
    soldiers = _int(tokens[0], _("soldiers"), text)
    if soldiers == 0:
        return Pass()  # "recruit 0" is recruiting nobody
    if len(tokens) == 1:
        return Recruit(soldiers, -1, -1, -1)  # payment chosen by game.parse_move
    rest = tokens[1:]
    if rest[0] in PAY:
        rest = rest[1:]
    goods = parse_goods(rest, text)
    return Recruit(soldiers, goods.count("gold"), goods.count("wood"), goods.count("stone"))


def _parse_reroll(tokens: list[str], text: str) -> Reroll:
    if tokens and tokens[0] in ALL:
        return Reroll(True)
    white = bool(tokens) and tokens[0] in WHITE
    rest = tokens[1:] if white else tokens
    if rest and rest[0].startswith("w") and rest[0][1:].isdigit():
        white, rest = True, [rest[0][1:]]
    if len(rest) != 1:
        raise invalid(
            _(
                "{text}: say {all} (Chapel) or {one} / {white} (Statue).",
                text=repr(text),
                all=repr(say_move(Reroll(True))),
                one=repr(say_move(Reroll(False, 4))),
                white=repr(say_move(Reroll(False, 4, True))),
            )
        )
    return Reroll(False, _int(rest[0], _("the die to reroll"), text), white)


def _parse_building(tokens: list[str], text: str) -> Build:
    key = "".join(tokens)
    if key not in BUILDING_KEYS:
        raise invalid(_("{text}: there is no building called {name}.", text=repr(text), name=repr(" ".join(tokens))))
    return Build(BUILDING_KEYS[key])


def _parse_townhall(rest: list[str], text: str) -> TownHall:
    if len(rest) == 1 and rest[0] in PLUS2:
        return TownHall("plus2")
    goods = parse_goods(rest, text)
    if len(goods) != 1:
        raise invalid(
            _(
                "{text}: pay one good or '+2' at the Town Hall, e.g. {example}.",
                text=repr(text),
                example=repr(say_move(TownHall("wood"))),
            )
        )
    return TownHall(goods[0])


def _parse_token(rest: list[str], text: str) -> Token:
    if len(rest) != 1:
        raise invalid(
            _("{text}: say which soldier token, e.g. {example}.", text=repr(text), example=repr(say_move(Token(2))))
        )
    return Token(_int(rest[0], _("the token"), text))


# the parser of each command's words after the command word
_PARSERS: dict[str, Callable[[list[str], str], Move]] = {
    "influence": _parse_influence,
    "build": _parse_building,
    "recruit": _parse_recruit,
    "reroll": _parse_reroll,
    "townhall": _parse_townhall,
    "lose": lambda rest, text: Lose(parse_goods(rest, text)),
    "token": _parse_token,
}


def parse_text(text: str) -> Move:
    """Words -> a candidate move (not yet checked against the rules)."""
    tokens = _tokens(text)
    if not tokens:
        raise syntax(_("The command is empty."))
    verb = WORDS.get(tokens[0])
    rest = tokens[1:]
    if tokens[:2] == ["town", "hall"]:
        verb, rest = "townhall", tokens[2:]
    if verb == "pass":
        return Pass()
    if verb in ("take", "give"):
        return _parse_choice(tokens, text)
    if verb in _PARSERS:
        return _PARSERS[verb](rest, text)
    raise syntax(_("{text} is not a Kingsburg command.", text=repr(text)))
