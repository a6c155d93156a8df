"""Press by mail: reading ``tell NAME: text`` and ``note: text`` in a letter, the addresses that answer a message,
and the mails that carry a message to its sender and recipients.

``tell NAME: text`` (``napiš``, ``napisz``; several names separated by commas; ``all``,
``všem``, ``wszystkim`` for the whole table): the text runs from the colon to the next blank
line, and those lines are never read as commands. ``note: text`` (``poznámka``, ``notatka``)
is a note to oneself, ``note sealed: text`` (``poznámka zapečetěná``, ``notatka
zapieczętowana``) one opened for everyone at the end. Each message mail comes from an address of
its own conversation, ``pbem+GAME.TOKEN.toTARGET@…`` (the reader's own seat token, and whom a
reply goes to: the seats ``1-2`` or ``all``), so replying to it from any mail client sends
whatever the reply says as a message back, and nothing in it is read as a command.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pbem.games.text import fold
from pbem.ledger import entries as log
from pbem.ledger import press

TELL_WORDS = frozenset({"tell", "napis", "napisz"})  # folded: tell / napiš / napisz
TABLE_WORDS = frozenset({"all", "vsem", "wszystkim"})  # folded: all / všem / wszystkim
TELL_LINE = re.compile(r"^\s*(\S{4,6})\s+([^:\n]{1,300}?)\s*:(.*)$")
NOTE_WORDS = frozenset({"note", "poznamka", "notatka"})  # folded: note / poznámka / notatka
SEALED_WORDS = frozenset({"sealed", "zapecetena", "zapieczetowana"})  # folded: zapečetěná / zapieczętowana
NOTE_LINE = re.compile(r"^\s*(\S{4,9})(?:\s+(\S{5,16}))?\s*:(.*)$")
TARGET_PREFIX = "to"
MAX_NAMES = 20  # names in one "tell" line


@dataclass(frozen=True)
class Told:
    """One message a letter holds: to the players named (or ``press.TABLE``), and its text."""

    to: tuple[str, ...] | str
    text: str
    line: int  # where it starts in the letter, from 1
    kind: str = "tell"  # or "note", "sealed": a note of the writer's to themselves (``to`` is empty)


def _note(line: str) -> tuple[str, str] | None:
    """The kind ("note" or "sealed") and the first text of a note's line, or None."""
    found = NOTE_LINE.match(line)
    if not found or fold(found.group(1)) not in NOTE_WORDS:
        return None
    if found.group(2) is None:
        return "note", found.group(3)
    return ("sealed", found.group(3)) if fold(found.group(2)) in SEALED_WORDS else None


def _head(line: str) -> tuple[tuple[str, ...] | str, str, str] | None:
    """The recipients, the first text and the kind of a ``tell`` or note line, or None."""
    note = _note(line)
    if note is not None:
        return (), note[1], note[0]
    found = TELL_LINE.match(line)
    if not found or fold(found.group(1)) not in TELL_WORDS:
        return None
    names = tuple(name.strip() for name in found.group(2).split(",") if name.strip())
    if not names or len(names) > MAX_NAMES:
        return None
    if len(names) == 1 and fold(names[0]) in TABLE_WORDS:
        return press.TABLE, found.group(3), "tell"
    return names, found.group(3), "tell"


def split_press(lines: Sequence[str], paragraphs: Sequence[str] = ()) -> tuple[list[Told], tuple[str, ...]]:
    """The messages of a letter, and its ``lines`` (its non-blank lines) with each message's
    lines blanked, so positions in the letter, such as where its signature starts, stay as
    they were. ``paragraphs``: the same lines with the blank lines between them kept as "",
    where a message ends (a letter made without them is read as one paragraph)."""
    if [line for line in paragraphs if line.strip()] != [line for line in lines if line.strip()]:
        paragraphs = lines
    told, rest = _told(paragraphs)
    return told, tuple(line for line, given in zip(rest, paragraphs, strict=True) if given.strip())


def _told(lines: Sequence[str]) -> tuple[list[Told], list[str]]:
    told: list[Told] = []
    rest = list(lines)
    number = 0
    while number < len(rest):
        head = _head(rest[number])
        if head is None:
            number += 1
            continue
        to, first, kind = head
        start, text = number, [first]
        rest[number] = ""
        number += 1
        while number < len(rest) and rest[number].strip():
            text.append(rest[number])
            rest[number] = ""
            number += 1
        told.append(Told(to, "\n".join(text).strip(), start + 1, kind))
    return told, rest


# -- the conversation's addresses --------------------------------------------------------------
def target_text(to: list[int] | str) -> str:
    """The part of a reply address that says whom a reply goes to: ``all`` or ``1-2``."""
    return TARGET_PREFIX + (press.TABLE if to == press.TABLE else "-".join(str(seat) for seat in to))


def parse_target_text(text: str) -> list[int] | str | None:
    """The recipients a reply address names (``target_text``), or None when it names none."""
    if not text.startswith(TARGET_PREFIX):
        return None
    rest = text[len(TARGET_PREFIX) :]
    if rest == press.TABLE:
        return press.TABLE
    parts = rest.split("-")
    if not all(part.isdigit() and len(part) <= 3 for part in parts):
        return None
    return sorted({int(part) for part in parts})


def conversation_address(service_address: str, game_id: str, token: str, to: list[int] | str) -> str:
    local, domain = service_address.split("@", 1)
    return f"{local}+{game_id}.{token}.{target_text(to)}@{domain}"


def conversation_id(game_id: str, parties: Sequence[int] | str, domain: str) -> str:
    """The Message-ID every message of one conversation refers to, so mail clients thread it."""
    key = press.TABLE if parties == press.TABLE else "-".join(str(seat) for seat in sorted(parties))
    digest = hashlib.sha256(f"press/{game_id}/{key}".encode()).hexdigest()[:16]
    return f"<press.{game_id}.{digest}@{domain}>"


def parties(entry: dict[str, Any]) -> list[int] | str:
    """Who takes part in a message's conversation: the table, or its sender and recipients."""
    if entry["to"] == press.TABLE:
        return press.TABLE
    return sorted({entry["seat"], *entry["to"]})


def readers(entry: dict[str, Any], seats: int) -> list[int]:
    """The seats a message's mails go to: every seat for a table message, else its sender
    (a copy, with their receipt) and its recipients."""
    if entry["to"] == press.TABLE:
        return list(range(seats))
    return sorted({entry["seat"], *entry["to"]})


def answer_goes_to(entry: dict[str, Any], seat: int) -> list[int] | str:
    """Whom a reply of ``seat`` to a message goes to: the table for a table message; the
    recipients for the sender's copy; else back to the sender."""
    if entry["to"] == press.TABLE:
        return press.TABLE
    return list(entry["to"]) if seat == entry["seat"] else [entry["seat"]]


def shown_text(entry: dict[str, Any], private: dict[str, Any], seat: int | None) -> str | None:
    return log.visible_entry(entry, private, seat, False).get("text")


def conversation_names(entry: dict[str, Any], names: Sequence[str]) -> str:
    """The conversation's name in a subject: its players' names, or the table."""
    if entry["to"] == press.TABLE:
        return press.TABLE
    return ", ".join(names[seat] for seat in sorted({entry["seat"], *entry["to"]}))
