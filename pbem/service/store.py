"""The event store (eventsourcing): one aggregate per game holding its log entries.

The aggregate is deliberately thin: every event carries one or more log entries, their
private parts and the checkpoint signed after them. All meaning lives in the entries
(``pbem.ledger.entries``), so the stored event classes never need to change; their topics
(``pbem.service.store:GameRecord.Created`` ...) must stay importable.
"""

from __future__ import annotations

import time
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.domain import Aggregate, event
from eventsourcing.persistence import InternalError

Entry = dict[str, Any]


def game_uuid(game_id: str) -> UUID:
    return uuid5(NAMESPACE_URL, f"pbem:game:{game_id}")


def receipt_uuid(key: str) -> UUID:
    return uuid5(NAMESPACE_URL, f"pbem:receipt:{key}")


class GameRecord(Aggregate):
    """A game's log: public entries, their private parts, and signed checkpoints."""

    @staticmethod
    def create_id(game_id: str, entries: list[Entry], privates: list[Entry], checkpoint: str) -> UUID:
        return game_uuid(game_id)

    @event("Created")
    def __init__(self, game_id: str, entries: list[Entry], privates: list[Entry], checkpoint: str):
        self.game_id = game_id
        self.entries: list[Entry] = []
        self.privates: list[Entry] = []
        self.checkpoints: list[list[Any]] = []  # [[tree size, signed note], ...]
        self._add(entries, privates, checkpoint)

    @event("Appended")
    def append(self, entries: list[Entry], privates: list[Entry], checkpoint: str) -> None:
        self._add(entries, privates, checkpoint)

    def _add(self, entries: list[Entry], privates: list[Entry], checkpoint: str) -> None:
        self.entries.extend(entries)
        self.privates.extend(privates)
        self.checkpoints.append([len(self.entries), checkpoint])


class Receipt(Aggregate):
    """Marks an idempotency key (a mail's Message-ID) as processed, with what it did."""

    @staticmethod
    def create_id(key: str, game_id: str | None, outcome: dict[str, Any]) -> UUID:
        return receipt_uuid(key)

    @event("Recorded")
    def __init__(self, key: str, game_id: str | None, outcome: dict[str, Any]):
        self.key = key
        self.game_id = game_id
        self.outcome = outcome


class PbemStore(Application):
    name = "pbem"
    log_section_size = 500
    # eventsourcing decides from the class whether to create the snapshot store; the
    # interval itself is read from the instance, so it can come from the settings.
    is_snapshotting_enabled = True

    def __init__(self, env: dict[str, str], snapshot_interval: int = 50, attempts: int = 20):
        self.snapshotting_intervals = {GameRecord: snapshot_interval}
        # Processes starting at once on PostgreSQL race in the library's table and function
        # set-up ("tuple concurrently updated" in the loser); the set-up is idempotent, so retry.
        for attempt in range(attempts):
            try:
                super().__init__(env=env)
                return
            except InternalError:
                if attempt == attempts - 1:
                    raise
                time.sleep(0.05 * (attempt + 1))

    def game(self, game_id: str) -> GameRecord | None:
        try:
            return self.repository.get(game_uuid(game_id))
        except AggregateNotFoundError:
            return None

    def receipt(self, key: str) -> Receipt | None:
        try:
            return self.repository.get(receipt_uuid(key))
        except AggregateNotFoundError:
            return None

    def game_ids(self) -> list[str]:
        """Every game id, oldest first, from the notification log's Created events."""
        topic = f"{GameRecord.Created.__module__}:{GameRecord.Created.__qualname__}"
        ids: list[str] = []
        start = 1
        while True:
            page = self.notification_log.select(start=start, limit=self.log_section_size, topics=[topic])
            for notification in page:
                ids.append(self.mapper.to_domain_event(notification).game_id)
            if len(page) < self.log_section_size:
                return ids
            start = page[-1].id + 1
