"""The PostgreSQL half of the eventsourcing adapter (``pbem.service.es_adapter``): the event
store's recorder on PostgreSQL, one round trip per save.

The library's recorder saves in a pipeline of statements (lock the table, notify, insert, then
commit): two round trips and a good deal of client work per save, and a mail's 250 waits for
every one of them. This recorder makes the same statements a server-side function, called once
on an autocommit connection, so the lock, the insert and the commit are one statement's
implicit transaction: the call returns only after the commit, as before. The table lock stays
(``LOCK TABLE ... IN EXCLUSIVE MODE``): notification ids are still handed out in commit order,
which the followers rely on. Under that lock the call also checks the save's expected versions
(``PbemStore.save(expect=...)``) and refuses the save as a conflict when one has moved on, and
writes the save's snapshots (a record's, kept game states) to the snapshot table, each unless
one is there already: as on SQLite, they cost no transaction and no commit of their own.
Saves that carry a tracking record (none of the store's own) go the library's way.

The events go to the function as four parallel one-dimensional arrays (ids, versions, topics,
states), each sent in PostgreSQL's binary array format, packed here (``binary_array``) and
sent as it is: psycopg dumps an array of the library's composite rows, or any list, value by
value in Python (in an interleaved A/B a save took about 520 microseconds with composite rows,
390 with psycopg's binary lists, 320 packed here). The function is named with its version
(``pbem_save_events_v2_uuid``). The first version, ``pbem_insert_events_uuid`` (one array of
the library's composite ``stored_event_uuid`` rows), is left in databases that have it:
processes of an older release still call it during an upgrade, and both versions take the
same table lock, so they serialise with each other as before.

The function still sends ``NOTIFY`` on the table's channel, as the library's own insert does.
Nothing in pbem listens (the followers poll the notification log from their tracked
position), but the library's ``subscribe()`` waits for exactly that notification, so without
it a subscription would never wake. It stays: in an interleaved A/B of saves with and without
it, it cost about 10 microseconds of a save's 300, and was lost in the noise of a whole mail.

Selected by ``PbemStore`` through ``APPLICATION_RECORDER_TOPIC``; imported only when the store is
on PostgreSQL (psycopg is an optional dependency).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import InterfaceError, OperationalError, ProgrammingError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.utils import retry
from psycopg import Connection
from psycopg.abc import Buffer
from psycopg.adapt import Dumper, PyFormat
from psycopg.pq import Format
from psycopg.rows import tuple_row
from psycopg.sql import SQL, Identifier

# type oids (pg_type.oid, fixed for the built-in types): element and array
UUID_OID, UUID_ARRAY_OID = 2950, 2951
INT8_OID, INT8_ARRAY_OID = 20, 1016
TEXT_OID, TEXT_ARRAY_OID = 25, 1009
BYTEA_OID, BYTEA_ARRAY_OID = 17, 1001

_array_head = struct.Struct(">iiIii").pack  # dimensions, has nulls, element oid; length, lower bound
_item_length = struct.Struct(">i").pack
_int8_item = struct.Struct(">iq").pack  # an int8 element: its length (8), its value


def binary_array(element_oid: int, items: Sequence[bytes]) -> bytes:
    """A one-dimensional array without nulls in PostgreSQL's binary format (``array_recv``):
    the header, then each element's binary form preceded by its length."""
    return b"".join(
        [_array_head(1, 0, element_oid, len(items), 1), *[_item_length(len(item)) + item for item in items]]
    )


class UuidArray(bytes):
    """A ``uuid[]`` in the binary format, sent as it is (``PACKED_DUMPERS``)."""


class Int8Array(bytes):
    """A ``bigint[]`` in the binary format."""


class TextArray(bytes):
    """A ``text[]`` in the binary format."""


class ByteaArray(bytes):
    """A ``bytea[]`` in the binary format."""


