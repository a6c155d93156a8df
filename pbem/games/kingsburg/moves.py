"""Kingsburg moves: small frozen dataclasses, their canonical text, and the text parser.

The parser only turns words into a candidate move; ``game.parse_move`` then resolves the
candidate against the legal moves, so legality lives in one place (``rules``). English and
Czech keywords are accepted; accents and case do not matter ("dřevo" = "drevo" = "Wood").
"""

from __future__ import annotations

from dataclasses import dataclass

from pbem.games.base import invalid, syntax
from pbem.games.kingsburg.data import ADVISOR_COUNT, BUILDING_KEYS, BUILDINGS, GOODS
from pbem.games.text import fold_key


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
def goods_text(goods: tuple[str, ...]) -> str:
    if not goods:
        return "nothing"
    parts = []
    for good in GOODS:
        n = goods.count(good)
        if n:
            parts.append(good if n == 1 else f"{n} {good}")
    return " ".join(parts)


def choice_text(choice: Take | Give) -> str:
    if isinstance(choice, Give):
        return f"give {choice.good}"
    return f"take {goods_text(choice.goods)}"


def format_move(move: Move) -> str:
    if isinstance(move, Pass):
        return "pass"
    if isinstance(move, (Take, Give)):
        return choice_text(move)
    if isinstance(move, Influence):
        words = ["influence", str(move.advisor), "with", *map(str, move.dice)]
        words += [f"white {w}" for w in move.white]
        words += ["+2"] * move.plus2 + ["envoy"] * move.envoy
        if move.choice is not None:
            words.append(choice_text(move.choice))
        return " ".join(words)
    if isinstance(move, Build):
        return f"build {BUILDINGS[move.building].name.lower()}"
    if isinstance(move, Recruit):
        paid = ("gold",) * move.gold + ("wood",) * move.wood + ("stone",) * move.stone
        return f"recruit {move.soldiers} pay {goods_text(paid)}"
    if isinstance(move, Reroll):
        if move.all:
            return "reroll all"
        return f"reroll white {move.value}" if move.white else f"reroll {move.value}"
    if isinstance(move, TownHall):
        return f"townhall {'+2' if move.pay == 'plus2' else move.pay}"
    if isinstance(move, Lose):
        return f"lose {goods_text(move.goods)}"
    if isinstance(move, Token):
        return f"token {move.value}"
    raise TypeError(f"not a Kingsburg move: {move!r}")


# -- parsing -------------------------------------------------------------------------------
# folded keyword -> meaning (English and Czech; Czech words without accents after folding)
WORDS = {
    **dict.fromkeys(["pass", "keep", "done", "skip", "pas", "nech", "ponech", "hotovo", "dost"], "pass"),
    **dict.fromkeys(["take", "choose", "vezmi", "beru", "vyber"], "take"),
    **dict.fromkeys(["give", "dej", "vrat", "vymen"], "give"),
    **dict.fromkeys(["influence", "inf", "ovlivni", "ovlivnit"], "influence"),
    **dict.fromkeys(["build", "postav", "stavim"], "build"),
    **dict.fromkeys(["recruit", "naverbuj", "verbuj"], "recruit"),
    **dict.fromkeys(["reroll", "prehod", "prehazuji"], "reroll"),
    **dict.fromkeys(["townhall", "radnice"], "townhall"),
    **dict.fromkeys(["lose", "ztrat", "ztracim", "odevzdej"], "lose"),
    **dict.fromkeys(["token", "zeton"], "token"),
}
GOOD_WORDS = {
    **dict.fromkeys(["gold", "zlato", "zlata"], "gold"),
    **dict.fromkeys(["wood", "drevo", "dreva"], "wood"),
    **dict.fromkeys(["stone", "kamen", "kameny", "kamene"], "stone"),
}
NOTHING = {"nothing", "none", "nic"}
WITH = {"with", "s", "se", "kostky", "kostkami", "and", "a"}
WHITE = {"white", "w", "bila", "bile", "bilou"}
PLUS2 = {"+2", "plus2", "2+", "plus"}
ENVOY = {"envoy", "vyslanec", "vyslance", "vyslancem"}
ALL = {"all", "vse", "vsechny", "vsechno"}
PAY = {"pay", "zaplat", "platim", "za"}


def _tokens(text: str) -> list[str]:
    raw = text.replace(",", " ").replace(";", " ").split()
    return [t if t in PLUS2 else fold_key(t) for t in raw]


def _int(token: str, what: str, text: str) -> int:
    if not token.isdigit():
        raise invalid(f"In {text!r}, {token!r} should be a number ({what}).")
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
            raise invalid(f"In {text!r}, {token!r} is not a good; goods are gold, wood and stone "
                          "(zlato, dřevo, kámen).")
        goods += [GOOD_WORDS[token]] * count
        count = 1
    return sort_goods(goods)


