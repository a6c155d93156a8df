"""Splitting a reply the way a person wrote it: the new text, the quoted text, the attribution
line, the signature and the client's footer.

People top-post (new text above the quote), bottom-post (below it) and write inline (between
quoted paragraphs), in plain text and in HTML, from Gmail, Outlook, Apple Mail, Thunderbird and
phones, in Czech, Polish and English. One pass over the lines finds what pbem knows itself:

- quoted lines (``>``), and in HTML the quote elements (``blockquote``, Gmail's
  ``gmail_quote``, Thunderbird's and Apple Mail's ``type="cite"``);
- attribution lines, also wrapped over two lines: ``On ... wrote:``, ``Dne ... napsal(a):``,
  Gmail's ``... odesílatel ... napsal:``, ``W dniu ... pisze:``, ``... napisał(a):``, Apple
  Mail's ``Wiadomość napisana przez ... w dniu ...:``;
- the start of an original that Outlook appends unquoted: ``-----Original Message-----``
  (``-----Původní zpráva-----``, ``-----Wiadomość oryginalna-----``), a line of underscores,
  forwarded-message lines, a header block (``From:``/``Od:`` with ``Sent:``/``Odesláno:``/
  ``Wysłano:`` ...), and in HTML Outlook's ``divRplyFwdMsg`` and its bordered header block.
  Everything after it is the original;
- the signature after ``-- `` (up to the next quote), and the clients' footers ("Sent from my
  iPhone", "Odesláno z iPhonu", "Wysłane z iPhone'a", "Get Outlook for Android", ...).

What is left of the new text goes to ``mail-parser-reply`` (``mailgateway.replyparser``),
whose language tables find signatures that start with a closing ("S pozdravem,", "Pozdrawiam")
and reply headers pbem's patterns do not know.

Every pattern here is matched against one line (or two joined), anchored, with at most one
unbounded part, and lines are cut to ``MAX_SCAN_CHARS`` first: reading costs time in proportion
to the mail, whatever a hostile sender writes. A mail is read up to ``MAX_READ_LINES`` lines.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from html.parser import HTMLParser
from typing import ClassVar, NamedTuple

from mailgateway import replyparser

MAX_READ_LINES = 2000  # a mail's lines read at all (a reply quoting a long thread has a few hundred)
MAX_SCAN_CHARS = 300  # of one line, when matched against the patterns below


class Kind(StrEnum):
    TEXT = "text"  # what the sender wrote now
    QUOTE = "quote"
    ATTRIBUTION = "attribution"  # "On ... wrote:" and the header block of an original
    SIGNATURE = "signature"
    # the library's signature that starts with a closing ("S pozdravem,"): the port's reader takes
    # it as a signature only when no command follows in it ("Thanks, here is my move:" is none)
    CLOSING = "closing"
    FOOTER = "footer"  # a client's line: "Sent from my iPhone"


WRITTEN = (Kind.TEXT, Kind.CLOSING)


@dataclass(frozen=True)
class Line:
    text: str
    kind: Kind


class Fields(NamedTuple):
    """What a reader takes of a ``Split`` (its properties of the same names)."""

    written: tuple[str, ...]
    paragraphs: tuple[str, ...]
    unread: tuple[str, ...]
    footers: tuple[str, ...]
    closing_at: int | None


@dataclass(frozen=True)
class Split:
    lines: tuple[Line, ...]

    def fields(self) -> Fields:
        """``written``, ``paragraphs``, ``unread``, ``footers`` and ``closing_at``, made in one
        pass over the lines (the parser asks for all five of every mail)."""
        written: list[str] = []
        paragraphs: list[str] = []
        unread: list[str] = []
        footers: list[str] = []
        closing_at = None
        for line in self.lines:
            kind, text = line.kind, line.text.strip()
            if kind in WRITTEN:
                paragraphs.append(text)
                if text:
                    if closing_at is None and kind is Kind.CLOSING:
                        closing_at = len(written)
                    written.append(text)
            elif kind is Kind.SIGNATURE:
                if text and not _SIGNATURE_MARK.match(text):  # not the "-- " line itself
                    unread.append(text)
            elif kind is Kind.FOOTER:
                footers.append(text)
        return Fields(tuple(written), tuple(paragraphs), tuple(unread), tuple(footers), closing_at)

    @property
    def written(self) -> tuple[str, ...]:
        """The new text: its non-blank lines, stripped, in order (top, inline and bottom),
        with a signature that starts with a closing (``closing_at``)."""
        return self.fields().written

    @property
    def paragraphs(self) -> tuple[str, ...]:
        """The new text's lines, stripped, with its blank lines kept as "" (a message runs to
        the next blank line: pbem/mailroom/talk.py); without blanks, the same as ``written``."""
        return self.fields().paragraphs

    @property
    def closing_at(self) -> int | None:
        """The index in ``written`` of the first line of a signature that starts with a closing."""
        return self.fields().closing_at

    @property
    def unread(self) -> tuple[str, ...]:
        """The signature's non-blank lines: shown in the reply as not read."""
        return self.fields().unread

    @property
    def footers(self) -> tuple[str, ...]:
        """The clients' footer lines ("Sent from my iPhone"): shown in the reply as not read."""
        return self.fields().footers

    def of(self, kind: Kind) -> tuple[str, ...]:
        return tuple(line.text for line in self.lines if line.kind is kind)


