"""Press in the log: what players say to each other, as entries of the game's signed log.

A ``said`` entry names its sender (``seat``), its recipients (``to``: a sorted list of other
seats, or ``"all"`` for the whole table), its time and ``text_commitment``, a salted
commitment ``SHA-256(salt || canonical_bytes(text))`` to the message. A table message is
opened in the log itself (``text`` and ``text_salt`` in the entry), so the history shows it and
anyone can check it. A private message stays closed: its opening is in the entry's private
part, given only to the sender and the recipients (in their receipts), never published, not
even when the game ends. So a recipient can prove to anyone what was said, to whom and when,
and nobody else learns it.

A ``noted`` entry is a seat's note to itself: ``seat``, ``sealed`` and ``text_commitment``.
A private note's opening (``press`` in the private part) is its seat's alone, forever; a sealed
note's (``note``) is published for everyone when the game ends, with the other openings, and
``verify`` then checks it against the commitment made before (a prediction, a bluff).

Press and notes are not moves: they change no game state and draw nothing (the rules never
see them).
"""

from __future__ import annotations

from typing import Any

from pbem.ledger.canonical import NotCanonical
from pbem.ledger.commitments import commit

SAID = "said"
NOTED = "noted"
TALK_KINDS = (SAID, NOTED)  # entries that are talk, not play: the game's state never depends on them
TABLE = "all"  # the recipients of a table message
MAX_PRESS_BYTES = 4096  # one message, UTF-8
PRIVATE_KEY = "press"  # where a message's (or a private note's) opening sits in its private part
SEALED_KEY = "note"  # where a sealed note's opening sits: published at the end


def is_party(entry: dict[str, Any], viewer: int | None) -> bool:
    """Whether ``viewer`` sent or received the message (everyone receives a table message;
    a note is its seat's)."""
    if viewer is None:
        return False
    to = entry.get("to")
    return viewer == entry.get("seat") or to == TABLE or (isinstance(to, list) and viewer in to)


def _opening(entry: dict[str, Any], private: dict[str, Any], viewer: int | None, ended: bool) -> Any:
    """The opening ``viewer`` may hold: a party's, and a sealed note's for everyone at the end."""
    sealed = private.get(SEALED_KEY)
    if sealed and (ended or is_party(entry, viewer)):
        return sealed
    opening = private.get(PRIVATE_KEY)
    return opening if opening and is_party(entry, viewer) else None


def text_of(entry: dict[str, Any], private: dict[str, Any], viewer: int | None, ended: bool = False) -> str | None:
    """The text as ``viewer`` may read it: a table message for everyone, a private one for its
    sender and recipients only, a note for its seat (a sealed one for everyone once the game
    ``ended``); None when closed to the viewer."""
    if "text" in entry:
        return str(entry["text"])
    opening = _opening(entry, private, viewer, ended)
    return None if opening is None else str(opening["text"])


def opening_for(entry: dict[str, Any], private: dict[str, Any], viewer: int | None, ended: bool) -> dict[str, Any]:
    """What a receipt of a private message or a note holds for ``viewer``: the text and its
    salt, for its parties only (the end opens a sealed note for everyone, nothing else)."""
    opening = _opening(entry, private, viewer, ended)
    return {} if opening is None else {"text": opening["text"], "text_salt": opening["salt"]}


def opens(salt: Any, text: Any, commitment: object) -> bool:
    """Whether ``text`` with ``salt`` opens ``commitment`` (False for anything malformed)."""
    if not isinstance(text, str):
        return False
    try:
        return commit(salt, text) == commitment
    except (TypeError, ValueError, NotCanonical):
        return False


def note_problem(entry: dict[str, Any]) -> str | None:
    """What is wrong with a ``noted`` entry, or None: a commitment, whether it is sealed, and
    no text in the log (a sealed note is opened only among the openings at the end)."""
    if not isinstance(entry.get("sealed"), bool):
        return "a note must say whether it is sealed"
    if "text" in entry or "text_salt" in entry or "to" in entry:
        return "a note is opened in the public log"
    return None if isinstance(entry.get("text_commitment"), str) else "it has no commitment to its text"


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
