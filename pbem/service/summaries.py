"""The games list as a read model: one summary row per game, kept by a follower of the event
store, so the site's list, its filters and ``/health`` never load a game.

Built on eventsourcing's projection machinery: ``GameSummaries`` is a ``Projection`` whose view
is a ``TrackingRecorder`` (SQLite or PostgreSQL) that writes a game's row and the tracking record
of the event that produced it in one transaction. ``SummaryFollower.catch_up`` pulls the
notifications stored after the view's tracking position and projects each once, so a round costs
O(new events). Several processes may follow at once: the tracking insert refuses a position
already recorded (the whole transaction rolls back, the other process did the same work), and a
row is only replaced by one from a later notification, so the order in which processes commit
does not matter.

On SQLite the view is its own database file next to the store (``summaries.sqlite``), because the
library names its SQLite tracking table ``tracking`` whatever the projection; on PostgreSQL it is
two tables in the store's database (``summaries_tracking``, ``game_summaries``).
"""

from __future__ import annotations

import json
import logging
import threading
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from eventsourcing.persistence import (
    InfrastructureFactory,
    IntegrityError,
    Tracking,
    TrackingRecorder,
)
from eventsourcing.projection import Projection
from eventsourcing.sqlite import SQLiteTrackingRecorder
from eventsourcing.utils import Environment, get_topic

from pbem.games import catalog
from pbem.service.game import load
from pbem.service.store import GameRecord

logger = logging.getLogger(__name__)

PAGE_SIZE = 50
STATUSES = ("waiting_join", "running", "finished")
STATUS_FILTERS = {  # what the site's status filter means, in stored statuses
    "running": ("waiting_join", "running"),
    "finished": ("finished",),
}
NOT_FINISHED = ("waiting_join", "running")


@dataclass(frozen=True)
class GameSummary:
    """What the games list shows of one game, as of one notification of the event store."""

    id: str
    game_type: str
    names: list[str]
    status: str  # one of STATUSES
    phase: str
    waiting: list[int]  # the seats the game waits for (none when finished)
    turn: int  # the latest turn: the log's version (entries so far), as mails and turn URLs number it
    last_activity: str  # the time of the latest entry (ISO 8601, UTC)
    robots: list[int] = field(default_factory=list)
    deadline: str | None = None  # the earliest deadline of the seats waited for (ISO 8601), from the clock given
    notification_id: int = 0

    @property
    def waiting_names(self) -> list[str]:
        return [self.names[seat] for seat in self.waiting if 0 <= seat < len(self.names)]

    def to_row(self) -> dict[str, Any]:
        return {"id": self.id, "game_type": self.game_type, "names": json.dumps(self.names),
                "status": self.status, "phase": self.phase, "waiting": json.dumps(self.waiting),
                "turn": self.turn, "last_activity": self.last_activity, "robots": json.dumps(self.robots),
                "deadline": self.deadline, "notification_id": self.notification_id}

    @classmethod
    def from_row(cls, row: Any) -> GameSummary:
        return cls(row["id"], row["game_type"], json.loads(row["names"]), row["status"], row["phase"],
                   json.loads(row["waiting"]), row["turn"], row["last_activity"], json.loads(row["robots"]),
                   row["deadline"], row["notification_id"])


def summarise(game_id: str, entries: list[dict[str, Any]], spec: Any, state: Any,
              notification_id: int, deadline: datetime | None = None) -> GameSummary:
    """The summary of a game whose log so far is ``entries``, with its rules ``spec`` and the
    state they lead to (None before the start, or when the rules cannot be used: then the
    phase and whose move are left out), and its deadline if known. Pure."""
    names = list(entries[0]["seats"])
    ended = entries[-1]["kind"] == "ended"
    started = any(e["kind"] == "started" for e in entries)
    robots = sorted({e["seat"] for e in entries if e["kind"] == "resigned"})
    phase, waiting = "", []
    if not started:
        joined = {e["seat"] for e in entries if e["kind"] == "joined"}
        status, waiting = "waiting_join", [s for s in range(len(names)) if s not in joined]
    elif ended:
        status = "finished"
    else:
        status = "running"
    if started and state is not None and spec is not None:
        phase = spec.phase_label(state)
        waiting = [] if ended else list(spec.to_move(state))
    due = deadline.astimezone(UTC).isoformat() if deadline and status == "running" else None
    return GameSummary(game_id, entries[0]["game_type"], names, status, phase, waiting, len(entries),
                       entries[-1].get("time", ""), robots, due, notification_id)


@dataclass(frozen=True)
class SummaryPage:
    rows: list[GameSummary]
    page: int
    pages: int
    total: int