# -- patterns (each matched with re.match against one stripped line) ------------------------
_ATTRIBUTION = re.compile(
    r"(?:"
    r"on\s.*\swrote\s?:"  # Gmail, Apple Mail, Thunderbird (en)
    r"|.*\swrote\s?:"  # "Ann <ann@example.net> wrote:"
    r"|dne\s.*\snapsal(?:\(a\)|a)?\s?:"  # Thunderbird, Apple Mail (cs)
    r"|.*\s(?:napsal|napsala|napsal\(a\))\s?:"  # Gmail (cs): "po 5. 1. 2026 v 12:00 odesílatel Ann <...> napsal:"
    r"|w\sdniu\s.*\s(?:pisze|napisał|napisała|napisał\(a\))\s?:"  # Thunderbird (pl)
    r"|.*\s(?:napisał|napisała|napisał\(a\)|nadesłał)\s?:"  # Gmail (pl): "... Ann <...> napisał(a):"
    r"|wiadomość\snapisana\sprzez\s.*\sw\sdniu\s.*:"  # Apple Mail (pl)
    r"|am\s.*\sschrieb\s.*:|le\s.*\sa\sécrit\s?:"
    r")$",
    re.IGNORECASE,
)
# The words an attribution line may start with: a line that starts so and does not end like one
# is tried again joined with the next line (clients wrap long attribution lines).
_OPENER = re.compile(r"(?:on|dne|w\sdniu|dnia|wiadomość\snapisana|am|le)\s", re.IGNORECASE)
_ORIGINAL = re.compile(
    r"(?:"
    r"-{2,}\s*(?:original\smessage|původní\szpráva|puvodni\szprava|wiadomość\soryginalna|oryginalna\swiadomość"
    r"|forwarded\smessage|přeposlaná\szpráva|preposlana\szprava|przekazana\swiadomość|wiadomość\sprzekazana"
    r"|přeposlaná\szpráva)\s*-{2,}"
    r"|_{10,}|begin\sforwarded\smessage:|začátek\spřeposílané\szprávy:|początek\sprzekazywanej\swiadomości:"
    r")$",
    re.IGNORECASE,
)
# A header line of an original that Outlook (and some others) append without quoting it.
_FROM_HEADER = re.compile(r"\*?(?:from|od|von|de)\s?:\*?\s", re.IGNORECASE)
_OTHER_HEADER = re.compile(
    r"\*?(?:sent|date|to|subject|cc|odesláno|odeslano|datum|komu|předmět|predmet|kopie|wysłano|wyslano|data"
    r"|do|temat|dw|gesendet|an|betreff)\s?:\*?(?:\s|$)",
    re.IGNORECASE,
)
_FOOTER = re.compile(
    r"(?:"
    r"sent\sfrom\s(?:my\s)?\S.*|sent\swith\s\S.*|sent\svia\s\S.*|get\soutlook\sfor\s\S.*"
    r"|odesláno\s(?:z|ze|pomocí|přes)\s\S.*|odeslano\s(?:z|ze|pomoci|pres)\s\S.*|stáhněte\ssi\soutlook.*"
    r"|odesláno\sz\smého\s\S.*"
    r"|wysłan[eo]\s(?:z|ze|przez)\s\S.*|wyslan[eo]\s(?:z|ze|przez)\s\S.*|pobierz\s(?:aplikację\s)?outlook.*"
    r")$",
    re.IGNORECASE,
)
_SIGNATURE_MARK = re.compile(r"(?:--|—|__)$")  # "-- " as a signature delimiter, as clients and people write it


