"""The games list's stored side: one summary row per game (``GameSummary``, made by the pure
``summarise``) in a view that is a ``TrackingRecorder`` (SQLite or PostgreSQL), so a row and the
tracking record of the event that produced it are written in one transaction.

On SQLite the view is its own database file next to the store (``summaries.sqlite``), because the
library names its SQLite tracking table ``tracking`` whatever the projection; on PostgreSQL it is
two tables in the store's database (``summaries_tracking``, ``game_summaries``). The follower
that fills it is ``pbem.service.summaries``.
"""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from eventsourcing.persistence import InfrastructureFactory, Tracking, TrackingRecorder
from eventsourcing.sqlite import SQLiteTrackingRecorder
from eventsourcing.utils import Environment

from pbem import i18n
from pbem.games.text import name_seats
from pbem.ledger import handovers, press
from pbem.ledger.entries import NAMED
from pbem.service.es_adapter import TrackingViews

PAGE_SIZE = 50
STATUSES = ("waiting_join", "running", "finished", "expired")  # expired: never started in time
STATUS_FILTERS = {  # what the site's status filter means, in stored statuses
    "running": ("waiting_join", "running"),
    "finished": ("finished", "expired"),
}
NOT_FINISHED = ("waiting_join", "running")
OVER = ("finished", "expired")


@dataclass(frozen=True)
class GameSummary:
    """What the games list shows of one game, as of one notification of the event store."""

    id: str
    game_type: str
    names: list[str]
    status: str  # one of STATUSES ("left" in a list of the games of a player a substitute replaced)
    phase: str  # the phase in each language, as JSON {"en": ..., "cs": ..., "pl": ...} (older rows: English text)
    waiting: list[int]  # the seats the game waits for (none when finished)
    turn: int  # the latest turn: the log's version (entries so far), as mails and turn URLs number it
    last_activity: str  # the time of the latest entry (ISO 8601, UTC)
    robots: list[int] = field(default_factory=list)
    deadline: str | None = None  # the earliest deadline of the seats waited for (ISO 8601), from the clock given
    notification_id: int = 0

    def phase_in(self, lang: str) -> str:
        """The phase as a page in ``lang`` says it (English where the row has no other)."""
        if not self.phase.startswith("{"):
            return self.phase
        said: dict[str, str] = json.loads(self.phase)
        return said.get(lang) or said.get("en", "")

    @property
    def waiting_names(self) -> list[str]:
        return [self.names[seat] for seat in self.waiting if 0 <= seat < len(self.names)]

    def to_row(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "game_type": self.game_type,
            "names": json.dumps(self.names),
            "status": self.status,
            "phase": self.phase,
            "waiting": json.dumps(self.waiting),
            "turn": self.turn,
            "last_activity": self.last_activity,
            "robots": json.dumps(self.robots),
            "deadline": self.deadline,
            "notification_id": self.notification_id,
        }

    @classmethod
    def from_row(cls, row: Any) -> GameSummary:
        return cls(
            row["id"],
            row["game_type"],
            json.loads(row["names"]),
            row["status"],
            row["phase"],
            json.loads(row["waiting"]),
            row["turn"],
            row["last_activity"],
            json.loads(row["robots"]),
            row["deadline"],
            row["notification_id"],
        )


