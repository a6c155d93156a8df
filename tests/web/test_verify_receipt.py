"""The /verify page checks an uploaded receipt against the server's keys; it is the site's one
POST, bounded in size, and it changes nothing in the store."""

from __future__ import annotations

import copy
import io
import json

import pytest

from pbem.web.checks import RECEIPT_MAX_BYTES
from tests.web.htmlcheck import html_errors


def upload(client, data: bytes, name: str = "receipt.json", **kwargs):
    return client.post(
        "/verify", data={"receipt": (io.BytesIO(data), name)}, content_type="multipart/form-data", **kwargs
    )


@pytest.fixture
def receipt(small_site):
    service, game_id, _ = small_site
    game = service.game(game_id)
    return service.receipt(game_id, game.version - 1, game.version, viewer=service.game(game_id).emails[0])


def test_the_verify_page_offers_the_upload(small_site):
    _, _, app = small_site
    body = app.test_client().get("/verify").get_data(as_text=True)
    assert 'enctype="multipart/form-data"' in body and 'name="receipt"' in body
    assert not html_errors(body)


def test_a_valid_receipt_is_reported_valid_and_nothing_changes(small_site, receipt):
    service, game_id, app = small_site
    before = (service.game(game_id).version, service.position())
    response = upload(app.test_client(), json.dumps(receipt).encode())
    body = response.get_data(as_text=True)
    assert response.status_code == 200 and not html_errors(body)
    assert f"Valid: this receipt proves turn {receipt['index'] + 1} of game" in body
    assert response.headers["Cache-Control"] == "private, no-store"
    assert (service.game(game_id).version, service.position()) == before


def test_a_tampered_receipt_is_reported_invalid(small_site, receipt):
    _, _, app = small_site
    tampered = copy.deepcopy(receipt)
    tampered["entry"]["time"] = "2000-01-01T00:00:00+00:00"
    body = upload(app.test_client(), json.dumps(tampered).encode()).get_data(as_text=True)
    assert "This is not a valid receipt of this server." in body and "Valid:" not in body


def test_a_receipt_signed_by_another_key_is_not_valid_here(small_site, receipt, tmp_path):
    from pbem.config import Settings
    from pbem.service.service import GameService
    from pbem.web import create_app

    other = GameService(Settings(home=tmp_path / "other"))
    try:
        body = upload(create_app(other).test_client(), json.dumps(receipt).encode()).get_data(as_text=True)
    finally:
        other.close()
    assert "This is not a valid receipt of this server." in body


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"not json", "This is not a valid receipt of this server."),
        (b"[1, 2]", "This is not a valid receipt of this server."),
        (b"[" * 100_000 + b"]" * 100_000, "This is not a valid receipt of this server."),
        (b"{" + b" " * (RECEIPT_MAX_BYTES + 1) + b"}", "larger than any receipt"),
    ],
)
def test_anything_else_gets_an_answer_not_an_error(small_site, data, said):
    _, _, app = small_site
    response = upload(app.test_client(), data)
    assert response.status_code == 200 and said in response.get_data(as_text=True)


def test_no_file_is_asked_for(small_site):
    _, _, app = small_site
    response = app.test_client().post("/verify", data={}, content_type="multipart/form-data")
    assert "Choose a receipt file" in response.get_data(as_text=True)


def test_a_body_far_over_the_bound_is_refused_unread(small_site):
    _, _, app = small_site
    # over the bound with the form around it, below what the test client itself spools to a file
    response = upload(app.test_client(), b"x" * (RECEIPT_MAX_BYTES + 100_000))
    assert response.status_code == 413


def test_other_posts_stay_405(small_site):
    _, game_id, app = small_site
    assert app.test_client().post(f"/games/{game_id}", data={"x": "1"}).status_code == 405
    assert app.test_client().post("/keys", data={"x": "1"}).status_code == 405


def test_a_receipt_of_several_entries_is_reported_with_every_turn_and_fails_by_any(small_site):
    """A mail's receipt proves every entry the mail made (docs/verification.md)."""
    service, game_id, app = small_site
    game = service.game(game_id)
    last = game.version - 1
    several = service.receipt(game_id, last - 2, game.version, also=[last - 1, last])
    body = upload(app.test_client(), json.dumps(several).encode()).get_data(as_text=True)
    assert f"Valid: this receipt proves turns {last - 1}, {last}, {last + 1} of game" in body
    several["more"][1]["entry"]["time"] = "2000-01-01T00:00:00+00:00"
    body = upload(app.test_client(), json.dumps(several).encode()).get_data(as_text=True)
    assert "This is not a valid receipt of this server." in body and "entry 3 of the receipt" in body


def test_the_verify_page_names_the_turn_as_the_mails_do(small_site):
    """A message advances no turn, so after talk the entry's place in the log is not its turn:
    the page said "turn 6" for the move that the mail and the history page call turn 5. It
    numbers turns as they do (``LoadedGame.turn_of``)."""
    from pbem.cli.core import play_moves

    service, game_id, app = small_site
    game = service.game(game_id)
    assert service.say(game_id, game.emails[0], "all", "good luck").ok
    play_moves(service, game_id, seed=5, max_moves=1)
    game = service.game(game_id)
    assert game.entry(game.version - 1)["kind"] == "moved" and game.turn_at() == game.version - 1
    receipt = service.receipt(game_id, game.version - 1, game.version, viewer=game.emails[0])
    body = upload(app.test_client(), json.dumps(receipt).encode()).get_data(as_text=True)
    assert f"Valid: this receipt proves turn {game.turn_at()} of game" in body, body
