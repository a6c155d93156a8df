"""The gateway's own aggregates, stored in the service's event store. Their topics
(``mailgateway.records:...``) are stored with every event: keep this module and its class
names stable."""

from __future__ import annotations

from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event


def mail_uuid(kind: str, key: str) -> UUID:
    return uuid5(NAMESPACE_URL, f"pbem:mail:{kind}:{key}")


class Correspondent(Aggregate):
    """A mail address's preferences: language and absence periods."""

    @staticmethod
    def create_id(email: str) -> UUID:
        return mail_uuid("person", email)

    @event("Registered")
    def __init__(self, email: str):
        self.email = email
        self.language = "en"
        self.absences: list[list[str]] = []  # [[first day, last day], ...] ISO dates

    @event("LanguageChosen")
    def choose_language(self, language: str) -> None:
        self.language = language

    @event("AbsenceAdded")
    def add_absence(self, first: str, last: str) -> None:
        self.absences.append([first, last])

    @event("AbsencesCleared")
    def clear_absences(self) -> None:
        self.absences = []


class Watchers(Aggregate):
    """Observers of a game: they get a public update after every change."""

    @staticmethod
    def create_id(game_id: str) -> UUID:
        return mail_uuid("watchers", game_id)

    @event("Opened")
    def __init__(self, game_id: str):
        self.game_id = game_id
        self.emails: list[str] = []

    @event("Subscribed")
    def subscribe(self, email: str) -> None:
        if email not in self.emails:
            self.emails.append(email)

    @event("Unsubscribed")
    def unsubscribe(self, email: str) -> None:
        if email in self.emails:
            self.emails.remove(email)


class GameClock(Aggregate):
    """A game's deadline rules, and what the scheduler has already done (so each reminder
    and each deadline action happens once)."""

    @staticmethod
    def create_id(game_id: str, rules: dict[str, Any]) -> UUID:
        return mail_uuid("clock", game_id)

    @event("Set")
    def __init__(self, game_id: str, rules: dict[str, Any]):
        self.game_id = game_id
        self.rules = dict(rules)  # deadline, deadline.WORD, reminder, policy, robot-after
        self.done: list[str] = []  # "reminder/VERSION/SEAT", "deadline/VERSION/SEAT"
        self.misses: dict[str, int] = {}  # seat -> misses without a default move

    @event("Done")
    def mark(self, marker: str, missed_seat: int | None = None) -> None:
        self.done.append(marker)
        if missed_seat is not None:
            self.misses[str(missed_seat)] = self.misses.get(str(missed_seat), 0) + 1


class Cursor(Aggregate):
    """A durable position in the notification log (the outbox feeder's)."""

    @staticmethod
    def create_id(name: str) -> UUID:
        return mail_uuid("cursor", name)

    @event("Started")
    def __init__(self, name: str):
        self.name = name
        self.position = 0

    @event("Advanced")
    def advance(self, position: int) -> None:
        self.position = position


class ReplyLog(Aggregate):
    """When replies went to a sender recently: the per-sender rate limit."""

    @staticmethod
    def create_id(email: str) -> UUID:
        return mail_uuid("replies", email)

    @event("Opened")
    def __init__(self, email: str):
        self.email = email
        self.times: list[str] = []

    @event("Replied")
    def replied(self, time: str, keep_after: str) -> None:
        self.times = [t for t in self.times if t > keep_after] + [time]


class Outgoing(Aggregate):
    """One outgoing mail, composed in full when queued; sent, retried or given up."""

    @staticmethod
    def create_id(key: str, to: str, message: str, queued_at: str) -> UUID:
        return mail_uuid("out", key)

    @event("Queued")
    def __init__(self, key: str, to: str, message: str, queued_at: str):
        self.key = key
        self.to = to
        self.message = message
        self.queued_at = queued_at
        self.status = "queued"
        self.attempts = 0
        self.next_try = queued_at
        self.last_error = ""

    @event("Sent")
    def sent(self, time: str) -> None:
        self.status = "sent"
        self.attempts += 1

    @event("Deferred")
    def deferred(self, time: str, next_try: str, error: str) -> None:
        self.attempts += 1
        self.next_try = next_try
        self.last_error = error

    @event("Failed")
    def failed(self, time: str, error: str) -> None:
        self.status = "failed"
        self.attempts += 1
        self.last_error = error
