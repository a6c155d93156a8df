"""Move text in English and Czech: parse against the legal moves, and the canonical format.

Canonical forms: ``build C4`` (or ``build C4 D4 E5``), ``oracle C4``, ``farm C4``,
``oasis C4``, ``tower C4``, ``tavern C4``, ``barn C4 to D5``, ``harbor C4 to D5``,
``paddock C4 to C6``, ``end``. Czech: ``stavba``/``postav``, ``věštírna``, ``statek``,
``oáza``, ``věž``, ``krčma``, ``stodola``, ``přístav``, ``výběh``, ``konec``; ``na`` or ``do``
for ``to``. Accents and case do not matter. A bare hex (``C4``) or a moving tile with only a
target (``harbor H9``) is resolved against the legal moves and refused when ambiguous.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from pbem.games.base import invalid, syntax
from pbem.games.text import fold, resolve

from .board import name, parse_hex
from .data import BUILD_TILES, MANDATORY, MOVE_TILES
from .rules import Move, check, decide, legal_moves
from .state import KBState

KEYWORDS = {
    "build": "build", "b": "build", "stavba": "build", "stavet": "build", "stav": "build",
    "postav": "build", "vybuduj": "build", "buduj": "build",
    "oracle": "oracle", "vestirna": "oracle",
    "farm": "farm", "statek": "farm",
    "oasis": "oasis", "oaza": "oasis",
    "tower": "tower", "vez": "tower",
    "tavern": "tavern", "krcma": "tavern", "hospoda": "tavern",
    "barn": "barn", "stodola": "barn",
    "harbor": "harbor", "harbour": "harbor", "pristav": "harbor",
    "paddock": "paddock", "vybeh": "paddock",
    "end": "end", "done": "end", "pass": "end", "konec": "end", "hotovo": "end",
}
SEPARATORS = {"to", "na", "do", "->", "-", ">", "=>"}
T = TypeVar("T")
USAGE = ["build C4", "build C4 D4 E5", "oracle C4", "tavern F7", "harbor G3 to H9", "paddock C4 to C6", "end"]



def format_move(move: Move) -> str:
    kind = move[0]
    if kind == "end":
        return "end"
    if kind in MOVE_TILES:
        return f"{kind} {name(move[1])} to {name(move[2])}"
    return " ".join([kind] + [name(h) for h in move[1:]])


def _hexes(words: list[str], original: str) -> list[int]:
    hexes = []
    for word in words:
        hex_ = parse_hex(word)
        if hex_ is None:
            raise invalid(f"{word!r} in {original!r} is not a hex of the map: write a column letter "
                          f"A-T and a row number 1-20, e.g. C4.")
        hexes.append(hex_)
    return hexes


def _tokens(text: str) -> list[str]:
    spaced = fold(text.strip()).replace(",", " ").replace("->", " -> ")
    return [w for w in spaced.split() if w not in SEPARATORS]


def parse_move(state: KBState, seat: int, text: str) -> Move:
    words = _tokens(text)
    if not words:
        raise syntax("An empty command is no Kingdom Builder move.", USAGE)
    kind = KEYWORDS.get(words[0])
    if kind is None:
        if parse_hex(words[0]) is not None and len(words) == 1:
            return _resolve(state, seat, text, lambda m: m[-1] == parse_hex(words[0]) and m[0] != "end")
        raise syntax(f"{text.strip()!r} is not a Kingdom Builder command; for example: "
                     f"{', '.join(USAGE)}.", USAGE)
    hexes = _hexes(words[1:], text.strip())
    if kind == "end":
        move: Move = ("end",)
        if hexes:
            raise invalid(f"{text.strip()!r}: end takes no hex.")
    elif kind == "build" and 1 <= len(hexes) <= MANDATORY:
        move = ("build", *hexes)
    elif kind in BUILD_TILES and len(hexes) == 1:
        move = (kind, hexes[0])
    elif kind in MOVE_TILES and len(hexes) == 2:
        move = (kind, hexes[0], hexes[1])
    elif kind in MOVE_TILES and len(hexes) == 1:
        return _resolve(state, seat, text, lambda m: m[0] == kind and m[2] == hexes[0])
    else:
        shape = {"build": "1 to 3 hexes", "move": "a hex to move from and one to move to"}
        need = shape["move"] if kind in MOVE_TILES else shape["build"] if kind == "build" else "one hex"
        raise invalid(f"{text.strip()!r}: {kind} needs {need}.", USAGE)
    _check_all(state, seat, move)
    return move


class _FirstRng:
    """Stands in for the rng while a chained build is tried on a scratch state: only
    legality is wanted, so any outcome of a mid-chain reshuffle will do."""

    def randint(self, low: int, high: int) -> int:
        return low

    def shuffle(self, items: Sequence[T]) -> list[T]:
        return list(items)

    def choice(self, items: Sequence[T]) -> T:
        return items[0]


def _check_all(state: KBState, seat: int, move: Move) -> None:
    """Check a move; a build of several hexes is tried step by step."""
    if move[0] == "build" and len(move) > 2:
        decide(state, seat, move, _FirstRng())
    else:
        check(state, seat, move)


def _resolve(state: KBState, seat: int, text: str, matches: Callable[[Move], bool]) -> Move:
    legal = legal_moves(state, seat)
    return resolve(text, [m for m in legal if matches(m)], format_move, legal=[format_move(m) for m in legal])
