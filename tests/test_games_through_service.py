"""Every game, played to the end through the real store: new + join + autoplay + export +
verify, and a fresh service rebuilds the same state from the stored events."""

import pytest

from pbem.cli.core import play_to_end
from pbem.games import catalog
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
