"""Every game, played to the end through the real store: new + join + autoplay + export +
verify, and a fresh service rebuilds the same state from the stored events."""

import random

import pytest

from pbem.cli.core import play_to_end
from pbem.games import catalog
from pbem.games.base import ErrorCode
from pbem.ledger.verify import export_bytes, verify_bytes
from pbem.service.service import GameService


@pytest.mark.parametrize("name", sorted(catalog()))
def test_a_full_game_through_the_service_verifies(name, sqlite_settings):
    spec = catalog()[name]
    players = [f"p{seat}@example.org" for seat in range(min(spec.max_players, 3))]
    live = GameService(sqlite_settings)
    game_id = live.create(name, players, seed=bytes(32))
    live.join(game_id, players[0], "a nonce from the first player")
    play_to_end(live, game_id, seed=7)

    report = verify_bytes(export_bytes(live.export(game_id)))
    assert report.ended
    assert any("replaying every command" in line for line in report.checked)

    fresh = GameService(sqlite_settings)
    assert fresh.state(fresh.game(game_id)) == live.state(live.game(game_id))
    for _seat, email in enumerate(players):
        assert fresh.summary(game_id, viewer=email) == live.summary(game_id, viewer=email)


@pytest.mark.parametrize("name", sorted(catalog()))
def test_the_service_alone_says_whose_turn_it_is_and_that_the_game_is_over(name, sqlite_settings):
    """Games no longer check the turn in ``parse_move``: the service refuses a seat that is not
    to move, and any command once the game is over, for every game, before parsing."""
    spec = catalog()[name]
    players = [f"p{seat}@example.org" for seat in range(spec.min_players)]
    service = GameService(sqlite_settings)
    game_id = service.create(name, players, seed=bytes(32))
    for email in players:
        service.join(game_id, email, "nonce")
    state = _until_someone_waits(service, game_id, players)
    waiting = next(seat for seat in range(len(players)) if seat not in spec.to_move(state))
    text = spec.legal_texts(state, spec.to_move(state)[0])[0]  # a move that is legal, for another seat
    out_of_turn = service.submit(game_id, players[waiting], [text])
    assert out_of_turn.lines[0].error.code is ErrorCode.NOT_YOUR_TURN, out_of_turn.to_dict()

    play_to_end(service, game_id, seed=3)
    after_the_end = service.submit(game_id, players[0], [text])
    refusal = after_the_end.error or after_the_end.lines[0].error
    assert refusal.code is ErrorCode.GAME_OVER, after_the_end.to_dict()


def _until_someone_waits(service: GameService, game_id: str, players: list[str]):
    """Random legal moves through the service until some seat is not to move (the first
    phases of some games are simultaneous); the state then."""
    chooser = random.Random(5)
    for _ in range(200):
        game = service.game(game_id)
        state = service.state(game)
        to_move = game.spec.to_move(state)
        if len(to_move) < len(players):
            return state
        move = game.spec.random_move(state, to_move[0], chooser)
        assert service.submit(game_id, players[to_move[0]], [game.spec.format_move(move)]).ok
    raise AssertionError("every seat was always to move")
