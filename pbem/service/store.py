"""The event store (eventsourcing): one aggregate per game, one event per save.

Every event carries one or more log entries, their private parts and the checkpoint signed
after them, so an event's stored size is that of the move it records. The aggregate keeps only
a compact summary (``GameRecord``), so its snapshots do not grow with the game; the entries are
read from the events themselves (``PbemStore.game_log``). All meaning lives in the entries
(``pbem.ledger.entries``), so the stored event classes never need to change; their topics
(``pbem.service.store:GameRecord.Created`` ...) must stay importable.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.application import AggregateNotFoundError, Application, ProcessingEvent, project_aggregate
from eventsourcing.domain import Aggregate, CanMutateProtocol, Snapshot, event
from eventsourcing.persistence import (
    InfrastructureFactory,
    InternalError,
    PersistenceError,
    RecordConflictError,
)
from eventsourcing.sqlite import SQLiteFactory
from eventsourcing.utils import get_topic

from pbem.ledger.canonical import canonical_bytes, encode_checked
from pbem.ledger.entries import NAMED
from pbem.ledger.handovers import HANDED
from pbem.ledger.merkle import Frontier, leaf_hash, node_hash
from pbem.service import es_adapter as es
from pbem.service.wakeup import Baton, Doorbells, Wakeup, listen_postgres, listen_sqlite, ring_sqlite

Entry = dict[str, Any]
V = TypeVar("V")
alarms = logging.getLogger("pbem")


@lru_cache(maxsize=4096)
def _named_uuid(name: str) -> UUID:
    """The id of a named aggregate (a game's record, its kept states, its seat keys): the same
    for the same name, so worked out once per name (UUIDs never change)."""
    return uuid5(NAMESPACE_URL, name)


def game_uuid(game_id: str) -> UUID:
    return _named_uuid(f"pbem:game:{game_id}")


def receipt_uuid(key: str) -> UUID:
    return uuid5(NAMESPACE_URL, f"pbem:receipt:{key}")


def states_uuid(game_id: str) -> UUID:
    """The id under which a game's kept states are stored (``PbemStore.keep_state``)."""
    return _named_uuid(f"pbem:states:{game_id}")


KEPT_STATE_TOPIC = "pbem:kept-state"  # names what a kept state's snapshot holds (never resolved)


class GameRecord(Aggregate):
    """What deciding a move needs, and nothing that grows with the game: the size of the log,
    its first and newest entries, the secrets of the first (addresses, seed), who joined (with
    their nonces) and who resigned, the newest signed checkpoint, and the Merkle frontier of the
    log (the roots of its perfect subtrees, O(log n) hashes, kept as each entry is added), so a
    load checks the newest checkpoint against it without reading the log. The entries themselves stay
    in the events that brought them (``Created``/``Appended``, one per save) and are read from
    there when asked for (``PbemStore.game_log``), so a snapshot stays the same size however long the
    game runs."""

    # version 1 kept the whole log in the aggregate (and so in every snapshot); its snapshots
    # are made compact on load by ``upcast_v1_v2``; version 2 had no frontier (``upcast_v2_v3``)
    class_version = 3

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
        self.size = 0
        self.created: Entry = entries[0]
        self.secrets: Entry = privates[0]
        self.last: Entry = entries[0]
        self.joined: list[list[Any]] = []  # [[seat, nonce or None], ...] in the order they joined
        self.resigned: list[int] = []
        self.started = False
        self.checkpoint: list[Any] = []  # [tree size, signed note] of the newest checkpoint
        # hex roots of the log's perfect subtrees, largest first (see ``frontier_of``); None in a
        # record loaded from a version 2 snapshot, until a snapshot with a frontier is taken
        self.frontier: list[str] | None = []
        self._add(entries, privates, checkpoint)

    @event("Appended")
    def append(self, entries: list[Entry], privates: list[Entry], checkpoint: str) -> None:
        self._add(entries, privates, checkpoint)

    def append_hashed(self, entries: list[Entry], privates: list[Entry], checkpoint: str, leaves: list[bytes]) -> None:
        """``append``, by a writer that has just hashed these entries (to sign them): the
        frontier grows by their leaf hashes instead of hashing the entries again. The event is
        the same; replaying it hashes the stored entries. The event is triggered as the
        decorated ``append`` triggers it, without the decorator's matching of the call's
        arguments against the method's signature on every call (a writer appends once a save)."""
        self._leaves = leaves
        try:
            self.trigger_event(self.Appended, entries=entries, privates=privates, checkpoint=checkpoint)
        finally:
            self.__dict__.pop("_leaves", None)  # never part of the record (nor of a snapshot)

    def _add(self, entries: list[Entry], privates: list[Entry], checkpoint: str) -> None:
        leaves: list[bytes] | None = self.__dict__.pop("_leaves", None)
        for number, entry in enumerate(entries):
            _count(self.__dict__, entry, leaves[number] if leaves is not None else None, privates[number])
        self.checkpoint = [self.size, checkpoint]

    @staticmethod
    def upcast_v1_v2(state: dict[str, Any]) -> None:
        """A snapshot written before the log moved out of the aggregate: keep what the compact
        record holds and drop the rest (the entries are in the stored events all the same)."""
        entries, privates, checkpoints = state.pop("entries"), state.pop("privates"), state.pop("checkpoints")
        state.update(
            size=0,
            created=entries[0],
            secrets=privates[0],
            last=entries[0],
            joined=[],
            resigned=[],
            started=False,
            checkpoint=list(checkpoints[-1]),
            frontier=[],
        )
        for entry, private in zip(entries, privates, strict=False):
            _count(state, entry, None, private)

    @staticmethod
    def upcast_v2_v3(state: dict[str, Any]) -> None:
        """A compact snapshot written before the record kept its frontier: the frontier is
        unknown until the log is hashed (the load then checks the whole log, and the next
        snapshot taken, ``PbemStore.take_snapshot``, holds it)."""
        state.setdefault("frontier", None)


def compact_fields(entries: list[Entry], privates: list[Entry]) -> dict[str, Any]:
    """What a record holds besides its checkpoint and frontier, as its entries give it (``pbem
    fsck`` compares a stored record with this)."""
    fields: dict[str, Any] = {
        "size": 0,
        "created": entries[0],
        "secrets": privates[0],
        "last": entries[0],
        "joined": [],
        "resigned": [],
        "started": False,
    }
    for entry, private in zip(entries, privates, strict=False):
        _count(fields, entry, None, private)
    return fields


def _count(state: dict[str, Any], entry: Entry, leaf: bytes | None = None, private: Entry | None = None) -> None:
    """Bring a compact record's fields forward over one entry (``leaf``: its leaf hash, when
    the caller has it; ``private``: its private part, which a hand-over's new address is in)."""
    if state.get("frontier") is not None:
        # entries come from the writer (checked canonical there) or from stored JSON
        if leaf is None:
            leaf = leaf_hash(encode_checked(entry))
        state["frontier"] = _pushed(state["frontier"], state["size"], leaf)
    state["size"] += 1
    state["last"] = entry
    kind = entry.get("kind")
    if kind == "joined":
        state["joined"] = [*state["joined"], [entry["seat"], entry.get("nonce")]]
    elif kind == "resigned":
        state["resigned"] = [*state["resigned"], entry["seat"]]
    elif kind == HANDED:  # a substitute plays the seat from now on: its address, not the robot
        _handed(state, entry, private)
    elif kind == NAMED:  # the newest name of each seat renamed during the game (seat as text: JSON keys)
        state["renamed"] = {**state.get("renamed", {}), str(entry["seat"]): entry["name"]}
    elif kind == "started":
        state["started"] = True


def _handed(state: dict[str, Any], entry: Entry, private: Entry | None) -> None:
    seat = int(entry["seat"])
    emails = list(state["secrets"]["emails"])
    if private is not None and private.get("emails"):
        emails[seat] = private["emails"][0]
    state["secrets"] = {**state["secrets"], "emails": emails}  # a new dict: records share theirs
    state["resigned"] = [robot for robot in state["resigned"] if robot != seat]


def _pushed(stack: list[str], size: int, leaf: bytes) -> list[str]:
    """A frontier of ``size`` leaves with one more leaf (a new list: records share theirs).
    Each trailing 1 bit of the size is a perfect subtree the new leaf completes."""
    stack, node = list(stack), leaf
    while size & 1:
        node = node_hash(bytes.fromhex(stack.pop()), node)
        size >>= 1
    stack.append(node.hex())
    return stack


def frontier_of(size: int, stack: list[str]) -> Frontier:
    """The ``Frontier`` of a record's (or a kept state's) hex stack: one subtree per set bit
    of the size, largest first."""
    heights = [bit for bit in reversed(range(size.bit_length())) if size >> bit & 1]
    if len(heights) != len(stack):
        raise ValueError(f"a frontier of {size} entries has {len(heights)} subtrees, not {len(stack)}")
    return Frontier([(height, bytes.fromhex(node)) for height, node in zip(heights, stack, strict=True)], size)


@dataclass
class StoredLog:
    """A game's entries, their private parts and the checkpoints signed after them, read from
    the game's stored events up to ``version`` (the aggregate version). Append-only: a kept log
    is brought forward by reading only the events stored since, and an item once read never
    changes place, so readers may hold on to it while it grows."""

    version: int = 0
    entries: list[Entry] = field(default_factory=list)
    privates: list[Entry] = field(default_factory=list)
    checkpoints: list[list[Any]] = field(default_factory=list)  # [[tree size, signed note], ...]

    def add(self, stored: Any) -> None:
        self.entries.extend(stored.entries)
        self.privates.extend(stored.privates)
        self.checkpoints.append([len(self.entries), stored.checkpoint])
        self.version = stored.originator_version


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

    @classmethod
    def of(cls, key: str, game_id: str | None, outcome: dict[str, Any]) -> Receipt:
        """``Receipt(key, game_id, outcome)``: the same event and aggregate, made without the
        library's generic constructor, which matches the arguments against the signatures on
        every call (a receipt is made for every move and every mail)."""
        fields: dict[str, Any] = {"key": key, "game_id": game_id, "outcome": outcome}
        made = cls.Recorded(
            originator_topic=get_topic(cls),
            originator_id=receipt_uuid(key),
            originator_version=cls.INITIAL_VERSION,
            timestamp=cls.Recorded.create_timestamp(),
            **fields,
        )
        receipt = cast(Receipt, made.mutate(None))
        receipt.pending_events.append(made)
        return receipt


class SeatKeys(Aggregate):
    """How often each seat's private token was changed (``pbem rotate-token``, mail ``rotate``):
    the token is derived from the seat and this number, so a changed one stops the old address
    and link at once."""

    @staticmethod
    def create_id(game_id: str) -> UUID:
        return _named_uuid(f"pbem:seatkeys:{game_id}")

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
    _bells: Doorbells | None  # SQLite's doorbells (set up with the store), None on PostgreSQL

    def __init__(self, env: dict[str, str], snapshot_interval: int = 32, attempts: int = 20):
        # the library declares this a ClassVar but reads it through the instance (see above)
        self.snapshotting_intervals = {GameRecord: snapshot_interval, SeatKeys: snapshot_interval}  # type: ignore[misc]
        # other records read for every mail (an address's settings, a game's observers and
        # clock; the mailroom's, marked ``snapshotted``) get the same interval, so their
        # events never pile up to be replayed
        self.record_interval = snapshot_interval
        self.start_caches()
        self.start_wakeup()
        # the recorders that check a save's expected versions (``save(expect=...)``)
        postgres = env.get(InfrastructureFactory.PERSISTENCE_MODULE) == "eventsourcing.postgres"
        recorder = (
            "pbem.service.es_postgres:PbemPostgresRecorder"
            if postgres
            else "pbem.service.es_adapter:PbemSQLiteRecorder"
        )
        env = {InfrastructureFactory.APPLICATION_RECORDER_TOPIC: recorder} | env
        # Processes starting at once on PostgreSQL race in the library's table and function
        # set-up ("tuple concurrently updated" in the loser); the set-up is idempotent, so retry.
        for attempt in range(attempts):
            try:
                super().__init__(env=env)
                es.tune_sqlite(self, env.get("PBEM_SQLITE_SYNCHRONOUS", "full"))
                es.snapshots_inline(self)
                self._bells = _doorbells(self.wakeup, env)
                return
            except InternalError:
                if attempt == attempts - 1:
                    raise
                time.sleep(0.05 * (attempt + 1))

    def start_wakeup(self) -> None:
        """The store's ``Wakeup``: rung after every commit of this store; other processes'
        commits ring it once something waits for them (``listen``). Its own method so that a
        store made without the snapshot settings (the benchmarks' bulk store) has it too."""
        self.wakeup = Wakeup()
        self._bells = None
        self._batons: list[Baton] = []
        self._listen_lock = threading.Lock()

    def listen(self) -> Wakeup:
        """The store's ``Wakeup``, rung from now on by other processes' commits too (PostgreSQL
        ``LISTEN``, SQLite doorbells; ``pbem.service.wakeup``). Started once per store."""
        with self._listen_lock:
            if not self.wakeup.listening():
                if self._bells is not None:
                    listen_sqlite(self.wakeup, self._bells)
                elif (channel := es.postgres_channel(self)) is not None:
                    listen_postgres(self.wakeup, self._listening_connection, channel)
        return self.wakeup

    def listen_to(self, wakeup: Wakeup, channel: str) -> bool:
        """Ring ``wakeup`` at every PostgreSQL ``NOTIFY`` on ``channel`` (pbem's own channels,
        such as queued mail's); False, and nothing started, on SQLite."""
        if self._bells is not None or es.postgres_channel(self) is None:
            return False
        listen_postgres(wakeup, self._listening_connection, channel)
        return True

    def _listening_connection(self) -> Any:
        """A connection of its own to the store's PostgreSQL database, for ``LISTEN`` (the
        pool's connections are for short work; one held for good would starve it)."""
        import psycopg

        return psycopg.connect(**es.connection_settings(self), autocommit=True)

    def baton(self, name: str) -> Baton | None:
        """One round at a time among the processes on this PostgreSQL database (``Baton``);
        None on SQLite, whose writers take turns anyway."""
        if self._bells is not None or es.postgres_channel(self) is None:
            return None
        baton = Baton(self._listening_connection, name)
        self._batons.append(baton)
        return baton

    def close(self) -> None:
        self.wakeup.close()
        for baton in self._batons:
            baton.close()
        if self._bells is not None:
            self._bells.close()
        super().close()

    def start_caches(self) -> None:
        """The records and logs kept in this process (empty at the start)."""
        self._records: OrderedDict[str, GameRecord] = OrderedDict()
        self._records_lock = threading.Lock()
        self._logs: OrderedDict[str, StoredLog] = OrderedDict()
        self._logs_lock = threading.Lock()

    def game(self, game_id: str, fresh: bool = True) -> GameRecord | None:
        """The game's compact record, up to date. Records are kept per process and brought
        forward with only the events stored since. The caller gets its own copy: appending to it
        before a save that then fails leaves the kept record untouched. ``fresh=False`` skips
        asking the database for newer events, for a writer whose save fails anyway when another
        process wrote meanwhile (optimistic concurrency), and then loads fresh."""
        kept = self._records.get(game_id)
        if kept is None:
            try:
                kept = self.repository.get(game_uuid(game_id), projector_func=es.project)
            except AggregateNotFoundError:
                return None
        elif not fresh:
            return es.copy_aggregate(kept)
        else:
            kept = es.copy_aggregate(kept)
            news = list(self.events.get(kept.id, gt=kept.version))
            for stored in news:
                cast("CanMutateProtocol[GameRecord]", stored).mutate(kept)
            self._extend_log(game_id, news)
        self._keep(kept)
        return es.copy_aggregate(kept)

    def game_log(self, record: GameRecord) -> StoredLog:
        """The game's log as stored up to ``record`` (its entries, private parts, checkpoints),
        read from its events: once per process, then only the events stored since. The log is
        shared: callers read the first ``record.size`` entries and never change it."""
        with self._logs_lock:
            kept = self._logs.get(record.game_id)
            if kept is None or kept.version > record.version:  # new here, or the store went back
                kept = StoredLog()
            if kept.version < record.version:
                kept = StoredLog(kept.version, kept.entries, kept.privates, kept.checkpoints)
                for stored in self.events.get(record.id, gt=kept.version, lte=record.version):
                    kept.add(stored)
            self._logs[record.game_id] = kept
            self._logs.move_to_end(record.game_id)
            while len(self._logs) > self.max_records:
                self._logs.popitem(last=False)
            return kept

    def has_log(self, game_id: str, version: int) -> bool:
        """Whether this process keeps the game's log up to aggregate ``version`` (reading its
        entries then costs no query)."""
        kept = self._logs.get(game_id)
        return kept is not None and kept.version >= version

    def _extend_log(self, game_id: str, events: list[Any]) -> None:
        """Events just read or saved also bring the kept log forward, if they follow on from it
        (otherwise the log reads them itself when next asked)."""
        with self._logs_lock:
            kept = self._logs.get(game_id)
            if kept is None or not events or events[0].originator_version != kept.version + 1:
                return
            grown = StoredLog(kept.version, kept.entries, kept.privates, kept.checkpoints)
            for stored in events:
                grown.add(stored)
            self._logs[game_id] = grown

    def save(
        self,
        *objs: Any,
        expect: dict[UUID, int] | None = None,
        states: Sequence[tuple[str, int, dict[str, Any]]] = (),
        **kwargs: Any,
    ) -> Any:
        """Store the pending events of these aggregates in one transaction; returns their
        notification ids where the recorder gives them (not the library's ``Recording``
        objects: nothing in pbem reads those, see ``_insert``). pbem saves only aggregates, so their
        events are collected here directly: the library's ``save`` first tests every object
        against runtime-checkable protocols, which costs more than the JSON of the events on
        Python 3.11. Snapshots are taken from the saved aggregates themselves, not rebuilt
        from the database.

        ``expect``: aggregates this save does not change but was planned on, each at the
        version it was read at. If any has moved on, nothing is stored and
        ``RecordConflictError`` is raised, as when a saved aggregate has (so a plan may use a
        kept copy of what it reads, and is planned again on fresh reads when that is stale).

        ``states``: game states to keep (``keep_state``: game id, size, sealed state). They
        and the snapshots due are written in the save's own transaction (a state or snapshot
        already there is left as it is) by the store's own recorders, on SQLite and on
        PostgreSQL, so keeping them costs no commit of its own; with another recorder each is
        stored after the save, as ``keep_state`` and the library do."""
        if expect:
            kwargs["expect"] = expect
        processing: ProcessingEvent[UUID] = ProcessingEvent()
        pending: dict[str, list[Any]] = {}
        for obj in objs:
            events = obj.collect_events()
            processing.events.extend(events)
            processing.aggregates[obj.id] = obj
            if isinstance(obj, GameRecord):
                pending[obj.game_id] = events
        snapshots, old_records = self._snapshots_due(processing)
        snapshots += [self._kept_state_snapshot(*state) for state in states]
        inline = bool(snapshots) and es.writes_snapshots_inline(self)
        if inline:
            kwargs["snapshots"] = [es.stored(self, snapshot) for snapshot in snapshots]
        ids = es.insert(self, processing, kwargs)
        self.wakeup.committed()
        if snapshots and not inline:
            self._put_snapshots(snapshots)
        for aggregate_id in old_records:
            self.take_snapshot(aggregate_id)  # an old game's record: the frontier is added there
        for game_id, events in pending.items():
            self._extend_log(game_id, events)
        return ids

    def _snapshots_due(self, processing: ProcessingEvent[UUID]) -> tuple[list[Snapshot], list[UUID]]:
        """A snapshot of each saved aggregate whose new events reach its snapshot interval,
        taken from the aggregate as it is saved: it is what replaying its events gives, and
        the library's own way reads them all back from the database first. Also the ids of
        old game records among them, which are snapshotted from the database after the save
        (``take_snapshot`` adds their frontier)."""
        snapshots: list[Snapshot] = []
        old_records: list[UUID] = []
        if self.snapshots is None:
            return snapshots, old_records
        for aggregate_id, aggregate in processing.aggregates.items():
            interval = self.snapshotting_intervals.get(type(aggregate))
            if interval is None and getattr(type(aggregate), "snapshotted", False):
                interval = self.record_interval
            if interval and any(
                e.originator_id == aggregate_id and e.originator_version % interval == 0 for e in processing.events
            ):
                if isinstance(aggregate, GameRecord) and aggregate.frontier is None:
                    old_records.append(aggregate_id)
                else:
                    snapshots.append(getattr(type(aggregate), "Snapshot", Snapshot).take(aggregate))
        return snapshots, old_records

    def _put_snapshots(self, snapshots: list[Snapshot]) -> None:
        """Snapshots stored after their save (not on SQLite): a record's as the library does, a
        kept state as ``keep_state`` (one kept already is left, a failure is only said)."""
        assert self.snapshots is not None
        for snapshot in snapshots:
            if snapshot.topic != KEPT_STATE_TOPIC:
                self.snapshots.put([snapshot])
                continue
            try:
                self.snapshots.put([snapshot])
            except RecordConflictError:
                continue  # another process kept it
            except PersistenceError as error:  # the move is stored; without this state a fold starts further back
                alarms.warning(
                    "kept state %s at %d entries not stored (%s)",
                    snapshot.originator_id,
                    snapshot.originator_version,
                    error,
                )

    def forget(self, game_id: str) -> None:
        """Drop the kept record and log: the next load reads the game from the database again."""
        with self._records_lock:
            self._records.pop(game_id, None)
        with self._logs_lock:
            self._logs.pop(game_id, None)

    def saved(self, record: GameRecord) -> None:
        """Keep a record that was just saved (its pending events are now stored)."""
        self._keep(es.copy_aggregate(record))

    def _keep(self, record: GameRecord) -> None:
        with self._records_lock:
            self._records[record.game_id] = record
            self._records.move_to_end(record.game_id)
            while len(self._records) > self.max_records:
                self._records.popitem(last=False)

    def take_snapshot(
        self, aggregate_id: UUID, version: int | None = None, projector_func: Any = project_aggregate
    ) -> None:
        """The library's snapshot, with one addition: a record loaded from a snapshot written
        before records kept their frontier gets it from its stored entries first, so the next
        load of an old game checks its newest checkpoint without reading its log."""
        record = self.repository.get(aggregate_id, version=version, projector_func=projector_func)
        if isinstance(record, GameRecord) and record.frontier is None:
            log = self.game_log(record)
            record.frontier = [
                node.hex()
                for _, node in Frontier.of(leaf_hash(canonical_bytes(e)) for e in log.entries[: record.size]).stack
            ]
        snapshot_class = getattr(type(record), "Snapshot", type(self).snapshot_class)
        assert self.snapshots is not None and snapshot_class is not None  # enabled on the class
        self.snapshots.put([snapshot_class.take(record)])

    # -- kept game states: the state after every so many entries, so that any past state folds
    # only the entries since the nearest one (sealed by the reader, pbem.service.reading)
    def keep_state(self, game_id: str, size: int, kept: dict[str, Any]) -> bool:
        """Store a game's state after its first ``size`` entries (``kept`` is JSON-plain).
        Returns False when one is stored at that size already (another process kept it)."""
        assert self.snapshots is not None
        try:
            self.snapshots.put([self._kept_state_snapshot(game_id, size, kept)])
        except RecordConflictError:
            return False
        return True

    @staticmethod
    def _kept_state_snapshot(game_id: str, size: int, kept: dict[str, Any]) -> Snapshot:
        return Snapshot(
            originator_id=states_uuid(game_id),
            originator_version=size,
            timestamp=Snapshot.create_timestamp(),
            topic=KEPT_STATE_TOPIC,
            state=kept,
        )

    def kept_state(self, game_id: str, size: int) -> tuple[int, dict[str, Any]] | None:
        """The kept state at the largest size at most ``size`` (one indexed query), or None."""
        assert self.snapshots is not None
        for snapshot in self.snapshots.get(states_uuid(game_id), lte=size, desc=True, limit=1):
            return snapshot.originator_version, cast(Snapshot, snapshot).state
        return None

    def kept_states(self, game_id: str) -> list[tuple[int, dict[str, Any]]]:
        """Every kept state of a game, oldest first (``pbem fsck``, tests, the storage benchmark)."""
        assert self.snapshots is not None
        return [(s.originator_version, cast(Snapshot, s).state) for s in self.snapshots.get(states_uuid(game_id))]

    def events_after(self, record: GameRecord, version: int, most: int) -> list[Any]:
        """At most ``most`` of the game's stored events after aggregate version ``version``
        (and not past ``record``): a range read, for folding a few entries."""
        return list(self.events.get(record.id, gt=version, lte=min(record.version, version + most)))

    def receipt(self, key: str) -> Receipt | None:
        try:
            return self.repository.get(receipt_uuid(key))
        except AggregateNotFoundError:
            return None

    def game_ids(self) -> list[str]:
        """Every game id, oldest first, from the notification log's Created events."""
        topic = f"{GameRecord.Created.__module__}:{GameRecord.Created.__qualname__}"
        ids: list[str] = []
        after = 0
        while True:
            page = self.notifications(after, self.log_section_size, [topic])
            ids.extend(cast(GameRecord.Created, notice.event()).game_id for notice in page)
            if len(page) < self.log_section_size:
                return ids
            after = page[-1].id

    # -- the notification log and the views beside it (``es_adapter``) --------------------------
    def notifications(self, after: int, limit: int, topics: Sequence[str] = ()) -> list[es.Notice]:
        """At most ``limit`` notifications after position ``after`` (of ``topics``; all when
        none), oldest first, each with its position and its domain event: one query."""
        return es.notifications(self, after, limit, topics)

    def head(self) -> int:
        """The newest position of the notification log (0 when empty)."""
        return es.head(self)

    def views_beside(self, sqlite: type[V], postgres: Callable[[], type[V]]) -> V:
        """A table set of class ``sqlite`` or (on PostgreSQL, made on first use) ``postgres``
        (each a ``TrackingViews`` and the library's tracking recorder) in this store's own
        database, so one transaction can hold its rows and a follower's position."""
        return es.tracking_views(self, sqlite, postgres)


def _doorbells(wakeup: Wakeup, env: dict[str, str]) -> Doorbells | None:
    """On a SQLite file, the doorbells by which this store's commits wake other processes."""
    database = env.get(SQLiteFactory.SQLITE_DBNAME, "")  # the store's own settings, not the process's
    if env.get(InfrastructureFactory.PERSISTENCE_MODULE) != "eventsourcing.sqlite" or "memory" in database:
        return None
    return ring_sqlite(wakeup, database)
