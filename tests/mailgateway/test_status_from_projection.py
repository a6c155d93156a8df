"""``status`` at the service address lists the sender's games from the players' read model:
no other game is loaded, and the model names no address."""

from __future__ import annotations

from pbem.games import catalog
from pbem.service.player_games import MAX_SEATS, player_games_for
from tests.mailgateway.conftest import SERVICE, make_mail
from tests.mailgateway.conftest import text_of as raw_text_of

ANN, BOB, CAROL = "ann@example.org", "bob@example.org", "carol@example.org"


def _replies(transport, to):
    return [m for m in transport.to(to) if m["X-Pbem-Kind"] == "reply"]


def test_status_lists_the_senders_games_without_loading_the_others(gw, transport, monkeypatch):
    hers = [gw.service.create("hidden-pig", [ANN, BOB], {"rounds": "1"}) for _ in range(2)]
    others = [gw.service.create("hidden-pig", [BOB, CAROL], {"rounds": "1"}) for _ in range(3)]
    gw.work()
    transport.clear()
    loaded: list[str] = []
    game = gw.service.game
    monkeypatch.setattr(gw.service, "game", lambda game_id, *a, **k: loaded.append(game_id) or game(game_id, *a, **k))
    gw.receive(make_mail(ANN, SERVICE, "status"))
    gw.work()
    (reply,) = _replies(transport, ANN)
    text = raw_text_of(reply)
    assert all(game_id in text for game_id in hers)
    assert not any(game_id in text for game_id in others)
    assert not set(others) & set(loaded)  # the other players' games were never loaded


def test_the_players_model_holds_no_address(gw, service):
    gw.service.create("hidden-pig", [ANN, BOB], {"rounds": "1"})
    players = player_games_for(gw.service)
    assert players.games_of("ANN@example.org ") == players.games_of(ANN) != []  # addresses as the seats keep them
    view_file = service.settings.home / "summaries.sqlite"
    stored = b"".join(p.read_bytes() for p in view_file.parent.glob("summaries.sqlite*"))
    assert b"ann@example.org" not in stored
    events = b"".join(p.read_bytes() for p in service.settings.home.glob("*.sqlite*") if "summaries" not in p.name)
    assert b"ann@example.org" in events  # the positive control: the store itself holds it


def test_the_newest_games_are_those_of_the_store(gw):
    for number in range(7):
        players = [ANN, BOB, CAROL][: 2 + number % 2]
        gw.service.create("hidden-pig", players, {"rounds": "1"})
    assert gw.service.newest_games(5) == gw.service.game_ids()[-5:]
    assert gw.service.newest_games(50) == gw.service.game_ids()


def test_no_game_has_more_seats_than_the_newest_games_read():
    assert max(spec.max_players for spec in catalog().values()) <= MAX_SEATS


def test_the_players_model_on_either_store(settings):
    from pbem.service.service import GameService

    service = GameService(settings)
    made = [service.create("hidden-pig", [ANN, BOB] if n % 2 else [BOB, CAROL], {"rounds": "1"}) for n in range(4)]
    assert service.games_of(ANN) == [made[1], made[3]] and service.games_of(CAROL) == [made[0], made[2]]
    assert service.newest_games(3) == made[1:]
    service.close()
