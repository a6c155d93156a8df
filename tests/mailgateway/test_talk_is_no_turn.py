"""Talk is no turn: press and notes are entries of the signed log, but the turn number players
see (mails, pages, the games list) counts only play, so a message never advances it."""

from __future__ import annotations

import re

from pbem.service.service import GameService
from pbem.web import create_app
from tests.mailgateway.conftest import address_of, make_mail
from tests.mailgateway.conftest import text_of as raw_text_of

ANN, BOB, CAROL = "ann@example.org", "bob@example.org", "carol@example.org"


def _game(service: GameService, seed: bytes = b"\x05" * 32) -> str:
    game_id = service.create("hidden-pig", [ANN, BOB, CAROL], {"rounds": "2"}, seed)
    for email in (ANN, BOB, CAROL):
        service.join(game_id, email)
    return game_id


def _talk(service: GameService, game_id: str) -> None:
    assert service.say(game_id, ANN, ["bob"], "psst").ok
    assert service.say(game_id, BOB, "all", "hello all").ok
    assert service.note(game_id, CAROL, "remember the pig", sealed=False).ok


def test_talk_does_not_advance_the_turn_number(service):
    game_id = _game(service)
    before = service.game(game_id)
    _talk(service, game_id)
    after = service.game(game_id)
    assert after.version == before.version + 3  # the talk is in the log ...
    assert after.turn_at() == before.turn_at() == before.version  # ... and no turn
    assert [after.turn_at(v) for v in range(before.version, after.version + 1)] == [before.version] * 4


def test_the_games_list_counts_turns_without_talk(service):
    game_id = _game(service)
    turn = service.game(game_id).turn_at()
    _talk(service, game_id)
    app = create_app(service)
    follower = app.extensions["pbem.summaries"]
    (row,) = [r for r in follower.list_games(None, None).rows if r.id == game_id]
    assert row.turn == turn


def test_the_turn_page_and_history_show_the_turn_without_talk(service):
    game_id = _game(service)
    turn = service.game(game_id).turn_at()
    _talk(service, game_id)
    version = service.game(game_id).version
    client = create_app(service).test_client()
    page = client.get(f"/games/{game_id}/turn/{version}").get_data(as_text=True)
    assert f"State after turn {turn}:" in page
    assert f"State after turn {version}:" not in page  # the control: the log's size is more
    history = client.get(f"/games/{game_id}/history").get_data(as_text=True)
    assert f"<strong>Turn {turn}</strong>" in history
    assert f"<strong>Turn {version}</strong>" not in history


def test_a_turn_mail_after_talk_names_the_same_turn_as_without_it(gw, transport):
    quiet, chatty = _game(gw.service, b"\x06" * 32), _game(gw.service, b"\x06" * 32)
    _talk(gw.service, chatty)
    gw.work()
    transport.clear()
    headings = []
    for game_id in (quiet, chatty):
        gw.receive(make_mail(ANN, address_of(gw, game_id, ANN), "hold"))
        gw.work()
        (reply,) = [m for m in transport.to(ANN) if m["X-Pbem-Kind"] == "reply"]
        transport.clear()
        headings += re.findall(rf"game {game_id}, turn (\d+)", raw_text_of(reply))
    quiet_turn, chatty_turn = headings
    assert quiet_turn == chatty_turn
    assert int(chatty_turn) != gw.service.game(chatty).version  # the control: the log counts the talk
