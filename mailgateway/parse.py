"""Reading an incoming message: pure functions from raw bytes to what the gateway needs.

Text/plain is preferred; HTML-only mail is turned into text. Quoted lines, the quoted
original below (or above) a reply and the signature are dropped, so what is left are the
lines the player wrote. A turn file may come in the body or as an attachment.
"""

from __future__ import annotations

import hashlib
import html
import re
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.errors import HeaderParseError
from email.header import decode_header, make_header
from email.message import Message
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser

from pbem.service.turnfile import looks_like_turn_file

ADDRESS_HEADERS = ("Delivered-To", "X-Original-To", "Envelope-To", "X-Envelope-To", "To", "Cc")
# A line that starts the quoted original in a top-posted reply ("On ... wrote:", Czech
# "Dne ... napsal(a):", Outlook's separators).
QUOTE_HEADER = re.compile(
    r"^(on\b.*\bwrote:?|dne\b.*\bnapsal.*:?|.*\b(wrote|napsal|napsala|napsal\(a\)|napisał|napisała|"
    r"napisał\(a\)|schrieb):|"
    r"-+\s*(original message|původní zpráva|puvodni zprava|forwarded message|wiadomość oryginalna)\s*-+|"
    r"_{20,}|from:\s.*|od:\s.*)$",
    re.IGNORECASE,
)
# A closing line ends what the sender wrote, like a signature without "-- ".
CLOSING = re.compile(
    r"^(regards|best( regards| wishes)?|cheers|thanks|thank you|kind regards|"
    r"s pozdravem|zdravím|zdravi|díky|diky|děkuji|dekuji|pozdrawiam|dzięki|dzieki)[,.!]*$",
    re.IGNORECASE,
)
TURN_FILE_NAMES = re.compile(r"\.(txt|turn|pbem)$", re.IGNORECASE)


@dataclass(frozen=True)
class Attachment:
    filename: str
    content_type: str
    text: str | None  # decoded text of a text part, else None


@dataclass(frozen=True)
class Inbound:
    key: str  # the idempotency key: the Message-ID, or a hash of the raw bytes without one
    message_id: str | None  # as sent, with angle brackets (for In-Reply-To), or None
    sender: str  # the From address, lower case ("" when there is none)
    envelope_from: str | None
    recipients: tuple[str, ...]  # envelope recipients first, then the address headers
    subject: str
    text: str  # the readable body (plain text, or HTML converted)
    lines: tuple[str, ...]  # the lines the sender wrote: no quotes, no signature, no blanks
    attachments: tuple[Attachment, ...] = ()
    references: tuple[str, ...] = ()
    auto: str | None = None  # why this must not be answered (RFC 3834), or None
    too_large: bool = False
    size: int = 0

    @property
    def turn_file(self) -> str | None:
        """The turn file carried by this message (an attachment first, then the body)."""
        for attachment in self.attachments:
            if attachment.text and looks_like_turn_file(attachment.text):
                return attachment.text
        body = "\n".join(self.lines)
        return body if looks_like_turn_file(body) else None


# Headers that relays add on the way; a redelivered copy may differ in them.
TRACE_HEADERS = (b"received", b"return-path", b"delivered-to", b"x-original-to", b"envelope-to",
                 b"x-envelope-to", b"authentication-results", b"arc-", b"x-spam", b"x-virus")


def message_key(message_id: str | None, raw: bytes) -> str:
    """The Message-ID without angle brackets; without one, a hash of the message without the
    trace headers relays add, so the same mail delivered twice gets the same key."""
    if message_id:
        key = message_id.strip().strip("<>").strip()
        if key:
            return key
    head, sep, body = raw.replace(b"\r\n", b"\n").partition(b"\n\n")
    kept, skipping = [], False
    for line in head.split(b"\n"):
        if line[:1] in (b" ", b"\t"):
            if not skipping:
                kept.append(line)
            continue
        skipping = line.lower().startswith(TRACE_HEADERS)
        if not skipping:
            kept.append(line)
    return "sha256:" + hashlib.sha256(b"\n".join(kept) + sep + body).hexdigest()


def parse_message(raw: bytes, envelope_from: str | None = None, envelope_to: tuple[str, ...] | list[str] = (),
                  own_address: str = "", max_bytes: int = 262_144) -> Inbound:
    too_large = len(raw) > max_bytes
    # compat32 keeps headers as text: the modern header registry raises on some malformed
    # address headers (an unclosed "<", an empty group), and a player's mail must still be read.
    msg = message_from_bytes(raw, policy=policy.compat32)
    message_id = _header(msg, "Message-ID") or None
    sender = parseaddr(_header(msg, "From"))[1].strip().lower()
    recipients = [a.strip().lower() for a in envelope_to]
    for name in ADDRESS_HEADERS:
        for value in msg.get_all(name) or []:
            recipients += [addr.strip().lower() for _, addr in getaddresses([_decoded(value)]) if "@" in addr]
    references = tuple(_header(msg, "References").split()) or tuple(_header(msg, "In-Reply-To").split())
    subject = _header(msg, "Subject")
    text, attachments = ("", []) if too_large else _body(msg)
    return Inbound(
        key=message_key(message_id, raw),
        message_id=message_id,
        sender=sender,
        envelope_from=envelope_from,
        recipients=tuple(dict.fromkeys(r for r in recipients if r)),
        subject=subject,
        text=text,
        lines=tuple(command_lines(text)),
        attachments=tuple(attachments),
        references=references,
        auto=auto_reason(msg, envelope_from, sender, own_address),
        too_large=too_large,
        size=len(raw),
    )