def summarise(
    game_id: str,
    entries: list[dict[str, Any]],
    spec: Any,
    state: Any,
    notification_id: int,
    deadline: datetime | None = None,
    expired: bool = False,
) -> GameSummary:
    """The summary of a game whose log so far is ``entries``, with its rules ``spec`` and the
    state they lead to (None before the start, or when the rules cannot be used: then the
    phase and whose move are left out), its deadline if known, and whether it expired (a game
    that never started in time: it waits for nobody any more). Pure."""
    names = list(entries[0]["seats"])
    for entry in entries:
        if entry["kind"] == NAMED:  # a name given during the game
            names[entry["seat"]] = entry["name"]
    robots = sorted(handovers.robots_in(entries))
    status, waiting = _status(entries, len(names))
    if expired and status == "waiting_join":
        status, waiting = "expired", []
    phase = ""
    if status != "waiting_join" and state is not None and spec is not None:
        phase = phases(spec, state, names)
        waiting = [] if status == "finished" else list(spec.to_move(state))
    due = deadline.astimezone(UTC).isoformat() if deadline and status == "running" else None
    return GameSummary(
        game_id,
        entries[0]["game_type"],
        names,
        status,
        phase,
        waiting,
        sum(entry["kind"] not in (*press.TALK_KINDS, NAMED) for entry in entries),  # talk (or a name) is no turn
        entries[-1].get("time", ""),
        robots,
        due,
        notification_id,
    )


def phases(spec: Any, state: Any, names: list[str]) -> str:
    """The phase in every language the site speaks, the seats it names said by name, as the
    JSON a row keeps (the list is read without loading a game, in the reader's language)."""
    said = {}
    for lang in i18n.LANGUAGES:
        with i18n.speaking(lang):
            said[lang] = name_seats(spec.phase_label(state), names)
    return json.dumps(said, ensure_ascii=False, sort_keys=True) if any(said.values()) else ""


def _status(entries: list[dict[str, Any]], seats: int) -> tuple[str, list[int]]:
    """Whether the game waits for joins (and for which seats), runs, or is finished."""
    if not any(e["kind"] == "started" for e in entries):
        joined = {e["seat"] for e in entries if e["kind"] == "joined"}
        return "waiting_join", [s for s in range(seats) if s not in joined]
    return ("finished" if entries[-1]["kind"] == "ended" else "running"), []


@dataclass(frozen=True)
class SummaryPage:
    rows: list[GameSummary]
    page: int
    pages: int
    total: int


class SummaryView(TrackingViews, TrackingRecorder, ABC):
    """The materialised view: summary rows plus the tracking position, written together
    (``TrackingViews``: its transactions, its tracking row, ``close``)."""

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
    def save_rated(self, rows: list[dict[str, Any]], tracking: Tracking) -> None:
        """The ratings' rows (``pbem.service.rated``: one per game, ``RATED_COLUMNS``) from the
        notifications up to ``tracking``, and that tracking record, in one transaction; a row
        is only replaced by one from a later notification, and keeps its ``created``."""

    @abstractmethod
    def rated_since(self, notification_id: int) -> list[dict[str, Any]]:
        """The ratings' rows written from notifications after ``notification_id``."""

    @abstractmethod
    def save_players(self, rows: list[dict[str, Any]], tracking: Tracking) -> None:
        """Rows of ``player_games`` (``player``: a keyed hash of an address, ``game_id``,
        ``notification_id``) and the tracking record, in one transaction (a row kept once)."""

    @abstractmethod
    def player_games(self, player: str) -> list[str]:
        """The games of ``player`` (its keyed hash), oldest first."""

    @abstractmethod
    def newest_seats(self, limit: int) -> list[str]:
        """The games of the newest ``limit`` seats, newest first (a game once per seat)."""

    @abstractmethod
    def save_activity(
        self, seats: list[dict[str, Any]], moves: list[dict[str, Any]], tracking: Tracking, left: Any = ()
    ) -> None:
        """Rows of ``player_activity`` for new seats (``player``, ``game_id``, ``finished``,
        ``last_activity``), then each game's newest activity (``game_id``, ``finished``,
        ``last_activity``: a game once finished stays so) on every seat of it, then the seats
        ``left`` to a substitute (``player``, ``game_id``: marked ``LEFT``, listed after the
        finished games as handed over), and the tracking record, in one transaction."""

    @abstractmethod
    def player_rows(self, player: str, limit: int) -> tuple[list[GameSummary], int]:
        """The rows of ``player``'s games (its keyed hash): those not finished first, newest
        activity first, at most ``limit`` (by an index, so the cost does not grow with the
        player's games); and how many games the player has in all."""

    @abstractmethod
    def rows_of(self, game_ids: list[str], player: str) -> list[tuple[GameSummary, bool]]:
        """The rows of ``game_ids`` (in that order; a game without a row left out), each with
        whether ``player`` (a keyed hash) has a seat in it."""


