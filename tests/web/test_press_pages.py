"""Press on the site: a table message is in the public history and feed; a private one is on
no public page or download, only on the private pages of its sender and recipients."""

from __future__ import annotations

import pytest

from pbem.config import Settings
from pbem.service.service import GameService
from pbem.web import create_app

ANN, BOB, CAROL = "ann@example.org", "bob@example.org", "carol@example.org"
SECRET_WORDS = "the heron flies at dawn 7731"
TABLE_WORDS = "good luck all, walrus 4410"


@pytest.fixture
def site(tmp_path):
    service = GameService(Settings(home=tmp_path))
    game_id = service.create("hidden-pig", [ANN, BOB, CAROL], {"rounds": "1"}, b"\x04" * 32)
    for email in (ANN, BOB, CAROL):
        service.join(game_id, email)
    assert service.say(game_id, ANN, ["bob"], SECRET_WORDS).ok
    assert service.say(game_id, CAROL, "all", TABLE_WORDS).ok
    yield service, game_id, create_app(service).test_client()
    service.close()


def _public_pages(service: GameService, game_id: str) -> list[str]:
    size = service.game(game_id).version
    return [
        "/",
        f"/games/{game_id}",
        f"/games/{game_id}/history",
        f"/games/{game_id}/feed.atom",
        f"/games/{game_id}/export.json",
        f"/games/{game_id}/checkpoints.json",
        *(f"/games/{game_id}/history/{turn}" for turn in range(1, size + 1)),
        *(f"/games/{game_id}/turn/{turn}" for turn in range(1, size + 1)),
        *(f"/games/{game_id}/proofs/inclusion/{index}.json" for index in range(size)),
    ]


def test_a_private_message_is_on_no_public_page_and_a_table_message_is(site):
    service, game_id, client = site
    seen = ""
    for url in _public_pages(service, game_id):
        response = client.get(url)
        assert response.status_code == 200, url
        seen += response.get_data(as_text=True)
    assert SECRET_WORDS not in seen
    assert TABLE_WORDS in client.get(f"/games/{game_id}/history").get_data(as_text=True)  # positive control
    assert TABLE_WORDS in client.get(f"/games/{game_id}/feed.atom").get_data(as_text=True)
    assert "ann wrote to bob (private)" in client.get(f"/games/{game_id}/history").get_data(as_text=True)


@pytest.mark.parametrize(("email", "reads"), [(ANN, True), (BOB, True), (CAROL, False)])
def test_only_the_parties_private_pages_show_a_private_message(site, email, reads):
    service, game_id, client = site
    game = service.game(game_id)
    token = service.seat_token(game_id, game.seat_of(email))
    page = client.get(f"/games/{game_id}/seat/{token}/history").get_data(as_text=True)
    assert (SECRET_WORDS in page) is reads
    assert TABLE_WORDS in page


def test_the_history_speaks_of_messages_in_the_pages_language(site):
    _, game_id, client = site
    page = client.get(f"/games/{game_id}/history?lang=cs").get_data(as_text=True)
    assert "carol všem: " + TABLE_WORDS in page and "zpráva" in page
    page = client.get(f"/games/{game_id}/history?lang=pl").get_data(as_text=True)
    assert "ann napisał(a) prywatną wiadomość do bob" in page
