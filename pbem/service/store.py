"""The event store (eventsourcing): one aggregate per game holding its log entries.

The aggregate is deliberately thin: every event carries one or more log entries, their
private parts and the checkpoint signed after them. All meaning lives in the entries
(``pbem.ledger.entries``), so the stored event classes never need to change; their topics
(``pbem.service.store:GameRecord.Created`` ...) must stay importable.
"""

from __future__ import annotations

import copy
import threading
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, cast
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.domain import Aggregate, CanMutateProtocol, event
from eventsourcing.persistence import InternalError

Entry = dict[str, Any]


def game_uuid(game_id: str) -> UUID:
    return uuid5(NAMESPACE_URL, f"pbem:game:{game_id}")


def receipt_uuid(key: str) -> UUID:
    return uuid5(NAMESPACE_URL, f"pbem:receipt:{key}")


class GameRecord(Aggregate):
    """A game's log: public entries, their private parts, and signed checkpoints."""

    if TYPE_CHECKING:  # the event classes @event makes at run time, as mypy should see them
        class Created(Aggregate.Created):
            game_id: str
            entries: list[Entry]
            privates: list[Entry]
            checkpoint: str

        class Appended(Aggregate.Event):
            entries: list[Entry]
            privates: list[Entry]
            checkpoint: str

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

    if TYPE_CHECKING:  # made by @event at run time
        class Recorded(Aggregate.Created):
            key: str
            game_id: str | None
            outcome: dict[str, Any]

    @staticmethod
    def create_id(key: str, game_id: str | None, outcome: dict[str, Any]) -> UUID:
        return receipt_uuid(key)

    @event("Recorded")
    def __init__(self, key: str, game_id: str | None, outcome: dict[str, Any]):
        self.key = key
        self.game_id = game_id
        self.outcome = outcome


class SeatKeys(Aggregate):
    """How often each seat's private token was changed (``pbem rotate-token``, mail ``rotate``):
    the token is derived from the seat and this number, so a changed one stops the old address
    and link at once."""

    @staticmethod
    def create_id(game_id: str) -> UUID:
        return uuid5(NAMESPACE_URL, f"pbem:seatkeys:{game_id}")

    @event("Opened")
    def __init__(self, game_id: str):
        self.game_id = game_id
        self.generations: dict[str, int] = {}

    @event("Rotated")
    def rotate(self, seat: int) -> None:
        self.generations[str(seat)] = self.generations.get(str(seat), 0) + 1


class PbemStore(Application[UUID]):
    name = "pbem"
    log_section_size = 500
    # eventsourcing decides from the class whether to create the snapshot store; the
    # interval itself is read from the instance, so it can come from the settings.
    is_snapshotting_enabled = True

    max_records = 256

    def __init__(self, env: dict[str, str], snapshot_interval: int = 50, attempts: int = 20):
        # the library declares this a ClassVar but reads it through the instance (see above)
        self.snapshotting_intervals = {GameRecord: snapshot_interval}  # type: ignore[misc]
        self._records: OrderedDict[str, GameRecord] = OrderedDict()
        self._records_lock = threading.Lock()
        # Processes starting at once on PostgreSQL race in the library's table and function
        # set-up ("tuple concurrently updated" in the loser); the set-up is idempotent, so retry.
        for attempt in range(attempts):
            try:
                super().__init__(env=env)
                self._tune_sqlite(env.get("PBEM_SQLITE_SYNCHRONOUS", "full"))
                return
            except InternalError:
                if attempt == attempts - 1:
                    raise
                time.sleep(0.05 * (attempt + 1))

    def _tune_sqlite(self, synchronous: str) -> None:
        """``PRAGMA synchronous`` on every SQLite connection of the store. The library sets WAL
        mode but has no setting for this, so its connection pool is wrapped (eventsourcing is
        pinned in constraints.txt). FULL (SQLite's default) syncs the log at every commit."""
        pool = getattr(getattr(self.factory, "datastore", None), "pool", None)
        if synchronous == "full" or pool is None or not hasattr(pool, "_create_connection"):
            return
        create = pool._create_connection
        statement = f"PRAGMA synchronous={'NORMAL' if synchronous == 'normal' else 'FULL'}"

        def tuned() -> Any:
            connection = create()
            connection._sqlite_conn.execute(statement)
            return connection

        pool._create_connection = tuned
        for connection in list(pool._pool):  # made while the tables were set up
            connection._sqlite_conn.execute(statement)

    def game(self, game_id: str, fresh: bool = True) -> GameRecord | None:
        """The game's record, up to date. Records are kept per process and brought forward with
        only the events stored since (entries are append-only), so loading a long game does not
        decode its whole log again. The caller gets its own copy: appending to it before a save
        that then fails leaves the kept record untouched. ``fresh=False`` skips asking the
        database for newer events, for a writer whose save fails anyway when another process
        wrote meanwhile (optimistic concurrency), and then loads fresh."""
        kept = self._records.get(game_id)
        if kept is None:
            try:
                kept = self.repository.get(game_uuid(game_id))
            except AggregateNotFoundError:
                return None
        elif not fresh:
            return _copy(kept)
        else:
            kept = _copy(kept)
            for stored in self.events.get(kept.id, gt=kept.version):
                cast("CanMutateProtocol[GameRecord]", stored).mutate(kept)
        self._keep(kept)
        return _copy(kept)

    def forget(self, game_id: str) -> None:
        """Drop the kept record: the next load reads the game from the database again."""
        with self._records_lock:
            self._records.pop(game_id, None)

    def saved(self, record: GameRecord) -> None:
        """Keep a record that was just saved (its pending events are now stored)."""
        self._keep(_copy(record))

    def _keep(self, record: GameRecord) -> None:
        with self._records_lock:
            self._records[record.game_id] = record
            self._records.move_to_end(record.game_id)
            while len(self._records) > self.max_records:
                self._records.popitem(last=False)

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
                ids.append(cast(GameRecord.Created, self.mapper.to_domain_event(notification)).game_id)
            if len(page) < self.log_section_size:
                return ids
            start = page[-1].id + 1


def _copy(record: GameRecord) -> GameRecord:
    """A copy that can be appended to without touching the original: fresh lists (the entries
    themselves are never changed, so they are shared) and no pending events."""
    clone = copy.copy(record)
    clone.entries = list(record.entries)
    clone.privates = list(record.privates)
    clone.checkpoints = list(record.checkpoints)
    clone._pending_events = []
    return clone