class SummaryView(TrackingRecorder, ABC):
    """The materialised view: summary rows plus the tracking position, written together."""

    def save(self, summary: GameSummary, tracking: Tracking) -> None:
        """The row (unless a later one is stored) and the tracking record, in one transaction;
        IntegrityError when ``tracking`` is already recorded."""
        self.save_many([summary], tracking)

    @abstractmethod
    def save_many(self, summaries: list[GameSummary], tracking: Tracking) -> None:
        """Rows from the notifications up to ``tracking`` and that tracking record, in one
        transaction; IntegrityError when a position at or after it is already recorded."""

    @abstractmethod
    def select(
        self, game_types: tuple[str, ...], statuses: tuple[str, ...], offset: int, limit: int
    ) -> list[GameSummary]:
        """Rows newest activity first."""

    @abstractmethod
    def count(self, game_types: tuple[str, ...] = (), statuses: tuple[str, ...] = ()) -> int: ...

    @abstractmethod
    def get(self, game_id: str) -> GameSummary | None: ...

    @abstractmethod
    def game_types(self) -> set[str]:
        """The game types the rows have."""

    @abstractmethod
    def close(self) -> None:
        """Closes the database connections of the view."""


COLUMNS = ("id", "game_type", "names", "status", "phase", "waiting", "turn", "last_activity", "robots",
           "deadline", "notification_id")


def _where(game_types: tuple[str, ...], statuses: tuple[str, ...], mark: str) -> tuple[str, list[Any]]:
    """Conditions the indexes on (…, last_activity, id) can serve in order: equality for one
    value, and "not finished" rather than a list of two statuses."""
    clauses: list[str] = []
    params: list[Any] = []
    for column, values in (("game_type", game_types), ("status", statuses)):
        if column == "status" and set(values) == set(NOT_FINISHED):
            clauses.append(f"status <> {mark}")
            params.append("finished")
        elif len(values) == 1:
            clauses.append(f"{column} = {mark}")
            params.extend(values)
        elif values:
            clauses.append(f"{column} IN ({', '.join([mark] * len(values))})")
            params.extend(values)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


class SQLiteSummaryView(SummaryView, SQLiteTrackingRecorder):
    table = "game_summaries"

    def close(self) -> None:
        self.datastore.close()

    def construct_create_table_statements(self) -> list[str]:
        return [
            *super().construct_create_table_statements(),
            f"CREATE TABLE IF NOT EXISTS {self.table} (id TEXT PRIMARY KEY, game_type TEXT NOT NULL, "
            "names TEXT NOT NULL, status TEXT NOT NULL, phase TEXT NOT NULL, waiting TEXT NOT NULL, "
            "turn INTEGER NOT NULL, last_activity TEXT NOT NULL, robots TEXT NOT NULL, deadline TEXT, "
            "notification_id INTEGER NOT NULL)",
            f"CREATE INDEX IF NOT EXISTS {self.table}_activity ON {self.table} (last_activity DESC, id DESC)",
            f"CREATE INDEX IF NOT EXISTS {self.table}_type ON {self.table} (game_type, last_activity DESC, id DESC)",
            f"CREATE INDEX IF NOT EXISTS {self.table}_status ON {self.table} (status, last_activity DESC, id DESC)",
        ]

    def save_many(self, summaries: list[GameSummary], tracking: Tracking) -> None:
        names = ", ".join(COLUMNS)
        marks = ", ".join(f":{c}" for c in COLUMNS)
        updates = ", ".join(f"{c} = excluded.{c}" for c in COLUMNS if c != "id")
        with self.datastore.transaction(commit=True) as c:
            c.executemany(f"INSERT INTO {self.table} ({names}) VALUES ({marks}) ON CONFLICT (id) DO UPDATE SET "
                          f"{updates} WHERE {self.table}.notification_id < excluded.notification_id",
                          [summary.to_row() for summary in summaries])
            self._insert_tracking(c, tracking)

    def select(
        self, game_types: tuple[str, ...], statuses: tuple[str, ...], offset: int, limit: int
    ) -> list[GameSummary]:
        where, params = _where(game_types, statuses, "?")
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT {', '.join(COLUMNS)} FROM {self.table}{where} "
                      "ORDER BY last_activity DESC, id DESC LIMIT ? OFFSET ?", [*params, limit, offset])
            return [GameSummary.from_row(row) for row in c.fetchall()]

    def count(self, game_types: tuple[str, ...] = (), statuses: tuple[str, ...] = ()) -> int:
        where, params = _where(game_types, statuses, "?")
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT COUNT(*) FROM {self.table}{where}", params)
            return int(c.fetchone()[0])

    def game_types(self) -> set[str]:
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT DISTINCT game_type FROM {self.table}")
            return {row[0] for row in c.fetchall()}

    def get(self, game_id: str) -> GameSummary | None:
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT {', '.join(COLUMNS)} FROM {self.table} WHERE id = ?", [game_id])
            row = c.fetchone()
            return GameSummary.from_row(row) if row else None


