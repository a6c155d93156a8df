"""The event store's recorder on SQLite: the library's, with a save's expected versions checked
and its snapshots written inside the save's own transaction. Selected by ``PbemStore`` through
``APPLICATION_RECORDER_TOPIC`` (the PostgreSQL one is ``store_postgres``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.sqlite import SQLiteApplicationRecorder


class StaleRead(IntegrityError):
    """An aggregate a save was planned on has changed since it was read (see ``PbemStore.save``)."""


class PbemSQLiteRecorder(SQLiteApplicationRecorder):
    """The library's SQLite recorder, checking a save's expected versions inside its
    transaction, after the inserts (which take the database's write lock, so what is read then
    is the newest and stays so until the commit), and writing the save's snapshots (``snapshots``:
    stored snapshots) in the same transaction, each unless one is there already."""

    snapshots_table: str | None = None  # the snapshot table (``inline_snapshots``: the same database)

    def inline_snapshots(self, table: str) -> None:
        """Write a save's snapshots in its transaction, into ``table`` (in the same database)."""
        self.snapshots_table = table

    def _insert_events(self, c: Any, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        ids = super()._insert_events(c, stored_events, **kwargs)
        for originator_id, version in (kwargs.get("expect") or {}).items():
            c.execute(
                f"SELECT MAX(originator_version) FROM {self.events_table_name} WHERE originator_id = ?",
                (originator_id.hex,),
            )
            if (c.fetchone()[0] or 0) != version:
                raise StaleRead(f"{originator_id} is no longer at version {version}")
        for snapshot in kwargs.get("snapshots") or ():
            c.execute(
                f"INSERT OR IGNORE INTO {self.snapshots_table} (originator_id, originator_version, topic, state) "
                "VALUES (?, ?, ?, ?)",
                (snapshot.originator_id.hex, snapshot.originator_version, snapshot.topic, snapshot.state),
            )
        return ids
