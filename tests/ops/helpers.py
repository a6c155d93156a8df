"""Shared helpers for the operations and fault tests: services on temporary homes and
finished games."""

from __future__ import annotations

from pathlib import Path

from pbem.cli.core import play_to_end
from pbem.config import Settings
from pbem.service.service import GameService

PLAYERS = ["ann@example.org", "bob@example.org", "cy@example.org", "dee@example.org"]


def service_at(home: Path, **settings) -> GameService:
    return GameService(Settings(home=home, **settings))


def finished_game(
    svc: GameService,
    game_type: str = "hidden-pig",
    players: int = 2,
    options: dict[str, str] | None = None,
    seed: int = 0,
) -> str:
    game_id = svc.create(game_type, PLAYERS[:players], options or {}, seed=bytes([seed]) * 32)
    play_to_end(svc, game_id, seed)
    return game_id