def _postgres_view_class() -> type[SummaryView]:
    """Made on first use: psycopg is only installed with the ``postgres`` extra."""
    from eventsourcing.postgres import PostgresTrackingRecorder

    class PostgresSummaryView(SummaryView, PostgresTrackingRecorder):
        table = "game_summaries"

        def close(self) -> None:
            self.datastore.close()

        def __init__(self, datastore: Any, **kwargs: Any):
            super().__init__(datastore, **kwargs)
            schema = self.datastore.schema
            self.qualified = f'"{schema}".{self.table}' if schema else self.table
            from psycopg.sql import SQL

            # the library's own statements are SQL too; it declares the list as Composed only
            self.sql_create_statements.extend(SQL(statement) for statement in (  # type: ignore[misc]
                f"CREATE TABLE IF NOT EXISTS {self.qualified} (id text PRIMARY KEY, game_type text NOT NULL, "
                "names text NOT NULL, status text NOT NULL, phase text NOT NULL, waiting text NOT NULL, "
                "turn integer NOT NULL, last_activity text NOT NULL, robots text NOT NULL, deadline text, "
                "notification_id bigint NOT NULL)",
                f"CREATE INDEX IF NOT EXISTS {self.table}_activity ON {self.qualified} (last_activity DESC, id DESC)",
                f"CREATE INDEX IF NOT EXISTS {self.table}_type ON {self.qualified} "
                "(game_type, last_activity DESC, id DESC)",
                f"CREATE INDEX IF NOT EXISTS {self.table}_status ON {self.qualified} "
                "(status, last_activity DESC, id DESC)",
            ))

        def save_many(self, summaries: list[GameSummary], tracking: Tracking) -> None:
            names = ", ".join(COLUMNS)
            marks = ", ".join(f"%({c})s" for c in COLUMNS)
            updates = ", ".join(f"{c} = excluded.{c}" for c in COLUMNS if c != "id")
            with self.datastore.transaction(commit=True) as curs:
                curs.executemany(f"INSERT INTO {self.qualified} ({names}) VALUES ({marks}) "
                                 f"ON CONFLICT (id) DO UPDATE SET "
                                 f"{updates} WHERE {self.table}.notification_id < excluded.notification_id",
                                 [summary.to_row() for summary in summaries])
                self._insert_tracking(curs, tracking)

        def select(
            self, game_types: tuple[str, ...], statuses: tuple[str, ...], offset: int, limit: int
        ) -> list[GameSummary]:
            where, params = _where(game_types, statuses, "%s")
            with self.datastore.transaction(commit=False) as curs:
                curs.execute(f"SELECT {', '.join(COLUMNS)} FROM {self.qualified}{where} "
                             "ORDER BY last_activity DESC, id DESC LIMIT %s OFFSET %s", [*params, limit, offset])
                return [GameSummary.from_row(row) for row in curs.fetchall()]

        def count(self, game_types: tuple[str, ...] = (), statuses: tuple[str, ...] = ()) -> int:
            where, params = _where(game_types, statuses, "%s")
            with self.datastore.transaction(commit=False) as curs:
                curs.execute(f"SELECT COUNT(*) AS n FROM {self.qualified}{where}", params)
                row = curs.fetchone()
                return int(row["n"]) if row else 0  # COUNT(*) always has its one row

        def game_types(self) -> set[str]:
            with self.datastore.transaction(commit=False) as curs:
                curs.execute(f"SELECT DISTINCT game_type FROM {self.qualified}")
                return {row["game_type"] for row in curs.fetchall()}

        def get(self, game_id: str) -> GameSummary | None:
            with self.datastore.transaction(commit=False) as curs:
                curs.execute(f"SELECT {', '.join(COLUMNS)} FROM {self.qualified} WHERE id = %s", [game_id])
                row = curs.fetchone()
                return GameSummary.from_row(row) if row else None

    return PostgresSummaryView


