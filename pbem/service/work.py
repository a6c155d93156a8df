"""One transaction of the game service: the games it touches, each loaded once, the entries
planned against them (``_Batch``), and the single save that stores it all (``Work``). The write
methods of ``pbem.service.service.GameService`` and the mail port (``pbem.mailroom.desk``) plan
into a ``Work`` and commit it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from eventsourcing.persistence import RecordConflictError

from pbem.games.base import ErrorCode, GameError
from pbem.ledger import entries as log
from pbem.ledger import handovers
from pbem.ledger.canonical import canonical_bytes
from pbem.ledger.fairness import DrawRng, draw_scope
from pbem.ledger.merkle import leaf_hash
from pbem.logs import log_entries
from pbem.service.game import LoadedGame
from pbem.service.outcome import LineResult, Outcome
from pbem.service.repository import GameRepository
from pbem.service.signer import CheckpointSigner


class _Batch:
    """One game's entries to append in the next save, and the state they lead to."""

    def __init__(self, game: LoadedGame, state: Any):
        self.game = game
        self.state = state
        self.entries: list[log.Entry] = []
        self.privates: list[log.Private] = []

    @property
    def next_index(self) -> int:
        return self.game.version + len(self.entries)

    def planned(self, kind: str) -> list[log.Entry]:
        """The entries of one kind planned in this batch (not yet stored)."""
        return [e for e in self.entries if e["kind"] == kind]

    def started(self) -> bool:
        return self.game.started or bool(self.planned("started"))

    def seats_of(self, kind: str) -> set[int]:
        """Seats that joined or resigned, stored and planned (the stored ones from the game's
        compact record, so a move in a long game does not walk its log)."""
        if kind == "resigned":  # a substitute's hand-over takes a seat back from the robot
            return handovers.robots_after(self.game.robots, self.entries)
        return self.game.joined | {e["seat"] for e in self.planned(kind)}

    def add(self, made: tuple[log.Entry, log.Private]) -> None:
        previous = self.entries[-1] if self.entries else self.game.last
        self.entries.append(log.not_before(made[0], previous))  # time never runs backwards
        self.privates.append(made[1])

    def mark(self) -> tuple[int, Any]:
        return len(self.entries), self.state

    def rollback(self, mark: tuple[int, Any]) -> None:
        """Forget what was added since ``mark``: a refused command leaves nothing behind."""
        del self.entries[mark[0] :]
        del self.privates[mark[0] :]
        self.state = mark[1]

    def rng(self) -> DrawRng:
        """The draws of the next entry: seed, every nonce logged before it, its position."""
        nonces = self.game.nonces + [[e["seat"], e["nonce"]] for e in self.planned("joined") if e["nonce"]]
        return DrawRng(self.game.seed, draw_scope(self.game.created), nonces, self.next_index)


class StalePlan(RecordConflictError):
    """A plan made without reading the games afresh cannot be saved as it is (see Work.commit)."""


