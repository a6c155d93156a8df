"""The adapter to eventsourcing: every use of the library beyond its documented application API
(aggregates, ``Application``, ``repository.get``, ``events.get``, the snapshot store, the
tracking recorders) is here or in its PostgreSQL half, ``pbem.service.es_postgres`` (imported
only on PostgreSQL). An upgrade of the pinned version (constraints.txt) therefore fails in one
place: ``contract_problems()`` checks each internal touched here against the installed library,
and tests/service/test_es_adapter.py runs it (and shows that it notices a change).

What is touched, and why each is kept (docs/architecture.md lists the gains):

* ``insert``: a save stores the collected events with the recorder's ``insert_events`` and
  puts the saved aggregates in the repository's cache, without the library's ``Recording`` and
  ``Notification`` objects and its per-object protocol checks (``PbemStore.save``).
* ``project``: the repository's projector without its per-event ``isinstance`` against a
  typing protocol (about 30 µs an event: most of a cold load).
* ``copy_aggregate``: a record copied by its fields, with no pending events of its own
  (``copy.copy`` is several times slower; a writer copies twice per move).
* ``tune_sqlite``: ``PRAGMA synchronous`` on every pooled SQLite connection
  (``PBEM_SQLITE_SYNCHRONOUS``), which the library has no setting for.
* ``PbemSQLiteRecorder``: the SQLite recorder checking a save's expected versions and writing its
  snapshots in the save's own transaction (``_insert_events``).
* ``TrackingViews``: the transactions and the tracking row of a table set beside the event
  store (the datastore's ``transaction``, ``_insert_tracking``), and ``tracking_views`` that
  makes one in the store's own database.
* ``notifications``, ``head``: the notification log read by position (the recorder's
  ``select_notifications`` and ``max_notification_id``, the mapper's ``to_domain_event``).
"""

from __future__ import annotations

import inspect
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar, cast

from eventsourcing.application import Application, ProcessingEvent, Repository
from eventsourcing.domain import Aggregate, CanMutateProtocol
from eventsourcing.persistence import (
    IntegrityError,
    Mapper,
    PersistenceError,
    StoredEvent,
    Tracking,
    TrackingRecorder,
)
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore, SQLiteTrackingRecorder

A = TypeVar("A", bound=Aggregate)
V = TypeVar("V")


# -- saving and loading ------------------------------------------------------------------------
def insert(app: Application[Any], processing: ProcessingEvent[Any], kwargs: dict[str, Any]) -> Sequence[int] | None:
    """The library's ``_record`` (its event store's ``put``: each event mapped to a stored
    event, all inserted in one transaction), without the ``Recording`` and ``Notification``
    objects it makes of every event for ``Application.save`` to notify in-process
    subscribers: nothing subscribes in process (followers read the notification log)."""
    ids = app.recorder.insert_events([app.mapper.to_stored_event(e) for e in processing.events], **kwargs)
    if app.repository.cache and not app.repository.fastforward:
        for aggregate_id, aggregate in processing.aggregates.items():
            app.repository.cache.put(aggregate_id, aggregate)
    return ids


def stored(app: Application[Any], event: Any) -> StoredEvent:
    """A domain event (or snapshot) as the recorder stores it."""
    return app.mapper.to_stored_event(event)


def project(aggregate: Any, events: Iterable[Any]) -> Any:
    """The library's projector without its per-event runtime check of a typing protocol."""
    for event in events:
        aggregate = cast("CanMutateProtocol[Any]", event).mutate(aggregate)
    return aggregate


def copy_aggregate(aggregate: A) -> A:
    """A copy that can be changed without touching the original: its fields copied directly
    (what ``copy.copy`` does for such an object, without its generic ``__reduce_ex__``
    protocol), and no pending events of its own. Callers replace the aggregate's lists
    rather than change them in place, so a shallow copy is enough."""
    clone = type(aggregate).__new__(type(aggregate))
    clone.__dict__.update(aggregate.__dict__)
    clone._pending_events = []
    return clone


def tune_sqlite(app: Application[Any], synchronous: str) -> None:
    """``PRAGMA synchronous`` on every SQLite connection of the store. The library sets WAL
    mode but has no setting for this, so its connection pool is wrapped. FULL (SQLite's
    default) syncs the log at every commit."""
    pool = getattr(getattr(app.factory, "datastore", None), "pool", None)
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


def snapshots_inline(app: Application[Any]) -> None:
    """Let the store's own recorder write a save's snapshots in the save's transaction, when
    the snapshot table is in the same database."""
    snapshots = getattr(app.snapshots, "recorder", None)
    inline = getattr(app.recorder, "inline_snapshots", None)  # the recorders of this adapter
    one_database = getattr(snapshots, "datastore", None) is getattr(app.recorder, "datastore", None)
    if inline is not None and snapshots is not None and one_database:
        inline(snapshots.events_table_name)


