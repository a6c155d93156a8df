"""A frozen game (its stored record does not match its signed history, ``pbem.service.reading``)
is read-only with a clear message on every page: its pages show it, and a game that cannot
even be read answers a page saying so, never an error 500; the games list still works."""

from __future__ import annotations

import sqlite3

import pytest

from pbem.web import create_app
from tests.service.test_self_check import edit_event, fresh, played, snapshotted

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")

NOTICE = "This game is frozen."
PAGES = ["", "/turn/2", "/history", "/history?page=1", "/history/3"]


def site(service):
    app = create_app(service)
    app.testing = False  # an exception is an error 500, as a visitor would get it
    return app.test_client()


def test_every_page_of_a_frozen_game_says_so(tmp_path):
    service, game_id = played(tmp_path)
    service.close()
    with sqlite3.connect(tmp_path / "pbem.sqlite") as db:  # the newest move edited behind the server's back
        rowid, state = db.execute(
            "SELECT rowid, state FROM stored_events WHERE instr(state, ?) > 0", (b'"hold"',)
        ).fetchall()[-1]
        db.execute(
            "UPDATE stored_events SET state = ? WHERE rowid = ?", (bytes(state).replace(b'"hold"', b'"roll"', 1), rowid)
        )
    again = fresh(tmp_path)
    client = site(again)
    token = again.seat_token(game_id, 0)
    for path in [*PAGES, *(f"/seat/{token}{page}" for page in PAGES)]:
        response = client.get(f"/games/{game_id}{path}")
        assert response.status_code == 200, path
        page = response.get_data(as_text=True)
        assert NOTICE in page and "newest signed checkpoint" in page, path
    assert client.get("/").status_code == 200


def test_a_sound_game_has_no_frozen_notice(tmp_path):
    service, game_id = played(tmp_path)
    client = site(service)
    for path in PAGES:
        assert NOTICE not in client.get(f"/games/{game_id}{path}").get_data(as_text=True)
    service.close()


def test_a_game_found_frozen_by_reading_its_log_says_so_on_the_next_request(tmp_path):
    service, game_id = snapshotted(tmp_path, moves=6)
    service.close()
    edit_event(tmp_path, b'"hold"', b'"hold"', b'"roll"', newest=False)  # behind the newest snapshot
    client = site(fresh(tmp_path))
    assert NOTICE not in client.get(f"/games/{game_id}").get_data(as_text=True)  # the load checks the newest part
    assert NOTICE in client.get(f"/games/{game_id}/history").get_data(as_text=True)  # the whole log is read
    assert NOTICE in client.get(f"/games/{game_id}").get_data(as_text=True)


def test_a_frozen_game_that_cannot_be_read_answers_a_page_saying_so(tmp_path):
    service, game_id = snapshotted(tmp_path, moves=7, interval=4)
    _, sound = played(tmp_path)
    service.close()
    with sqlite3.connect(tmp_path / "pbem.sqlite") as db:
        db.execute(
            "DELETE FROM stored_events WHERE originator_version = 9 AND topic LIKE '%GameRecord.Appended'"
            " AND originator_id IN (SELECT originator_id FROM stored_events WHERE instr(state, ?) > 0)",
            (game_id.encode(),),
        )
    again = fresh(tmp_path)
    client = site(again)
    token = again.seat_token(game_id, 0)
    for path in [*PAGES, "/export.json", "/feed.atom", f"/seat/{token}"]:
        response = client.get(f"/games/{game_id}{path}")
        assert response.status_code == 503, path
        assert NOTICE in response.get_data(as_text=True) and "event 9 is missing" in response.get_data(as_text=True)
        assert response.headers["Cache-Control"] == "no-store"
    listing = client.get("/")
    assert listing.status_code == 200 and sound in listing.get_data(as_text=True)
    assert client.get(f"/games/{sound}").status_code == 200
