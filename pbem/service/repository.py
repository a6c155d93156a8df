"""The game repository: the games as stored (records, logs, kept states) and what this process
keeps of them (the state cache, entries read by range, leaf hashes, seat keys), each game checked
against its signed history as it is read (``pbem.service.integrity``). The reader
(``pbem.service.reading``) answers queries over it; a ``Work`` plans on it and saves into its
store. Nothing here decides a move or signs."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import CanMutateProtocol, OriginatorVersionError
from eventsourcing.persistence import PersistenceError

from pbem.config import Settings, private_files
from pbem.games.base import ErrorCode, GameError
from pbem.games.speech import _
from pbem.ledger import entries as log
from pbem.ledger.canonical import canonical_bytes, encode_checked
from pbem.ledger.merkle import Frontier, leaf_hash
from pbem.ledger.notes import verify_checkpoint
from pbem.service.cache import StateCache
from pbem.service.es_adapter import Notice
from pbem.service.game import LoadedGame, load
from pbem.service.integrity import SelfCheck
from pbem.service.keys import KeyRing
from pbem.service.signer import CheckpointSigner
from pbem.service.states import NotKept, spec_modules, unpack, unsealed
from pbem.service.store import PbemStore, Receipt, SeatKeys, frontier_of
from pbem.service.wakeup import Baton, Wakeup

alarms = logging.getLogger("pbem")
V = TypeVar("V")
MAX_KNOWN_ENTRIES = 4096  # entries kept per game from range reads (then they start afresh)


class GameRepository(SelfCheck):
    """The stored games and the other aggregates beside them, read and checked; what this
    process keeps of them. Opened on ``settings`` (default: the environment's)."""

    def __init__(self, settings: Settings | None = None):
        self.settings = settings or Settings.from_env()
        self.store = PbemStore(self.settings.store_env(), self.settings.snapshot_interval)
        if not self.settings.database_url:
            private_files(self.settings.home)
        self.keys = KeyRing(self.settings.home, self.settings.origin)
        self.keys.load()
        self.cache = StateCache()
        self._leaves: dict[str, list[bytes]] = {}  # leaf hashes per game; entries never change
        self._frontiers: dict[str, Frontier] = {}  # compact ranges of games whose record has none
        self._checked: dict[str, tuple[int, str]] = {}  # the newest (size, checkpoint) checked per game
        self._log_frontiers: dict[str, Frontier] = {}  # how far each game's read log was checked
        # entries read by range for past states (checked), per game: the next request near them
        # folds without asking the store again
        self._known: dict[str, dict[int, tuple[log.Entry, log.Private]]] = {}
        self._known_lock = threading.Lock()
        self.loads = 0  # games loaded from the store (tests count them per mail)
        self.kept_seat_keys: dict[str, SeatKeys | None] = {}  # as last read or saved here, for writers
        self.frozen: dict[str, str] = {}  # games whose store does not match their signed history
        # the newest size of each game seen by the mail follower (a witness inside the server);
        # set by pbem.mailroom when it runs
        self.head_of: Callable[[str], int | None] | None = None

    def close(self) -> None:
        self.store.close()

    def game(self, game_id: str, fresh: bool = True) -> LoadedGame:
        """A game as stored, checked against its newest signed checkpoint (``integrity_problem``);
        what is read of it later is checked when it is read (``_read_log``, ``_restore``). A game
        that fails is frozen: it can be read, not changed, and every refusal says why (``pbem
        fsck`` lists them)."""
        self.loads += 1
        try:
            record = self.store.game(game_id, fresh)
        except OriginatorVersionError as error:  # an event missing between the snapshot and the newest
            problem = f"stored event {error.args[1]} is missing (the next one stored is {error.args[0]})"
            if game_id not in self.frozen:
                self.frozen[game_id] = problem
                alarms.critical("ALARM: game %s is frozen: %s", game_id, problem)
            raise GameError(
                ErrorCode.FROZEN, f"Game {game_id} cannot be read: {problem}. The operator has been alerted."
            ) from error
        if record is None:
            raise GameError(ErrorCode.UNKNOWN_GAME, _("There is no game {game}.", game=repr(game_id)))
        game = load(record, self._read_log)
        if game_id not in self.frozen:
            found = self.integrity_problem(game)
            if found:
                self._freeze(game, found)
        game.frozen = self.frozen.get(game_id)
        return game

    def position(self) -> int:
        """How far the store's notification log goes. Every save of anything adds to it, in
        commit order (PostgreSQL inserts under a table lock), so a game read at one position
        is still the same while this number is."""
        return self.store.head()

    def notifications(self, after: int, limit: int, topics: Sequence[str] = ()) -> list[Notice]:
        """The notifications port: at most ``limit`` notifications after position ``after`` (of
        ``topics``; all when none), oldest first, each with its position (``id``) and its domain
        event (``event()``). One query a page; what the followers read."""
        return self.store.notifications(after, limit, topics)

    def notification(self, position: int) -> Notice | None:
        """The notification at ``position``, if there is one."""
        found = self.store.notifications(position - 1, 1)
        return found[0] if found and found[0].id == position else None

    def baton(self, name: str) -> Baton | None:
        """One round of follower ``name`` at a time among the processes on this PostgreSQL
        database; None on SQLite (``PbemStore.baton``)."""
        return self.store.baton(name)

    def views_beside(self, sqlite: type[V], postgres: Callable[[], type[V]]) -> V:
        """Tables kept beside the store in its own database (``PbemStore.views_beside``)."""
        return self.store.views_beside(sqlite, postgres)

    def listen_to(self, wakeup: Wakeup, channel: str) -> bool:
        """Ring ``wakeup`` at every PostgreSQL ``NOTIFY`` on ``channel``; False on SQLite
        (``PbemStore.listen_to``)."""
        return self.store.listen_to(wakeup, channel)

    def commits(self) -> Wakeup:
        """What wakes the store's followers: rung after every commit of this process at once,
        and, from the first call on, after other processes' commits too (``pbem.service.wakeup``)."""
        return self.store.listen()

    def game_ids(self) -> list[str]:
        return self.store.game_ids()

    def record(self, aggregate_id: Any) -> Any:
        """An aggregate stored beside the games (a mail record, seat keys), as stored now, or
        None: the port through which the mailroom reads its records (``pbem.mailroom.records``).
        Changes are saved only in a ``Work``, with the moves they belong to."""
        try:
            return self.store.repository.get(aggregate_id)
        except AggregateNotFoundError:
            return None

    def receipt_for(self, key: str) -> Receipt | None:
        """What the request with idempotency key ``key`` (a mail's) did, if it was stored."""
        return self.store.receipt(key)

    def witness(self, head_of: Callable[[str], int | None]) -> None:
        """Let a follower of the store vouch for each game's size: a game loaded for the first
        time in this process must not be shorter than ``head_of`` says it was (the mail follower
        keeps the sizes it saw; a store rolled back behind them is frozen)."""
        self.head_of = head_of

    def state(self, game: LoadedGame, version: int | None = None) -> Any:
        """The game's state after ``version`` entries (default: all). Folded from the nearest
        state this process keeps, over entries it has at hand (its checked log, or entries read
        for an earlier request); otherwise from the nearest state kept in the store, over the
        entries after it, read by range and checked (``_restore``). The whole log is read only
        when the store keeps no state for the game (games of old, before the first interval)."""
        version = game.check_version(version)
        start, state = self.cache.nearest(game.id, version)
        if start == version:
            return state
        items = self._known_items(game.id, start, version)
        if items is None and not (
            self.store.has_log(game.id, game.record.version) and version - start <= self.cache.stride
        ):
            restored = self._restore(game, version)
            if restored is not None and (restored[0] > start or not self.store.has_log(game.id, game.record.version)):
                start, state, items = restored
                self.cache.pin(game.id, start, state)
        return game.fold(self.cache, start, state, version, items)

    def _known_items(self, game_id: str, start: int, stop: int) -> list[tuple[log.Entry, log.Private]] | None:
        """Entries ``start`` to ``stop`` from those read (and checked) for earlier requests."""
        known = self._known.get(game_id)
        if known is None or any(index not in known for index in (start, stop - 1)):
            return None
        items = [known.get(index) for index in range(start, stop)]
        return None if None in items else cast(list[tuple[log.Entry, log.Private]], items)

    def _remember(self, game_id: str, start: int, items: list[tuple[log.Entry, log.Private]]) -> None:
        with self._known_lock:
            known = self._known.pop(game_id, {})
            if len(known) + len(items) > MAX_KNOWN_ENTRIES:
                known = {}
            known.update((start + offset, item) for offset, item in enumerate(items))
            self._known[game_id] = known
            while len(self._known) > self.store.max_records:
                self._known.pop(next(iter(self._known)))

    def _restore(self, game: LoadedGame, version: int) -> tuple[int, Any, list[tuple[log.Entry, log.Private]]] | None:
        """The nearest state kept in the store at or below ``version``, and the entries after it
        up to ``version``: one query for the state, one range read of at most as many events
        as entries are missing. The state must unseal (else it is not used); the entries must
        hash, from the frontier kept with the state, to the root of the signed checkpoint after
        them (else the game is frozen, as for any other edit of its entries)."""
        if not self.settings.snapshot_interval:
            return None
        found = self.store.kept_state(game.id, version)
        if found is None:
            return None
        size, stored = found
        body = unsealed(self.keys.state_key(), game.id, size, stored)
        if body is None:
            alarms.warning(
                "game %s: the state kept at %d entries is not sealed by this server; not used", game.id, size
            )
            return None
        try:
            state = unpack(body["state"], spec_modules(game.spec))
            frontier = frontier_of(size, body["frontier"])
        except (NotKept, ValueError) as error:
            alarms.warning("game %s: the state kept at %d entries does not decode (%s); not used", game.id, size, error)
            return None
        window, problem = self._window(game, body["version"], frontier, version)
        if problem:
            self._freeze(game, problem)
        else:
            self._remember(game.id, size, window)
        return size, state, window

    def _window(
        self, game: LoadedGame, after: int, frontier: Frontier, version: int
    ) -> tuple[list[tuple[log.Entry, log.Private]], str | None]:
        """The entries from ``frontier.size`` to ``version``, read from the events after
        aggregate version ``after``, checked against the checkpoint signed after them."""
        window: list[tuple[log.Entry, log.Private]] = []
        start, note = frontier.size, None
        for stored in self.store.events_after(game.record, after, version - start):
            for entry, private in zip(stored.entries, stored.privates, strict=False):
                index = start + len(window)
                if entry.get("index") != index or entry.get("game") != game.id:
                    return window, f"entry {index} is out of place"
                frontier.append(leaf_hash(encode_checked(entry)))  # stored JSON: plain
                window.append((entry, private))
            note = stored.checkpoint
            if len(window) >= version - start:
                break
        if len(window) < version - start:
            return window, "the stored events do not hold the entries the game's record counts"
        if note is None:
            return window, None
        try:
            signed = verify_checkpoint(note, self.keys.verifiers())
        except ValueError as error:
            return window, f"the checkpoint at {frontier.size} entries does not verify ({error})"
        if signed.size != frontier.size or signed.root != frontier.root():
            return window, f"the entries do not match the checkpoint signed at {frontier.size} entries"
        return window, None

    def leaves(self, game: LoadedGame) -> list[bytes]:
        known = self._leaves.get(game.id, [])[: game.version]
        if len(known) < game.version:
            known = known + [leaf_hash(canonical_bytes(game.entry(i))) for i in range(len(known), game.version)]
            self._leaves[game.id] = known
        return known

    def frontier(self, game: LoadedGame) -> Frontier:
        """The compact range of the game's log at its version, for signing in O(log n): the
        record's (checked at load), or, for a record from an old snapshot, computed from the
        log once and brought forward."""
        if game.record.frontier is not None:
            return frontier_of(game.version, game.record.frontier)
        kept = self._frontiers.get(game.id)
        if kept is None or kept.size > game.version:
            kept = Frontier()
        for index in range(kept.size, game.version):
            kept.append(leaf_hash(canonical_bytes(game.entry(index))))
        self._frontiers[game.id] = kept
        return kept

    def seat_keys(self, game_id: str) -> SeatKeys | None:
        """Read from the store on every call: a token changed by another process stops at once.
        The copy kept for writers (``GameWriter.seat_by_token``) is brought up to date too."""
        keys: SeatKeys | None = None
        for stored in self.store.events.get(SeatKeys.create_id(game_id)):  # one query; never snapshotted
            keys = cast("CanMutateProtocol[SeatKeys]", stored).mutate(keys)
        self.kept_seat_keys[game_id] = keys
        return keys

    def saved_aggregate(self, aggregate: Any) -> None:
        """An aggregate this process has just saved: keep what later plans may read of it."""
        if isinstance(aggregate, SeatKeys):
            self.kept_seat_keys[aggregate.game_id] = aggregate

    def keep_state(
        self, signer: CheckpointSigner, game_id: str, size: int, version: int, state: Any, frontier: Frontier
    ) -> None:
        """Keep a game's state after its first ``size`` entries, sealed (``sealed_state``),
        in a transaction of its own (a writer keeps its states in its save, ``Work.commit``)."""
        kept = signer.sealed_state(game_id, size, version, state, frontier)
        if kept is None:
            return
        try:
            self.store.keep_state(game_id, size, kept)
        except PersistenceError as error:  # the move is stored; without this state a fold starts further back
            alarms.warning("game %s: state at %d entries not kept (%s)", game_id, size, error)

    def keep_states(self, signer: CheckpointSigner, game_id: str) -> int:
        """Keep the states of a stored game at every ``PBEM_SNAPSHOT_INTERVAL`` entries that are
        not kept yet (a game imported whole, or one played before states were kept), as the
        writer would have; returns how many were kept. Reads (and so checks) the whole log."""
        interval = self.settings.snapshot_interval
        game = self.game(game_id)
        if not interval or game.frozen:
            return 0
        have = {size for size, _ in self.store.kept_states(game_id)}
        state: Any = None
        frontier, before, kept = Frontier(), 0, 0
        for version, (size, _note) in enumerate(game.checkpoints, start=1):  # one checkpoint per stored event
            for index in range(before, size):
                frontier.append(leaf_hash(canonical_bytes(game.entry(index))))
                state = game.step(state, game.entry(index), game.private(index))
            if size // interval > before // interval and size not in have and state is not None:
                self.keep_state(signer, game_id, size, version, state, frontier.copy())
                kept += 1
            before = size
        return kept
