"""Declining an advisor's help works the same by CLI, by mail and by turn file, and the
history says so (Czech rulebook p. 4, step c)."""

import random

import pytest

from pbem.games.kingsburg import rules
from pbem.games.kingsburg.moves import Influence, Pass, Take
from pbem.service.service import GameService

PLAYERS = ["ann@example.org", "bob@example.org"]


def _started(service: GameService) -> str:
    game_id = service.create("kingsburg", PLAYERS, seed=bytes(32))
    for email in PLAYERS:
        service.join(game_id, email)
    return game_id


def _to_a_fixed_gift(service: GameService, game_id: str) -> tuple[int, Influence]:
    """Play until a seat may influence an advisor with a fixed gift; that seat and move."""
    chooser = random.Random(3)
    for _ in range(500):
        game = service.game(game_id)
        state = service.state(game)
        seat = game.spec.to_move(state)[0]
        legal = game.spec.legal_moves(state, seat)
        declines = [m for m in legal if isinstance(m, Influence) and m.choice == Take(()) and not rules.asks(m.advisor)]
        if declines:
            return seat, declines[0]
        move = game.spec.random_move(state, seat, chooser)
        assert service.submit(game_id, game.emails[seat], [game.spec.format_move(move)], "cli").ok
    raise AssertionError("no fixed gift could be influenced")


@pytest.mark.parametrize("source", ["cli", "email", "turnfile"])
def test_a_fixed_gift_is_declined_by_every_channel_and_the_history_says_so(source, sqlite_settings):
    service = GameService(sqlite_settings)
    game_id = _started(service)
    seat, move = _to_a_fixed_gift(service, game_id)
    game = service.game(game_id)
    email, command = game.emails[seat], game.spec.format_move(move)
    assert command.endswith("take nothing")
    if source == "turnfile":
        outcome = service.submit_turn_file(f"game: {game_id}\nplayer: {email}\n{command}\n", email)
    else:
        outcome = service.submit(game_id, email, [command], source)
    assert outcome.ok, outcome.to_dict()
    while service.state(service.game(game_id)).step == "influence":  # everybody else passes
        game = service.game(game_id)
        waiting = game.spec.to_move(service.state(game))
        service.submit(game_id, game.emails[waiting[0]], [game.spec.format_move(Pass())], "cli")
    rows = service.history(game_id)
    assert any(row["entry"].get("command") == command for row in rows)
    lines = [line for row in rows for line in row["lines"]]
    name = service.game(game_id).names[seat]
    advisor = rules.ADVISORS[move.advisor].name
    assert f"{name} declines the help of the {advisor}." in lines
    assert not any(line.startswith(f"{advisor} gives {name}") for line in lines)


def _to_an_asked_gift(service: GameService, game_id: str) -> int:
    """Play until a seat is asked what an advisor should give it; that seat."""
    chooser = random.Random(5)
    for _ in range(2000):
        game = service.game(game_id)
        state = service.state(game)
        seats = game.spec.to_move(state)
        for seat in seats:
            if Take(()) in game.spec.legal_moves(state, seat) and state.step != "influence":
                return seat
        seat = seats[0]
        legal = game.spec.legal_moves(state, seat)
        # influence without stating the gift in advance, so that the advisor asks
        plain = [m for m in legal if isinstance(m, Influence) and m.choice is None and rules.asks(m.advisor)]
        move = chooser.choice(plain) if plain else game.spec.random_move(state, seat, chooser)
        assert service.submit(game_id, game.emails[seat], [game.spec.format_move(move)], "cli").ok
    raise AssertionError("no advisor asked")


@pytest.mark.parametrize("source", ["cli", "email", "turnfile"])
def test_an_asked_gift_is_declined_by_every_channel_and_the_history_says_so(source, sqlite_settings):
    service = GameService(sqlite_settings)
    game_id = _started(service)
    seat = _to_an_asked_gift(service, game_id)
    game = service.game(game_id)
    state = service.state(game)
    advisor = next(a for a, s, _stated in state.gifts if s == seat)
    email = game.emails[seat]
    if source == "turnfile":
        outcome = service.submit_turn_file(f"game: {game_id}\nplayer: {email}\ntake nothing\n", email)
    else:
        outcome = service.submit(game_id, email, ["take nothing"], source)
    assert outcome.ok, outcome.to_dict()
    rows = service.history(game_id)
    assert rows[-1]["entry"].get("command") == "take nothing"
    name, helper = game.names[seat], rules.ADVISORS[advisor].name
    assert f"{name} declines the help of the {helper}." in rows[-1]["lines"]
    assert not any(line.startswith(f"{helper} gives {name}") for line in rows[-1]["lines"])