def _decoded(value: object) -> str:
    """A header's text with RFC 2047 encoded words decoded (as written when they are broken)."""
    try:
        text = str(make_header(decode_header(str(value))))
    except (ValueError, LookupError, UnicodeError, HeaderParseError):
        text = str(value)
    return " ".join(text.split())


def _header(msg: Message, name: str) -> str:
    value = msg.get(name)
    return _decoded(value) if value is not None else ""


def auto_reason(msg: Message, envelope_from: str | None, sender: str, own_address: str) -> str | None:
    """Why a message must get no automatic answer (RFC 3834 section 2 and common practice)."""
    auto = _header(msg, "Auto-Submitted").lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    precedence = _header(msg, "Precedence").lower()
    if precedence in ("bulk", "list", "junk", "auto_reply"):
        return f"Precedence: {precedence}"
    for name in ("List-Id", "List-Unsubscribe", "List-Post"):
        if msg.get(name) is not None:
            return f"{name} header (mailing list)"
    suppress = _header(msg, "X-Auto-Response-Suppress").lower()
    if "all" in suppress or "autoreply" in suppress:
        return f"X-Auto-Response-Suppress: {suppress}"
    if envelope_from is not None and envelope_from.strip() in ("", "<>"):
        return "null return path (a bounce)"
    if msg.get_content_type() == "multipart/report":
        return "delivery or disposition report"
    local = sender.split("@", 1)[0]
    if not sender or local in ("mailer-daemon", "postmaster", "noreply", "no-reply", "donotreply"):
        return f"sender {sender or 'missing'}"
    if own_address and (sender == own_address or sender.startswith(own_address.split("@", 1)[0] + "+")
                        and sender.endswith("@" + own_address.split("@", 1)[1])):
        return "our own address"
    if msg.get("X-Loop") is not None and own_address and own_address in _header(msg, "X-Loop").lower():
        return "X-Loop: our own mail came back"
    return None


def _decode(part: Message) -> str:
    payload = part.get_payload(decode=True) or b""
    charset = part.get_content_charset() or "utf-8"
    try:
        return payload.decode(charset)
    except (LookupError, UnicodeDecodeError):
        try:
            return payload.decode("utf-8")
        except UnicodeDecodeError:
            return payload.decode("cp1250", errors="replace")


def _body(msg: Message) -> tuple[str, list[Attachment]]:
    plain: str | None = None
    rich: str | None = None
    attachments: list[Attachment] = []
    for part in msg.walk() if msg.is_multipart() else [msg]:
        if part.is_multipart():
            continue
        ctype = part.get_content_type()
        disposition = (part.get_content_disposition() or "").lower()
        filename = _decoded(part.get_filename() or "")
        if disposition == "attachment" or (filename and disposition != "inline"):
            text = _decode(part) if part.get_content_maintype() == "text" or TURN_FILE_NAMES.search(filename) else None
            attachments.append(Attachment(filename, ctype, text))
        elif ctype == "text/plain" and plain is None:
            plain = _decode(part)
        elif ctype == "text/html" and rich is None:
            rich = _decode(part)
    if plain is not None:
        return plain.replace("\r\n", "\n"), attachments
    if rich is not None:
        return html_to_text(rich), attachments
    return "", attachments


class _TextMaker(HTMLParser):
    BLOCKS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "pre", "table", "ul", "ol"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0
        self.quote = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in ("script", "style", "head", "title"):
            self.skip += 1
        elif tag == "blockquote":
            self.quote += 1
            self.parts.append("\n")
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "head", "title"):
            self.skip = max(0, self.skip - 1)
        elif tag == "blockquote":
            self.quote = max(0, self.quote - 1)
            self.parts.append("\n")
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.quote:  # quoted text becomes "> " lines, which the command reader drops
            self.parts.append("\n".join("> " + line for line in data.splitlines() if line.strip()))
        else:
            self.parts.append(data)


def html_to_text(markup: str) -> str:
    maker = _TextMaker()
    maker.feed(markup)
    maker.close()
    text = html.unescape("".join(maker.parts)).replace("\xa0", " ")
    lines = [" ".join(line.split()) if not line.startswith(">") else line for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"


def command_lines(text: str) -> list[str]:
    """The lines a sender wrote: stops at the signature ("-- ") or the start of a quoted
    original; drops quoted (">") and blank lines."""
    written: list[str] = []
    for raw in text.replace("\r\n", "\n").split("\n"):
        line = raw.rstrip()
        if line in ("--", "—") or CLOSING.match(line.strip()):
            break
        stripped = line.strip()
        if stripped.startswith(">"):
            continue
        if QUOTE_HEADER.match(stripped):
            if written or not stripped.lower().startswith(("from:", "od:")):
                break
            continue
        if stripped:
            written.append(stripped)
    return written

