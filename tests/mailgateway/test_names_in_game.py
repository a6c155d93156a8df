"""A name given during a game (docs/mail.md "Names"): ``name`` / ``jméno`` / ``imię`` at a
private address is a ``named`` entry of the log; from then on mails, pages, feeds and the
export's public fields name the player so; bounded like every name."""

from __future__ import annotations

import pytest

from pbem.ledger.verify import verify_export
from pbem.web import create_app
from tests.mailgateway.conftest import address_of, make_mail, started_pig
from tests.mailgateway.playbook import text_of

ANN, BOB = "ann@example.net", "bob@example.com"


@pytest.fixture
def pig(gw, transport):
    return started_pig(gw, transport, [ANN, BOB])


def send(gw, game_id, player, body):
    gw.receive(make_mail(player, address_of(gw, game_id, player), body))
    gw.work()


def test_a_name_given_at_the_private_address_names_the_player_from_then_on(gw, transport, pig):
    send(gw, pig, BOB, "jméno Robert Novák")
    game = gw.service.game(pig)
    assert game.names == ["ann", "Robert Novák"]
    assert game.entry(game.version - 1)["kind"] == "named"
    assert "applied" in text_of(transport.to(BOB)[-1])
    send(gw, pig, ANN, "hold")  # Ann's turn: her reply tells her what happened since her last mail
    news = " ".join(text_of(transport.to(ANN)[-1]).split())
    assert "bob is now called Robert Novák." in news and "Robert Novák" in news.split("Since your last mail")[1]
    client = create_app(gw.service).test_client()
    for path in (f"/games/{pig}", f"/games/{pig}/history", f"/games/{pig}/feed.atom", "/"):
        assert "Robert Novák" in client.get(path).get_data(as_text=True), path
    document = gw.service.export(pig)
    assert verify_export(document).entries == len(document["entries"])  # raises when the log does not verify
    assert any(e["kind"] == "named" and e["name"] == "Robert Novák" for e in document["entries"])


def test_the_turn_number_does_not_advance_with_a_name(gw, transport, pig):
    before = gw.service.game(pig)
    send(gw, pig, BOB, "name Robert")
    after = gw.service.game(pig)
    assert after.version == before.version + 1 and after.turn_at() == before.turn_at()


@pytest.mark.parametrize(
    ("line", "refusal"),
    [
        ("imię ann", "ann is another player's name in this game."),
        ("name ANN", "ANN is another player's name in this game."),
        ("name <>@", "name YOUR NAME (letters and spaces; at most 40 characters)"),
    ],
)
def test_a_name_that_is_another_players_or_none_is_refused(gw, transport, pig, line, refusal):
    before = gw.service.game(pig).version
    send(gw, pig, BOB, line)
    assert refusal in " ".join(text_of(transport.to(BOB)[-1]).split())
    assert gw.service.game(pig).version == before and gw.service.game(pig).names == ["ann", "bob"]


def test_a_name_is_bounded_and_cleaned(gw, transport, pig):
    send(gw, pig, BOB, "name Bob\u202e " + "Long" * 30)
    name = gw.service.game(pig).names[1]
    assert len(name) <= 40 and "\u202e" not in name and name.startswith("Bob")
