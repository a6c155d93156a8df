"""Issue 28, item 4: a player whose mail keeps bouncing is told through the game's web page too,
by her name (never her address), in the reader's language: the public page and every other
seat's private page name her, her own private page tells her to write. The web reads the marks
through their read port (``pbem.mailroom.marks``), and a kept page is built again when a mark is
set or lifted, though neither moves the event store. Over real SMTP: the gateway sends through
a relay, the bounces come back to its own SMTP server with a null envelope sender."""

from __future__ import annotations

from dataclasses import replace

import pytest

from mailgateway.gateway import Gateway
from pbem.web import create_app
from tests.mailgateway.conftest import SERVICE, address_of, make_mail, send_smtp, serving

ANN, BOB = "ann@example.net", "bob@example.com"
OTHERS = "Mail to ann keeps coming back undelivered"
YOURS = "Mail to you keeps coming back undelivered"


def _text(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return " ".join(response.get_data(as_text=True).split())


@pytest.fixture
def verp_gw(service, mail_settings, clock, sink):
    """A gateway sending through the relay with VERP return paths, as PBEM_SMTP_RELAY makes it."""
    return Gateway(service, replace(mail_settings, relay=("127.0.0.1", sink.port)), clock=clock)


@pytest.fixture
def verp_server(verp_gw):
    with serving(verp_gw) as port:
        yield port


def test_the_game_page_names_a_player_whose_mail_bounces(verp_gw, verp_server, sink):
    gw, smtp_server = verp_gw, verp_server
    game_id = gw.service.create("hidden-pig", [ANN, BOB], {"rounds": "2"}, seed=b"\x01" * 32)
    for player in (ANN, BOB):
        gw.service.join(game_id, player)
    gw.work()
    client = create_app(gw.service).test_client()
    page, mine, theirs = (
        f"/games/{game_id}",
        f"/games/{game_id}/seat/{gw.service.seat_token(game_id, 0)}",
        f"/games/{game_id}/seat/{gw.service.seat_token(game_id, 1)}",
    )
    for number in range(3):  # three answers to ann, to bounce below
        help_mail = make_mail(ANN, SERVICE, "help", message_id=f"<h{number}@example.net>")
        assert send_smtp(smtp_server, help_mail, ANN, SERVICE) == 250
    gw.work()
    for _ in range(2):  # kept (the second answered from memory), without a notice: the positive control
        assert OTHERS not in _text(client, page) and YOURS not in _text(client, mine)
    to_ann = [envelope.mail_from for envelope in sink.envelopes if envelope.rcpt_tos == [ANN]]
    assert len(set(to_ann)) >= 3, "three mails to ann went through the relay"
    for number, path in enumerate(sorted(set(to_ann))[:3]):  # they bounce: no save, no new position
        bounce = make_mail(
            "MAILER-DAEMON@mx.example.com", path, "Delivery failed", message_id=f"<b{number}@mx.example.com>"
        )
        assert send_smtp(smtp_server, bounce, "", path) == 250
    assert gw.mailroom.views.undeliverable(ANN)
    public = _text(client, page)
    assert OTHERS in public and "ann@" not in public, "her name, never her address"
    assert YOURS in _text(client, mine) and OTHERS not in _text(client, mine)
    assert OTHERS in _text(client, theirs) and YOURS not in _text(client, theirs)
    assert "Pošta pro hráče ann se stále vrací nedoručená" in _text(client, page + "?lang=cs")
    assert "Wiadomości do: ann wciąż wracają niedoręczone" in _text(client, page + "?lang=pl")
    assert "Pošta pro vás se stále vrací nedoručená" in _text(client, mine + "?lang=cs")
    to = address_of(gw, game_id, ANN)  # she writes from her seat's address: her mail works again
    assert send_smtp(smtp_server, make_mail(ANN, to, "status"), ANN, to) == 250
    gw.work()
    assert not gw.mailroom.views.undeliverable(ANN)
    assert OTHERS not in _text(client, page) and YOURS not in _text(client, mine)
