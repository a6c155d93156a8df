"""Press in the log: what players say to each other, as entries of the game's signed log.

A ``said`` entry names its sender (``seat``), its recipients (``to``: a sorted list of other
seats, or ``"all"`` for the whole table), its time and ``text_commitment``, a salted
commitment ``SHA-256(salt || canonical_bytes(text))`` to the message. A table message is
opened in the log itself (``text`` and ``text_salt`` in the entry), so the history shows it and
anyone can check it. A private message stays closed: its opening is in the entry's private
part, given only to the sender and the recipients (in their receipts), never published, not
even when the game ends. So a recipient can prove to anyone what was said, to whom and when,
and nobody else learns it.

Press is not a move: it changes no game state and draws nothing (the rules never see it).
"""

from __future__ import annotations

from typing import Any

from pbem.ledger.canonical import NotCanonical
from pbem.ledger.commitments import commit

SAID = "said"
TALK_KINDS = (SAID,)  # entries that are talk, not play: the game's state never depends on them
TABLE = "all"  # the recipients of a table message
MAX_PRESS_BYTES = 4096  # one message, UTF-8
PRIVATE_KEY = "press"  # where a message's opening sits in its entry's private part


def is_party(entry: dict[str, Any], viewer: int | None) -> bool:
    """Whether ``viewer`` sent or received the message (everyone receives a table message)."""
    if viewer is None:
        return False
    to = entry.get("to")
    return viewer == entry.get("seat") or to == TABLE or (isinstance(to, list) and viewer in to)


def text_of(entry: dict[str, Any], private: dict[str, Any], viewer: int | None) -> str | None:
    """The message's text as ``viewer`` may read it: a table message for everyone, a private
    one for its sender and recipients only; None when closed to the viewer."""
    if "text" in entry:
        return str(entry["text"])
    opening = private.get(PRIVATE_KEY)
    if opening and is_party(entry, viewer):
        return str(opening["text"])
    return None


def opening_for(entry: dict[str, Any], private: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """What a receipt of a private message holds for ``viewer``: the text and its salt, only
    for its sender and recipients (the end of the game opens nothing here)."""
    opening = private.get(PRIVATE_KEY)
    if not opening or not is_party(entry, viewer):
        return {}
    return {"text": opening["text"], "text_salt": opening["salt"]}


def opens(salt: Any, text: Any, commitment: object) -> bool:
    """Whether ``text`` with ``salt`` opens ``commitment`` (False for anything malformed)."""
    if not isinstance(text, str):
        return False
    try:
        return commit(salt, text) == commitment
    except (TypeError, ValueError, NotCanonical):
        return False


def problem(entry: dict[str, Any], seats: int) -> str | None:
    """What is wrong with a ``said`` entry of a game of ``seats`` seats, or None: recipients
    that are other seats of the game (or the table), a commitment, and for a table message an
    opening that matches it and is within the size bound; a private message carries no text."""
    to, sender = entry.get("to"), entry.get("seat")
    if to != TABLE:
        if not isinstance(to, list) or not to or to != sorted(set(to)):
            return f"its recipients {to!r} are not a sorted list of seats or {TABLE!r}"
        if any(not isinstance(seat, int) or not 0 <= seat < seats or seat == sender for seat in to):
            return f"its recipients {to!r} are not other seats of the game"
        if "text" in entry or "text_salt" in entry:
            return "a private message is opened in the public log"
        return None if isinstance(entry.get("text_commitment"), str) else "it has no commitment to its text"
    text = entry.get("text")
    if not opens(entry.get("text_salt"), text, entry.get("text_commitment")):
        return "the table message does not match its commitment"
    if len(str(text).encode("utf-8")) > MAX_PRESS_BYTES:
        return f"the message is longer than {MAX_PRESS_BYTES} bytes"
    return None
