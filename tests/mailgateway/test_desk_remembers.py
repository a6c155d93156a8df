"""The desk reads an address's verification and name from the store once per process, never
from a change not saved yet: a save that fails must leave the next attempt to store them."""

from __future__ import annotations

from typing import Any

from pbem.mailroom.desk import Letter, MailDesk, _Remembered
from pbem.mailroom.records import Correspondent, VerifiedAddress


class FakeWork:
    """The two calls of a Work the desk makes here: find (counted) and adds/add/aggregate."""

    def __init__(self, stored: dict[Any, Any]):
        self.stored = stored
        self.extra: dict[Any, Any] = {}
        self.finds = 0

    def find(self, aggregate_id: Any) -> Any:
        self.finds += 1
        return self.extra.get(aggregate_id, self.stored.get(aggregate_id))

    def adds(self, aggregate_id: Any) -> bool:
        return aggregate_id in self.extra

    def add(self, aggregate: Any) -> None:
        self.extra[aggregate.id] = aggregate

    def aggregate(self, aggregate_id: Any, make: Any) -> Any:
        self.extra.setdefault(aggregate_id, make())
        return self.extra[aggregate_id]


def _desk() -> MailDesk:
    desk = MailDesk.__new__(MailDesk)  # only the parts these two methods use
    desk._verified, desk._names = _Remembered(), _Remembered()
    from datetime import UTC, datetime

    desk.clock = lambda: datetime(2026, 11, 28, tzinfo=UTC)
    return desk


LETTER = Letter(key="k", sender="jan@example.org", game_id="g", sender_name="Jan Novák")


def test_a_verification_not_yet_saved_is_not_remembered_and_is_added_again_after_a_failed_save():
    desk = _desk()
    first = FakeWork({})
    desk._authenticated(LETTER, [], {"authenticated": "token"}, first)
    assert first.adds(VerifiedAddress.create_id(LETTER.sender))
    retry = FakeWork({})  # the save failed: nothing stored, a new attempt
    desk._authenticated(LETTER, [], {"authenticated": "token"}, retry)
    assert retry.adds(VerifiedAddress.create_id(LETTER.sender))


def test_a_stored_verification_is_read_once():
    desk = _desk()
    stored = {VerifiedAddress.create_id(LETTER.sender): VerifiedAddress(LETTER.sender, "token", "t")}
    works = [FakeWork(stored) for _ in range(3)]
    for work in works:
        desk._authenticated(LETTER, [], {"authenticated": "token"}, work)
    assert [w.finds for w in works] == [1, 0, 0] and not any(w.extra for w in works)


def test_a_stored_name_is_read_once_and_a_new_name_is_given():
    desk = _desk()
    person = Correspondent(LETTER.sender)
    person.give_name("Jan Novák")
    stored = {Correspondent.create_id(LETTER.sender): person}
    works = [FakeWork(stored) for _ in range(2)]
    for work in works:
        desk._learn_name(LETTER, work)
    assert [w.finds for w in works] == [1, 0]
    renamed = FakeWork(stored)
    desk._learn_name(Letter(key="k2", sender=LETTER.sender, game_id="g", sender_name="Jan Nový"), renamed)
    assert renamed.extra[Correspondent.create_id(LETTER.sender)].known_name() == "Jan Nový"


def test_the_remembered_addresses_are_bounded():
    kept = _Remembered(limit=3)
    for number in range(10):
        kept.keep(f"a{number}@example.org", "x")
    assert kept.get("a0@example.org") is None and kept.get("a9@example.org") == "x"
    assert len(kept._kept) == 3