class Work:
    """The changes of one transaction: every game it touches is loaded once, commands plan
    entries against it one after another, and ``commit`` signs each game once and saves all
    of it (entries, receipts, other aggregates) in a single ``store.save``."""

    def __init__(
        self,
        repository: GameRepository,
        signer: CheckpointSigner,
        clock: Callable[[], str],
        key: str | None = None,
        fresh: bool = True,
    ):
        self.repository = repository
        self.signer = signer
        self.clock = clock  # the time of the entries it adds itself (a game's end)
        self.key = key  # the idempotency key (a mail's Message-ID), for the log lines
        # False on a first attempt: plan on the games as this process knows them; if another
        # process wrote meanwhile the save fails, and the next attempt loads fresh
        self.fresh = fresh
        self.batches: dict[str, _Batch] = {}
        self.extra: dict[Any, Any] = {}  # other aggregates to save, by id
        # aggregates planned on but not saved, at the version they were read: the save fails
        # if one has moved on meanwhile (so kept copies may be read on a first attempt)
        self.expect: dict[Any, int] = {}

    def batch(self, game_id: str) -> _Batch:
        if game_id not in self.batches:
            game = self.repository.game(game_id, self.fresh)
            self.batches[game_id] = _Batch(game, self.repository.state(game))
        return self.batches[game_id]

    def loaded(self, game_id: str) -> LoadedGame | None:
        """The game as this transaction loaded it already, or None (nothing is loaded)."""
        batch = self.batches.get(game_id)
        return batch.game if batch is not None else None

    def add(self, *aggregates: Any) -> None:
        for aggregate in aggregates:
            self.extra[aggregate.id] = aggregate

    def adds(self, aggregate_id: Any) -> bool:
        """Whether this transaction saves ``aggregate_id`` (made or changed here, not stored yet)."""
        return aggregate_id in self.extra

    def find(self, aggregate_id: Any) -> Any:
        """An aggregate as this transaction sees it, or None; nothing is added."""
        if aggregate_id in self.extra:
            return self.extra[aggregate_id]
        return self.repository.record(aggregate_id)

    def aggregate(self, aggregate_id: Any, make: Callable[[], Any]) -> Any:
        """Another aggregate this transaction changes (loaded once, or made when new)."""
        if aggregate_id not in self.extra:
            found = self.repository.record(aggregate_id)
            self.extra[aggregate_id] = make() if found is None else found
        return self.extra[aggregate_id]

    def run(self, game_id: str, plan: Callable[[LoadedGame, _Batch], list[LineResult]]) -> Outcome:
        """Plan one command (or batch of commands) on a game: all or nothing."""
        batch = self.batch(game_id)
        mark = batch.mark()
        outcome = Outcome(batch.game.id, batch.next_index, batch.next_index)
        try:
            if batch.game.frozen:
                raise GameError(
                    ErrorCode.FROZEN,
                    f"Game {game_id} is frozen and cannot change: {batch.game.frozen}. The operator has been alerted.",
                )
            outcome.lines = plan(batch.game, batch)
        except GameError as error:
            outcome.error = error
        if outcome.ok:
            if len(batch.entries) > mark[0]:
                self._end_if_over(batch)
            outcome.version = batch.next_index
        else:
            batch.rollback(mark)
        return outcome

    def _end_if_over(self, batch: _Batch) -> None:
        """The game's end, when the entries planned end it (once)."""
        game = batch.game
        if batch.entries and batch.entries[-1]["kind"] == "ended":
            return
        standings = game.spec.outcome(batch.state) if batch.state is not None else None
        if standings is not None:
            batch.add(log.ended(game.id, batch.next_index, self.clock(), standings, game.seed))

    def commit(self) -> None:
        """Sign every changed game and save everything at once (may raise
        ``RecordConflictError``: then nothing was stored)."""
        if not self.fresh and any(not b.entries for b in self.batches.values()):
            # a game planned on without new entries adds nothing to the save that could conflict,
            # so a refusal might rest on an old state: plan once more on fresh games
            raise StalePlan("planned on games not read afresh")
        aggregates = list(self.extra.values())
        changed = [b for b in self.batches.values() if b.entries]
        kept: list[tuple[str, int, dict[str, Any]]] = []  # game states to keep, in the same save
        for batch in changed:
            aggregates.append(batch.game.record)
            state = self._sign(batch)
            if state is not None:
                kept.append((batch.game.id, batch.game.record.size, state))
        if not aggregates:
            return
        saved = {aggregate.id for aggregate in aggregates}
        self.repository.store.save(
            *aggregates, expect={k: v for k, v in self.expect.items() if k not in saved}, states=kept
        )
        self._saved(aggregates, changed)

    def _sign(self, batch: _Batch) -> dict[str, Any] | None:
        """Append the batch's entries to its game's record with the checkpoint signed after
        them; returns the game's state sealed for keeping when the append crosses a multiple
        of the interval (so a past state folds at most that many entries), else None."""
        game = batch.game
        before = game.version  # before the append below (the record is the game's)
        frontier = self.repository.frontier(game).copy()
        leaves = [leaf_hash(canonical_bytes(entry)) for entry in batch.entries]
        for leaf in leaves:
            frontier.append(leaf)
        game.record.append_hashed(batch.entries, batch.privates, self.signer.sign(game.id, frontier), leaves)
        record = game.record
        interval = self.repository.settings.snapshot_interval
        if not interval or record.size // interval <= before // interval:
            return None
        return self.signer.sealed_state(game.id, record.size, record.version, batch.state, frontier)

    def _saved(self, aggregates: list[Any], changed: list[_Batch]) -> None:
        """What this process keeps of a save: the aggregates, the records, what was checked."""
        for aggregate in aggregates:
            self.repository.saved_aggregate(aggregate)
        for batch in changed:
            record = batch.game.record
            self.repository.store.saved(record)
            self.repository.checked(batch.game.id, record.size, record.checkpoint[1])  # signed here
            # the state the plan reached is the state of the stored entries: the next command
            # starts from it instead of folding (and so reading and hashing) them again
            self.repository.cache.keep(batch.game.id, record.size, batch.state, latest=True)
            log_entries(batch.game.id, batch.entries, self.key)
