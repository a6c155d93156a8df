"""The read side of the game service: games, states and views at any version, history,
proofs, exports and seat tokens. Nothing here writes to the store. What checks a stored game
against its signed history is in integrity.py."""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import logging
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import CanMutateProtocol, OriginatorVersionError

from pbem.config import Settings, private_files
from pbem.games import catalog, get_spec
from pbem.games.base import ErrorCode, GameError
from pbem.games.speech import _
from pbem.ledger import entries as log
from pbem.ledger.canonical import canonical_bytes, encode_checked
from pbem.ledger.merkle import Frontier, consistency_proof, inclusion_proof, leaf_hash, root
from pbem.ledger.notes import verify_checkpoint
from pbem.ledger.ratings import ratings
from pbem.ledger.receipts import Proved, make_receipt, opened_for
from pbem.service.cache import StateCache
from pbem.service.game import LoadedGame, load
from pbem.service.integrity import SelfCheck
from pbem.service.keys import KeyRing
from pbem.service.states import NotKept, spec_modules, unpack, unsealed
from pbem.service.store import PbemStore, Receipt, SeatKeys, frontier_of
from pbem.service.wakeup import Wakeup

if TYPE_CHECKING:
    from pbem.service.work import Work

alarms = logging.getLogger("pbem")
MAX_KNOWN_ENTRIES = 4096  # entries kept per game from range reads (then they start afresh)
MAX_KEPT_TOKENS = 65_536  # seat tokens kept (then they start afresh)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class GameReader(SelfCheck):
    def __init__(self, settings: Settings | None = None, clock: Callable[[], str] = _now):
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
        self._seat_keys: dict[str, SeatKeys | None] = {}  # as last read or saved here, for writers
        self._tokens: dict[str, str] = {}  # seat tokens by label (every mail to a seat asks for them)
        self.frozen: dict[str, str] = {}  # games whose store does not match their signed history
        # the newest size of each game seen by the mail follower (a witness inside the server);
        # set by pbem.mailroom when it runs
        self.head_of: Callable[[str], int | None] | None = None
        self.clock = clock
        self._ratings: tuple[int, dict[str, Any]] | None = None  # (store position, ratings) kept here

    def close(self) -> None:
        self.store.close()

    def catalog(self) -> list[dict[str, Any]]:
        return [
            {
                "name": spec.name,
                "title": spec.title,
                "min_players": spec.min_players,
                "max_players": spec.max_players,
                "options": [o.to_dict() for o in spec.all_options],
            }
            for spec in catalog().values()
        ]

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
        return int(self.store.recorder.max_notification_id() or 0)

    def commits(self) -> Wakeup:
        """What wakes the store's followers: rung after every commit of this process at once,
        and, from the first call on, after other processes' commits too (``pbem.service.wakeup``)."""
        return self.store.listen()

    def game_ids(self) -> list[str]:
        return self.store.game_ids()

    def player_ratings(self) -> dict[str, Any]:
        """Every player's rating and reliability from the finished games of this store, computed
        from their exports exactly as ``pbem ratings --from`` computes them from the files
        (``pbem.ledger.ratings``), and kept until the store moves on."""
        position = self.position()
        if self._ratings is None or self._ratings[0] != position:
            self._ratings = (position, ratings(self.export(game_id) for game_id in self.game_ids()))
        return self._ratings[1]

    # -- the other aggregates stored beside the games -----------------------------------------
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

    def origin(self, game_id: str) -> str:
        return f"{self.settings.origin}/game/{game_id}"

    def summary(
        self, game_id: str, version: int | None = None, viewer: str | None = None, game: LoadedGame | None = None
    ) -> dict[str, Any]:
        """The state of a game at a version as JSON: the shape of ``pbem show --json``."""
        game = game or self.game(game_id)
        version = game.check_version(version)
        seat = game.seat_of(viewer) if viewer else None
        state = self.state(game, version)
        over = version == game.version and game.ended
        waiting = self._waiting(game, state, version)
        return {
            "id": game.id,
            "game": game.spec.name,
            "title": game.spec.title,
            "version": version,
            "latest_version": game.version,
            "seats": game.names,
            "viewer": seat,
            "started": state is not None,
            "over": over,
            "waiting_for": [{"seat": s, "name": game.names[s]} for s in waiting],
            "phase": game.spec.phase_label(state) if state is not None else "waiting for players",
            "standings": [s.to_dict() for s in game.standings() or []] if over else None,
            "robots": sorted(game.robots),
            "view": game.spec.view(state, seat) if state is not None else None,
        }

    def _waiting(self, game: LoadedGame, state: Any, version: int) -> list[int]:
        if state is None:
            joined = {e["seat"] for e in game.entries[:version] if e["kind"] == "joined"}
            return [s for s in range(len(game.names)) if s not in joined]
        return list(game.spec.to_move(state))

    def render(self, game_id: str, version: int | None = None, viewer: str | None = None) -> str:
        summary = self.summary(game_id, version, viewer)
        spec = get_spec(summary["game"])
        head = [
            f"{summary['title']} - game {summary['id']}, turn {summary['version']} of {summary['latest_version']}",
            f"Players: {', '.join(summary['seats'])}",
            f"Now: {summary['phase']}",
        ]
        if summary["waiting_for"]:
            head.append("Waiting for: " + ", ".join(w["name"] for w in summary["waiting_for"]))
        if summary["standings"]:
            head.append(
                "Final standings: "
                + "; ".join(
                    f"{s['rank']}. {summary['seats'][s['seat']]} ({s['score']})"
                    for s in sorted(summary["standings"], key=lambda s: s["rank"])
                )
            )
        body = spec.render_text(summary["view"], summary["seats"]) if summary["view"] is not None else ""
        return "\n".join(head) + ("\n\n" + body if body else "") + "\n"

    def history(self, game_id: str, viewer: str | None = None, game: LoadedGame | None = None) -> list[dict[str, Any]]:
        """Every entry as ``viewer`` may see it, with its leaf hash, a readable line per fact,
        and the checkpoint signed after it (if one was)."""
        game = game or self.game(game_id)
        seat = game.seat_of(viewer) if viewer else None
        notes = {size: note for size, note in game.checkpoints}
        rows = []
        for index, (entry, private) in enumerate(zip(game.entries, game.privates, strict=False)):
            shown = log.visible_entry(entry, private, seat, game.ended)
            rows.append(
                {
                    "index": index,
                    "entry": shown,
                    "leaf_hash": leaf_hash(canonical_bytes(entry)).hex(),
                    "lines": [game.spec.describe_fact(f, game.names) for f in shown.get("facts") or []],
                    "checkpoint": notes.get(index + 1),
                }
            )
        return rows

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

    def inclusion(
        self, game_id: str, index: int, size: int | None = None, game: LoadedGame | None = None
    ) -> dict[str, Any]:
        game = game or self.game(game_id)
        size = game.check_version(size)
        leaves = self.leaves(game)[:size]
        proof = inclusion_proof(index, leaves)
        return {
            "origin": self.origin(game_id),
            "index": index,
            "size": size,
            "entry": copy.deepcopy(game.entry(index)),
            "leaf_hash": leaves[index].hex(),
            "root": root(leaves).hex(),
            "path": [p.hex() for p in proof],
            "checkpoint": game.checkpoint_at(size),
        }

    def receipt(
        self,
        game_id: str,
        index: int,
        size: int | None = None,
        viewer: str | None = None,
        game: LoadedGame | None = None,
        also: Sequence[int] = (),
    ) -> dict[str, Any]:
        """A receipt that stands alone (``pbem check-receipt``): entry ``index`` as hashed, its
        inclusion proof in the signed tree of ``size`` entries, the checkpoint and the keys; with
        ``viewer``, also the openings of the entry's secrets that this player may see. ``also``:
        further entries it proves against the same checkpoint (every entry of one mail)."""
        game = game or self.game(game_id)
        size = game.check_version(size)
        leaves = self.leaves(game)[:size]
        seat = game.seat_of(viewer) if viewer else None
        first, *more = (self._proved(game, leaves, i, seat, bool(viewer)) for i in (index, *also))
        return make_receipt(
            self.origin(game_id),
            first.entry,
            first.path,
            size,
            game.checkpoint_at(size),
            [str(key) for key in self.keys.verifiers()],
            first.opened,
            more,
        )

    @staticmethod
    def _proved(game: LoadedGame, leaves: list[bytes], index: int, seat: int | None, viewer: bool) -> Proved:
        """Entry ``index``, its inclusion proof in ``leaves`` and what ``seat`` may see opened."""
        proof = inclusion_proof(index, leaves)  # refuses an index outside the tree
        entry = game.entry(index)
        opened = opened_for(entry, game.private(index), seat, game.ended) if viewer or game.ended else None
        return Proved(entry, proof, opened)

    def consistency(self, game_id: str, old: int, new: int | None = None) -> dict[str, Any]:
        game = self.game(game_id)
        new = game.check_version(new)
        leaves = self.leaves(game)[:new]
        proof = consistency_proof(old, leaves)
        return {
            "origin": self.origin(game_id),
            "old_size": old,
            "new_size": new,
            "old_root": root(leaves[:old]).hex(),
            "new_root": root(leaves).hex(),
            "path": [p.hex() for p in proof],
        }

    # -- seat tokens: the secret in a seat's private mail address and web link ------------
    def seat_token(self, game_id: str, seat: int, keys: SeatKeys | bool | None = False) -> str:
        """``keys``: the game's seat keys when the caller has read them (None: never rotated);
        left out, they are read here."""
        if keys is False:
            keys = self.seat_keys(game_id)
        generation = keys.generations.get(str(seat), 0) if isinstance(keys, SeatKeys) else 0
        label = f"seat/{game_id}/{seat}" + (f"/{generation}" if generation else "")
        token = self._tokens.get(label)
        if token is None:  # a token depends only on its label and the secret, which never changes
            digest = hmac.new(self.keys.token_secret(), label.encode(), hashlib.sha256).digest()
            token = base64.b32encode(digest[:10]).decode().lower()
            if len(self._tokens) >= MAX_KEPT_TOKENS:
                self._tokens.clear()
            self._tokens[label] = token
        return token

    def seat_keys(self, game_id: str) -> SeatKeys | None:
        """Read from the store on every call: a token changed by another process stops at once.
        The copy kept for writers (``seat_by_token`` with a ``Work``) is brought up to date too."""
        keys: SeatKeys | None = None
        for stored in self.store.events.get(SeatKeys.create_id(game_id)):  # one query; never snapshotted
            keys = cast("CanMutateProtocol[SeatKeys]", stored).mutate(keys)
        self._seat_keys[game_id] = keys
        return keys

    def saved_aggregate(self, aggregate: Any) -> None:
        """An aggregate this process has just saved: keep what later plans may read of it."""
        if isinstance(aggregate, SeatKeys):
            self._seat_keys[aggregate.game_id] = aggregate

    def seat_by_token(
        self, game_id: str, token: str, game: LoadedGame | None = None, work: Work | None = None
    ) -> int | None:
        """The seat a token belongs to, or None (compared in constant time). With ``work`` (a
        transaction that will be saved) the seat keys this process kept may be used on a first
        attempt: the keys' version goes into the save's expectations, so if another process
        changed a token meanwhile the save fails and the mail is planned again on fresh keys.
        Without it, the keys are read from the store."""
        game = game or self.game(game_id)
        if work is not None and not work.fresh and game_id in self._seat_keys:
            keys = self._seat_keys[game_id]
        else:
            keys = self.seat_keys(game_id)
        if work is not None:
            work.expect[SeatKeys.create_id(game_id)] = keys.version if keys is not None else 0
        for seat in range(len(game.names)):
            # bytes: compare_digest refuses str holding non-ASCII, and a token is any text a mail holds
            if hmac.compare_digest(self.seat_token(game_id, seat, keys).encode(), token.strip().lower().encode()):
                return seat
        return None

    # -- export ----------------------------------------------------------------------------
    def export(self, game_id: str) -> dict[str, Any]:
        """The public history, checkpoints and keys; after the end also every opening."""
        game = self.game(game_id)
        revocations = [r.to_dict() for r in self.keys.revocations()]
        return {
            "format": "pbem-export/1",
            "game": game.id,
            "origin": self.origin(game.id),
            "keys": [str(key) for key in self.keys.verifiers()],
            "entries": game.entries,
            "checkpoints": [{"size": size, "note": note} for size, note in game.checkpoints],
            "openings": [log.opening(private) for private in game.privates] if game.ended else None,
        } | ({"revocations": revocations} if revocations else {})
