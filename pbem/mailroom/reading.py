"""Reading a letter into commands, once: the one place where the lines a person wrote become
typed commands (``commands.Command`` for the mail's own words, ``Order`` for a game's moves).
The desk dispatches what this returns and never goes back to a line. Pure functions.

People write mail around their commands: a greeting above them, a closing, their name or their
phone's footer below. Lines before the first command that read as a greeting, and lines after
the last command that read as a sign-off, a name or a footer, are not read and are listed in the
reply as such. A line between two commands that is none is read as a command, so a mistyped move
in the middle of a batch still stops the batch with its error. Whitespace and a trailing full
stop never matter (case and diacritics the command parsers ignore themselves). When the body
holds no command, the subject is read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pbem.games.text import fold
from pbem.mailroom import commands as cmd

# Words a greeting starts with, folded (lower case, no diacritics), in English, Czech and Polish.
GREETINGS = frozenset(
    {
        "hi", "hello", "hey", "hallo", "dear", "greetings", "good morning", "good afternoon", "good evening",
        "good day", "morning", "yo", "ahoj", "ahojky", "ahojte", "cau", "caute", "cus", "nazdar", "zdravim",
        "zdravime", "zdar", "dobry den", "dobre rano", "dobre odpoledne", "dobry vecer", "mily", "mila", "mili",
        "vazeny", "vazena", "vazeni", "czesc", "witam", "witaj", "witajcie", "hej", "siema", "siemka", "elo",
        "dzien dobry", "dobry wieczor", "drogi", "droga", "drodzy", "szanowny", "szanowna", "szanowni",
    }
)  # fmt: skip
# Words a closing starts with, folded.
CLOSINGS = frozenset(
    {
        "regards", "best", "best regards", "kind regards", "warm regards", "all the best", "cheers", "thanks",
        "thank you", "thx", "bye", "see you", "take care", "yours", "sincerely", "ciao", "good luck",
        "have a nice", "have a good", "s pozdravem", "se srdecnym pozdravem", "pozdrav", "pozdravy", "zdravim",
        "zdar", "diky", "dik", "dekuji", "dekuju", "dekujeme", "ahoj", "cau", "hezky den", "pekny den",
        "hezky vecer", "hezky vikend", "mej se", "mejte se", "na shledanou", "zatim", "hodne stesti",
        "pozdrawiam", "pozdrowienia", "serdecznie", "dzieki", "dziekuje", "dziekuje bardzo", "z powazaniem",
        "pa", "na razie", "do zobaczenia", "do uslyszenia", "milego dnia", "milego wieczoru", "milego weekendu",
        "trzymaj sie", "sciskam", "powodzenia",
    }
)  # fmt: skip
# The subjects pbem writes ("Kingsburg — ann, bob", and before them "moves applied - Turn 5
# (year 1, ...)", "tahy provedeny - tah 5"): a reply that keeps one is answering pbem's mail, and
# its subject is no command of the player's, even when it starts with a word that is one.
OUR_SUBJECT = re.compile(r"\s-\s\w+\s\d+(?:\s\(.*)?$|\s—\s")
MAX_EDGE_CHARS = 200  # a longer line is no greeting, closing or name
MAX_NAME_WORDS = 3
NAME_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*\.?$")  # "Petra", "Nowak-Kowalska", "J."
_NAME_SEPARATORS = re.compile(r"[._\-0-9]+")  # between the names in an address's local part
EMOTICON = re.compile(r"[:;]-?[)(DPp]+$|[\U0001F300-\U0001FAFF\u2600-\u27BF\s]+$")


@dataclass(frozen=True)
class Order:
    """A line for the game: a move, read by the game's own parser when it is applied."""

    text: str


@dataclass(frozen=True)
class NotRead:
    text: str
    why: str  # "greeting", "remark", "sign-off", "name", "signature", "footer", "attachment"


@dataclass(frozen=True)
class Reading:
    commands: tuple[cmd.Command | Order, ...]
    not_read: tuple[NotRead, ...] = ()
    from_subject: bool = False  # the body held no command; the subject did


Recognised = Callable[[str], "cmd.Command | Order | None"]


def normal(line: str) -> str:
    """A line as a command: spaces collapsed, a trailing full stop dropped."""
    text = " ".join(line.split())
    while text.endswith(".") and len(text) > 1 and not text.endswith(".."):
        text = text[:-1].rstrip()
    return text


def read_letter(
    lines: Sequence[str],
    recognise: Recognised,
    subject: str = "",
    names: Sequence[str] = (),
    closing_at: int | None = None,
    unread: Sequence[str] = (),
    footers: Sequence[str] = (),
    attachments: Sequence[str] = (),
) -> Reading:
    """The commands of a mail. ``recognise`` says what a line is when it is a command (None: it
    is none); ``names`` are the sender's names (the local part of the address, split), which a
    lower-case name line may match; ``closing_at`` is where the mail's signature may start with a
    closing (``mailgateway.letters``), ``unread`` its signature's lines, ``footers`` its client's
    footer lines, ``attachments`` the names of attachments that are not read."""
    written, signature = _split_signature(lines, recognise, closing_at)
    found = [recognise(line) for line in written]
    hits = [n for n, item in enumerate(found) if item]
    first, last = (hits[0], hits[-1]) if hits else (len(written), -1)
    start = _forgiven_start(written[:first], names) if first else 0
    end = _forgiven_end(written, max(start, last + 1), names)
    commands = tuple(found[n] or Order(written[n]) for n in range(start, end))
    not_read = _left_over(written, (start, end), names, (*signature, *unread), footers, attachments)
    asked = None if commands else _asked_in_subject(subject, recognise)
    if asked:
        return Reading((asked,), tuple(not_read), from_subject=True)
    return Reading(commands, tuple(not_read))