def split_text(text: str) -> Split:
    """The plain text of a mail (or the text made of its HTML), line by line, by kind."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")[:MAX_READ_LINES]
    kinds: list[Kind | None] = [None] * len(lines)
    _mark_structure(lines, kinds)
    _mark_written_ends(lines, kinds)
    return Split(tuple(Line(line, kind or Kind.TEXT) for line, kind in zip(lines, kinds, strict=True)))


def _scan(line: str) -> str:
    return line.strip()[:MAX_SCAN_CHARS]


def _mark_structure(lines: list[str], kinds: list[Kind | None]) -> None:
    """Quotes, attribution lines, an appended original, signatures after ``-- ``, footers."""
    signature = False
    n = 0
    while n < len(lines):
        line = _scan(lines[n])
        if not line:  # no pattern below matches a blank line (tests/mailgateway/test_letters.py)
            kinds[n] = Kind.SIGNATURE if signature else kinds[n]
        elif line.startswith(">"):
            kinds[n], signature = Kind.QUOTE, False
        elif _ORIGINAL.match(line) or _header_block_at(lines, n, line):
            kinds[n:] = [Kind.ATTRIBUTION] + [Kind.QUOTE] * (len(lines) - n - 1)
            return
        elif (width := _attribution_at(lines, n, line)) is not None:
            kinds[n : n + width] = [Kind.ATTRIBUTION] * width
            if not _quoted_next(lines, n + width):  # the original follows unquoted: all of it is the original
                kinds[n + width :] = [Kind.QUOTE] * (len(lines) - n - width)
                return
            signature = False
            n += width
            continue
        elif _SIGNATURE_MARK.match(line):
            kinds[n], signature = Kind.SIGNATURE, True
        elif _FOOTER.match(line):
            kinds[n] = Kind.FOOTER
        elif signature:
            kinds[n] = Kind.SIGNATURE
        n += 1


def _attribution_at(lines: list[str], n: int, line: str) -> int | None:
    """How many lines (1 or 2) the attribution line at ``n`` (``line``, scanned) takes, or None."""
    if not line:
        return None
    if _ATTRIBUTION.match(line):
        return 1
    if n + 1 < len(lines) and _OPENER.match(line):
        joined = line + " " + _scan(lines[n + 1])
        if _ATTRIBUTION.match(joined[:MAX_SCAN_CHARS]):
            return 2
    return None


def _quoted_next(lines: list[str], n: int) -> bool:
    """Whether the first non-blank line from ``n`` on is quoted (or there is none)."""
    for line in lines[n:]:
        if line.strip():
            return line.lstrip().startswith(">")
    return True


def _header_block_at(lines: list[str], n: int, line: str) -> bool:
    """A ``From:`` line (``line``, the scanned line at ``n``) followed by another header line:
    an original appended unquoted."""
    if not _FROM_HEADER.match(line):
        return False
    following = [_scan(line) for line in lines[n + 1 : n + 4] if line.strip()][:1]
    return bool(following) and bool(_OTHER_HEADER.match(following[0]))


def _mark_written_ends(lines: list[str], kinds: list[Kind | None]) -> None:
    """Ask the library about each run of new text: a signature that starts with a closing, or
    a reply header pbem's own patterns missed."""
    for start, end in _runs(kinds):
        found = replyparser.cuts(lines[start:end])
        if found.header is not None:
            first = start + found.header
            kinds[first:end] = [Kind.ATTRIBUTION] + [Kind.QUOTE] * (end - first - 1)
            end = first
        if found.signature is not None and start + found.signature < end:
            first = start + found.signature
            kinds[first:end] = [Kind.CLOSING] * (end - first)


