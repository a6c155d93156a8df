"""The PostgreSQL recorder's packing of a save's events into binary arrays, and a database set up
by the previous release (whose insert function took the library's composite rows) during an
upgrade: the new processes save through the new function while the old ones still save
through theirs, in one order of notification ids."""

from __future__ import annotations

from uuid import UUID, uuid4

import pytest

psycopg = pytest.importorskip("psycopg")

from psycopg.adapt import PyFormat, Transformer  # noqa: E402
from psycopg.types.numeric import Int8  # noqa: E402

from pbem.config import postgres_env  # noqa: E402
from pbem.service.es_postgres import (  # noqa: E402
    BYTEA_ARRAY_OID,
    INT8_ARRAY_OID,
    TEXT_ARRAY_OID,
    UUID_ARRAY_OID,
    bytea_array,
    int8_array,
    text_array,
    uuid_array,
)
from pbem.service.store import PbemStore, Receipt, receipt_uuid  # noqa: E402


def psycopgs_own(values: list, oid: int) -> bytes:
    """The binary array psycopg's list dumper makes of these values (the reference)."""
    dumper = Transformer().get_dumper(values, PyFormat.BINARY).upgrade(values, PyFormat.BINARY)
    assert dumper.oid == oid
    return bytes(dumper.dump(values))


@pytest.mark.parametrize("count", [1, 3])
def test_the_packed_arrays_are_what_psycopg_itself_sends(count):
    ids = [uuid4() for _ in range(count)]
    assert uuid_array(ids) == psycopgs_own(ids, UUID_ARRAY_OID)
    versions = [1, 2**40, 9_223_372_036_854_775_807][:count]
    assert int8_array(versions) == psycopgs_own([Int8(v) for v in versions], INT8_ARRAY_OID)
    topics = ["pbem.service.store:Receipt.Recorded", "ünïcode:Topic", ""][:count]
    assert text_array(topics, "utf-8") == psycopgs_own(topics, TEXT_ARRAY_OID)
    states = [b'{"a":1}', b"", bytes(range(256))][:count]
    assert bytea_array(states) == psycopgs_own(states, BYTEA_ARRAY_OID)


def test_ids_as_text_are_packed_as_the_same_uuids():
    some = UUID("12345678-1234-5678-1234-567812345678")
    assert uuid_array([str(some)]) == uuid_array([some])


def test_the_packed_arrays_arrive_as_sent(postgres_url):
    """Each packed array, read back by the server: the values, their types and their order."""
    from pbem.service.es_postgres import PACKED_DUMPERS

    ids, versions = [uuid4(), uuid4()], [7, 2**40]
    topics, states = ["a:B", "ünï:C"], [bytes(range(256)), b""]
    with psycopg.connect(postgres_url) as conn:
        for cls, dumper in PACKED_DUMPERS.items():
            conn.adapters.register_dumper(cls, dumper)
        row = conn.execute(
            "SELECT %s, %s, %s, %s",
            (uuid_array(ids), int8_array(versions), text_array(topics, conn.info.encoding), bytea_array(states)),
        )
        assert row.fetchone() == (ids, versions, topics, states)
        # empty (a save that expects nothing): an empty array of the right type
        row = conn.execute(
            "SELECT %s, %s, pg_typeof(%s)::text, pg_typeof(%s)::text",
            (uuid_array([]), int8_array([]), uuid_array([]), int8_array([])),
        )
        assert row.fetchone() == ([], [], "uuid[]", "bigint[]")


# the previous release's function, as it created it (es_postgres.py before the binary arrays)
PREVIOUS_FUNCTION = """
CREATE OR REPLACE FUNCTION public.pbem_insert_events_uuid(
events public.stored_event_uuid[], expect_ids uuid[], expect_versions bigint[])
RETURNS SETOF bigint LANGUAGE plpgsql AS $BODY$
BEGIN
SET LOCAL lock_timeout = '0s';
LOCK TABLE public.pbem_events IN EXCLUSIVE MODE;
IF EXISTS (SELECT 1 FROM unnest(expect_ids, expect_versions) AS e(id, version)
WHERE coalesce((SELECT max(originator_version) FROM public.pbem_events
WHERE originator_id = e.id), 0) <> e.version) THEN
RAISE unique_violation USING MESSAGE = 'a record this save was planned on has changed';
END IF;
NOTIFY pbem_events;
RETURN QUERY INSERT INTO public.pbem_events AS t (originator_id, originator_version, topic, state)
SELECT originator_id, originator_version, topic, state FROM unnest(events)
RETURNING notification_id;
END; $BODY$
"""