COLUMNS = (
    "id",
    "game_type",
    "names",
    "status",
    "phase",
    "waiting",
    "turn",
    "last_activity",
    "robots",
    "deadline",
    "notification_id",
)


PLAYERS = "player_games"
PLAYERS_TABLE = (
    "CREATE TABLE IF NOT EXISTS {} (player TEXT NOT NULL, game_id TEXT NOT NULL, "
    "notification_id BIGINT NOT NULL, PRIMARY KEY (player, game_id))"
)
PLAYERS_INDEX = f"CREATE INDEX IF NOT EXISTS {PLAYERS}_newest ON {{}} (notification_id DESC)"
ACTIVITY = "player_activity"  # each seat's game with its activity, in the order ``status`` lists them
ACTIVITY_TABLE = (
    "CREATE TABLE IF NOT EXISTS {} (player TEXT NOT NULL, game_id TEXT NOT NULL, finished INTEGER NOT NULL, "
    "last_activity TEXT NOT NULL, PRIMARY KEY (player, game_id))"
)
ACTIVITY_INDEXES = (
    f"CREATE INDEX IF NOT EXISTS {ACTIVITY}_order ON {{}} (player, finished, last_activity DESC, game_id DESC)",
    f"CREATE INDEX IF NOT EXISTS {ACTIVITY}_game ON {{}} (game_id)",
)
ACTIVITY_SEAT = (
    "INSERT INTO {table} (player, game_id, finished, last_activity) "
    "VALUES ({mark[player]}, {mark[game_id]}, {mark[finished]}, {mark[last_activity]}) ON CONFLICT DO NOTHING"
)
LEFT = 2  # ``finished`` of the seat whose player a substitute replaced: the game is theirs no more
ACTIVITY_LEFT = (
    f"UPDATE {{table}} SET finished = {LEFT} WHERE player = {{mark[player]}} AND game_id = {{mark[game_id]}}"
)
ACTIVITY_MOVE = (
    "UPDATE {table} SET finished = {greatest}(finished, {mark[finished]}), last_activity = {mark[last_activity]} "
    "WHERE game_id = {mark[game_id]}"
)
PLAYER_ROWS = (  # the rows of one player's games: those not finished first, newest activity first
    "SELECT {columns}, a.finished AS seat_finished FROM {activity} a JOIN {table} s ON s.id = a.game_id "
    "WHERE a.player = {mark} "
    "ORDER BY a.finished, a.last_activity DESC, a.game_id DESC LIMIT {mark}"
)
PLAYER_COUNT = "SELECT COUNT(*) AS n FROM {activity} WHERE player = {mark}"
ROWS_OF = (  # rows by id, each with whether the player has a seat in the game
    "SELECT {columns}, p.player IS NOT NULL AS mine FROM {table} s "
    "LEFT JOIN {players} p ON p.game_id = s.id AND p.player = {mark} WHERE s.id IN ({marks})"
)
MAX_ROWS_OF = 500  # ids asked in one ``rows_of`` at most (the games list asks 50)
RATED = "rated_games"
RATED_COLUMNS = ("id", "created", "state", "ended", "result", "notification_id")


def _prefixed(alias: str) -> str:
    """The row's columns, each named by ``alias``."""
    return ", ".join(f"{alias}.{column}" for column in COLUMNS)