def open_view(store_env: dict[str, str], home: Any, attempts: int = 20) -> SummaryView:
    """The view next to the store described by ``store_env`` (``Settings.store_env()``)."""
    infrastructure = dict(store_env)  # the store's settings, not the process environment
    if infrastructure.get("PERSISTENCE_MODULE") == "eventsourcing.postgres":
        view_class: type[SummaryView] = _postgres_view_class()
    else:
        infrastructure.update({
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(home / "summaries.sqlite"),
            "SQLITE_LOCK_TIMEOUT": infrastructure.get("SQLITE_LOCK_TIMEOUT") or "30",
        })
        view_class = SQLiteSummaryView
    infrastructure.pop("CIPHER_KEY", None)  # the rows are the public list; nothing here is encrypted
    infrastructure.pop("CIPHER_TOPIC", None)
    for attempt in range(attempts):  # processes starting at once race in creating the tables
        try:
            factory = InfrastructureFactory[SummaryView].construct(Environment("summaries", infrastructure))
            return factory.tracking_recorder(view_class)
        except Exception:
            if attempt == attempts - 1:
                raise
            time.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")


class GameSummaries(Projection[SummaryView]):
    """The projection: a game's summary after each of its events, written to the view with the
    event's tracking record. ``load`` and ``state`` are the reader's (cached) game and state."""

    name = "summaries"
    topics = (get_topic(GameRecord.Created), get_topic(GameRecord.Appended))

    def __init__(self, view: SummaryView, reader: Any):
        super().__init__(view)
        self.reader = reader
        # the mail side's ``(game, version, seat) -> datetime | None`` (``pbem serve``); without
        # it the rows have no deadline
        self.deadline: Callable[[Any, int, int], datetime | None] | None = None

    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        summary = self.summary_of(domain_event, tracking)
        with suppress(IntegrityError):  # another process recorded this notification first
            self.view.save_many([summary] if summary else [], tracking)

    def process_page(self, page: list[tuple[Any, Tracking]]) -> None:
        """A page of events in one transaction: the latest row of each game they touch and the
        tracking record of the last event (the rows carry their own notification ids, so a row
        is never replaced by an older one, whichever process commits first)."""
        if not page:
            return
        latest: dict[str, GameSummary] = {}
        for domain_event, tracking in page:
            summary = self.summary_of(domain_event, tracking)
            if summary is not None:
                latest[summary.id] = summary
        with suppress(IntegrityError):  # another process recorded these notifications (or later) first
            self.view.save_many(list(latest.values()), page[-1][1])

    def summary_of(self, domain_event: Any, tracking: Tracking) -> GameSummary | None:
        entries = domain_event.entries
        if not entries:
            return None
        game_id = entries[-1]["game"]
        version = entries[-1]["index"] + 1
        store = self.reader.store
        record = store.game(game_id)
        spec = state = deadline = None
        try:
            game = load(record, lambda: store.game_log(record))
            spec, state = game.spec, self.reader.state(game, version)
        except Exception as error:  # a type no longer offered, a rules bug: list it without a phase
            logger.warning("game summaries: %s at version %s without its rules: %s", game_id, version, error)
        else:
            if version == game.version:  # the game's latest event: only its row is kept
                deadline = self.deadline_of(game, state)
        return summarise(game_id, store.game_log(record).entries[:version], spec, state, tracking.notification_id,
                         deadline)

    def deadline_of(self, game: Any, state: Any) -> datetime | None:
        """The earliest deadline of the seats the game waits for now (None without a clock)."""
        if self.deadline is None or state is None or game.ended:
            return None
        try:
            found = [self.deadline(game, game.version, seat) for seat in game.spec.to_move(state)]
        except Exception:  # a clock problem must not stop the list
            logger.exception("game summaries: the deadline of %s failed", game.id)
            return None
        return min((moment for moment in found if moment is not None), default=None)


class GameSummaryQuery(Protocol):
    """What the web site may ask about the list of games (its query port)."""

    def list_games(self, game_type: str | None, status: str | None, page: int) -> SummaryPage: ...

    def position_now(self) -> int:
        """Catch up; the list's rows change only when this number does."""
        ...

    def count(self) -> int: ...