def writes_snapshots_inline(app: Application[Any]) -> bool:
    return bool(getattr(app.recorder, "snapshots_table", None))


def postgres_channel(app: Application[Any]) -> str | None:
    """The channel a PostgreSQL store's saves ``NOTIFY`` (None on SQLite)."""
    channel = getattr(app.recorder, "channel_name", None)
    return str(channel) if channel is not None else None


def connection_settings(app: Application[Any]) -> dict[str, Any]:
    """The settings of the PostgreSQL store's pool, for a connection of one's own."""
    datastore: Any = getattr(app.recorder, "datastore")  # noqa: B009 (the PostgreSQL recorder's)
    return {k: v for k, v in datastore.pool.kwargs.items() if k != "row_factory"}


# -- the notification log ----------------------------------------------------------------------
class Notice:
    """One notification of the log: its position (``id``) and its domain event, decoded when
    asked (``event()``), so a follower can make an event that cannot be decoded a dead letter of
    its own rather than a failed page."""

    __slots__ = ("_mapper", "_stored", "id")

    def __init__(self, position: int, mapper: Any, stored: Any):
        self.id = position
        self._mapper = mapper
        self._stored = stored

    def event(self) -> Any:
        return self._mapper.to_domain_event(self._stored)


def notifications(app: Application[Any], after: int, limit: int, topics: Sequence[str] = ()) -> list[Notice]:
    """At most ``limit`` notifications after position ``after``, of ``topics`` (all when none),
    oldest first: one query, whatever ``limit`` (the library's ``notification_log`` caps a
    selection at its section size)."""
    page = app.recorder.select_notifications(start=after + 1, limit=limit, topics=list(topics))
    mapper = app.mapper
    return [Notice(notification.id, mapper, notification) for notification in page]


def head(app: Application[Any]) -> int:
    """The newest position of the notification log (0 when empty)."""
    return int(app.recorder.max_notification_id() or 0)


# -- views beside the event store --------------------------------------------------------------
class TrackingViews:
    """A table set kept beside the event store, read and written in its database's
    transactions: the base of each view (with a ``TrackingRecorder`` of the library, SQLite's or
    PostgreSQL's). ``writing()`` is a transaction that commits, ``reading()`` one that does not;
    ``track`` writes a follower's tracking row in the transaction it is given, so the rows and
    the position they were made at commit together."""

    if TYPE_CHECKING:  # given by the tracking recorder that each concrete view also derives from
        datastore: Any

        def _insert_tracking(self, c: Any, tracking: Tracking) -> None: ...

    @contextmanager
    def writing(self) -> Iterator[Any]:
        with self.datastore.transaction(commit=True) as cursor:
            yield cursor

    @contextmanager
    def reading(self) -> Iterator[Any]:
        with self.datastore.transaction(commit=False) as cursor:
            yield cursor

    def track(self, cursor: Any, tracking: Tracking | None) -> None:
        if tracking is not None:
            self._insert_tracking(cursor, tracking)

    def close(self) -> None:
        self.datastore.close()

    def schema(self) -> str:
        """The PostgreSQL schema of the tables ("" for the default one, and on SQLite)."""
        return str(getattr(self.datastore, "schema", "") or "")


def changed(cursor: Any) -> bool:
    """Whether the last statement changed a row (the library wraps SQLite's cursor)."""
    raw = getattr(cursor, "sqlite_cursor", cursor)
    return bool(raw.rowcount)


def on_postgres(app: Application[Any]) -> bool:
    return app.factory.__class__.__module__.startswith("eventsourcing.postgres")


def tracking_views(app: Application[Any], sqlite: type[V], postgres: Callable[[], type[V]], attempts: int = 20) -> V:
    """A view of class ``sqlite`` or (made on first use) ``postgres`` in the store's own
    database, so one transaction can hold both. Processes starting at once on PostgreSQL race
    in creating the tables ("tuple concurrently updated", a duplicate type); creating them is
    idempotent, so the loser tries again."""
    kind = postgres() if on_postgres(app) else sqlite
    for attempt in range(attempts):
        try:
            return cast(V, app.factory.tracking_recorder(cast(Any, kind)))
        except PersistenceError:
            if attempt == attempts - 1:
                raise
            time.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")


# -- the SQLite recorder -----------------------------------------------------------------------
class StaleRead(IntegrityError):
    """An aggregate a save was planned on has changed since it was read (see ``PbemStore.save``)."""


