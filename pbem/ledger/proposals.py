"""Proposals to the table and their votes (issue 32): three kinds of log entry, and the rules
they follow, shared by the mail service (which writes them), the clocks (which read the pauses)
and the verifier.

* ``proposed`` a seat proposes ``what``: ``pause`` (``days``: 1 to 30), ``end`` (the game
  ends as a draw) or ``kick`` (``target``: the seat the house robot plays from then on); the
  votes are open until ``until`` (the proposal's time and ``VOTE_DAYS``);
* ``voted``    a seat votes on the open proposal (``proposal``: its index; ``yes``);
* ``decided``  the proposal passed (every voter said yes) or failed (one said no), added with
  the vote that decides it. A proposal nobody decided lapses at ``until``: no entry, it is
  simply no longer open.

The voters are every seat but the proposer's, the robots' and, for a kick, the seat to be
kicked. A passed ``kick`` is followed by the seat's ``resigned`` entry with reason
``kicked``; a passed ``end`` by the ``ended`` entry with every seat ranked first (``draw``); a
passed ``pause`` stops every seat's deadline and clock from the decision for its days
(``pauses``). One proposal is open at a time. Pure functions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from pbem.games.speech import N_
from pbem.ledger import handovers
from pbem.ledger.entries import FORMAT, instant

PROPOSED = "proposed"
VOTED = "voted"
DECIDED = "decided"
KINDS = (PROPOSED, VOTED, DECIDED)
SEATED = (PROPOSED, VOTED)  # the kinds that name a seat
WHATS = ("pause", "end", "kick")
PAUSE_DAYS = (1, 30)
VOTE_DAYS = 3  # the votes on a proposal are open this long (docs/mail.md, "Proposals")
KICKED = "kicked"  # the reason of the ``resigned`` entry that follows a passed kick
Entry = dict[str, Any]


def _base(game_id: str, index: int, kind: str, time: str) -> Entry:
    return {"v": FORMAT, "game": game_id, "index": index, "kind": kind, "time": time}


def proposed(
    game_id: str, index: int, time: str, seat: int, what: str, days: int | None = None, target: int | None = None
) -> tuple[Entry, dict[str, Any]]:
    """``seat`` proposes ``what`` (with ``days`` for a pause, ``target`` for a kick)."""
    until = (instant(time) + timedelta(days=VOTE_DAYS)).isoformat(timespec="seconds")
    entry = _base(game_id, index, PROPOSED, time) | {"seat": seat, "what": what, "until": until}
    if what == "pause":
        entry["days"] = days
    if what == "kick":
        entry["target"] = target
    return entry, {}


def voted(game_id: str, index: int, time: str, seat: int, proposal: int, yes: bool) -> tuple[Entry, dict[str, Any]]:
    return _base(game_id, index, VOTED, time) | {"seat": seat, "proposal": proposal, "yes": yes}, {}


def decided(game_id: str, index: int, time: str, proposal: int, passed: bool) -> tuple[Entry, dict[str, Any]]:
    return _base(game_id, index, DECIDED, time) | {"proposal": proposal, "passed": passed}, {}


def robots_in(entries: Sequence[Entry]) -> set[int]:
    """The seats the robot plays after ``entries`` (a substitute takes a seat back from it)."""
    return handovers.robots_in(entries)


def open_proposal(entries: Sequence[Entry], now: datetime) -> Entry | None:
    """The proposal open at ``now``: the newest one, when nothing decided it and its votes
    are still open."""
    for entry in reversed(entries):
        kind = entry.get("kind")
        if kind == DECIDED:
            return None
        if kind == PROPOSED:
            return entry if now <= instant(str(entry["until"])) else None
    return None


def voters(entries: Sequence[Entry], proposal: Entry, seats: int) -> set[int]:
    """The seats whose vote the proposal needs: all but the proposer's, the robots' and the
    seat a kick would remove."""
    return set(range(seats)) - {proposal["seat"], proposal.get("target")} - robots_in(entries)


def votes(entries: Sequence[Entry], proposal: Entry) -> dict[int, bool]:
    return {
        e["seat"]: bool(e["yes"]) for e in entries if e.get("kind") == VOTED and e.get("proposal") == proposal["index"]
    }


def missing(entries: Sequence[Entry], proposal: Entry, seats: int) -> set[int]:
    """The voters who have not voted yet."""
    return voters(entries, proposal, seats) - set(votes(entries, proposal))


def outcome(entries: Sequence[Entry], proposal: Entry, seats: int) -> bool | None:
    """True when every voter said yes, False when one said no, None while votes are missing."""
    said = votes(entries, proposal)
    if not all(said.values()):
        return False
    return None if missing(entries, proposal, seats) else True


def passed(entries: Sequence[Entry], what: str) -> list[tuple[Entry, Entry]]:
    """The proposals of kind ``what`` that passed, each with its ``decided`` entry."""
    return [
        (entries[int(e["proposal"])], e)
        for e in entries
        if e.get("kind") == DECIDED and e.get("passed") and entries[int(e["proposal"])].get("what") == what
    ]


def pauses(entries: Sequence[Entry]) -> list[tuple[datetime, datetime]]:
    """The periods the game is paused: from each passed pause's decision, for its days."""
    periods = []
    for proposal, decision in passed(entries, "pause"):
        start = instant(str(decision["time"]))
        periods.append((start, start + timedelta(days=int(proposal["days"]))))
    return periods


def agreed_end(entries: Sequence[Entry]) -> bool:
    return bool(passed(entries, "end"))


def draw(seats: int) -> list[dict[str, Any]]:
    """The standings of a game ended by agreement: every seat first, with no score."""
    return [{"seat": seat, "rank": 1, "score": 0, "details": {"agreed": "draw"}} for seat in range(seats)]


