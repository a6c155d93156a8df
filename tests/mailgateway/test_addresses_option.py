"""The creator's option ``addresses=shown`` (docs/mail.md "Names"): by default no player's
address is in another player's mail; with the option, each player's mail lists the others'."""

from __future__ import annotations

import pytest

from pbem.mailroom.commands import parse_new
from tests.mailgateway.conftest import SERVICE, address_of, joined_by_mail, make_mail
from tests.mailgateway.playbook import text_of

ANN, BOB = "ann@example.net", "bob@example.com"


def play_a_game_by_mail(gw, transport, options: str) -> str:
    """Ann creates a two-round Hidden Pig game by mail with ``options``; both join, and a few
    moves are played; every mail stays in ``transport``."""
    gw.receive(make_mail(ANN, SERVICE, f"new hidden-pig {ANN} {BOB} rounds=1 {options}".strip()))
    gw.work()
    (game_id,) = gw.service.game_ids()
    joined_by_mail(gw, game_id, [ANN, BOB])
    for _ in range(4):
        game = gw.service.game(game_id)
        if game.ended:
            break
        player = game.emails[game.spec.to_move(gw.service.state(game))[0]]
        gw.receive(make_mail(player, address_of(gw, game_id, player), "hold"))
        gw.work()
    return game_id


def raw_mails_to(transport, player: str) -> list[bytes]:
    return [raw for _, to, raw in transport.sent if to == player]


def test_no_address_of_a_player_appears_in_another_players_mail_by_default(gw, transport):
    play_a_game_by_mail(gw, transport, "")
    to_ann = raw_mails_to(transport, ANN)
    to_bob = [m for m in transport.to(BOB) if m["X-Pbem-Kind"] != "invitation"]
    assert len(to_ann) >= 3 and len(to_bob) >= 3
    # an invitation to a game created by mail names its creator (docs/mail.md "Names"); nothing else does
    assert not [m for m in to_bob if ANN in m.as_string()]
    assert not [raw for raw in to_ann if BOB.encode() in raw]


def test_addresses_shown_lists_the_other_players_addresses_in_each_players_mail(gw, transport):
    """The positive control of the test above: the same game, with the creator's option."""
    play_a_game_by_mail(gw, transport, "addresses=shown")
    to_bob = [m for m in transport.to(BOB) if m["X-Pbem-Kind"] not in ("invitation", None)]
    to_ann = [m for m in transport.to(ANN) if m["X-Pbem-Kind"] == "turn" or m["X-Pbem-Kind"] == "reply"]
    assert any(f"ann <{ANN}>" in " ".join(text_of(m).split()) for m in to_bob)
    assert any(f"bob <{BOB}>" in " ".join(text_of(m).split()) for m in to_ann)
    assert not any(f"ann <{ANN}>" in text_of(m) for m in to_ann)  # one's own is not listed


@pytest.mark.parametrize(
    ("value", "stored"), [("shown", "shown"), ("hidden", "hidden"), ("on", "shown"), ("off", "hidden")]
)
def test_the_addresses_option_is_read_at_new(value, stored):
    assert parse_new(("hidden-pig", ANN, BOB, f"addresses={value}")).mail_options == {"addresses": stored}


def test_another_addresses_value_is_refused_at_new():
    with pytest.raises(ValueError, match="addresses is shown or hidden"):
        parse_new(("hidden-pig", ANN, BOB, "addresses=everyone"))


def test_the_catalog_names_the_addresses_option(gw, transport):
    gw.receive(make_mail(ANN, SERVICE, "catalog"))
    gw.work()
    assert "addresses=hidden [hidden | shown]" in text_of(transport.to(ANN)[-1])