def _parse_choice(tokens: list[str], text: str) -> Take | Give:
    verb = WORDS.get(tokens[0])
    if verb == "give":
        goods = parse_goods(tokens[1:], text)
        if len(goods) != 1:
            raise invalid(f"In {text!r}, name exactly one good to give to the Alchemist.")
        return Give(goods[0])
    if len(tokens) < 2:
        raise invalid(f"{text!r}: say what to take, e.g. 'take gold' (or 'take nothing').")
    return Take(parse_goods(tokens[1:], text))


def _parse_influence(tokens: list[str], text: str) -> Influence:
    if not tokens:
        raise invalid(f"{text!r}: say which advisor (1-{ADVISOR_COUNT}) and which dice, "
                      "e.g. 'influence 8 with 5 3'.")
    advisor = _int(tokens[0], f"the advisor, 1-{ADVISOR_COUNT}", text)
    if not 1 <= advisor <= ADVISOR_COUNT:
        raise invalid(f"In {text!r}, {advisor} is not an advisor: the court has advisors 1 to {ADVISOR_COUNT}.")
    dice: list[int] = []
    white: list[int] = []
    plus2 = envoy = False
    choice = None
    i = 1
    while i < len(tokens):
        token = tokens[i]
        if WORDS.get(token) in ("take", "give"):
            choice = _parse_choice(tokens[i:], text)
            break
        if token in WITH:
            pass
        elif token in PLUS2:
            plus2 = True
        elif token in ENVOY:
            envoy = True
        elif token in WHITE and i + 1 < len(tokens) and tokens[i + 1].isdigit():
            white.append(int(tokens[i + 1]))
            i += 1
        elif token.startswith("w") and token[1:].isdigit():
            white.append(int(token[1:]))
        elif token.isdigit():
            dice.append(int(token))
        else:
            raise invalid(f"In {text!r}, {token!r} is not a die, '+2', 'envoy' or 'take ...'.")
        i += 1
    if any(not 1 <= d <= 6 for d in dice + white):
        raise invalid(f"In {text!r}, dice show 1 to 6.")
    if white and not dice:
        raise invalid(f"{text!r} names no coloured die; every group needs at least one.")
    # no dice at all: "influence 8" asks for any group that fits (resolved in game.parse_move)
    return Influence(advisor, tuple(sorted(dice, reverse=True)), tuple(sorted(white, reverse=True)),
                     plus2, envoy, choice)


def _parse_recruit(tokens: list[str], text: str) -> Recruit | Pass:
    if not tokens:
        raise invalid(f"{text!r}: say how many soldiers, e.g. 'recruit 2'.")
    soldiers = _int(tokens[0], "soldiers", text)
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
        raise invalid(f"{text!r}: say 'reroll all' (Chapel) or 'reroll 4' / 'reroll white 4' (Statue).")
    return Reroll(False, _int(rest[0], "the die to reroll", text), white)


def _parse_building(tokens: list[str], text: str) -> Build:
    key = "".join(tokens)
    if key not in BUILDING_KEYS:
        raise invalid(f"{text!r}: there is no building called {' '.join(tokens)!r}.")
    return Build(BUILDING_KEYS[key])


def parse_text(text: str) -> Move:
    """Words -> a candidate move (not yet checked against the rules)."""
    tokens = _tokens(text)
    if not tokens:
        raise syntax("The command is empty.")
    verb = WORDS.get(tokens[0])
    rest = tokens[1:]
    if verb == "pass":
        return Pass()
    if verb in ("take", "give"):
        return _parse_choice(tokens, text)
    if verb == "influence":
        return _parse_influence(rest, text)
    if verb == "build":
        return _parse_building(rest, text)
    if verb == "recruit":
        return _parse_recruit(rest, text)
    if verb == "reroll":
        return _parse_reroll(rest, text)
    if verb == "townhall" or tokens[:2] == ["town", "hall"]:
        rest = rest[1:] if tokens[0] == "town" else rest
        if len(rest) == 1 and rest[0] in PLUS2:
            return TownHall("plus2")
        goods = parse_goods(rest, text)
        if len(goods) != 1:
            raise invalid(f"{text!r}: pay one good or '+2' at the Town Hall, e.g. 'townhall wood'.")
        return TownHall(goods[0])
    if verb == "lose":
        return Lose(parse_goods(rest, text))
    if verb == "token":
        if len(rest) != 1:
            raise invalid(f"{text!r}: say which soldier token, e.g. 'token 2'.")
        return Token(_int(rest[0], "the token", text))
    raise syntax(f"{text!r} is not a Kingsburg command.")
