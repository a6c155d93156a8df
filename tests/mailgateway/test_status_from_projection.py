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


def _counting_loads(gw, monkeypatch) -> list[str]:
    """Every game read while answering, whether through the service or the store itself."""
    from pbem.service.summaries import follower_for

    follower_for(gw.service).catch_up_all()  # what the followers keep is kept before the mail comes
    loaded: list[str] = []

    def counted(read):
        return lambda game_id, *a, **k: loaded.append(game_id) or read(game_id, *a, **k)

    for owner in (gw.service, gw.service.store):
        monkeypatch.setattr(owner, "game", counted(owner.game))
    return loaded


def test_status_loads_no_game(gw, transport, monkeypatch):
    hers = [gw.service.create("hidden-pig", [ANN, BOB], {"rounds": "1"}) for _ in range(6)]
    gw.work()
    transport.clear()
    loaded = _counting_loads(gw, monkeypatch)
    gw.receive(make_mail(ANN, SERVICE, "status"))
    gw.work()
    (reply,) = _replies(transport, ANN)
    assert all(game_id in raw_text_of(reply) for game_id in hers)
    assert loaded == []  # the lines are the games list's rows: not one game read, however many she plays
    gw.receive(make_mail(ANN, SERVICE, f"status {hers[0]}"))  # the positive control: one game's status reads it
    gw.work()
    assert hers[0] in loaded


def test_games_loads_no_game(gw, transport, monkeypatch):
    made = [gw.service.create("hidden-pig", [BOB, CAROL], {"rounds": "1"}) for _ in range(4)]
    gw.work()
    transport.clear()
    loaded = _counting_loads(gw, monkeypatch)
    gw.receive(make_mail(ANN, SERVICE, "games"))
    gw.work()
    (reply,) = _replies(transport, ANN)
    text = raw_text_of(reply)
    assert all(game_id in text for game_id in made) and "(yours)" not in text
    assert loaded == []


def test_status_lists_games_not_over_first_then_the_newest(gw, transport, clock):
    from pbem.cli.core import play_to_end

    over = gw.service.create("hidden-pig", [ANN, BOB], {"rounds": "1"})
    clock.advance(minutes=1)
    older = gw.service.create("hidden-pig", [ANN, BOB], {"rounds": "1"})
    clock.advance(minutes=1)
    newer = gw.service.create("hidden-pig", [ANN, BOB], {"rounds": "1"})
    clock.advance(minutes=1)
    play_to_end(gw.service, over, seed=3)
    gw.work()
    transport.clear()
    gw.receive(make_mail(ANN, SERVICE, "status"))
    gw.work()
    text = raw_text_of(_replies(transport, ANN)[0])
    assert text.index(newer) < text.index(older) < text.index(over)  # the one played last is over: listed last


def test_status_says_how_many_games_it_leaves_out(gw, transport, monkeypatch):
    from pbem.mailroom import replies

    monkeypatch.setattr(replies, "GAMES_SHOWN", 3)
    made = [gw.service.create("hidden-pig", [ANN, BOB], {"rounds": "1"}) for _ in range(5)]
    gw.work()
    transport.clear()
    gw.receive(make_mail(ANN, SERVICE, "status"))
    gw.receive(make_mail(ANN, SERVICE, "stav"))
    gw.work()
    english, czech = (raw_text_of(reply) for reply in _replies(transport, ANN))
    assert sum(game_id in english for game_id in made) == 3
    assert "and 2 more games of yours" in english
    assert "a 2 další vaše hry" in czech and "more games" not in czech
    transport.clear()
    gw.receive(make_mail(BOB, SERVICE, "status"))  # the positive control: all shown, nothing said of more
    monkeypatch.setattr(replies, "GAMES_SHOWN", 50)
    gw.work()
    assert "more games" not in raw_text_of(_replies(transport, BOB)[0])


def test_a_line_to_the_service_address_names_only_games_not_over(gw, transport):
    from pbem.cli.core import play_to_end

    over = gw.service.create("hidden-pig", [ANN, BOB], {"rounds": "1"})
    running = gw.service.create("hidden-pig", [ANN, BOB], {"rounds": "1"})
    play_to_end(gw.service, over, seed=3)
    gw.work()
    transport.clear()
    gw.receive(make_mail(ANN, SERVICE, "roll"))
    gw.work()
    text = raw_text_of(_replies(transport, ANN)[0])
    assert f"+{running}." in text and f"+{over}." not in text


def test_the_rows_of_a_players_games_on_either_store(settings):
    from pbem.cli.core import play_to_end
    from pbem.service.service import GameService

    service = GameService(settings)
    made = [service.create("hidden-pig", [ANN, BOB] if n % 2 else [BOB, CAROL], {"rounds": "1"}) for n in range(5)]
    play_to_end(service, made[1], seed=3)
    rows, total = service.summaries_of(ANN, 10)
    assert total == 2 and [row.id for row in rows] == [made[3], made[1]]  # not over first
    assert service.summaries_of(ANN, 1)[0][0].id == made[3] and service.summaries_of(ANN, 1)[1] == 2
    assert service.summaries_of("nobody@example.org", 10) == ([], 0)
    listed = service.summaries([made[4], made[1], "no-such-game", made[0]], ANN)
    assert [(row.id, mine) for row, mine in listed] == [(made[4], False), (made[1], True), (made[0], False)]
    assert rows[1].status == "finished" and rows[0].status == "waiting_join"
    service.close()


def test_a_move_brings_its_game_to_the_top_of_status(gw, transport, clock):
    from tests.mailgateway.conftest import started_pig

    first = started_pig(gw, transport, [ANN, BOB])
    clock.advance(minutes=1)
    second = started_pig(gw, transport, [ANN, BOB])
    assert [row.id for row in gw.service.summaries_of(ANN, 10)[0]] == [second, first]
    clock.advance(minutes=1)
    assert gw.service.submit(first, ANN, "hold").ok or gw.service.submit(first, ANN, "roll").ok
    assert [row.id for row in gw.service.summaries_of(ANN, 10)[0]] == [first, second]
