"""A chosen seed reproduces a game: the same seed, players and moves give the same history
(every command, fact, draw and history line), whatever the games' random ids and times."""

import pytest

from pbem.cli.core import play_to_end
from pbem.games import catalog
from pbem.service.service import GameService

PLAYERS = ["ann@example.org", "bob@example.org", "cid@example.org"]
GAMES = ["kingsburg", "kingdom-builder", "warriors-traders", "ruse-and-bruise"]


def _what_happened(service: GameService, game_id: str) -> list[tuple]:
    """The history without what differs between two runs by design: ids, times, salts."""
    game = service.game(game_id)
    return [
        (
            entry["kind"],
            entry.get("seat"),
            private.get("command", entry.get("command")),
            private.get("facts"),
            private.get("draws"),
            [game.spec.describe_fact(f, game.names) for f in private.get("facts") or []],
        )
        for entry, private in zip(game.entries, game.privates, strict=False)
    ]


def _seeded_game(service: GameService, name: str, seed: bytes) -> str:
    players = PLAYERS[: max(catalog()[name].min_players, 2)]
    game_id = service.create(name, players, seed=seed)
    play_to_end(service, game_id, seed=5)
    return game_id


@pytest.mark.parametrize("name", GAMES)
def test_the_same_seed_players_and_moves_give_the_same_history(name, tmp_path):
    from pbem.config import Settings

    first, second = (GameService(Settings(home=tmp_path / home)) for home in ("one", "two"))
    a = _seeded_game(first, name, b"\x07" * 32)
    b = _seeded_game(second, name, b"\x07" * 32)
    assert a != b  # each game still has its own id
    assert _what_happened(first, a) == _what_happened(second, b)
    assert any(private.get("draws") for private in first.game(a).privates)


def test_another_seed_gives_another_game(sqlite_settings):
    service = GameService(sqlite_settings)
    a = _seeded_game(service, "kingsburg", b"\x07" * 32)
    b = _seeded_game(service, "kingsburg", b"\x08" * 32)
    assert _what_happened(service, a) != _what_happened(service, b)


def test_two_seeded_games_in_one_store_reproduce_each_other(sqlite_settings):
    service = GameService(sqlite_settings)
    a = _seeded_game(service, "kingsburg", b"\x09" * 32)
    b = _seeded_game(service, "kingsburg", b"\x09" * 32)
    assert _what_happened(service, a) == _what_happened(service, b)
