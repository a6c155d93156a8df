"""An outgoing mail's bytes, written directly: its headers, its MIME tree and their transfer
encodings, as ``mailgateway.compose`` lays them out. The email package's ``EmailMessage``
parses every header it is given (its header registry) and its generator parses and folds each
one again: two thirds of the cost of composing a mail (docs/benchmarks.md, "Replies in a
blink"). What is written here means what the email package wrote (tests/mailgateway/
test_mime.py reads both back and compares them):

* CRLF line ends (SMTP); headers folded at spaces into lines of at most ``MAX_LINE``
  characters where a space allows it (a longer word stays whole);
* header text that is not ASCII as RFC 2047 encoded words (``email.header.Header``); a
  recipient's address with its domain in IDNA, and a non-ASCII local part as it is (it travels
  only with SMTPUTF8, ``mailgateway.sender``);
* a text part in 7bit (ASCII) or 8bit (UTF-8) when its lines are at most ``MAX_LINE``
  characters, else quoted-printable; a binary part in base64.

A boundary is made from the mail's key, so one mail is the same bytes every time it is
composed; a boundary that a part holds is changed until no part holds it (only a 7bit or 8bit
part can: "=" is escaped in quoted-printable and is no base64 letter but at the end).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Sequence
from email.header import Header
from email.utils import formataddr

from pbem.service.inputs import ascii_domain

MAX_LINE = 78  # characters of a header or body line (RFC 5322 section 2.1.1, the "SHOULD")
CRLF = b"\r\n"
BREAK = re.compile(r"\r|\n(?! )")  # a line break that is not a header's continuation

Headers = Sequence[tuple[str, str]]


def encoded(text: str) -> str:
    """``text`` as a header may carry it: as it is when ASCII, else RFC 2047 encoded words
    (on lines joined by ``"\\n "``, folded where they were cut)."""
    if text.isascii():
        return text
    return Header(text, "utf-8", maxlinelen=76).encode(linesep="\n")


def mailbox(name: str, address: str) -> str:
    """``Name <address>``: the name quoted when it needs it, encoded when it is not ASCII."""
    if name.isascii():
        return formataddr((name, address))
    return f"{encoded(name)} <{address}>"


def recipient(address: str) -> str:
    """The ``To`` of a mail: the address, its international domain in IDNA A-labels."""
    if address.isascii():
        return address
    local, _, domain = address.rpartition("@")
    return f"{local}@{ascii_domain(domain) or domain}"


def header(name: str, value: str) -> bytes:
    """``Name: value`` and its CRLF, folded; ValueError for a line break in ``value`` other
    than a continuation (``"\\n "``), which would start a header of its own."""
    if BREAK.search(value):
        raise ValueError(f"the header {name} holds a line break")
    lines: list[str] = []
    for number, piece in enumerate(value.split("\n")):
        first, *rest = (piece if number == 0 else piece[1:]).split(" ")
        line = f"{name}: {first}" if number == 0 else f" {first}"
        for word in rest:
            if word and len(line) + 1 + len(word) > MAX_LINE:
                lines.append(line)
                line = ""
            line += " " + word
        lines.append(line)
    return "\r\n".join(lines).encode("utf-8") + CRLF


def head(headers: Headers) -> bytes:
    return b"".join(header(name, value) for name, value in headers)


def text_part(text: str, subtype: str, headers: Headers = ()) -> bytes:
    """A ``text/SUBTYPE`` part in UTF-8 (headers and body)."""
    lines = text.encode("utf-8").splitlines()
    if max((len(line) for line in lines), default=0) <= MAX_LINE:
        cte = "7bit" if text.isascii() else "8bit"
        body = CRLF.join(lines) + CRLF
    else:
        cte = "quoted-printable"
        body = binascii.b2a_qp(b"\n".join(lines) + b"\n", istext=True).replace(b"\n", CRLF)
    content = [("Content-Type", f'text/{subtype}; charset="utf-8"'), ("Content-Transfer-Encoding", cte)]
    return head([*content, *headers]) + CRLF + body


def binary_part(data: bytes, content_type: str, headers: Headers = ()) -> bytes:
    """A part in base64 (lines of 76 characters)."""
    body = base64.encodebytes(data).replace(b"\n", CRLF)
    return head([("Content-Type", content_type), ("Content-Transfer-Encoding", "base64"), *headers]) + CRLF + body


def boundary(key: str, subtype: str, parts: Sequence[bytes]) -> str:
    """A boundary for a multipart of the mail ``key`` that none of ``parts`` holds."""
    seed = hashlib.sha256(f"{key}\0{subtype}".encode()).hexdigest()
    for attempt in range(len(seed) - 24):
        made = f"=_{seed[attempt : attempt + 24]}"
        if not any(made.encode() in part for part in parts):
            return made
    raise ValueError("no boundary fits the mail")  # every slice of the hash in a part: never seen


def multipart(key: str, subtype: str, parts: Sequence[bytes], headers: Headers = ()) -> bytes:
    """A ``multipart/SUBTYPE`` part holding ``parts`` (each its own headers and body)."""
    made = boundary(key, subtype, parts)
    content = ("Content-Type", f'multipart/{subtype}; boundary="{made}"')
    # a part ends with its own CRLF; the one before the next delimiter belongs to the delimiter
    delimiter = b"--" + made.encode()
    body = b"".join(delimiter + CRLF + part + CRLF for part in parts) + delimiter + b"--" + CRLF
    return head([content, *headers]) + CRLF + body