def uuid_array(ids: Sequence[UUID | str]) -> UuidArray:
    # a uuid's binary form is its 16 bytes
    return UuidArray(binary_array(UUID_OID, [(i if isinstance(i, UUID) else UUID(i)).bytes for i in ids]))


def int8_array(values: Sequence[int]) -> Int8Array:
    return Int8Array(
        b"".join([_array_head(1, 0, INT8_OID, len(values), 1), *[_int8_item(8, value) for value in values]])
    )


def text_array(texts: Sequence[str], encoding: str) -> TextArray:
    """Text in the client's encoding, as psycopg's own dumpers send it (the server converts)."""
    return TextArray(binary_array(TEXT_OID, [text.encode(encoding) for text in texts]))


def bytea_array(values: Sequence[bytes]) -> ByteaArray:
    return ByteaArray(binary_array(BYTEA_OID, values))


class _PackedDumper(Dumper):
    """Sends a value packed by this module as it is, in the binary format, with its type oid."""

    format = Format.BINARY

    def dump(self, obj: Any) -> Buffer:
        packed: bytes = obj
        return packed


def _dumper(oid: int) -> type[Dumper]:
    return type(f"PackedDumper{oid}", (_PackedDumper,), {"oid": oid})


PACKED_DUMPERS: dict[type, type[Dumper]] = {
    UuidArray: _dumper(UUID_ARRAY_OID),
    Int8Array: _dumper(INT8_ARRAY_OID),
    TextArray: _dumper(TEXT_ARRAY_OID),
    ByteaArray: _dumper(BYTEA_ARRAY_OID),
}


def _with_packed_dumpers(conn: Connection[Any]) -> Connection[Any]:
    """The connection, its adapters knowing the packed arrays (once per pooled connection; a
    subclass of bytes without its own dumper would be sent as bytea)."""
    if conn.adapters.get_dumper(ByteaArray, PyFormat.BINARY) is not PACKED_DUMPERS[ByteaArray]:
        for cls, dumper in PACKED_DUMPERS.items():
            conn.adapters.register_dumper(cls, dumper)
    return conn


