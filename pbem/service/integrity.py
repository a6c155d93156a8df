"""The server's check of itself: a game's stored history against what the server signed.

Every load checks the newest signed checkpoint against the record's Merkle frontier
(``integrity_problem``, O(log n)); the log is checked as it is read (``_read_log``); ``pbem
fsck`` checks everything from scratch (``full_problem``: every entry, every checkpoint's root
and signature, the record's fields, the kept states). A game that fails is frozen: it can be
read, not changed, and every refusal says why. ``GameReader`` has these as a mixin; they read
its store, keys and the caches of what was checked already."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from pbem.games.base import ErrorCode, GameError
from pbem.games.speech import _
from pbem.ledger.canonical import canonical_bytes, encode_checked
from pbem.ledger.merkle import Frontier, leaf_hash
from pbem.ledger.notes import verify_checkpoint
from pbem.service.game import LoadedGame, load
from pbem.service.keys import KeyRing
from pbem.service.states import NotKept, spec_modules, unpack, unsealed
from pbem.service.store import PbemStore, StoredLog, compact_fields, frontier_of

alarms = logging.getLogger("pbem")


class SelfCheck:
    """Checks of stored games against their signed history, for ``GameReader``."""

    store: PbemStore
    keys: KeyRing
    frozen: dict[str, str]  # games whose store does not match their signed history, and why
    head_of: Callable[[str], int | None] | None  # the newest size the mail follower saw
    _checked: dict[str, tuple[int, str]]  # the newest (size, checkpoint) checked per game
    _frontiers: dict[str, Frontier]  # compact ranges of games whose record has none
    _log_frontiers: dict[str, Frontier]  # how far each game's read log was checked

    def _freeze(self, game: LoadedGame, problem: str) -> None:
        if game.id not in self.frozen:
            self.frozen[game.id] = problem
            alarms.critical("ALARM: game %s is frozen: %s", game.id, problem)
        game.frozen = self.frozen[game.id]

    def integrity_problem(self, game: LoadedGame) -> str | None:
        """Why the stored game cannot be trusted, or None: the check of every load, O(log n).

        The newest checkpoint must carry the server's signature, name the record's size, and
        sign the root of the Merkle frontier the record keeps. The record is its newest snapshot
        brought forward over the events stored since, each of whose entries was hashed into the
        frontier on the way, so an edit of any of those entries, of the snapshot's frontier or
        size, or of the newest checkpoint fails here. Older entries are checked when they are
        read (``_read_log``, ``_restore``) and by ``pbem fsck`` (``full_problem``). On the
        first load in this process, a head recorded by the mail follower must not be ahead."""
        record = game.record
        first = game.id not in self._checked
        note = str(record.checkpoint[1]) if record.checkpoint else ""
        if record.frontier is None:  # a snapshot from before records kept their frontier
            problem = self.full_problem(game)
        elif self._checked.get(game.id) == (game.version, note):
            problem = None
        else:
            problem = self._newest_checkpoint_problem(game, note)
        if problem is None and first:
            problem = self._head_problem(game)
        if problem is None:
            self._checked[game.id] = (game.version, note)
        return problem

    def _newest_checkpoint_problem(self, game: LoadedGame, note: str) -> str | None:
        record = game.record
        try:
            signed = verify_checkpoint(note, self.keys.verifiers())
        except ValueError as error:
            return f"the newest checkpoint does not verify ({error})"
        try:
            frontier = frontier_of(game.version, record.frontier or [])
        except ValueError as error:
            return f"the game's record is damaged ({error})"
        if record.checkpoint[0] != game.version or signed.size != game.version or signed.root != frontier.root():
            return "the game's record does not match its newest signed checkpoint"
        return None

    def full_problem(self, game: LoadedGame) -> str | None:
        """Everything about a game, from scratch (``pbem fsck``, and a record without a
        frontier): every entry at its index, the Merkle root of every signed checkpoint, every
        signature, every field of the record against its events (the addresses and the seed
        too), and its kept states against the fold."""
        log = game.log
        if len(log.checkpoints) < game.record.version or log.checkpoints[game.record.version - 1][0] != game.version:
            return "the stored events do not hold the entries the game's record counts"
        fields = compact_fields(log.entries[: game.version], log.privates[: game.version])
        if any(getattr(game.record, name) != value for name, value in fields.items()):
            return "the game's record does not match its stored entries"
        checkpoints = dict(log.checkpoints[: game.record.version])
        frontier = Frontier()
        problem = self._entries_problem(game, checkpoints, frontier)
        if problem:
            return problem
        if game.version not in checkpoints:
            return "the newest entries have no signed checkpoint"
        if game.record.checkpoint != [game.version, checkpoints[game.version]]:
            return "the game's record does not match its stored checkpoints"
        if game.record.frontier is not None and game.record.frontier != [n.hex() for _, n in frontier.stack]:
            return "the game's record does not match its stored entries (its frontier)"
        self._frontiers[game.id] = frontier
        return self._kept_states_problem(game)

    def _entries_problem(self, game: LoadedGame, checkpoints: dict[int, str], frontier: Frontier) -> str | None:
        """Every entry at its index, hashed into ``frontier``, and every checkpoint signed
        after them verified against it."""
        keys = self.keys.verifiers()
        for index in range(game.version):
            entry = game.entry(index)
            if entry.get("index") != index or entry.get("game") != game.id:
                return f"entry {index} is out of place"
            frontier.append(leaf_hash(canonical_bytes(entry)))
            note = checkpoints.get(index + 1)
            if note is None:
                continue
            try:
                signed = verify_checkpoint(note, keys)
            except ValueError as error:
                return f"the checkpoint at {index + 1} entries does not verify ({error})"
            if signed.size != index + 1 or signed.root != frontier.root():
                return f"the entries do not match the checkpoint signed at {index + 1} entries"
        return None

    def _kept_states_problem(self, game: LoadedGame) -> str | None:
        """Each kept state must unseal and equal the state folded from the entries."""
        kept = [(size, stored) for size, stored in self.store.kept_states(game.id) if size <= game.version]
        state: Any = None
        done = 0
        for size, stored in kept:
            for index in range(done, size):
                state = game.step(state, game.entry(index), game.private(index))
            done = size
            body = unsealed(self.keys.state_key(), game.id, size, stored)
            if body is None:
                return f"the state kept at {size} entries is not sealed by this server"
            try:
                if unpack(body["state"], spec_modules(game.spec)) != state:
                    return f"the state kept at {size} entries is not the state of the entries"
            except NotKept as error:
                return f"the state kept at {size} entries does not decode ({error})"
        return None

    def _head_problem(self, game: LoadedGame) -> str | None:
        """A head recorded by the mail follower must not be ahead of the store."""
        head = self.head_of(game.id) if self.head_of else None
        if head is not None and head > game.version:
            return f"the store has {game.version} entries, but {head} were signed and seen before (rolled back)"
        return None

    def _read_log(self, game: LoadedGame) -> StoredLog:
        """The game's stored log, checked the first time this process reads it and then as it
        grows: each entry at its index, the entries hash to the frontier whose root the server
        signed (checked at load), and the record's first and newest entries are the stored
        ones. So nothing of a log is served before it is checked."""
        log = self.store.game_log(game.record)
        problem = self._log_problem(game, log)
        if problem:
            self._freeze(game, problem)
        return log

    def _log_problem(self, game: LoadedGame, log: StoredLog) -> str | None:
        if len(log.entries) < game.version or log.version < game.record.version:
            return "the stored events do not hold the entries the game's record counts"
        if game.record.frontier is None:
            return None  # checked whole at load (full_problem)
        kept = self._log_frontiers.get(game.id)
        frontier = Frontier() if kept is None or kept.size > game.version else kept.copy()
        if frontier.size == game.version:
            return None
        for index in range(frontier.size, game.version):
            entry = log.entries[index]
            if entry.get("index") != index or entry.get("game") != game.id:
                return f"entry {index} is out of place"
            frontier.append(leaf_hash(encode_checked(entry)))  # stored JSON: plain
        if frontier.root() != frontier_of(game.version, game.record.frontier).root():
            return "the stored entries do not match the newest signed checkpoint"
        if log.entries[0] != game.created or log.entries[game.version - 1] != game.last:
            return "the game's record does not match its stored entries"
        self._log_frontiers[game.id] = frontier
        return None

    def fsck(self, game_id: str) -> str | None:
        """Check a game from scratch (``full_problem``, and the recorded head); returns the
        problem, or None when it is sound. A sound game that was frozen is thawed."""
        for kept in (self._frontiers, self._log_frontiers, self._checked, self.frozen):
            kept.pop(game_id, None)
        self.store.forget(game_id)
        record = self.store.game(game_id)
        if record is None:
            raise GameError(ErrorCode.UNKNOWN_GAME, _("There is no game {game}.", game=repr(game_id)))
        game = load(record, self._read_log)
        problem = self.full_problem(game) or self._head_problem(game)
        if problem:
            self._freeze(game, problem)
        else:
            self._checked[game_id] = (game.version, str(record.checkpoint[1]))
        return problem

    def checked(self, game_id: str, version: int, note: str) -> None:
        """A checkpoint this process has just signed and stored counts as checked."""
        self._checked[game_id] = (version, note)
