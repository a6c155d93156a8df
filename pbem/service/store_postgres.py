"""The event store's recorder on PostgreSQL: one round trip per save.

The library's recorder saves in a pipeline of statements (lock the table, notify, insert, then
commit): two round trips and a good deal of client work per save, and a mail's 250 waits for
every one of them. This recorder makes the same statements a server-side function, called once
on an autocommit connection, so the lock, the insert and the commit are one statement's
implicit transaction: the call returns only after the commit, as before. The table lock stays
(``LOCK TABLE ... IN EXCLUSIVE MODE``): notification ids are still handed out in commit order,
which the followers rely on. Under that lock the call also checks the save's expected versions
(``PbemStore.save(expect=...)``) and refuses the save as a conflict when one has moved on.
Saves that carry a tracking record (none of the store's own) go the library's way.

Selected by ``PbemStore`` through ``APPLICATION_RECORDER_TOPIC``; imported only when the store is
on PostgreSQL (psycopg is an optional dependency).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import InterfaceError, OperationalError, ProgrammingError, StoredEvent
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
            "CREATE OR REPLACE FUNCTION {schema}.{function}("
            "events {schema}.{event}[], expect_ids {id_type}[], expect_versions bigint[]) "
            "RETURNS SETOF bigint LANGUAGE plpgsql AS $BODY$ "
            "BEGIN "
            "SET LOCAL lock_timeout = '{lock_timeout}s'; "
            "LOCK TABLE {schema}.{table} IN EXCLUSIVE MODE; "
            # under the lock no other save can commit, so what this reads stays true until the commit
            "IF EXISTS (SELECT 1 FROM unnest(expect_ids, expect_versions) AS e(id, version) "
            "WHERE coalesce((SELECT max(originator_version) FROM {schema}.{table} "
            "WHERE originator_id = e.id), 0) <> e.version) THEN "
            "RAISE unique_violation USING MESSAGE = 'a record this save was planned on has changed'; "
            "END IF; "
            "NOTIFY {channel}; "
            "RETURN QUERY INSERT INTO {schema}.{table} AS t (originator_id, originator_version, topic, state) "
            "SELECT originator_id, originator_version, topic, state FROM unnest(events) "
            "RETURNING notification_id; "
            "END; $BODY$"
        ).format(schema=schema, function=function, table=table, event=Identifier(self.stored_event_type_name),
                 id_type=Identifier(datastore.originator_id_type),
                 lock_timeout=datastore.lock_timeout, channel=Identifier(self.channel_name)))
        self.insert_in_one_statement = SQL("SELECT * FROM {schema}.{function}(%s, %s, %s)").format(
            schema=schema, function=function)

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        if kwargs.get("tracking") is not None or not stored_events:
            if kwargs.get("expect"):
                raise ProgrammingError("expected versions are checked only in the store's own saves")
            ids: Sequence[int] | None = super().insert_events(stored_events, **kwargs)
            return ids
        saved: list[int] = self._insert_in_one_call(stored_events, kwargs.get("expect") or {})
        return saved

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)  # as the library's insert
    def _insert_in_one_call(self, stored_events: Sequence[StoredEvent], expect: dict[UUID, int]) -> list[int]:
        rows = [self.construct_pg_stored_event(e.originator_id, e.originator_version, e.topic, e.state)
                for e in stored_events]
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self.insert_in_one_statement, (rows, list(expect), list(expect.values())), prepare=True)
            return [int(row[self.insert_function_name]) for row in curs.fetchall()]
