"""The read side of the game service: games, states and views at any version, history,
proofs, exports and seat tokens. Nothing here writes to the store."""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

from eventsourcing.domain import CanMutateProtocol

from pbem.config import Settings, private_files
from pbem.games import catalog, get_spec
from pbem.games.base import ErrorCode, GameError
from pbem.ledger import entries as log
from pbem.ledger.canonical import canonical_bytes
from pbem.ledger.merkle import Frontier, consistency_proof, inclusion_proof, leaf_hash, root
from pbem.ledger.notes import verify_checkpoint
from pbem.ledger.receipts import make_receipt, opened_for
from pbem.service.cache import StateCache
from pbem.service.game import LoadedGame, load
from pbem.service.keys import KeyRing
from pbem.service.store import PbemStore, SeatKeys

if TYPE_CHECKING:
    from pbem.service.work import Work

alarms = logging.getLogger("pbem")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class GameReader:
    def __init__(self, settings: Settings | None = None, clock: Callable[[], str] = _now):
        self.settings = settings or Settings.from_env()
        self.store = PbemStore(self.settings.store_env(), self.settings.snapshot_interval)
        if not self.settings.database_url:
            private_files(self.settings.home)
        self.keys = KeyRing(self.settings.home, self.settings.origin)
        self.cache = StateCache()
        self._leaves: dict[str, list[bytes]] = {}  # leaf hashes per game; entries never change
        self._frontiers: dict[str, Frontier] = {}  # each game's compact range, for signing
        self.loads = 0  # games loaded from the store (tests count them per mail)
        self._seat_keys: dict[str, SeatKeys | None] = {}  # as last read or saved here, for writers
        self.frozen: dict[str, str] = {}  # games whose store does not match their signed history
        # the newest size of each game seen by the mail follower (a witness inside the server);
        # set by pbem.mailroom when it runs
        self.head_of: Callable[[str], int | None] | None = None
        self.clock = clock

    def close(self) -> None:
        self.store.close()

    def catalog(self) -> list[dict[str, Any]]:
        return [
            {"name": spec.name, "title": spec.title, "min_players": spec.min_players,
             "max_players": spec.max_players, "options": [o.to_dict() for o in spec.options]}
            for spec in catalog().values()
        ]

    def game(self, game_id: str, fresh: bool = True) -> LoadedGame:
        """A game as stored, checked against its own signed checkpoints: the entries this process
        has not checked yet must hash to the roots the server signed (and a head recorded by the
        mail follower must not be ahead of the store). A game that fails is frozen: it can be
        read, not changed, and every refusal says why (``pbem fsck`` lists them)."""
        self.loads += 1
        record = self.store.game(game_id, fresh)
        if record is None:
            raise GameError(ErrorCode.UNKNOWN_GAME, f"There is no game {game_id!r}.")
        game = load(record, lambda: self.store.game_log(record))
        if game_id not in self.frozen:
            problem = self.integrity_problem(game)
            if problem:
                self.frozen[game_id] = problem
                alarms.critical("ALARM: game %s is frozen: %s", game_id, problem)
        game.frozen = self.frozen.get(game_id)
        return game

    def integrity_problem(self, game: LoadedGame) -> str | None:
        """Why the stored game cannot be trusted, or None. Checks the entries not checked before
        in this process (all of them on the first load): positions, the Merkle roots of every
        signed checkpoint among them, the signatures; and the recorded head."""
        kept = self._frontiers.get(game.id)
        cold = kept is None or kept.size > game.version  # first look at this game in this process
        if kept is None or kept.size > game.version:
            kept = Frontier()
        frontier = kept.copy()
        if frontier.size == game.version:
            return self._head_problem(game, cold, frontier)
        log = game.log
        if len(log.checkpoints) < game.record.version or log.checkpoints[game.record.version - 1][0] != game.version:
            return "the stored events do not hold the entries the game's record counts"
        if game.entry(0) != game.created or game.entry(game.version - 1) != game.last:
            return "the game's record does not match its stored entries"
        checkpoints = {}  # the ones not checked yet: the newest, read from the end
        for size, note in reversed(log.checkpoints[:game.record.version]):
            if size <= frontier.size:
                break
            checkpoints[size] = note
        keys = self.keys.verifiers() if checkpoints else []
        for index in range(frontier.size, game.version):
            entry = game.entry(index)
            if entry.get("index") != index or entry.get("game") != game.id:
                return f"entry {index} is out of place"
            frontier.append(leaf_hash(canonical_bytes(entry)))
            note = checkpoints.get(index + 1)
            if note is not None:
                try:
                    signed = verify_checkpoint(note, keys)
                except ValueError as error:
                    return f"the checkpoint at {index + 1} entries does not verify ({error})"
                if signed.size != index + 1 or signed.root != frontier.root():
                    return f"the entries do not match the checkpoint signed at {index + 1} entries"
        if game.version not in checkpoints:
            return "the newest entries have no signed checkpoint"
        if game.record.checkpoint != [game.version, checkpoints[game.version]]:
            return "the game's record does not match its stored checkpoints"
        return self._head_problem(game, cold, frontier)

    def _head_problem(self, game: LoadedGame, cold: bool, frontier: Frontier) -> str | None:
        """A head recorded by the mail follower must not be ahead of the store."""
        head = self.head_of(game.id) if self.head_of and cold else None
        if head is not None and head > game.version:
            return f"the store has {game.version} entries, but {head} were signed and seen before (rolled back)"
        self._frontiers[game.id] = frontier
        return None

    def position(self) -> int:
        """How far the store's notification log goes. Every save of anything adds to it, in
        commit order (PostgreSQL inserts under a table lock), so a game read at one position
        is still the same while this number is."""
        return int(self.store.recorder.max_notification_id() or 0)

    def game_ids(self) -> list[str]:
        return self.store.game_ids()

    def state(self, game: LoadedGame, version: int | None = None) -> Any:
        return game.state_at(self.cache, version)

    def origin(self, game_id: str) -> str:
        return f"{self.settings.origin}/game/{game_id}"

    def summary(self, game_id: str, version: int | None = None, viewer: str | None = None,
                game: LoadedGame | None = None) -> dict[str, Any]:
        """The state of a game at a version as JSON: the shape of ``pbem show --json``."""
        game = game or self.game(game_id)
        version = game.check_version(version)
        seat = game.seat_of(viewer) if viewer else None
        state = self.state(game, version)
        over = version == game.version and game.ended
        waiting = self._waiting(game, state, version)
        return {
            "id": game.id, "game": game.spec.name, "title": game.spec.title, "version": version,
            "latest_version": game.version, "seats": game.names, "viewer": seat,
            "started": state is not None, "over": over,
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
            head.append("Final standings: " + "; ".join(
                f"{s['rank']}. {summary['seats'][s['seat']]} ({s['score']})"
                for s in sorted(summary["standings"], key=lambda s: s["rank"])))
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
            rows.append({
                "index": index, "entry": shown,
                "leaf_hash": leaf_hash(canonical_bytes(entry)).hex(),
                "lines": [game.spec.describe_fact(f, game.names) for f in shown.get("facts") or []],
                "checkpoint": notes.get(index + 1),
            })
        return rows

    def leaves(self, game: LoadedGame) -> list[bytes]:
        known = self._leaves.get(game.id, [])[:game.version]
        if len(known) < game.version:
            known = known + [leaf_hash(canonical_bytes(game.entry(i))) for i in range(len(known), game.version)]
            self._leaves[game.id] = known
        return known

    def frontier(self, game: LoadedGame) -> Frontier:
        """The compact range of the game's log at its version, brought forward from the one
        kept for the game (O(new entries)), so a save signs in O(log n)."""
        kept = self._frontiers.get(game.id)
        if kept is None or kept.size > game.version:
            kept = Frontier()
        for index in range(kept.size, game.version):
            kept.append(leaf_hash(canonical_bytes(game.entry(index))))
        self._frontiers[game.id] = kept
        return kept

    def fsck(self, game_id: str) -> str | None:
        """Check a game from scratch (all entries, all checkpoints, the recorded head); returns
        the problem, or None when it is sound."""
        self._frontiers.pop(game_id, None)
        self.frozen.pop(game_id, None)
        self.store.forget(game_id)
        return self.game(game_id).frozen

    def checked(self, game_id: str, frontier: Frontier) -> None:
        """Entries this process has just signed and stored count as checked."""
        self._frontiers[game_id] = frontier

    def inclusion(self, game_id: str, index: int, size: int | None = None,
                  game: LoadedGame | None = None) -> dict[str, Any]:
        game = game or self.game(game_id)
        size = game.check_version(size)
        leaves = self.leaves(game)[:size]
        proof = inclusion_proof(index, leaves)
        return {"origin": self.origin(game_id), "index": index, "size": size, "entry": game.entry(index),
                "leaf_hash": leaves[index].hex(), "root": root(leaves).hex(),
                "path": [p.hex() for p in proof], "checkpoint": game.checkpoint_at(size)}

    def receipt(self, game_id: str, index: int, size: int | None = None, viewer: str | None = None,
                game: LoadedGame | None = None) -> dict[str, Any]:
        """A receipt that stands alone (``pbem check-receipt``): entry ``index`` as hashed, its
        inclusion proof in the signed tree of ``size`` entries, the checkpoint and the keys; with
        ``viewer``, also the openings of the entry's secrets that this player may see."""
        game = game or self.game(game_id)
        size = game.check_version(size)
        leaves = self.leaves(game)[:size]
        proof = inclusion_proof(index, leaves)  # refuses an index outside the tree
        entry = game.entry(index)
        seat = game.seat_of(viewer) if viewer else None
        opened = opened_for(entry, game.private(index), seat, game.ended) if viewer or game.ended else None
        return make_receipt(self.origin(game_id), entry, proof, size, game.checkpoint_at(size),
                            [str(key) for key in self.keys.verifiers()], opened)

    def consistency(self, game_id: str, old: int, new: int | None = None) -> dict[str, Any]:
        game = self.game(game_id)
        new = game.check_version(new)
        leaves = self.leaves(game)[:new]
        proof = consistency_proof(old, leaves)
        return {"origin": self.origin(game_id), "old_size": old, "new_size": new,
                "old_root": root(leaves[:old]).hex(), "new_root": root(leaves).hex(),
                "path": [p.hex() for p in proof]}

    # -- seat tokens: the secret in a seat's private mail address and web link ------------
    def seat_token(self, game_id: str, seat: int, keys: SeatKeys | bool | None = False) -> str:
        """``keys``: the game's seat keys when the caller has read them (None: never rotated);
        left out, they are read here."""
        if keys is False:
            keys = self.seat_keys(game_id)
        generation = keys.generations.get(str(seat), 0) if isinstance(keys, SeatKeys) else 0
        label = f"seat/{game_id}/{seat}" + (f"/{generation}" if generation else "")
        digest = hmac.new(self.keys.token_secret(), label.encode(), hashlib.sha256).digest()
        return base64.b32encode(digest[:10]).decode().lower()

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

    def seat_by_token(self, game_id: str, token: str, game: LoadedGame | None = None,
                      work: Work | None = None) -> int | None:
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