def _rated_upsert(table: str, mark: str) -> str:
    names = ", ".join(RATED_COLUMNS)
    marks = ", ".join(mark.format(c) for c in RATED_COLUMNS)
    updates = ", ".join(f"{c} = excluded.{c}" for c in RATED_COLUMNS if c not in ("id", "created"))
    return (
        f"INSERT INTO {table} ({names}) VALUES ({marks}) ON CONFLICT (id) DO UPDATE SET {updates} "
        f"WHERE {table}.notification_id < excluded.notification_id"
    )


def _as_seen(row: Any) -> GameSummary:
    """A row of a player's games as that player sees it: "left" when a substitute took their seat."""
    summary = GameSummary.from_row(row)
    return replace(summary, status="left", waiting=[]) if row["seat_finished"] == LEFT else summary


def _where(game_types: tuple[str, ...], statuses: tuple[str, ...], mark: str) -> tuple[str, list[Any]]:
    """Conditions the indexes on (…, last_activity, id) can serve in order: equality for one
    value, and "not finished" rather than a list of two statuses."""
    clauses: list[str] = []
    params: list[Any] = []
    for column, values in (("game_type", game_types), ("status", statuses)):
        if column == "status" and set(values) == set(NOT_FINISHED):
            clauses.append(f"status NOT IN ({mark}, {mark})")
            params.extend(OVER)
        elif len(values) == 1:
            clauses.append(f"{column} = {mark}")
            params.extend(values)
        elif values:
            clauses.append(f"{column} IN ({', '.join([mark] * len(values))})")
            params.extend(values)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