def _left_over(
    written: Sequence[str],
    read: tuple[int, int],
    names: Sequence[str],
    signature: Sequence[str],
    footers: Sequence[str],
    attachments: Sequence[str],
) -> list[NotRead]:
    """What is not read: the written lines outside ``read`` (start, end), the signature's lines,
    the footers and the attachments."""
    start, end = read
    if not (start or end < len(written) or signature or footers or attachments):
        return []  # a bare batch of commands, the most common mail: nothing to list
    return (
        [NotRead(line, _why_leading(line, names)) for line in written[:start]]
        + [NotRead(line, _why_trailing(line, names)) for line in written[end:]]
        + [NotRead(line, "signature") for line in signature]
        + [NotRead(line, "footer") for line in footers]
        + [NotRead(name, "attachment") for name in attachments]
    )


def _written(line: str) -> bool:
    """A line the sender wrote to be read: not blank, no comment."""
    return bool(line.strip()) and not line.lstrip().startswith("#")


def _split_signature(
    lines: Sequence[str], recognise: Recognised, closing_at: int | None
) -> tuple[list[str], list[str]]:
    """The written lines (normalised) and the signature's: the lines from ``closing_at`` on are
    a signature unless one of them is a command."""
    written = [normal(line) for line in lines if _written(line)]
    if closing_at is None:
        return written, []
    closing = sum(1 for line in lines[:closing_at] if _written(line))
    if any(recognise(line) for line in written[closing:]):
        return written, []
    return written[:closing], written[closing:]


def _asked_in_subject(subject: str, recognise: Recognised) -> cmd.Command | Order | None:
    """The command a mail without one in its text gives in its subject, unless the subject is
    one pbem wrote (a reply that keeps it)."""
    if not subject or OUR_SUBJECT.search(subject):
        return None
    return recognise(normal(cmd.plain_subject(subject)))


def _forgiven_start(leading: Sequence[str], names: Sequence[str]) -> int:
    """How many of the lines before the first command are a greeting (or prose ending so)."""
    count = 0
    for line in leading:
        if not (greeting(line) or name(line, names) or _prose(line)):
            break
        count += 1
    return count


def _forgiven_end(written: Sequence[str], after: int, names: Sequence[str]) -> int:
    """Where the trailing sign-off, name and footer lines begin (``after``: the first line after
    the last command, or after the forgiven greeting when there is no command)."""
    end = len(written)
    while end > after and (closing(written[end - 1]) or name(written[end - 1], names) or _prose(written[end - 1])):
        end -= 1
    return end


def _words(line: str) -> str:
    """The line folded, with punctuation turned into spaces."""
    return " ".join(re.sub(r"[^\w\s]", " ", fold(line[:MAX_EDGE_CHARS])).split())


def _starts_with(line: str, words: frozenset[str]) -> bool:
    if len(line) > MAX_EDGE_CHARS:
        return False
    folded = _words(line).split()
    return any(" ".join(folded[:n]) in words for n in (1, 2, 3, 4))


def greeting(line: str) -> bool:
    return _starts_with(line, GREETINGS)


def closing(line: str) -> bool:
    return _starts_with(line, CLOSINGS) or bool(EMOTICON.match(line.strip()))


def name(line: str, names: Sequence[str] = ()) -> bool:
    """A bare name: one to three words of letters, each capitalised or one of ``names``."""
    words = line.strip(" ,!-–—").split()
    if not words or len(words) > MAX_NAME_WORDS or len(line) > MAX_EDGE_CHARS:
        return False
    known = {fold(part) for part in names if part}
    return all(NAME_WORD.match(word) and (word[0].isupper() or fold(word.rstrip(".")) in known) for word in words)


def _prose(line: str) -> bool:
    """A short sentence that ends like one talks, not like a command: with "!", "?", "," or ":"."""
    text = line.strip()
    return len(text) <= MAX_EDGE_CHARS and text[-1:] in ("!", "?", ",", ":") and not text[:-1].strip().isdigit()


def _why_leading(line: str, names: Sequence[str]) -> str:
    if greeting(line):
        return "greeting"
    return "name" if name(line, names) else "remark"


def _why_trailing(line: str, names: Sequence[str]) -> str:
    if closing(line):
        return "sign-off"
    return "name" if name(line, names) else "remark"


def sender_names(address: str) -> tuple[str, ...]:
    """The parts of an address's local part that a person signs with: ``petra.svobodova`` ->
    ("petra", "svobodova")."""
    local = address.split("@", 1)[0].split("+", 1)[0]
    return tuple(part for part in _NAME_SEPARATORS.split(local) if len(part) > 1)