def _old_process_saves(conn, store: PbemStore, key: str) -> list[int]:
    """A receipt saved as a process of the previous release saves it."""
    stored = store.mapper.to_stored_event(Receipt(key, None, {"by": "old"}).collect_events()[0])
    rows = conn.execute(
        "SELECT * FROM public.pbem_insert_events_uuid("
        "ARRAY[ROW(%s, %s, %s, %s)::public.stored_event_uuid], %s::uuid[], %s::bigint[])",
        (stored.originator_id, stored.originator_version, stored.topic, stored.state, [], []),
    ).fetchall()
    return [row[0] for row in rows]


def test_a_database_of_the_previous_release_saves_through_both_functions_in_one_order(postgres_url):
    first = PbemStore(postgres_env(postgres_url))
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        # the database as the previous release left it: its function, not the new one
        conn.execute(f"DROP FUNCTION public.{first.recorder.insert_function_name}")
        conn.execute(PREVIOUS_FUNCTION)
        assert _old_process_saves(conn, first, "old-1") == [1]
        first.close()

        upgraded = PbemStore(postgres_env(postgres_url))  # creates the new function beside the old
        try:
            assert list(upgraded.save(Receipt("new-1", None, {"by": "new"}))) == [2]
            assert _old_process_saves(conn, upgraded, "old-2") == [3]  # an old process, mid-upgrade
            assert list(upgraded.save(Receipt("new-2", None, {}), expect={receipt_uuid("old-2"): 1})) == [4]
            with pytest.raises(Exception, match="planned on has changed"):
                upgraded.save(Receipt("new-3", None, {}), expect={receipt_uuid("old-2"): 2})
            assert upgraded.receipt("old-1").outcome == {"by": "old"}
            assert upgraded.receipt("new-1").outcome == {"by": "new"}
            assert upgraded.receipt("new-3") is None
            functions = conn.execute(
                "SELECT proname, count(*) FROM pg_proc WHERE proname LIKE 'pbem%%' GROUP BY proname ORDER BY proname"
            ).fetchall()
            # one of each: no overload left for a call to resolve between
            assert functions == [("pbem_insert_events_uuid", 1), ("pbem_save_events_v2_uuid", 1)]
        finally:
            upgraded.close()


def test_the_recorder_refuses_a_datastore_with_text_ids(postgres_url):
    from eventsourcing.persistence import ProgrammingError
    from eventsourcing.postgres import PostgresDatastore

    from pbem.service.es_postgres import PbemPostgresRecorder

    env = postgres_env(postgres_url)
    datastore = PostgresDatastore(
        env["POSTGRES_DBNAME"],
        env["POSTGRES_HOST"],
        env["POSTGRES_PORT"],
        env["POSTGRES_USER"],
        env["POSTGRES_PASSWORD"],
        originator_id_type="text",
    )
    try:
        with pytest.raises(ProgrammingError, match="uuid originator ids"):
            PbemPostgresRecorder(datastore)
    finally:
        datastore.close()


def test_the_pool_starts_at_one_connection_and_grows_when_threads_need_more(postgres_url):
    import threading

    store = PbemStore(postgres_env(postgres_url))
    pool = store.recorder.datastore.pool
    try:
        assert pool.min_size == 1 and pool.max_size > 1
        saved: list[int] = []
        with store.recorder.datastore.get_connection():  # held here while another thread saves
            other = threading.Thread(target=lambda: saved.extend(store.save(Receipt("while-held", None, {}))))
            other.start()
            other.join(timeout=20)
        assert saved == [1]
    finally:
        store.close()
