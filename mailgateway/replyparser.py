"""The adapter for ``mail-parser-reply``: the one module that imports it.

pbem asks the library one question about a run of lines that a player wrote (the new text
between quotes): where, if anywhere, a signature begins ("S pozdravem,", "Pozdrawiam", "Best
regards", "Odesláno z mého iPhonu", "-- "), and where a reply header begins that pbem's own
patterns did not know (an Outlook header block or an attribution line in another of the
library's languages). pbem finds quotes, attribution lines and Outlook blocks itself, in one pass
over the lines (``mailgateway.letters``); the library's language tables cover what it has not.

The library builds its regular expressions over the whole text, and some of them take time that
grows faster than the text: 20,000 blank lines take it more than a minute, a 2,000-character
line of "On On On ..." a quarter of a second. So it is given only a bounded copy: at most
``MAX_LINES`` lines without blank ones, each cut to ``MAX_CHARS`` characters (what it looks for
starts a line and is short). docs/mail.md ("How a mail is read") has the measured worst case.

A mail of one line (a move, most often) is not given to the library unless the library's own
reply-header expression (``HEADER_REGEX``, public, built once here) finds a header in it: alone,
such a line can hold neither a signature (a text that starts like one is the text itself) nor a
header. The library itself is used only through its public API. (It builds its expressions
anew for every text; handing it expressions built once, through its message's private fields,
saved about 4 % of a multi-line reply's intake CPU, under the project's 5 % bar for reaching
past a library, so it is not done.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mailparser_reply import EmailMessage, EmailReplyParser

LANGUAGES = ("cs", "pl", "en")  # the library's language tables pbem uses (English is always added)
MAX_LINES = 120  # more written lines than a mail may hold commands (100) plus a signature
MAX_CHARS = 80

_PARSER = EmailReplyParser(languages=list(LANGUAGES))
# the library's reply-header expression for LANGUAGES, built once by a message of no text
_HEADER_REGEX = EmailMessage(text="", languages=list(_PARSER.languages)).HEADER_REGEX


def read(text: str) -> EmailMessage:
    """The library's reading of ``text``."""
    return _PARSER.read(text)


@dataclass(frozen=True)
class Cuts:
    """Where the library sees the written text end, as indexes into the lines it was given."""

    signature: int | None = None  # the first line of a signature block (it runs to the end)
    header: int | None = None  # the first line of a reply header (the quoted original follows)


def cuts(lines: Sequence[str]) -> Cuts:
    """The library's signature and header positions in ``lines`` (None where it sees none)."""
    kept = _kept(lines)
    if len(kept) == 1 and not _HEADER_REGEX.search(kept[0][1].strip()):
        # one line (a move, most often), as the library would see it: a signature could only
        # start at it, which is no signature (``by_library``), and without a reply header in it
        # the library finds one reply, so no header either
        return Cuts()
    return by_library(kept)


def _kept(lines: Sequence[str]) -> list[tuple[int, str]]:
    """The bounded copy the library is given: (index in ``lines``, line) of non-blank lines."""
    kept = [(n, line.strip()[:MAX_CHARS]) for n, line in enumerate(lines[: MAX_LINES * 4]) if line.strip()]
    return kept[:MAX_LINES]


def by_library(kept: list[tuple[int, str]]) -> Cuts:
    """What the library finds in the ``_kept`` lines."""
    if not kept:
        return Cuts()
    text = "\n".join(line for _, line in kept)
    replies = read(text).replies
    header = _line_of(text, replies[1].headers, kept) if len(replies) > 1 and replies[1].headers else None
    first = replies[0]
    signature = _line_of(text, first.signatures, kept) if first.signatures else None
    if signature is not None and signature == kept[0][0]:
        signature = None  # a text that starts like a signature is the text itself
    return Cuts(signature=signature, header=header)


def _line_of(text: str, found: str, kept: list[tuple[int, str]]) -> int | None:
    """The index (in the caller's lines) of the line where ``found`` begins in ``text``."""
    start = text.find(found.strip())
    if start < 0:
        return None
    return kept[text.count("\n", 0, start)][0]