# -- in words (the mails' and the web history's lines) -----------------------------------------
VOTE = N_('To agree, send "accept %(number)s"; to refuse, "decline %(number)s" (open until %(until)s).')
PROPOSALS = {
    "pause": N_("%(player)s proposes to pause the game for %(days)s days."),
    "end": N_("%(player)s proposes to end the game as a draw."),
    "kick": N_("%(player)s proposes that the house robot plays %(target)s from now on."),
}
VOTES = {True: N_("%(player)s accepts proposal %(number)s."), False: N_("%(player)s declines proposal %(number)s.")}
PASSED = {
    "pause": N_("Proposal %(number)s passed: deadlines and clocks stand still until %(until)s."),
    "end": N_("Proposal %(number)s passed: the game ends as a draw."),
    "kick": N_("Proposal %(number)s passed: the house robot plays %(target)s from now on."),
}
FAILED = N_("Proposal %(number)s failed: not every player agreed.")


def describe(
    entry: Entry, entry_at: Callable[[int], Entry], names: Sequence[str], translate: Callable[[str], str]
) -> str:
    """A proposal entry in words (``entry_at``: the log's entry at an index)."""
    kind = entry["kind"]
    if kind == PROPOSED:
        words = _words(entry, entry, names)
        return f"{translate(PROPOSALS[entry['what']]) % words} {translate(VOTE) % words}"
    proposal = entry_at(int(entry["proposal"]))
    words = _words(proposal, entry, names)
    if kind == VOTED:
        return translate(VOTES[bool(entry["yes"])]) % words
    if not entry.get("passed"):
        return translate(FAILED) % words
    words["until"] = describe_until(proposal, entry)
    return translate(PASSED[proposal["what"]]) % words


def describe_until(proposal: Entry, entry: Entry) -> str:
    """Until when, in words: the votes on a proposal, or a passed pause (from its decision)."""
    until = instant(str(proposal["until"]))
    if entry.get("kind") == DECIDED and entry.get("passed") and proposal.get("what") == "pause":
        until = instant(str(entry["time"])) + timedelta(days=int(proposal["days"]))
    return until.strftime("%Y-%m-%d %H:%M UTC")


def _words(proposal: Entry, entry: Entry, names: Sequence[str]) -> dict[str, Any]:
    target = proposal.get("target")
    return {
        "player": names[entry["seat"]] if isinstance(entry.get("seat"), int) else "",
        "number": int(proposal["index"]) + 1,
        "days": proposal.get("days"),
        "target": names[target] if isinstance(target, int) else "",
        "until": describe_until(proposal, entry),
    }


# -- the verifier's checks --------------------------------------------------------------------
def check(entries: Sequence[Entry], index: int, seats: int) -> str | None:
    """What is wrong with the proposal entry ``index`` of a log (None: nothing)."""
    entry, before = entries[index], entries[:index]
    kind = entry.get("kind")
    try:
        now = instant(str(entry.get("time")))
        if kind == PROPOSED:
            return _check_proposed(entry, before, seats, now)
        asked = open_proposal(before, now)
        if asked is None or asked["index"] != entry.get("proposal"):
            return "refers to no open proposal"
        if kind == VOTED:
            if not isinstance(entry.get("yes"), bool) or entry.get("seat") not in missing(before, asked, seats):
                return "is no vote the proposal still needs"
            return None
        return _check_decided(entries, index, asked, seats)
    except (KeyError, TypeError, ValueError, IndexError):
        return "is not a well-formed proposal entry"


def _check_proposed(entry: Entry, before: Sequence[Entry], seats: int, now: datetime) -> str | None:
    if open_proposal(before, now) is not None:
        return "proposes while another proposal is open"
    what = entry.get("what")
    if what not in WHATS:
        return f"proposes {what!r}, which is no proposal"
    if instant(str(entry["until"])) != now + timedelta(days=VOTE_DAYS):
        return f"does not leave the votes open {VOTE_DAYS} days"
    days = entry.get("days")
    if what == "pause" and not (isinstance(days, int) and PAUSE_DAYS[0] <= days <= PAUSE_DAYS[1]):
        return f"proposes a pause of {days!r} days (1 to 30)"
    target = entry.get("target")
    if what == "kick" and not (
        isinstance(target, int) and 0 <= target < seats and target != entry["seat"] and target not in robots_in(before)
    ):
        return f"proposes to kick seat {target!r}, which is no other player's"
    return None


def _check_decided(entries: Sequence[Entry], index: int, asked: Entry, seats: int) -> str | None:
    entry, before = entries[index], entries[:index]
    result = outcome(before, asked, seats)
    if not isinstance(entry.get("passed"), bool) or result is None or result != entry["passed"]:
        return "decides otherwise than the votes"
    after = entries[index + 1] if index + 1 < len(entries) else {}
    if (
        entry["passed"]
        and asked["what"] == "kick"
        and not (
            after.get("kind") == "resigned" and after.get("seat") == asked["target"] and after.get("reason") == KICKED
        )
    ):
        return "passes a kick that no 'resigned' entry follows"
    if entry["passed"] and asked["what"] == "end" and after.get("kind") != "ended":
        return "passes an end that no 'ended' entry follows"
    return None


def check_kicked(entries: Sequence[Entry], index: int) -> str | None:
    """A ``resigned`` entry with reason ``kicked`` follows the decision that passed the kick."""
    entry = entries[index]
    if entry.get("reason") != KICKED:
        return None
    decision = entries[index - 1]
    if decision.get("kind") != DECIDED or not decision.get("passed"):
        return "kicks a seat without a passed proposal"
    if entries[int(decision["proposal"])].get("target") != entry.get("seat"):
        return "kicks another seat than the proposal named"
    return None