class PbemPostgresRecorder(PostgresApplicationRecorder):
    snapshots_table: str | None = None  # set by ``inline_snapshots``

    def __init__(self, datastore: PostgresDatastore, *, events_table_name: str = "stored_events"):
        super().__init__(datastore, events_table_name=events_table_name)
        id_type = datastore.originator_id_type
        if id_type != "uuid":  # the store's aggregates all have UUIDs, sent as such (``uuid_array``)
            raise ProgrammingError(f"the store's recorder needs uuid originator ids, not {id_type}")
        # other arguments need another name: CREATE OR REPLACE with a new signature adds an
        # overload beside the old function instead of replacing it
        self.insert_function_name = f"pbem_save_events_v2_{id_type}"
        # the snapshot table the function writes to: the library's factory names an
        # application's tables <name>_events and <name>_snapshots (PbemStore checks it is so)
        self.snapshots_function_table = f"{self.events_table_name.removesuffix('_events')}_snapshots"
        function = Identifier(self.insert_function_name)
        schema, table = Identifier(datastore.schema), Identifier(self.events_table_name)
        self.sql_create_statements.append(
            SQL(
                "CREATE OR REPLACE FUNCTION {schema}.{function}("
                "ids {id_type}[], versions bigint[], topics text[], states bytea[], "
                "expect_ids {id_type}[], expect_versions bigint[], "
                "snapshot_ids {id_type}[], snapshot_versions bigint[], "
                "snapshot_topics text[], snapshot_states bytea[]) "
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
                # unnest keeps the arrays' order, so the ids come back in the order of the events
                "RETURN QUERY INSERT INTO {schema}.{table} (originator_id, originator_version, topic, state) "
                "SELECT * FROM unnest(ids, versions, topics, states) "
                "RETURNING notification_id; "
                "IF cardinality(snapshot_ids) > 0 THEN "
                "INSERT INTO {schema}.{snapshots} (originator_id, originator_version, topic, state) "
                "SELECT * FROM unnest(snapshot_ids, snapshot_versions, snapshot_topics, snapshot_states) "
                "ON CONFLICT DO NOTHING; "
                "END IF; "
                "END; $BODY$"
            ).format(
                schema=schema,
                function=function,
                table=table,
                id_type=Identifier(id_type),
                lock_timeout=datastore.lock_timeout,
                channel=Identifier(self.channel_name),
                snapshots=Identifier(self.snapshots_function_table),
            )
        )
        # rendered once: a composed statement is otherwise rendered again on every call
        self.insert_in_one_statement = (
            SQL("SELECT * FROM {schema}.{function}(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)")
            .format(schema=schema, function=function)
            .as_string()
        )

    def inline_snapshots(self, table: str) -> None:
        """Write a save's snapshots (``snapshots``: stored snapshots) in its own call, when
        ``table`` (the store's snapshot table, in the same database) is the one the function
        writes to, each unless one is there already; otherwise they are the caller's to store."""
        self.snapshots_table = table if table == self.snapshots_function_table else None

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        if kwargs.get("tracking") is not None or not stored_events:
            if kwargs.get("expect") or kwargs.get("snapshots"):
                raise ProgrammingError("expected versions and snapshots go only with the store's own saves")
            ids: Sequence[int] | None = super().insert_events(stored_events, **kwargs)
            return ids
        snapshots: Sequence[StoredEvent] = kwargs.get("snapshots") or ()
        if snapshots and not self.snapshots_table:
            raise ProgrammingError("this recorder does not write the store's snapshots (inline_snapshots)")
        saved: list[int] = self._insert_in_one_call(stored_events, kwargs.get("expect") or {}, snapshots)
        return saved

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)  # as the library's insert
    def _insert_in_one_call(
        self, stored_events: Sequence[StoredEvent], expect: dict[UUID, int], snapshots: Sequence[StoredEvent]
    ) -> list[int]:
        with self.datastore.get_connection() as conn:
            encoding = conn.info.encoding
            params = (
                *_columns(stored_events, encoding),
                uuid_array(list(expect)),
                int8_array(list(expect.values())),
                *_columns(snapshots, encoding),
            )
            with _with_packed_dumpers(conn).cursor(row_factory=tuple_row) as curs:
                curs.execute(self.insert_in_one_statement, params, prepare=True)
                return [int(row[0]) for row in curs.fetchall()]


def _columns(stored: Sequence[StoredEvent], encoding: str) -> tuple[bytes, bytes, bytes, bytes]:
    """Stored events as the function takes them: ids, versions, topics and states, in order."""
    return (
        uuid_array([e.originator_id for e in stored]),
        int8_array([e.originator_version for e in stored]),
        text_array([e.topic for e in stored], encoding),
        bytea_array([e.state for e in stored]),
    )


def contract_problems() -> list[str]:
    """What no longer holds of the library's PostgreSQL internals this recorder relies on."""
    import inspect

    problems: list[str] = []
    init = inspect.getsource(PostgresDatastore.__init__)
    for name in ("schema", "lock_timeout", "originator_id_type", "pool"):
        if f"self.{name} =" not in init and f"self.{name}:" not in init:
            problems.append(f"PostgresDatastore no longer sets {name}")
    if not callable(getattr(PostgresDatastore, "get_connection", None)):
        problems.append("PostgresDatastore.get_connection is gone")
    recorder_init = inspect.getsource(PostgresApplicationRecorder.__init__)
    for name in ("channel_name", "sql_create_statements"):
        if f"self.{name}" not in recorder_init and name not in inspect.getsource(PostgresApplicationRecorder):
            problems.append(f"PostgresApplicationRecorder no longer has {name}")
    if tuple(inspect.signature(PostgresApplicationRecorder.insert_events).parameters) != (
        "self",
        "stored_events",
        "kwargs",
    ):
        problems.append("PostgresApplicationRecorder.insert_events takes other parameters")
    return problems
