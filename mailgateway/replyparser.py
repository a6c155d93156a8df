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

The library builds its three expressions (reply headers, disclaimers, signatures) from its
language tables anew for every text, in properties of ``EmailMessage`` that keep them per
message only, and ``EmailReplyParser.read`` makes a new message each time: for a one-line move
that was 17 of its 21 microseconds. The adapter builds them once and hands them to each message
through the dataclass fields the properties keep them in (``_header_regex``,
``_disclaimers_regex``, ``_signature_regex``); ``contract_problems()`` checks that those fields
are still there and still used, and tests/mailgateway/test_replyparser.py that a message given
them reads a corpus as the library's own does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mailparser_reply import EmailMessage, EmailReplyParser

LANGUAGES = ("cs", "pl", "en")  # the library's language tables pbem uses (English is always added)
MAX_LINES = 120  # more written lines than a mail may hold commands (100) plus a signature
MAX_CHARS = 80

_PARSER = EmailReplyParser(languages=list(LANGUAGES))
_FIELDS = {
    "_header_regex": "HEADER_REGEX",
    "_disclaimers_regex": "DISCLAIMERS_REGEX",
    "_signature_regex": "SIGNATURE_REGEX",
}


def _built_once() -> dict[str, Any]:
    """The library's expressions for ``LANGUAGES``, built by a message of no text."""
    message = EmailMessage(text="", languages=list(_PARSER.languages))
    return {field: getattr(message, built) for field, built in _FIELDS.items()}


_EXPRESSIONS = _built_once()


def read(text: str) -> EmailMessage:
    """What ``_PARSER.read(text)`` gives, without building the expressions again."""
    return EmailMessage(text=text, languages=list(_PARSER.languages), **_EXPRESSIONS).read()


def contract_problems() -> list[str]:
    """What no longer holds of the library's internals this module relies on (empty: all): a
    message takes its expressions as the fields ``_FIELDS`` names and its properties answer
    with what it was given."""
    names = {field.name for field in dataclasses.fields(EmailMessage)}
    missing = sorted(set(_FIELDS) - names)
    if missing:
        return [f"mailparser_reply.EmailMessage has no field {', '.join(missing)} any more"]
    message = EmailMessage(text="", languages=list(_PARSER.languages), **_EXPRESSIONS)
    ignored = [built for field, built in _FIELDS.items() if getattr(message, built) is not _EXPRESSIONS[field]]
    if ignored:
        return [f"mailparser_reply.EmailMessage builds {', '.join(ignored)} itself, not from its field"]
    return []


@dataclass(frozen=True)
class Cuts:
    """Where the library sees the written text end, as indexes into the lines it was given."""

    signature: int | None = None  # the first line of a signature block (it runs to the end)
    header: int | None = None  # the first line of a reply header (the quoted original follows)


def cuts(lines: Sequence[str]) -> Cuts:
    """The library's signature and header positions in ``lines`` (None where it sees none)."""
    kept = _kept(lines)
    if len(kept) == 1 and not _EXPRESSIONS["_header_regex"].search(kept[0][1].strip()):
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
