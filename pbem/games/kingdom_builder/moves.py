"""Move text in English, Czech and Polish: parse against the legal moves, the canonical format
(English, stored) and the reader's wording (``say_move``: the words of the language spoken now).

Canonical forms: ``build C4`` (or ``build C4 D4 E5``), ``oracle C4``, ``farm C4``,
``oasis C4``, ``tower C4``, ``tavern C4``, ``barn C4 to D5``, ``harbor C4 to D5``,
``paddock C4 to C6``, ``end``. Czech: ``stavba``/``postav``, ``věštírna``, ``statek``,
``oáza``, ``věž``, ``krčma``, ``stodola``, ``přístav``, ``výběh``, ``konec``; Polish:
``zbuduj``, ``wyrocznia``, ``farma``, ``oaza``, ``wieża``, ``karczma``, ``stodoła``, ``port``,
``wybieg``, ``koniec``; ``na`` or ``do`` for ``to``. Accents and case do not matter. A bare hex
(``C4``) or a moving tile with only a target (``harbor H9``) is resolved against the legal moves
and refused when ambiguous.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from pbem.games.base import invalid, syntax
from pbem.games.text import _, fold, resolve

from .board import name, parse_hex
from .data import BUILD_TILES, MANDATORY, MOVE_TILES, spoken
from .rules import Move, check, decide, legal_moves
from .state import KBState

KEYWORDS = {
    "build": "build",
    "b": "build",
    "stavba": "build",
    "stavet": "build",
    "stav": "build",
    "postav": "build",
    "vybuduj": "build",
    "buduj": "build",
    "zbuduj": "build",
    "oracle": "oracle",
    "vestirna": "oracle",
    "wyrocznia": "oracle",
    "farm": "farm",
    "statek": "farm",
    "farma": "farm",
    "oasis": "oasis",
    "oaza": "oasis",
    "tower": "tower",
    "vez": "tower",
    "wieza": "tower",
    "tavern": "tavern",
    "krcma": "tavern",
    "hospoda": "tavern",
    "karczma": "tavern",
    "tawerna": "tavern",
    "barn": "barn",
    "stodola": "barn",
    "harbor": "harbor",
    "harbour": "harbor",
    "pristav": "harbor",
    "port": "harbor",
    "przystan": "harbor",
    "paddock": "paddock",
    "vybeh": "paddock",
    "wybieg": "paddock",
    "end": "end",
    "done": "end",
    "pass": "end",
    "konec": "end",
    "hotovo": "end",
    "koniec": "end",
    "gotowe": "end",
    "pas": "end",
}
SEPARATORS = {"to", "na", "do", "->", "-", ">", "=>"}
T = TypeVar("T")


def format_move(move: Move) -> str:
    """The canonical text (English words), stored with the move."""
    return _write(move, lambda word: word)


def say_move(move: Move) -> str:
    """The move in the words of the language spoken now; ``parse_move`` reads it back."""
    return _write(move, spoken)


def _write(move: Move, word: Callable[[str], str]) -> str:
    kind = move[0]
    if kind == "end":
        return word("end")
    if kind in MOVE_TILES:
        return f"{word(kind)} {name(move[1])} {word('to')} {name(move[2])}"
    return " ".join([word(kind)] + [name(h) for h in move[1:]])


def usage() -> list[str]:
    """Example commands in the reader's words."""
    return [
        say_move(move)
        for move in (
            ("build", 62),
            ("build", 62, 63, 84),
            ("oracle", 62),
            ("tavern", 125),
            ("harbor", 46, 167),
            ("paddock", 62, 102),
            ("end",),
        )
    ]


def _hexes(words: list[str], original: str) -> list[int]:
    hexes = []
    for word in words:
        hex_ = parse_hex(word)
        if hex_ is None:
            raise invalid(
                _(
                    "{word} in {text} is not a hex of the map: write a column letter A-T and a row "
                    "number 1-20, e.g. C4.",
                    word=repr(word),
                    text=repr(original),
                )
            )
        hexes.append(hex_)
    return hexes


def _tokens(text: str) -> list[str]:
    spaced = fold(text.strip()).replace(",", " ").replace("->", " -> ")
    return [w for w in spaced.split() if w not in SEPARATORS]


def parse_move(state: KBState, seat: int, text: str) -> Move:
    words = _tokens(text)
    if not words:
        raise syntax(_("An empty command is no Kingdom Builder move."), usage())
    kind = KEYWORDS.get(words[0])
    if kind is None:
        return _bare_hex(state, seat, text, words)
    hexes = _hexes(words[1:], text.strip())
    if kind in MOVE_TILES and len(hexes) == 1:
        return _resolve(state, seat, text, lambda m: m[0] == kind and m[2] == hexes[0])
    move = _move_of(kind, hexes, text)
    _check_all(state, seat, move)
    return move


def _bare_hex(state: KBState, seat: int, text: str, words: list[str]) -> Move:
    """A command of one hex alone is the one legal move that ends on it."""
    if parse_hex(words[0]) is not None and len(words) == 1:
        return _resolve(state, seat, text, lambda m: m[-1] == parse_hex(words[0]) and m[0] != "end")
    raise syntax(
        _(
            "{text} is not a Kingdom Builder command; for example: {examples}.",
            text=repr(text.strip()),
            examples=", ".join(usage()),
        ),
        usage(),
    )


def _move_of(kind: str, hexes: list[int], text: str) -> Move:
    """The move the command word and its hexes name, when their number fits the command."""
    if kind == "end":
        if hexes:
            raise invalid(_("{text}: {end} takes no hex.", text=repr(text.strip()), end=spoken("end")))
        return ("end",)
    if kind == "build" and 1 <= len(hexes) <= MANDATORY:
        return ("build", *hexes)
    if kind in BUILD_TILES and len(hexes) == 1:
        return (kind, hexes[0])
    if kind in MOVE_TILES and len(hexes) == 2:
        return (kind, hexes[0], hexes[1])
    need = (
        _("a hex to move from and one to move to")
        if kind in MOVE_TILES
        else _("1 to 3 hexes")
        if kind == "build"
        else _("one hex")
    )
    raise invalid(_("{text}: {kind} needs {need}.", text=repr(text.strip()), kind=spoken(kind), need=need), usage())


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
    return resolve(text, [m for m in legal if matches(m)], say_move, legal=[say_move(m) for m in legal])
