"""Turn files: a header naming the game, the player and optionally the version and phase
they answer, then one order per line. Comments start with ``#``; blank lines are ignored.

    game: kingsburg-3f9a0c12
    player: ann@example.org
    version: 14
    phase: year 2, summer
    influence 8 with 5 3

The header's words may also be Czech or Polish (``hra``/``gra``, ``hráč``/``gracz``,
``verze``/``wersja``, ``fáze``/``faza``): a player's turn file is written in their language.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pbem.games.speech import _  # the problems in the language of the caller's speaking block
from pbem.games.text import fold, pgettext

HEADER_KEYS = ("game", "player", "version", "phase")
# every word a header line may start with (folded) -> its key
HEADER_WORDS = {
    **{key: key for key in HEADER_KEYS},
    "hra": "game",
    "gra": "game",
    "hrac": "player",
    "gracz": "player",
    "verze": "version",
    "wersja": "version",
    "faze": "phase",
    "faza": "phase",
}


@dataclass
class TurnFile:
    header: dict[str, str] = field(default_factory=dict)
    orders: list[tuple[int, str]] = field(default_factory=list)  # (line number, text)
    problems: list[tuple[int, str]] = field(default_factory=list)  # (line number, message)


def parse_turn_file(text: str) -> TurnFile:
    turn = TurnFile()
    in_header = True
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, colon, value = line.partition(":")
        if in_header and colon and fold(key.strip()) in HEADER_WORDS:
            name = HEADER_WORDS[fold(key.strip())]
            if name in turn.header:  # said with the word as the player wrote it ('hra', 'gra')
                turn.problems.append((number, _("the header names {word} twice", word=repr(key.strip()))))
            turn.header[name] = value.strip()
            continue
        in_header = False
        turn.orders.append((number, line))
    if "version" in turn.header and not _is_number(turn.header["version"]):
        turn.problems.append((0, _("version must be a number, not {version}", version=repr(turn.header["version"]))))
    return turn


def _is_number(text: str) -> bool:
    """ASCII digits only (str.isdigit() also accepts '²' and other digits int() refuses), and
    at most 9 of them: no game has a billion entries, and int() refuses 4,301 digits."""
    return text.isascii() and text.isdigit() and len(text) <= 9


def looks_like_turn_file(text: str) -> bool:
    """A body is treated as a turn file when its first meaningful line is a ``game:`` header,
    in any of the header's languages (``hra:``, ``gra:``)."""
    for raw in text.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            key, colon, _ = line.partition(":")
            return bool(colon) and HEADER_WORDS.get(fold(key.strip()[:20])) == "game"
    return False


def turn_file_header(game_id: str, player: str, version: int, phase: str = "") -> str:
    """The header of a turn file to fill in, in the words of the language spoken now (English
    outside ``pbem.i18n.speaking``); ``parse_turn_file`` reads them in every language."""
    words = (
        pgettext("turn file", "game"),
        pgettext("turn file", "player"),
        pgettext("turn file", "version"),
        pgettext("turn file", "phase"),
    )
    lines = [f"{words[0]}: {game_id}", f"{words[1]}: {player}", f"{words[2]}: {version}"]
    if phase:
        lines.append(f"{words[3]}: {phase}")
    return "\n".join(lines) + "\n"