class SQLiteSummaryView(SummaryView, SQLiteTrackingRecorder):
    table = "game_summaries"

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
            f"CREATE TABLE IF NOT EXISTS {RATED} (id TEXT PRIMARY KEY, created INTEGER NOT NULL, "
            "state TEXT NOT NULL, ended TEXT NOT NULL, result TEXT NOT NULL, notification_id INTEGER NOT NULL)",
            f"CREATE INDEX IF NOT EXISTS {RATED}_position ON {RATED} (notification_id)",
            PLAYERS_TABLE.format(PLAYERS),
            PLAYERS_INDEX.format(PLAYERS),
            ACTIVITY_TABLE.format(ACTIVITY),
            *(index.format(ACTIVITY) for index in ACTIVITY_INDEXES),
        ]

    def save_activity(
        self, seats: list[dict[str, Any]], moves: list[dict[str, Any]], tracking: Tracking, left: Any = ()
    ) -> None:
        marks = {c: f":{c}" for c in ("player", "game_id", "finished", "last_activity")}
        with self.writing() as c:
            c.executemany(ACTIVITY_SEAT.format(table=ACTIVITY, mark=marks), seats)
            c.executemany(ACTIVITY_MOVE.format(table=ACTIVITY, mark=marks, greatest="MAX"), moves)
            c.executemany(ACTIVITY_LEFT.format(table=ACTIVITY, mark=marks), list(left))
            self.track(c, tracking)

    def save_players(self, rows: list[dict[str, Any]], tracking: Tracking) -> None:
        with self.writing() as c:
            c.executemany(
                f"INSERT INTO {PLAYERS} (player, game_id, notification_id) "
                "VALUES (:player, :game_id, :notification_id) ON CONFLICT DO NOTHING",
                rows,
            )
            self.track(c, tracking)

    def player_games(self, player: str) -> list[str]:
        with self.reading() as c:
            c.execute(f"SELECT game_id FROM {PLAYERS} WHERE player = ? ORDER BY notification_id", [player])
            return [row[0] for row in c.fetchall()]

    def newest_seats(self, limit: int) -> list[str]:
        with self.reading() as c:
            c.execute(f"SELECT game_id FROM {PLAYERS} ORDER BY notification_id DESC LIMIT ?", [limit])
            return [row[0] for row in c.fetchall()]

    def player_rows(self, player: str, limit: int) -> tuple[list[GameSummary], int]:
        names = {"columns": _prefixed("s"), "activity": ACTIVITY, "table": self.table, "mark": "?"}
        with self.reading() as c:
            c.execute(PLAYER_ROWS.format(**names), [player, limit])
            rows = [_as_seen(row) for row in c.fetchall()]
            c.execute(PLAYER_COUNT.format(**names), [player])
            return rows, int(c.fetchone()[0])

    def rows_of(self, game_ids: list[str], player: str) -> list[tuple[GameSummary, bool]]:
        game_ids = game_ids[:MAX_ROWS_OF]
        if not game_ids:
            return []
        names = {"columns": _prefixed("s"), "players": PLAYERS, "table": self.table, "mark": "?"}
        with self.reading() as c:
            c.execute(ROWS_OF.format(**names, marks=", ".join("?" * len(game_ids))), [player, *game_ids])
            found = {row["id"]: (GameSummary.from_row(row), bool(row["mine"])) for row in c.fetchall()}
        return [found[game_id] for game_id in game_ids if game_id in found]

    def save_rated(self, rows: list[dict[str, Any]], tracking: Tracking) -> None:
        with self.writing() as c:
            c.executemany(_rated_upsert(RATED, ":{}"), rows)
            self.track(c, tracking)

    def rated_since(self, notification_id: int) -> list[dict[str, Any]]:
        with self.reading() as c:
            c.execute(
                f"SELECT {', '.join(RATED_COLUMNS)} FROM {RATED} WHERE notification_id > ? ORDER BY notification_id",
                [notification_id],
            )
            return [dict(zip(RATED_COLUMNS, row, strict=True)) for row in c.fetchall()]

    def save_many(self, summaries: list[GameSummary], tracking: Tracking) -> None:
        names = ", ".join(COLUMNS)
        marks = ", ".join(f":{c}" for c in COLUMNS)
        updates = ", ".join(f"{c} = excluded.{c}" for c in COLUMNS if c != "id")
        with self.writing() as c:
            c.executemany(
                f"INSERT INTO {self.table} ({names}) VALUES ({marks}) ON CONFLICT (id) DO UPDATE SET "
                f"{updates} WHERE {self.table}.notification_id < excluded.notification_id",
                [summary.to_row() for summary in summaries],
            )
            self.track(c, tracking)

    def select(
        self, game_types: tuple[str, ...], statuses: tuple[str, ...], offset: int, limit: int
    ) -> list[GameSummary]:
        where, params = _where(game_types, statuses, "?")
        with self.reading() as c:
            c.execute(
                f"SELECT {', '.join(COLUMNS)} FROM {self.table}{where} "
                "ORDER BY last_activity DESC, id DESC LIMIT ? OFFSET ?",
                [*params, limit, offset],
            )
            return [GameSummary.from_row(row) for row in c.fetchall()]

    def count(self, game_types: tuple[str, ...] = (), statuses: tuple[str, ...] = ()) -> int:
        where, params = _where(game_types, statuses, "?")
        with self.reading() as c:
            c.execute(f"SELECT COUNT(*) FROM {self.table}{where}", params)
            return int(c.fetchone()[0])

    def game_types(self) -> set[str]:
        with self.reading() as c:
            c.execute(f"SELECT DISTINCT game_type FROM {self.table}")
            return {row[0] for row in c.fetchall()}

    def get(self, game_id: str) -> GameSummary | None:
        with self.reading() as c:
            c.execute(f"SELECT {', '.join(COLUMNS)} FROM {self.table} WHERE id = ?", [game_id])
            row = c.fetchone()
            return GameSummary.from_row(row) if row else None