class PbemSQLiteRecorder(SQLiteApplicationRecorder):
    """The library's SQLite recorder, checking a save's expected versions inside its
    transaction, after the inserts (which take the database's write lock, so what is read then
    is the newest and stays so until the commit), and writing the save's snapshots (``snapshots``:
    stored snapshots) in the same transaction, each unless one is there already. Selected by
    ``PbemStore`` through ``APPLICATION_RECORDER_TOPIC``."""

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


# -- the contract with the pinned version ------------------------------------------------------
def _shape(function: Any) -> tuple[str, ...]:
    """A function's parameters as a caller sees them: the names of those passed by position,
    then "**" if it takes any keyword."""
    names: list[str] = []
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind is parameter.VAR_KEYWORD:
            names.append("**")
        elif parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            names.append(parameter.name)
    return tuple(names)


def _touched() -> list[tuple[Any, str, tuple[str, ...]]]:
    """(owner, attribute, its shape) of every library internal this adapter relies on."""
    from eventsourcing.sqlite import SQLiteConnectionPool

    return [
        (SQLiteApplicationRecorder, "_insert_events", ("self", "c", "stored_events", "**")),
        (SQLiteApplicationRecorder, "insert_events", ("self", "stored_events", "**")),
        (SQLiteTrackingRecorder, "_insert_tracking", ("self", "c", "tracking")),
        (TrackingRecorder, "max_tracking_id", ("self", "application_name")),
        (SQLiteDatastore, "transaction", ("self",)),
        (SQLiteDatastore, "close", ("self",)),
        (SQLiteApplicationRecorder, "select_notifications", ("self", "start", "limit", "stop", "topics")),
        (SQLiteApplicationRecorder, "max_notification_id", ("self",)),
        (Mapper, "to_domain_event", ("self", "stored_event")),
        (SQLiteConnectionPool, "_create_connection", ("self",)),
        (Repository, "get", ("self", "aggregate_id")),
    ]


def contract_problems() -> list[str]:
    """What no longer holds of the library internals this adapter relies on (empty: all). The
    behaviour behind them (a save's expected versions, the snapshots in its transaction, the
    copies, the tuned connections) is tested through the store in the service's tests."""
    problems: list[str] = []
    for owner, name, shape in _touched():
        found = getattr(owner, name, None)
        if not callable(found):
            problems.append(f"{owner.__qualname__}.{name} is gone")
        elif _shape(found) != shape:
            problems.append(f"{owner.__qualname__}.{name} now takes {_shape(found)}, not {shape}")
    if "projector_func" not in inspect.signature(Repository.get).parameters:
        problems.append("Repository.get takes no projector_func")
    insert_source = inspect.getsource(SQLiteApplicationRecorder.insert_events)
    if "self._insert_events(" not in insert_source or "**kwargs" not in insert_source:
        problems.append("SQLiteApplicationRecorder.insert_events no longer hands its keywords to _insert_events")
    processing: ProcessingEvent[Any] = ProcessingEvent()
    if not (isinstance(processing.events, list) and isinstance(processing.aggregates, dict)):
        problems.append("ProcessingEvent no longer collects events in a list and aggregates in a dict")
    for owner, name in _attributes():
        if not _sets(owner, name):
            problems.append(f"{owner.__qualname__} no longer sets {name}")
    return problems + _postgres_problems()


def _attributes() -> list[tuple[type, str]]:
    """(class, attribute) of every library attribute this adapter reads or replaces: the
    pooled connections and their SQLite connection (``tune_sqlite``), the SQLite cursor
    (``changed``), the repository's cache (``insert``)."""
    from eventsourcing.sqlite import SQLiteConnection, SQLiteConnectionPool, SQLiteCursor

    return [
        (SQLiteDatastore, "pool"),
        (SQLiteConnectionPool, "_pool"),
        (SQLiteConnection, "_sqlite_conn"),
        (SQLiteCursor, "sqlite_cursor"),
        (Repository, "cache"),
        (Repository, "fastforward"),
    ]


def _sets(owner: type, name: str) -> bool:
    """Whether the library's ``owner`` (or a class of the library it derives from) assigns
    ``self.<name>``."""
    pattern = re.compile(rf"self\.{name}\s*[:=]")
    return any(
        cls.__module__.startswith("eventsourcing") and pattern.search(inspect.getsource(cls))
        for cls in owner.__mro__
        if cls is not object
    )


def _postgres_problems() -> list[str]:
    try:
        from pbem.service import es_postgres
    except ImportError:  # psycopg is not installed: the PostgreSQL half is never used
        return []
    return es_postgres.contract_problems()