def _runs(kinds: list[Kind | None]) -> Iterable[tuple[int, int]]:
    """The maximal runs of lines not marked yet (new text and blank lines), as (start, end)."""
    start = None
    for n, kind in enumerate([*kinds, Kind.QUOTE]):
        if kind is None and start is None:
            start = n
        elif kind is not None and start is not None:
            yield start, n
            start = None


# -- HTML ----------------------------------------------------------------------------------
class _TextMaker(HTMLParser):
    """HTML to the text a plain-text reader would see, with the structure that matters for
    reading marked in the plain-text way: quoted elements as ``> `` lines, an appended Outlook
    original as ``> `` lines to the end, a signature element after a ``-- `` line."""

    BLOCKS: ClassVar[set[str]] = {
        *("p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "pre", "table", "ul", "ol", "hr"),
    }
    SKIPPED: ClassVar[set[str]] = {"script", "style", "head", "title"}
    SIGNATURES: ClassVar[tuple[str, ...]] = ("gmail_signature", "moz-signature", "signature")
    # Outlook's bordered header block over an appended original (desktop Outlook, in cs/pl/en)
    OUTLOOK_BORDER = re.compile(r"border:\s*none;\s*border-top:\s*solid\s+#[0-9a-f]{6}\s+1\.0pt", re.IGNORECASE)

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0
        self.quote = 0
        self.rest_quoted = False  # after the start of an appended original
        self.open: list[tuple[str, bool, bool]] = []  # (tag, opened a quote, opened a signature)
        self.signature = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIPPED:
            self.skip += 1
            return
        values = {name: (value or "") for name, value in attrs}
        classes = values.get("class", "").lower().split()
        if self._starts_original(tag, values, classes):
            self.rest_quoted = True
        quote = tag == "blockquote"
        signature = any(name in classes for name in self.SIGNATURES) or values.get("id", "").lower() == "signature"
        if tag in self.BLOCKS or quote:
            self.parts.append("\n")
        if signature and not self.signature:
            self.parts.append("\n-- \n")
        if tag not in ("br", "hr", "img", "meta", "link", "input", "wbr"):
            self.open.append((tag, quote, signature))
            self.quote += quote
            self.signature += signature

    def _starts_original(self, tag: str, values: dict[str, str], classes: list[str]) -> bool:
        ident = values.get("id", "")
        if ident in ("divRplyFwdMsg", "x_divRplyFwdMsg") or "outlookmessageheader" in classes:
            return True
        return tag == "div" and bool(self.OUTLOOK_BORDER.search(values.get("style", "")))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIPPED:
            self.skip = max(0, self.skip - 1)
            return
        # close up to the matching open tag (HTML in mail is often not well nested)
        for depth in range(len(self.open) - 1, -1, -1):
            if self.open[depth][0] == tag:
                for _, quote, signature in self.open[depth:]:
                    self.quote -= quote
                    self.signature -= signature
                del self.open[depth:]
                break
        if tag in self.BLOCKS or tag == "blockquote":
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.quote or self.rest_quoted:  # quoted text becomes "> " lines
            self.parts.append("\n".join("> " + line for line in data.splitlines() if line.strip()))
        else:
            self.parts.append(data)


def html_to_text(markup: str) -> str:
    """The text of an HTML mail, quotes marked with ``>`` and signatures after ``-- ``."""
    maker = _TextMaker()
    maker.feed(markup)
    maker.close()
    text = html.unescape("".join(maker.parts)).replace("\xa0", " ")
    lines = [" ".join(line.split()) if not line.startswith(">") else line for line in text.splitlines()]
    lines = ["-- " if line == "--" else line for line in lines]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"
