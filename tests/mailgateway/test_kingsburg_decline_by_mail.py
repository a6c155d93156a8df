"""Declining an advisor's help by a real mail (through the gateway: parsing, the sender's
token, the desk): the history says the player declined, and so does the mail that answers."""

from __future__ import annotations

from pbem.games.kingsburg import rules
from tests.games.kingsburg.test_decline_through_service import PLAYERS, _to_a_fixed_gift, _to_an_asked_gift

from .conftest import address_of, make_mail, text_of


def _started(gw) -> str:
    game_id = gw.service.create("kingsburg", PLAYERS, seed=bytes(32))
    for email in PLAYERS:
        gw.service.join(game_id, email)
    return game_id


def _mail(gw, transport, game_id: str, email: str, body: str) -> str:
    transport.clear()
    gw.receive(make_mail(email, address_of(gw, game_id, email), body))
    gw.work()
    return "\n".join(text_of(m) for m in transport.to(email))


def test_a_fixed_gift_declined_by_mail_is_declined_in_the_history(gw, transport):
    game_id = _started(gw)
    seat, move = _to_a_fixed_gift(gw.service, game_id)
    game = gw.service.game(game_id)
    command = game.spec.format_move(move)
    _mail(gw, transport, game_id, game.emails[seat], command)
    rows = gw.service.history(game_id)
    assert [row["entry"]["source"] for row in rows if row["entry"].get("command") == command] == ["email"]
    while gw.service.state(gw.service.game(game_id)).step == "influence":  # the others pass
        game = gw.service.game(game_id)
        waiting = game.spec.to_move(gw.service.state(game))[0]
        assert gw.service.submit(game_id, game.emails[waiting], ["pass"], "cli").ok
    lines = [line for row in gw.service.history(game_id) for line in row["lines"]]
    helper = rules.ADVISORS[move.advisor].name
    assert f"{game.names[seat]} declines the help of the {helper}." in lines


def test_an_asked_gift_declined_by_mail_is_declined_in_the_history_and_the_reply(gw, transport):
    game_id = _started(gw)
    seat = _to_an_asked_gift(gw.service, game_id)
    game = gw.service.game(game_id)
    state = gw.service.state(game)
    advisor = next(a for a, s, _stated in state.gifts if s == seat)
    reply = _mail(gw, transport, game_id, game.emails[seat], "take nothing")
    rows = gw.service.history(game_id)
    assert (rows[-1]["entry"]["command"], rows[-1]["entry"]["source"]) == ("take nothing", "email")
    line = f"{game.names[seat]} declines the help of the {rules.ADVISORS[advisor].name}."
    assert line in rows[-1]["lines"]
    assert line in reply
