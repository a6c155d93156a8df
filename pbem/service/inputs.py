"""What comes from outside, checked at the door for what every later stage needs.

A mail address, a name or a line of text is stored, queried, put in headers and handed to a
relay. PostgreSQL's text refuses NUL, a header refuses line breaks, a relay without SMTPUTF8
refuses a non-ASCII local part, and a domain must be expressible in IDNA. So an address is
refused here, before anything is stored, when one of those stages could not take it, and text
loses its control characters (tab and line breaks aside) as it comes in.
"""

from __future__ import annotations

import re

import idna

MAX_ADDRESS = 254  # characters (RFC 5321's path, less its angle brackets)
MAX_LOCAL = 64  # characters of the local part (RFC 5321)
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff]")
_ADDRESS_SHAPE = re.compile(r"^[^@\s<>]+@[^@\s<>]+$")


def address_problem(address: str) -> str | None:
    """Why ``address`` cannot be a player's mail address (None: it can). Non-ASCII is allowed
    where it can travel: the domain in IDNA, the local part (RFC 6531) to relays that offer
    SMTPUTF8 (the sender keeps it as a dead letter for a relay that does not)."""
    if CONTROL.search(address) or not _ADDRESS_SHAPE.match(address):
        return "is not a mail address"
    local, _, domain = address.rpartition("@")
    if len(address) > MAX_ADDRESS or len(local) > MAX_LOCAL:
        return "is longer than a mail address may be"
    if not domain.isascii() and ascii_domain(domain) is None:
        return "has a domain that is not a valid international domain name"
    return None


def ascii_domain(domain: str) -> str | None:
    """The domain as it travels in SMTP (IDNA A-labels), or None when it has no such form."""
    if domain.isascii():
        return domain
    try:
        return idna.encode(domain, uts46=True).decode("ascii")
    except (idna.IDNAError, UnicodeError, ValueError):
        return None


def clean_text(text: str) -> str:
    """``text`` without control characters (each becomes a space): tab and line breaks stay."""
    return CONTROL.sub(" ", text) if CONTROL.search(text) else text


def printable(text: str) -> str:
    """``text`` with control characters written out (``\\x00``), for error texts kept in the
    store and shown to the operator."""
    return CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text)
