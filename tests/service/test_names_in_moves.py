"""A player's name where a move names a player (issue 16: "names, not seats"): Warriors &
Traders' war, peace, route and offer name a country, and a player may write its player's name."""

from pbem.games.text import parse_named
from pbem.service.service import GameService
from tests.service.helpers import ANN, BOB

SEED = bytes(range(32))


def _war_for_the_mover(service, game_id):
    """Play the first legal moves until the seat to move may declare war on the other's country."""
    for _ in range(200):
        game = service.game(game_id)
        state = service.state(game)
        seat = game.spec.to_move(state)[0]
        other = 1 - seat
        war = f"war {state.players[other].country}"
        if war in game.spec.legal_texts(state, seat, limit=10_000):
            return game, seat, other, war
        service.submit(game_id, game.emails[seat], [game.spec.legal_texts(state, seat)[0]])
    raise AssertionError("no war was ever legal")


def test_a_players_name_stands_for_their_country(sqlite_settings):
    service = GameService(sqlite_settings)
    try:
        game_id = service.create("warriors-traders", [ANN, BOB], seed=SEED)
        service.join(game_id, ANN)
        service.join(game_id, BOB)
        game, seat, other, war = _war_for_the_mover(service, game_id)
        outcome = service.submit(game_id, game.emails[seat], [f"war {game.names[other].upper()}"])
        assert outcome.ok
        assert service.game(game_id).entries[game.version]["command"] == war
    finally:
        service.close()


def test_a_name_never_hides_a_word_of_the_game():
    """Seats named like command words: the text as written wins."""
    from pbem.games import get_spec
    from pbem.games.base import SeededRng
    from pbem.games.simulate import fold

    spec = get_spec("warriors-traders")
    state = fold(spec, spec.setup(2, spec.normalize_options({}, 2), SeededRng(5)))
    seat = spec.to_move(state)[0]
    legal = spec.legal_texts(state, seat)
    assert spec.format_move(parse_named(spec, state, seat, legal[0], ["pass", "develop"])) == legal[0]
