"""What a submission did: one result per command line, and the whole outcome."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pbem.games.base import GameError


@dataclass
class LineResult:
    line: int
    text: str
    status: str  # "applied", "ignored" (a redundant turn end), "rejected", "skipped" (after a draw)
    error: GameError | None = None

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {"line": self.line, "text": self.text, "status": self.status}
        if self.error:
            result["error"] = self.error.to_dict()
        return result


@dataclass
class Outcome:
    """What a submission did. ``ok`` when nothing was rejected; ``version`` is the game's
    version afterwards (unchanged when nothing was applied)."""

    game_id: str
    version_before: int
    version: int
    lines: list[LineResult] = field(default_factory=list)
    duplicate: bool = False
    error: GameError | None = None  # a refusal of the whole submission (not a line's)

    @property
    def ok(self) -> bool:
        return self.error is None and not any(r.status == "rejected" for r in self.lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game_id,
            "ok": self.ok,
            "duplicate": self.duplicate,
            "version_before": self.version_before,
            "version": self.version,
            "lines": [r.to_dict() for r in self.lines],
            "error": self.error.to_dict() if self.error else None,
        }

    @classmethod
    def from_receipt(cls, game_id: str, game_of_receipt: str | None, stored: dict[str, Any]) -> Outcome:
        """The answer to a repeated idempotency key: what the first one did, marked duplicate."""
        return cls(
            game_of_receipt or game_id, stored.get("version_before", 0), stored.get("version", 0), duplicate=True
        )
