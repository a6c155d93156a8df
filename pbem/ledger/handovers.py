"""A seat handed to a substitute player: two kinds of log entry, and the rules they follow,
shared by the service (which writes them), the compact record (which follows who plays a
seat) and the verifier.

* ``substitute`` a seat (``by``) invites a substitute for another seat (``seat``), one the
  robot plays or whose player missed a deadline; the invited address is in the private
  part only (``emails``, never published: contact data, like the ``created`` entry's);
* ``handed``     the invited player joined and plays ``seat`` from this entry on
  (``invitation``: the index of the ``substitute`` entry it answers); the new address is
  again in the private part only. The robot stops playing the seat.

An invitation is open until the seat is handed over or a newer invitation for the same seat
replaces it. Whether a seat missed a deadline is the mail side's knowledge (its clock), so
the verifier checks what the log can show: the inviting seat is another seat, not played by
the robot, and a hand-over answers the open invitation of its seat. Pure functions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from pbem.games.speech import N_
from pbem.ledger.entries import FORMAT, seat_names

SUBSTITUTE = "substitute"
HANDED = "handed"
KINDS = (SUBSTITUTE, HANDED)
RESIGNED = "resigned"
Entry = dict[str, Any]
Private = dict[str, Any]


def _base(game_id: str, index: int, kind: str, time: str) -> Entry:
    return {"v": FORMAT, "game": game_id, "index": index, "kind": kind, "time": time}


def substitute(game_id: str, index: int, time: str, seat: int, by: int, email: str) -> tuple[Entry, Private]:
    """``by`` invites the player of ``email`` to take over ``seat``."""
    return _base(game_id, index, SUBSTITUTE, time) | {"seat": seat, "by": by}, {"emails": [email]}


def handed(game_id: str, index: int, time: str, seat: int, invitation: int, email: str) -> tuple[Entry, Private]:
    """The player of ``email``, invited by the entry ``invitation``, plays ``seat`` from now on."""
    return _base(game_id, index, HANDED, time) | {"seat": seat, "invitation": invitation}, {"emails": [email]}


LINES = {  # an entry in words, with the seats' names as they were before it (a substitute renames)
    SUBSTITUTE: N_("%(by)s invites a substitute for %(player)s."),
    HANDED: N_("%(player)s plays the seat of %(old)s from now on, as a substitute."),
}


def describe(
    entry: Mapping[str, Any], before: Sequence[Entry], names: Sequence[str], translate: Callable[[str], str]
) -> str:
    """A hand-over entry in words: ``before``, the log before it; ``names``, the seats' names now."""
    then = seat_names(before)
    seat = int(entry["seat"])
    player = then[seat] if entry["kind"] == SUBSTITUTE else names[seat]
    by = then[int(entry["by"])] if "by" in entry else ""
    return translate(LINES[entry["kind"]]) % {"player": player, "by": by, "old": then[seat]}


def robots_after(robots: Iterable[int], entries: Iterable[Entry]) -> set[int]:
    """The seats the robot plays after ``entries``, given those it played before them: a
    resignation adds its seat, a hand-over takes it back."""
    playing = set(robots)
    for entry in entries:
        if entry.get("kind") == RESIGNED:
            playing.add(int(entry["seat"]))
        elif entry.get("kind") == HANDED:
            playing.discard(int(entry["seat"]))
    return playing


def robots_in(entries: Iterable[Entry]) -> set[int]:
    return robots_after((), entries)


def invitation(entries: Sequence[Entry], seat: int) -> Entry | None:
    """The open invitation of ``seat``: its newest ``substitute`` entry, unless the seat was
    handed over since."""
    for entry in reversed(entries):
        if entry.get("kind") in KINDS and entry.get("seat") == seat:
            return entry if entry["kind"] == SUBSTITUTE else None
    return None


def last_handed(entries: Sequence[Entry], seat: int) -> int:
    """The index of the newest hand-over of ``seat``, or 0 when it never changed hands."""
    for entry in reversed(entries):
        if entry.get("kind") == HANDED and entry.get("seat") == seat:
            return int(entry["index"])
    return 0


def check(entries: Sequence[Entry], index: int, seats: int) -> str | None:
    """What is wrong with the hand-over entry ``index`` of a log (None: nothing)."""
    entry, before = entries[index], entries[:index]
    if entry.get("kind") == SUBSTITUTE:
        by = entry.get("by")
        if not isinstance(by, int) or isinstance(by, bool) or not 0 <= by < seats or by == entry.get("seat"):
            return "names no other seat as the one who invites the substitute"
        if by in robots_in(before):
            return "is an invitation by a seat the robot plays"
        return None
    invited = invitation(before, int(entry.get("seat", -1)))
    if invited is None or invited["index"] != entry.get("invitation"):
        return "hands a seat over without an open invitation for it"
    return None


def address_before(entries: Sequence[Entry], privates: Sequence[Private], index: int) -> str | None:
    """The address that played the seat of the hand-over at ``index`` until then (the one it was
    created with, or the substitute's of an earlier hand-over of the same seat), or None when the
    private parts do not say (a private part is removed when a player asks to be forgotten)."""
    seat = int(entries[index]["seat"])
    emails = privates[0].get("emails") if privates else None
    found = str(emails[seat]) if emails and seat < len(emails) else None
    for earlier, private in zip(entries[1:index], privates[1:index], strict=False):
        if earlier["kind"] == HANDED and int(earlier["seat"]) == seat and private.get("emails"):
            found = str(private["emails"][0])
    return found