class SummaryFollower:
    """Follows the event store with the projection; the web's ``GameSummaryQuery``.

    ``reader`` is a ``GameReader`` (its store gives the notifications, its record and state
    caches make each projected event cost only the entries since the game's last one)."""

    def __init__(self, reader: Any, view: SummaryView | None = None, batch: int = 500):
        self.reader = reader
        self.store = reader.store
        self.view = view or open_view(reader.settings.store_env(), reader.settings.home)
        self.projection = GameSummaries(self.view, reader)
        self.batch = batch
        self._lock = threading.Lock()
        self._known: int | None = None  # the view's position as this follower last saw it
        self._counts: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[int, int]] = {}
        self._types: tuple[int | None, tuple[str, ...]] = (None, ())
        self._head: int | None = None  # the store's position at the last complete catch-up
        self._total: tuple[int | None, int] = (None, 0)  # the view's position and its row count

    def position(self) -> int:
        return self.view.max_tracking_id(self.store.name) or 0

    def _notifications(self, after: int, limit: int) -> Iterator[tuple[Any, Tracking]]:
        page = self.store.recorder.select_notifications(start=after + 1, limit=limit,
                                                        topics=list(self.projection.topics))
        for notification in page:
            yield self.store.mapper.to_domain_event(notification), Tracking(self.store.name, notification.id)

    def catch_up(self, limit: int | None = None) -> int:
        """Project the events stored since the view's position (at most ``limit``, default one
        batch); returns how many were projected. One thread of a process at a time."""
        with self._lock:
            done = 0
            wanted = limit or self.batch
            if self._known is None:
                self._known = self.position()
            while done < wanted:
                # From the position this follower knows: when another process went further, the
                # page is refused whole (IntegrityError) and the next one starts after it.
                page = list(self._notifications(self._known, min(self.batch, wanted - done)))
                self.projection.process_page(page)
                done += len(page)
                if not page:
                    break
                self._known = page[-1][1].notification_id
            return done

    def catch_up_all(self) -> int:
        total = 0
        while (done := self.catch_up()) > 0:
            total += done
        return total

    # -- the query port ---------------------------------------------------------------------
    def position_now(self) -> int:
        """Catch up, then the position the view is at as far as this follower knows: the rows
        change only when it moves (the site keeps a rendered page of the list per position).
        While the store's own position stays where it was at the last complete catch-up,
        nothing new can be projected, and the store is asked only that."""
        head = self.reader.position()
        # fewer than a batch: the end of the log as it was at ``head`` (or later) was reached
        if head != self._head and self.catch_up() < self.batch:
            self._head = head
        return self._known or 0

    def list_games(self, game_type: str | None, status: str | None, page: int = 1) -> SummaryPage:
        self.catch_up()
        statuses = STATUS_FILTERS.get(status or "", ())
        types = (game_type,) if game_type else self._offered_types()
        total = self._count(types, statuses)
        pages = max(1, -(-total // PAGE_SIZE))
        rows = self.view.select(types, statuses, (page - 1) * PAGE_SIZE, PAGE_SIZE) if page <= pages else []
        return SummaryPage(rows, page, pages, total)

    def _offered_types(self) -> tuple[str, ...]:
        """The type filter of an unfiltered list: none when every type in the view is offered
        (the usual case, which the activity index serves in order), else the offered ones, so
        games of a type no longer offered stay out. Kept until the position moves."""
        known, types = self._types
        if known is None or known != self._known:
            offered = set(catalog())
            present = self.view.game_types()
            types = () if present <= offered else tuple(sorted(offered))
            self._types = (self._known, types)
        return types

    def _count(self, types: tuple[str, ...], statuses: tuple[str, ...]) -> int:
        """Row counts are kept until the position moves: the rows only change with events."""
        known, cached = self._counts.get((types, statuses), (None, 0))
        if known is not None and known == self._known:
            return cached
        total = self.view.count(types, statuses)
        self._counts[types, statuses] = (self._known or 0, total)
        return total

    def count(self) -> int:
        """All rows. The view is asked its position every time (``/health`` checks that it
        answers); the count is kept while the position stays."""
        position = self.position()
        known, total = self._total
        if known != position:
            total = self.view.count()
            self._total = (position, total)
        return total

    def follow(self, stop: threading.Event, interval: float = 1.0) -> threading.Thread:
        """Keep catching up in a daemon thread until ``stop`` is set (for ``pbem serve``)."""
        def loop() -> None:
            while not stop.is_set():
                try:
                    self.catch_up_all()
                except Exception:  # a store hiccup: try again next round, requests catch up too
                    logger.exception("game summaries: catch-up failed")
                stop.wait(interval)

        thread = threading.Thread(target=loop, name="pbem-summaries", daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        self.view.close()


_FOLLOWERS: weakref.WeakKeyDictionary[Any, SummaryFollower] = weakref.WeakKeyDictionary()
_FOLLOWERS_LOCK = threading.Lock()


def follower_for(reader: Any) -> SummaryFollower:
    """One follower per reader (service) in a process: apps made over the same service share
    its view and its connections."""
    with _FOLLOWERS_LOCK:
        follower = _FOLLOWERS.get(reader)
        if follower is None:
            follower = _FOLLOWERS[reader] = SummaryFollower(reader)
        return follower
