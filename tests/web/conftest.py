"""A store with games of every registered type, finished, running and waiting for players,
and the web site over it."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from pbem.cli.core import play_moves, play_to_end
from pbem.config import Settings
from pbem.games import catalog
from pbem.service.service import GameService
from pbem.web import create_app


def players(spec, count: int | None = None) -> list[str]:
    return [f"player{seat}.{spec.name}@example.org" for seat in range(count or spec.min_players)]


def play_some(service: GameService, game_id: str, seed: int, moves: int) -> None:
    """Join every seat and play ``moves`` random moves (fewer if the game ends)."""
    try:
        play_to_end(service, game_id, seed, moves)
    except RuntimeError as error:
        if "did not end" not in str(error):
            raise


@dataclass
class Games:
    service: GameService
    finished: dict[str, str] = field(default_factory=dict)
    running: dict[str, str] = field(default_factory=dict)
    started: dict[str, str] = field(default_factory=dict)  # every seat joined, no move yet
    waiting: dict[str, str] = field(default_factory=dict)


@pytest.fixture(scope="session")
def games(tmp_path_factory) -> Games:
    service = GameService(Settings(home=tmp_path_factory.mktemp("pbem-web")))
    made = Games(service)
    for name, spec in catalog().items():
        finished = service.create(name, players(spec), seed=bytes([7]) * 32)
        play_to_end(service, finished, seed=1)
        made.finished[name] = finished
        length = len(service.game(finished).kinds("moved"))
        running = service.create(name, players(spec), seed=bytes([7]) * 32)
        play_some(service, running, seed=1, moves=max(1, length // 2))  # about half way
        assert not service.game(running).ended
        made.running[name] = running
        started = service.create(name, players(spec), seed=bytes([5]) * 32)
        play_moves(service, started, seed=1, max_moves=0)  # joins every seat: the setup is drawn
        made.started[name] = started
        waiting = service.create(name, players(spec))
        service.join(waiting, players(spec)[0])
        made.waiting[name] = waiting
    yield made
    service.close()


@pytest.fixture(scope="session")
def app(games):
    return create_app(games.service)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def small_site(tmp_path):
    """A store of its own (for tests that change it): one Ruse & Bruise game three moves in,
    and the site over it, as (service, game id, app)."""
    service = GameService(Settings(home=tmp_path))
    spec = catalog()["ruse-and-bruise"]
    game_id = service.create(spec.name, players(spec), seed=bytes([3]) * 32)
    play_moves(service, game_id, seed=2, max_moves=3)
    yield service, game_id, create_app(service)
    service.close()
