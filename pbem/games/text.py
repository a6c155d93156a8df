"""The games' shared toolkit for text: folding what players type, naming seats, and resolving
a text against the legal moves.

Every game reads commands in English, Czech and Polish (and card names in German), typed with
or without accents; every game names seats in history lines and pictures; every game that
accepts short forms ("C4", "influence 8", "play qu 2") has to say the same two things when a
short form fits no legal move or several. Doing each once here keeps the wording the same in
every game and keeps the games' own modules about their rules.

Every sentence a game says goes through ``_``, ``ngettext`` or ``pgettext`` (``pbem.games.speech``,
re-exported here).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TypeVar

from pbem.games.base import AnySpec, ErrorCode, GameError, illegal
from pbem.games.speech import (
    ENGLISH,
    English,
    Translator,
    _,
    language,
    named,
    named_in,
    ngettext,
    pgettext,
    speaking,
)

__all__ = [
    "ENGLISH",
    "English",
    "Translator",
    "_",
    "fitted",
    "fold",
    "fold_key",
    "language",
    "named",
    "named_in",
    "ngettext",
    "parse_named",
    "pgettext",
    "resolve",
    "seat_name",
    "speaking",
]

M = TypeVar("M")

# How many formatted moves an error lists at most (a mail stays readable).
LEGAL_LIMIT = 40
# characters of a line of a text picture (``render_text``): what a mail's text part keeps to,
# so a board's grid is laid out for it and its lines of words are broken for it (``fitted``)
TEXT_WIDTH = 72
# where a long line of a text picture is best broken, best first: between the parts of a
# list (the players of a final score, the items of a legend), then at any space
_BREAKS = ("; ", " | ", ", ", " ")


def _cut(body: str, room: int) -> int:
    """Where to break ``body`` so its first line is at most ``room`` characters: after the
    last separator of the best kind that leaves the line at least half full; 0 for nowhere."""
    for separator in _BREAKS:
        at = body.rfind(separator, 0, room - len(separator.rstrip()) + 1)
        if at > 0 and (at >= room // 2 or separator == " "):
            return at + len(separator.rstrip())
    return 0


def fitted(text: str, width: int = TEXT_WIDTH) -> str:
    """A text picture with every line at most ``width`` characters: a longer line is broken
    between the parts of a list where it can be (``; ``, `` | ``, ``, ``), else at a space,
    and its later lines are indented two more than its first, so it stays one block. A line
    with a URL stays whole (a broken URL is no link), as does a word longer than ``width``.
    Lines that fit (a board's grid) are kept as they are."""
    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width or "://" in line:
            out.append(line)
            continue
        body = line.lstrip(" ")
        indent = line[: len(line) - len(body)]
        while len(indent) + len(body) > width:
            at = _cut(body, width - len(indent))
            if at == 0:
                break
            out.append(indent + body[:at].rstrip())
            body = body[at:].lstrip(" ")
            indent = line[: len(line) - len(line.lstrip(" "))] + "  "
        out.append(indent + body)
    return "\n".join(out)


@lru_cache(maxsize=4096)
def fold(text: str) -> str:
    """Lower case with accents dropped: ``"Přístav"`` -> ``"pristav"``, ``"wpłyń"`` ->
    ``"wplyn"`` (``ł`` has no decomposition, so it is folded by hand). Spaces are kept, so a
    command folded this way still splits into words. Cached: the parsers fold the same names
    and command words again for every move (a pure function of its text)."""
    decomposed = unicodedata.normalize("NFKD", text.casefold().replace("ł", "l"))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@lru_cache(maxsize=4096)
def fold_key(text: str) -> str:
    """A name as a lookup key: folded, and only letters and digits kept, so ``Strážní věž``,
    ``strazni vez`` and ``strazni-vez`` are one key."""
    return "".join(ch for ch in fold(text) if ch.isalnum())


# "seat 2" as the games write it in English, Czech and Polish (``seat_name`` without a name)
SEAT_WORD = re.compile(r"\b([Ss]eat|[Mm]ísto|[Mm]iejsce) (\d+)\b")


def name_seats(text: str, names: Sequence[str]) -> str:
    """``seat 2`` in a game's message becomes the name of that seat (games count seats from 1
    in their texts), so a mail never makes a player decode seat numbers."""

    def named(match: re.Match[str]) -> str:
        number = int(match.group(2))
        return names[number - 1] if 1 <= number <= len(names) else match.group(0)

    return SEAT_WORD.sub(named, text)


def seat_name(names: Sequence[str], seat: int | None) -> str:
    """The player's name of ``seat`` (0-based), ``seat N`` (1-based) when no name is known,
    or ``nobody`` for no seat."""
    if seat is None:
        return _("nobody")
    return names[seat] if 0 <= seat < len(names) else _("seat {seat}", seat=seat + 1)


def resolve(
    text: str,
    matches: Sequence[M],
    format_move: Callable[[M], str],
    *,
    legal: Sequence[str] = (),
    why: str = "",
    hint: str = "",
) -> M:
    """The one legal move among ``matches`` (the legal moves that fit ``text``).

    None fits: an *illegal* error quoting the text, with ``why`` when the game can say it, and
    ``legal`` (formatted legal moves) as the options. Several fit: an *ambiguous* error listing
    them, with ``hint`` saying how to choose.
    """
    quoted = repr(text.strip())
    if len(matches) == 1:
        return matches[0]
    if not matches:
        message = (
            _("{text} is not a legal move now: {why}.", text=quoted, why=why)
            if why
            else _("{text} is not a legal move now.", text=quoted)
        )
        raise illegal(message, list(legal)[:LEGAL_LIMIT])
    options = [format_move(move) for move in matches[:LEGAL_LIMIT]]
    raise GameError(
        ErrorCode.AMBIGUOUS,
        ngettext(
            "{text} could mean {n} move ({options}); {hint}.",
            "{text} could mean {n} moves ({options}); {hint}.",
            len(matches),
            text=quoted,
            options=", ".join(options),
            hint=hint or _("write one of them in full"),
        ),
        options,
    )


def parse_named(spec: AnySpec, state: object, seat: int, text: str, names: Sequence[str]) -> object:
    """``spec.parse_move``, where a player's name may stand for the word the game's moves use
    for that player (``spec.seat_word``): ``war bob`` for ``war ireland``. The names are tried
    only when the text as written is refused, so a name never hides a word of the game; when
    the named text is refused too, the refusal of the text as written stands."""
    try:
        return spec.parse_move(state, seat, text)
    except GameError as refused:
        words = {fold(name): spec.seat_word(state, other) for other, name in enumerate(names)}
        named = " ".join(words.get(fold(word)) or word for word in text.split())
        if named == " ".join(text.split()):
            raise
        try:
            return spec.parse_move(state, seat, named)
        except GameError:
            raise refused from None
