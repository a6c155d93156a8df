"""The rules of taking back a move by consent (pbem/ledger/withdrawals.py), on small logs."""

from __future__ import annotations

from pbem.ledger import withdrawals

START = [{"kind": "created", "index": 0}, {"kind": "started", "index": 1}]


def moved(index: int, seat: int, **extra) -> dict:
    return {"kind": "moved", "index": index, "seat": seat, "source": "email", "facts": []} | extra


def test_the_newest_move_of_the_seat_may_be_taken_back():
    log = [*START, moved(2, 0)]
    assert withdrawals.undoable(log, 0) == 2
    assert withdrawals.undoable(log, 1) is None


def test_talk_after_the_move_does_not_stop_it():
    log = [*START, moved(2, 0), {"kind": "said", "index": 3, "seat": 1}]
    assert withdrawals.undoable(log, 0) == 2


def test_another_seats_move_since_stops_it():
    assert withdrawals.undoable([*START, moved(2, 0), moved(3, 1)], 0) is None


def test_a_move_that_drew_stops_it():
    assert withdrawals.undoable([*START, moved(2, 0, draws={"count": 1})], 0) is None


def test_a_move_with_a_hidden_fact_stops_it():
    assert withdrawals.undoable([*START, moved(2, 0, facts=[{"secret": {}}])], 0) is None


def test_a_robots_move_is_no_players_to_take_back():
    assert withdrawals.undoable([*START, moved(2, 0, source="robot")], 0) is None


def test_the_withdrawal_needs_every_other_seat_not_played_by_the_robot():
    log = [*START, moved(2, 0), {"kind": "undo", "index": 3, "seat": 0, "move": 2}]
    asked = log[3]
    assert withdrawals.missing_consents(log, asked, 3, set()) == {1, 2}
    assert withdrawals.missing_consents(log, asked, 3, {2}) == {1}
    agreed = [*log, {"kind": "consented", "index": 4, "seat": 1, "undo": 3}]
    assert withdrawals.missing_consents(agreed, asked, 3, {2}) == set()
    withdrawn = [*agreed, {"kind": "withdrawn", "index": 5, "seat": 0, "move": 2}]
    assert withdrawals.check(withdrawn, 5, 3) == "withdraws a move without the consent of every other seat"


def test_a_withdrawn_move_leaves_the_fold_and_the_one_before_may_follow():
    log = [
        *START,
        moved(2, 0),
        moved(3, 0),
        {"kind": "undo", "index": 4, "seat": 0, "move": 3},
        {"kind": "consented", "index": 5, "seat": 1, "undo": 4},
        {"kind": "withdrawn", "index": 6, "seat": 0, "move": 3},
    ]
    assert [withdrawals.check(log, i, 2) for i in (4, 5, 6)] == [None, None, None]
    assert withdrawals.effective(log, 7) == [1, 2]
    assert withdrawals.undoable(log, 0) == 2
    assert withdrawals.pending(log) is None, "the request ended with the withdrawal"


def test_a_move_since_the_request_ends_it():
    log = [*START, moved(2, 0), {"kind": "undo", "index": 3, "seat": 0, "move": 2}, moved(4, 1)]
    assert withdrawals.pending(log) is None
    consent = [*log, {"kind": "consented", "index": 5, "seat": 1, "undo": 3}]
    assert withdrawals.check(consent, 5, 2) == "agrees to no open request"
