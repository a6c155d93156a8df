"""Taking back a move by consent: three kinds of log entry, and the rules they follow, shared by
the service (which writes them), the state fold (which reads them) and the verifier.

* ``undo``      a seat asks to withdraw its last move (``move``: that entry's index);
* ``consented`` another seat agrees (``undo``: the index of the ``undo`` entry);
* ``withdrawn`` the move is withdrawn by consent (``move``, and ``seat``: its author), added
  with the last consent.

The log stays append-only: the withdrawn move stays in it, and the state after a ``withdrawn``
entry is the state before the move it withdraws. A move may be withdrawn only while nothing
played has followed it (entries after it are talk, these entries, or moves withdrawn in turn)
and while it revealed nothing: no draw (dice, a shuffle), no hidden fact, nothing the game's
own ``reveals`` calls hidden from any seat. So the state before it is the fold of every fact
of the entries before it, leaving out the withdrawn moves (``effective``). Pure functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pbem.games.base import SECRET
from pbem.ledger import handovers, press, proposals

UNDO = "undo"
CONSENTED = "consented"
WITHDRAWN = "withdrawn"
KINDS = (UNDO, CONSENTED, WITHDRAWN)
FACT_KINDS = ("started", "moved")
HUMAN_SOURCES = ("email", "turnfile", "web", "cli")  # moves a player wrote (not the robot's, not a deadline's)
Entry = dict[str, Any]


def withdrawn_moves(entries: Sequence[Entry]) -> set[int]:
    """The indexes of the moves withdrawn in ``entries``."""
    return {int(e["move"]) for e in entries if e.get("kind") == WITHDRAWN}


def effective(entries: Sequence[Entry], stop: int) -> list[int]:
    """The entries before ``stop`` whose facts make the state: starts and moves not withdrawn
    (by a withdrawal before ``stop``)."""
    gone = withdrawn_moves(entries[:stop])
    return [i for i in range(stop) if entries[i].get("kind") in FACT_KINDS and i not in gone]


def last_move(entries: Sequence[Entry]) -> int | None:
    """The index of the newest move still in play, when only talk, undo entries, proposals
    and votes and withdrawn moves follow it; None when the newest entry in play is no move (a start, a
    resignation, the end)."""
    gone = withdrawn_moves(entries)
    for index in range(len(entries) - 1, -1, -1):
        kind = entries[index].get("kind")
        if kind in press.TALK_KINDS or kind in KINDS or kind in proposals.KINDS or index in gone:
            continue
        return index if kind == "moved" else None
    return None


def shows_nothing(entry: Entry) -> bool:
    """Whether a move's public entry shows that it drew nothing and hid nothing."""
    return not entry.get("draws") and not any(SECRET in fact for fact in entry.get("facts") or [])


def revealed(spec: Any, state: Any, facts: Sequence[Any], seats: int) -> bool:
    """Whether the facts of a move (from ``state`` on) turned up anything hidden from any seat,
    in the game's own judgement (``GameSpec.reveals``: a card drawn or turned up, secret
    choices opened)."""
    return any(SECRET in fact for fact in facts) or any(spec.reveals(state, seat, facts) for seat in range(seats))


def undoable(entries: Sequence[Entry], seat: int) -> int | None:
    """The move ``seat`` may ask to withdraw now: its newest move when nothing played follows
    it, written by its player, with no draw and no hidden fact in its entry (the game's own
    ``reveals`` is asked too, by the service and the verifier, with the state)."""
    index = last_move(entries)
    if index is None:
        return None
    entry = entries[index]
    if entry.get("seat") != seat or entry.get("source") not in HUMAN_SOURCES or not shows_nothing(entry):
        return None
    return index


def pending(entries: Sequence[Entry]) -> Entry | None:
    """The open request to withdraw a move: the newest ``undo`` entry whose move is still the
    one that may be withdrawn (a move by anyone since ends it, as does the withdrawal)."""
    index = last_move(entries)
    for entry in reversed(entries):
        if entry.get("kind") == UNDO:
            return entry if entry.get("move") == index and undoable(entries, entry["seat"]) == index else None
    return None


def missing_consents(entries: Sequence[Entry], undo: Entry, seats: int, robots: set[int]) -> set[int]:
    """The seats that must still agree to ``undo``: every other seat not played by the robot."""
    agreed = {e["seat"] for e in entries if e.get("kind") == CONSENTED and e.get("undo") == undo["index"]}
    return set(range(seats)) - {undo["seat"]} - robots - agreed


def robots_in(entries: Sequence[Entry]) -> set[int]:
    """The seats the robot plays after ``entries`` (a substitute takes a seat back from it)."""
    return handovers.robots_in(entries)


def check(entries: Sequence[Entry], index: int, seats: int) -> str | None:
    """What is wrong with the undo entry ``index`` of a log (None: nothing): each refers to
    what the rules above allow at its place."""
    entry, before = entries[index], entries[:index]
    kind = entry.get("kind")
    if kind == UNDO:
        return (
            None
            if undoable(before, entry.get("seat", -1)) == entry.get("move")
            else "asks to withdraw no undoable move"
        )
    if kind == CONSENTED:
        asked = pending(before)
        if asked is None or asked["index"] != entry.get("undo") or entry.get("seat") == asked["seat"]:
            return "agrees to no open request"
        return None
    asked = pending(before)
    if asked is None or asked["move"] != entry.get("move") or asked["seat"] != entry.get("seat"):
        return "withdraws a move nobody asked to withdraw"
    if missing_consents(before, asked, seats, robots_in(before)):
        return "withdraws a move without the consent of every other seat"
    return None
