"""The rules of proposals and votes in the log (pbem/ledger/proposals.py), pure: what the
verifier refuses, each with a positive control."""

from __future__ import annotations

from datetime import timedelta

from pbem.ledger import proposals
from pbem.ledger.entries import instant

GAME = "kingsburg-00000000"
T0 = "2026-01-05T12:00:00+00:00"


def at(hours: float) -> str:
    return (instant(T0) + timedelta(hours=hours)).isoformat(timespec="seconds")


def log(*made) -> list[dict]:
    """Entries 0-4 stand for the created, joins and start; the proposal entries follow."""
    entries = [{"kind": "other", "index": n, "time": T0} for n in range(5)]
    for item in made:
        entries.append(item(len(entries))[0])
    return entries


def propose(seat=0, what="pause", days=7, target=None, hours=0):
    return lambda index: proposals.proposed(GAME, index, at(hours), seat, what, days, target)


def vote(seat, yes=True, hours=1, proposal=5):
    return lambda index: proposals.voted(GAME, index, at(hours), seat, proposal, yes)


def decide(passed, hours=1, proposal=5):
    return lambda index: proposals.decided(GAME, index, at(hours), proposal, passed)


def problems(entries: list[dict], seats: int = 3) -> list[str | None]:
    return [proposals.check(entries, index, seats) for index in range(5, len(entries))]


def test_a_pause_passed_by_every_voter_is_valid():
    entries = log(propose(), vote(1), vote(2), decide(True))
    assert problems(entries) == [None, None, None, None]
    start = instant(at(1))
    assert proposals.pauses(entries) == [(start, start + timedelta(days=7))]


def test_a_vote_by_the_proposer_is_refused():
    assert problems(log(propose(), vote(0)))[1] == "is no vote the proposal still needs"
    assert problems(log(propose(), vote(1)))[1] is None, "positive control"


def test_a_second_vote_of_one_seat_is_refused():
    assert problems(log(propose(), vote(1), vote(1)))[2] == "is no vote the proposal still needs"


def test_a_vote_after_the_votes_close_is_refused():
    late = proposals.VOTE_DAYS * 24 + 1
    assert problems(log(propose(), vote(1, hours=late)))[1] == "refers to no open proposal"
    assert problems(log(propose(), vote(1, hours=late - 2)))[1] is None, "positive control"


def test_a_decision_the_votes_do_not_make_is_refused():
    assert problems(log(propose(), vote(1), decide(True)))[2] == "decides otherwise than the votes"
    assert problems(log(propose(), vote(1, yes=False), decide(True)))[2] == "decides otherwise than the votes"
    assert problems(log(propose(), vote(1, yes=False), decide(False)))[2] is None, "positive control"


def test_a_second_proposal_while_one_is_open_is_refused():
    assert problems(log(propose(), propose(seat=1, what="end", days=None)))[1] == (
        "proposes while another proposal is open"
    )


def test_a_pause_out_of_bounds_and_a_kick_of_oneself_are_refused():
    assert "pause of 31 days" in str(problems(log(propose(days=31)))[0])
    assert "kick seat 0" in str(problems(log(propose(what="kick", days=None, target=0)))[0])
    assert problems(log(propose(what="kick", days=None, target=2)))[0] is None, "positive control"


def test_a_passed_kick_needs_the_kicked_seats_resignation_and_only_then():
    entries = log(propose(what="kick", days=None, target=2), vote(1), decide(True))
    assert problems(entries)[2] == "passes a kick that no 'resigned' entry follows"
    kicked = {"kind": "resigned", "index": len(entries), "seat": 2, "reason": proposals.KICKED, "time": at(1)}
    assert problems([*entries, kicked])[2] is None
    assert proposals.check_kicked([*entries, kicked], len(entries)) is None
    alone = log(propose())
    lone = {"kind": "resigned", "index": len(alone), "seat": 2, "reason": proposals.KICKED, "time": at(1)}
    assert proposals.check_kicked([*alone, lone], len(alone)) == "kicks a seat without a passed proposal"


def test_a_passed_end_is_a_draw():
    entries = log(propose(what="end", days=None), vote(1), vote(2), decide(True))
    assert proposals.agreed_end(entries)
    assert [s["rank"] for s in proposals.draw(3)] == [1, 1, 1]
