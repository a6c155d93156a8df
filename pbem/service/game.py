"""A game as loaded from its record: who sits where, what has happened, and its state at any
version. Pure reading of the entries; no store access."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pbem.games import get_spec
from pbem.games.base import ErrorCode, GameError, GameSpec, Standing
from pbem.ledger.entries import Entry, Private
from pbem.service.cache import StateCache

FACT_KINDS = ("started", "moved")


@dataclass
class LoadedGame:
    id: str
    spec: GameSpec
    entries: list[Entry]
    privates: list[Private]
    checkpoints: list[list[Any]]
    record: Any = field(repr=False, default=None)  # the aggregate, for appending
    frozen: str | None = None  # why the stored game does not match its signed history, if it does not

    @property
    def created(self) -> Entry:
        return self.entries[0]

    @property
    def version(self) -> int:
        return len(self.entries)

    @property
    def names(self) -> list[str]:
        return list(self.created["seats"])

    @property
    def emails(self) -> list[str]:
        return list(self.privates[0]["emails"])

    @property
    def options(self) -> dict[str, str]:
        return dict(self.created["options"])

    @property
    def seed(self) -> bytes:
        return bytes.fromhex(self.privates[0]["seed"])

    def kinds(self, kind: str) -> list[Entry]:
        return [entry for entry in self.entries if entry["kind"] == kind]

    @property
    def joined(self) -> set[int]:
        return {entry["seat"] for entry in self.kinds("joined")}

    @property
    def nonces(self) -> list[list[Any]]:
        return [[entry["seat"], entry["nonce"]] for entry in self.kinds("joined") if entry["nonce"]]

    @property
    def robots(self) -> set[int]:
        return {entry["seat"] for entry in self.kinds("resigned")}

    @property
    def started(self) -> bool:
        return any(entry["kind"] == "started" for entry in self.entries)

    @property
    def ended(self) -> bool:
        return bool(self.entries[-1]["kind"] == "ended")

    def seat_of(self, email: str) -> int:
        address = email.strip().lower()
        if address not in self.emails:
            raise GameError(ErrorCode.NOT_A_PLAYER, f"{email} has no seat in game {self.id}.")
        return self.emails.index(address)

    def check_version(self, version: int | None) -> int:
        if version is None:
            return self.version
        if not 1 <= version <= self.version:
            raise GameError(ErrorCode.INVALID, f"Game {self.id} has versions 1 to {self.version}, not {version}.")
        return version

    def state_at(self, cache: StateCache, version: int | None = None) -> Any:
        """The game state after the first ``version`` entries (None before the start)."""
        version = self.check_version(version)
        kept_version, state = cache.nearest(self.id, version)
        for index in range(kept_version, version):
            if self.entries[index]["kind"] in FACT_KINDS:
                for fact in self.privates[index]["facts"]:
                    state = self.spec.evolve(state, fact)
            cache.keep(self.id, index + 1, state, latest=index + 1 == self.version)
        return state

    def standings(self) -> list[Standing] | None:
        if not self.ended:
            return None
        return [Standing(s["seat"], s["rank"], s["score"], s["details"]) for s in self.entries[-1]["standings"]]

    def checkpoint_at(self, size: int | None = None) -> str:
        """The signed checkpoint for a tree size (the latest at or below it)."""
        size = self.version if size is None else size
        chosen: list[str] = [note for at, note in self.checkpoints if at <= size]
        if not chosen:
            raise GameError(ErrorCode.INVALID, f"Game {self.id} has no checkpoint at size {size}.")
        return chosen[-1]


def load(record: Any) -> LoadedGame:
    spec = get_spec(record.entries[0]["game_type"])
    return LoadedGame(record.game_id, spec, record.entries, record.privates, record.checkpoints, record)
