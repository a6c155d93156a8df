"""The event store's recorder on PostgreSQL: one round trip per save.

The library's recorder saves in a pipeline of statements (lock the table, notify, insert, then
commit): two round trips and a good deal of client work per save, and a mail's 250 waits for
every one of them. This recorder makes the same statements a server-side function, called once
on an autocommit connection, so the lock, the insert and the commit are one statement's
implicit transaction: the call returns only after the commit, as before. The table lock stays
(``LOCK TABLE ... IN EXCLUSIVE MODE``): notification ids are still handed out in commit order,
which the followers rely on. Saves that carry a tracking record (none of the store's own) go
the library's way.

Selected by ``PbemStore`` through ``APPLICATION_RECORDER_TOPIC``; imported only when the store is
on PostgreSQL (psycopg is an optional dependency).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.utils import retry
from psycopg.sql import SQL, Identifier


class PbemPostgresRecorder(PostgresApplicationRecorder):
    def __init__(self, datastore: PostgresDatastore, *, events_table_name: str = "stored_events"):
        super().__init__(datastore, events_table_name=events_table_name)
        self.insert_function_name = f"pbem_insert_events_{datastore.originator_id_type}"
        function = Identifier(self.insert_function_name)
        schema, table = Identifier(datastore.schema), Identifier(self.events_table_name)
        self.sql_create_statements.append(SQL(
            "CREATE OR REPLACE FUNCTION {schema}.{function}(events {schema}.{event}[]) "
            "RETURNS SETOF bigint LANGUAGE plpgsql AS $BODY$ "
            "BEGIN "
            "SET LOCAL lock_timeout = '{lock_timeout}s'; "
            "LOCK TABLE {schema}.{table} IN EXCLUSIVE MODE; "
            "NOTIFY {channel}; "
            "RETURN QUERY INSERT INTO {schema}.{table} AS t (originator_id, originator_version, topic, state) "
            "SELECT originator_id, originator_version, topic, state FROM unnest(events) "
            "RETURNING notification_id; "
            "END; $BODY$"
        ).format(schema=schema, function=function, table=table, event=Identifier(self.stored_event_type_name),
                 lock_timeout=datastore.lock_timeout, channel=Identifier(self.channel_name)))
        self.insert_in_one_statement = SQL("SELECT * FROM {schema}.{function}(%s)").format(
            schema=schema, function=function)

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        if kwargs.get("tracking") is not None or not stored_events:
            ids: Sequence[int] | None = super().insert_events(stored_events, **kwargs)
            return ids
        saved: list[int] = self._insert_in_one_call(stored_events)
        return saved

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)  # as the library's insert
    def _insert_in_one_call(self, stored_events: Sequence[StoredEvent]) -> list[int]:
        rows = [self.construct_pg_stored_event(e.originator_id, e.originator_version, e.topic, e.state)
                for e in stored_events]
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self.insert_in_one_statement, (rows,), prepare=True)
            return [int(row[self.insert_function_name]) for row in curs.fetchall()]
