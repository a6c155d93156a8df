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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mailparser_reply import EmailReplyParser

LANGUAGES = ("cs", "pl", "en")  # the library's language tables pbem uses (English is always added)
MAX_LINES = 120  # more written lines than a mail may hold commands (100) plus a signature
MAX_CHARS = 80

_PARSER = EmailReplyParser(languages=list(LANGUAGES))


@dataclass(frozen=True)
class Cuts:
    """Where the library sees the written text end, as indexes into the lines it was given."""

    signature: int | None = None  # the first line of a signature block (it runs to the end)
    header: int | None = None  # the first line of a reply header (the quoted original follows)


def cuts(lines: Sequence[str]) -> Cuts:
    """The library's signature and header positions in ``lines`` (None where it sees none)."""
    kept = [(n, line.strip()[:MAX_CHARS]) for n, line in enumerate(lines[: MAX_LINES * 4]) if line.strip()]
    kept = kept[:MAX_LINES]
    if not kept:
        return Cuts()
    text = "\n".join(line for _, line in kept)
    replies = _PARSER.read(text).replies
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
