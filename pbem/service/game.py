"""A game as loaded from its record: who sits where, what has happened, and its state at any
version. Pure reading of the record and the entries; the store is reached only through the
``read_log`` it is given."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from pbem.games import get_spec
from pbem.games.base import AnySpec, ErrorCode, GameError, Standing
from pbem.games.speech import _
from pbem.ledger import press, withdrawals
from pbem.ledger.entries import NAMED, Entry, Private
from pbem.service.cache import StateCache

NOT_PLAY = (*press.TALK_KINDS, NAMED)  # entries that advance no turn: talk, and names given

if TYPE_CHECKING:
    from pbem.service.store import GameRecord, StoredLog

FACT_KINDS = ("started", "moved")


@dataclass(eq=False)
class LoadedGame:
    """A game at the size of its ``record`` (the compact aggregate). What deciding a move needs
    comes from the record; the entries, their private parts and the checkpoints are read from
    the stored events (``read_log``) the first time they are asked for."""

    id: str
    spec: AnySpec
    record: GameRecord = field(repr=False)  # the aggregate, for appending
    # the game's log, at least this size, read for this game (given the game rather than holding
    # it: a closure over the game would make every loaded game a cycle for the garbage collector)
    read_log: Callable[[LoadedGame], StoredLog] = field(repr=False)
    frozen: str | None = None  # why the stored game does not match its signed history, if it does not

    @cached_property
    def log(self) -> StoredLog:
        return self.read_log(self)

    @cached_property
    def entries(self) -> list[Entry]:
        return self.log.entries[: self.version]

    @cached_property
    def privates(self) -> list[Private]:
        return self.log.privates[: self.version]

    @cached_property
    def checkpoints(self) -> list[list[Any]]:
        return [c for c in self.log.checkpoints if c[0] <= self.version]

    def entry(self, index: int) -> Entry:
        """One entry, without copying the list of all of them."""
        if not 0 <= index < self.version:
            raise IndexError(index)
        return self.log.entries[index]

    def private(self, index: int) -> Private:
        if not 0 <= index < self.version:
            raise IndexError(index)
        return self.log.privates[index]

    @property
    def created(self) -> Entry:
        return self.record.created

    @property
    def last(self) -> Entry:
        return self.record.last

    @property
    def version(self) -> int:
        return int(self.record.size)

    @property
    def names(self) -> list[str]:
        """The seats' names now: as the game was created, with the names given since
        (``named`` entries, kept by the record)."""
        names = list(self.created["seats"])
        for seat, name in (getattr(self.record, "renamed", None) or {}).items():
            names[int(seat)] = name
        return names

    @property
    def emails(self) -> list[str]:
        return list(self.record.secrets["emails"])

    @property
    def options(self) -> dict[str, str]:
        return dict(self.created["options"])

    @property
    def seed(self) -> bytes:
        return bytes.fromhex(self.record.secrets["seed"])

    @cached_property
    def _talk(self) -> list[int]:
        """The indices of the talk entries (press and notes), in order."""
        return [index for index, entry in enumerate(self.entries) if entry["kind"] in NOT_PLAY]

    def turn_at(self, version: int | None = None) -> int:
        """The turn number players see after ``version`` entries: the entries that are play
        (creation, joins, moves, resignations, the end), not talk. A message or a note is in
        the log, but it does not advance the turn."""
        version = self.version if version is None else version
        return version - bisect_left(self._talk, version)

    def turn_of(self, index: int) -> int:
        """The turn number of entry ``index`` (the state after it), as every reader sees it:
        the mails ("Turn 5"), the pages, the history answer, the /verify page, ``pbem history``.
        The one numbering of entries for people; a URL names the entry's place instead."""
        return self.turn_at(index + 1)

    def kinds(self, kind: str) -> list[Entry]:
        return [entry for entry in self.entries if entry["kind"] == kind]

    @property
    def joined(self) -> set[int]:
        return {seat for seat, _ in self.record.joined}

    @property
    def nonces(self) -> list[list[Any]]:
        return [[seat, nonce] for seat, nonce in self.record.joined if nonce]

    @property
    def robots(self) -> set[int]:
        return set(self.record.resigned)

    @property
    def started(self) -> bool:
        return bool(self.record.started)

    @property
    def ended(self) -> bool:
        return bool(self.last["kind"] == "ended")

    def seat_of(self, email: str) -> int:
        address = email.strip().lower()
        if address not in self.emails:
            raise GameError(
                ErrorCode.NOT_A_PLAYER, _("{address} has no seat in game {game}.", address=email, game=self.id)
            )
        return self.emails.index(address)

    def check_version(self, version: int | None) -> int:
        if version is None:
            return self.version
        if not 1 <= version <= self.version:
            raise GameError(ErrorCode.INVALID, f"Game {self.id} has versions 1 to {self.version}, not {version}.")
        return version

    def fold(
        self, cache: StateCache, start: int, state: Any, version: int, items: list[tuple[Entry, Private]] | None = None
    ) -> Any:
        """Fold entries ``start`` to ``version`` into ``state`` (the state after ``start``),
        keeping the states on the way in ``cache``. ``items``: those entries when the caller has
        them (read without the whole log), as far as they go; the rest is read from the log."""
        for index in range(start, version):
            offset = index - start
            entry, private = (
                items[offset] if items is not None and offset < len(items) else (self.entry(index), self.private(index))
            )
            state = self.step(state, entry, private)
            cache.keep(self.id, index + 1, state, latest=index + 1 == self.version)
        return state

    def step(self, state: Any, entry: Entry, private: Private) -> Any:
        """The state after one entry: its facts folded in; after a withdrawal, the state before
        the withdrawn move; any other entry changes nothing."""
        if entry["kind"] in FACT_KINDS:
            for fact in private["facts"]:
                state = self.spec.evolve(state, fact)
        elif entry["kind"] == withdrawals.WITHDRAWN:
            state = self.rewound(int(entry["move"]))
        return state

    def rewound(self, stop: int) -> Any:
        """The state after the first ``stop`` entries, folded from the start over the moves not
        withdrawn (``withdrawals.effective``): rare, so it needs no kept state."""
        state = None
        for index in withdrawals.effective([self.entry(i) for i in range(stop)], stop):
            for fact in self.private(index)["facts"]:
                state = self.spec.evolve(state, fact)
        return state

    def standings(self) -> list[Standing] | None:
        if not self.ended:
            return None
        return [Standing(s["seat"], s["rank"], s["score"], s["details"]) for s in self.last["standings"]]

    def checkpoint_at(self, size: int | None = None) -> str:
        """The signed checkpoint for a tree size (the latest at or below it)."""
        size = self.version if size is None else size
        if size >= self.version and self.record.checkpoint:
            return str(self.record.checkpoint[1])
        chosen: list[str] = [note for at, note in self.checkpoints if at <= size]
        if not chosen:
            raise GameError(ErrorCode.INVALID, f"Game {self.id} has no checkpoint at size {size}.")
        return chosen[-1]


def load(record: GameRecord, read_log: Callable[[LoadedGame], StoredLog]) -> LoadedGame:
    """A game from its compact record; ``read_log`` reads its stored log when first needed."""
    return LoadedGame(record.game_id, get_spec(record.created["game_type"]), record, read_log)