def _postgres_view_class() -> type[SummaryView]:
    """Made on first use: psycopg is only installed with the ``postgres`` extra."""
    from eventsourcing.postgres import PostgresTrackingRecorder

    class PostgresSummaryView(SummaryView, PostgresTrackingRecorder):
        table = "game_summaries"

        def __init__(self, datastore: Any, **kwargs: Any):
            super().__init__(datastore, **kwargs)
            schema = self.schema()
            self.qualified = f'"{schema}".{self.table}' if schema else self.table
            self.rated = f'"{schema}".{RATED}' if schema else RATED
            self.players = f'"{schema}".{PLAYERS}' if schema else PLAYERS
            self.activity = f'"{schema}".{ACTIVITY}' if schema else ACTIVITY
            from psycopg.sql import SQL

            # the library's own statements are SQL too; it declares the list as Composed only
            statements = (
                f"CREATE TABLE IF NOT EXISTS {self.qualified} (id text PRIMARY KEY, game_type text NOT NULL, "
                "names text NOT NULL, status text NOT NULL, phase text NOT NULL, waiting text NOT NULL, "
                "turn integer NOT NULL, last_activity text NOT NULL, robots text NOT NULL, deadline text, "
                "notification_id bigint NOT NULL)",
                f"CREATE INDEX IF NOT EXISTS {self.table}_activity ON {self.qualified} (last_activity DESC, id DESC)",
                f"CREATE INDEX IF NOT EXISTS {self.table}_type ON {self.qualified} "
                "(game_type, last_activity DESC, id DESC)",
                f"CREATE INDEX IF NOT EXISTS {self.table}_status ON {self.qualified} "
                "(status, last_activity DESC, id DESC)",
                f"CREATE TABLE IF NOT EXISTS {self.rated} (id text PRIMARY KEY, created bigint NOT NULL, "
                "state text NOT NULL, ended text NOT NULL, result text NOT NULL, notification_id bigint NOT NULL)",
                f"CREATE INDEX IF NOT EXISTS {RATED}_position ON {self.rated} (notification_id)",
                PLAYERS_TABLE.format(self.players),
                PLAYERS_INDEX.format(self.players),
                ACTIVITY_TABLE.format(self.activity),
                *(index.format(self.activity) for index in ACTIVITY_INDEXES),
            )
            self.sql_create_statements.extend(SQL(statement) for statement in statements)  # type: ignore[misc]

        def save_many(self, summaries: list[GameSummary], tracking: Tracking) -> None:
            names = ", ".join(COLUMNS)
            marks = ", ".join(f"%({c})s" for c in COLUMNS)
            updates = ", ".join(f"{c} = excluded.{c}" for c in COLUMNS if c != "id")
            with self.writing() as curs:
                curs.executemany(
                    f"INSERT INTO {self.qualified} ({names}) VALUES ({marks}) "
                    f"ON CONFLICT (id) DO UPDATE SET "
                    f"{updates} WHERE {self.table}.notification_id < excluded.notification_id",
                    [summary.to_row() for summary in summaries],
                )
                self.track(curs, tracking)

        def save_rated(self, rows: list[dict[str, Any]], tracking: Tracking) -> None:
            with self.writing() as curs:
                curs.executemany(
                    _rated_upsert(self.rated, "%({})s").replace(f"WHERE {self.rated}.", f"WHERE {RATED}."), rows
                )
                self.track(curs, tracking)

        def save_players(self, rows: list[dict[str, Any]], tracking: Tracking) -> None:
            with self.writing() as curs:
                curs.executemany(
                    f"INSERT INTO {self.players} (player, game_id, notification_id) "
                    "VALUES (%(player)s, %(game_id)s, %(notification_id)s) ON CONFLICT DO NOTHING",
                    rows,
                )
                self.track(curs, tracking)

        def player_games(self, player: str) -> list[str]:
            with self.reading() as curs:
                curs.execute(f"SELECT game_id FROM {self.players} WHERE player = %s ORDER BY notification_id", [player])
                return [row["game_id"] for row in curs.fetchall()]

        def newest_seats(self, limit: int) -> list[str]:
            with self.reading() as curs:
                curs.execute(f"SELECT game_id FROM {self.players} ORDER BY notification_id DESC LIMIT %s", [limit])
                return [row["game_id"] for row in curs.fetchall()]

        def save_activity(
            self, seats: list[dict[str, Any]], moves: list[dict[str, Any]], tracking: Tracking, left: Any = ()
        ) -> None:
            marks = {c: f"%({c})s" for c in ("player", "game_id", "finished", "last_activity")}
            with self.writing() as curs:
                curs.executemany(ACTIVITY_SEAT.format(table=self.activity, mark=marks), seats)
                curs.executemany(ACTIVITY_MOVE.format(table=self.activity, mark=marks, greatest="GREATEST"), moves)
                if left:
                    curs.executemany(ACTIVITY_LEFT.format(table=self.activity, mark=marks), list(left))
                self.track(curs, tracking)

        def player_rows(self, player: str, limit: int) -> tuple[list[GameSummary], int]:
            names = {"columns": _prefixed("s"), "activity": self.activity, "table": self.qualified, "mark": "%s"}
            with self.reading() as curs:
                curs.execute(PLAYER_ROWS.format(**names), [player, limit])
                rows = [_as_seen(row) for row in curs.fetchall()]
                curs.execute(PLAYER_COUNT.format(**names), [player])
                counted = curs.fetchone()
                return rows, int(counted["n"]) if counted else 0

        def rows_of(self, game_ids: list[str], player: str) -> list[tuple[GameSummary, bool]]:
            game_ids = game_ids[:MAX_ROWS_OF]
            if not game_ids:
                return []
            names = {"columns": _prefixed("s"), "players": self.players, "table": self.qualified, "mark": "%s"}
            with self.reading() as curs:
                curs.execute(ROWS_OF.format(**names, marks=", ".join(["%s"] * len(game_ids))), [player, *game_ids])
                found = {row["id"]: (GameSummary.from_row(row), bool(row["mine"])) for row in curs.fetchall()}
            return [found[game_id] for game_id in game_ids if game_id in found]

        def rated_since(self, notification_id: int) -> list[dict[str, Any]]:
            with self.reading() as curs:
                curs.execute(
                    f"SELECT {', '.join(RATED_COLUMNS)} FROM {self.rated} WHERE notification_id > %s "
                    "ORDER BY notification_id",
                    [notification_id],
                )
                return [{c: row[c] for c in RATED_COLUMNS} for row in curs.fetchall()]

        def select(
            self, game_types: tuple[str, ...], statuses: tuple[str, ...], offset: int, limit: int
        ) -> list[GameSummary]:
            where, params = _where(game_types, statuses, "%s")
            with self.reading() as curs:
                curs.execute(
                    f"SELECT {', '.join(COLUMNS)} FROM {self.qualified}{where} "
                    "ORDER BY last_activity DESC, id DESC LIMIT %s OFFSET %s",
                    [*params, limit, offset],
                )
                return [GameSummary.from_row(row) for row in curs.fetchall()]

        def count(self, game_types: tuple[str, ...] = (), statuses: tuple[str, ...] = ()) -> int:
            where, params = _where(game_types, statuses, "%s")
            with self.reading() as curs:
                curs.execute(f"SELECT COUNT(*) AS n FROM {self.qualified}{where}", params)
                row = curs.fetchone()
                return int(row["n"]) if row else 0  # COUNT(*) always has its one row

        def game_types(self) -> set[str]:
            with self.reading() as curs:
                curs.execute(f"SELECT DISTINCT game_type FROM {self.qualified}")
                return {row["game_type"] for row in curs.fetchall()}

        def get(self, game_id: str) -> GameSummary | None:
            with self.reading() as curs:
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
        infrastructure.update(
            {
                "PERSISTENCE_MODULE": "eventsourcing.sqlite",
                "SQLITE_DBNAME": str(home / "summaries.sqlite"),
                "SQLITE_LOCK_TIMEOUT": infrastructure.get("SQLITE_LOCK_TIMEOUT") or "30",
            }
        )
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
