"""Issue 28, item 4: a player whose mail keeps bouncing is told through the game's web page too,
by her name (never her address), in the reader's language: the public page and every other
seat's private page name her, her own private page tells her to write. The web reads the marks
through their read port (``pbem.mailroom.marks``), and a kept page is built again when a mark is
set or lifted, though neither moves the event store."""

from __future__ import annotations

from pbem.web import create_app
from tests.mailgateway.conftest import SERVICE, address_of, make_mail, started_pig

ANN, BOB = "ann@example.net", "bob@example.com"
OTHERS = "Mail to ann keeps coming back undelivered"
YOURS = "Mail to you keeps coming back undelivered"


def _text(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return " ".join(response.get_data(as_text=True).split())


def test_the_game_page_names_a_player_whose_mail_bounces(gw, transport, clock):
    game_id = started_pig(gw, transport, [ANN, BOB])
    client = create_app(gw.service).test_client()
    page, mine, theirs = (
        f"/games/{game_id}",
        f"/games/{game_id}/seat/{gw.service.seat_token(game_id, 0)}",
        f"/games/{game_id}/seat/{gw.service.seat_token(game_id, 1)}",
    )
    for _ in range(3):  # three mails to ann, to bounce below
        gw.receive(make_mail(ANN, SERVICE, "help"))
    gw.work()
    for _ in range(2):  # kept (the second answered from memory), without a notice: the positive control
        assert OTHERS not in _text(client, page) and YOURS not in _text(client, mine)
    for key, to, _ in transport.sent:  # they bounce for good: the mark moves no event store position
        if to == ANN:
            gw.mailroom.views.bounced(gw.mailroom.views.get(key).return_tag, clock(), True)
    assert gw.mailroom.views.undeliverable(ANN)
    public = _text(client, page)
    assert OTHERS in public and "ann@" not in public, "her name, never her address"
    assert YOURS in _text(client, mine) and OTHERS not in _text(client, mine)
    assert OTHERS in _text(client, theirs) and YOURS not in _text(client, theirs)
    assert "Pošta pro hráče ann se stále vrací nedoručená" in _text(client, page + "?lang=cs")
    assert "Wiadomości do: ann wciąż wracają niedoręczone" in _text(client, page + "?lang=pl")
    assert "Pošta pro vás se stále vrací nedoručená" in _text(client, mine + "?lang=cs")
    to = address_of(gw, game_id, ANN)  # she writes from her seat's address: her mail works again
    gw.receive(make_mail(ANN, to, "status"))
    gw.work()
    assert not gw.mailroom.views.undeliverable(ANN)
    assert OTHERS not in _text(client, page) and YOURS not in _text(client, mine)
