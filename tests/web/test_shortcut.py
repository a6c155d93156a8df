"""A repeated request for a public kept page is answered before Flask runs (``pbem.web.shortcut``),
with exactly the response Flask gave, and only while nothing it depends on has changed: the
store's position, the request's language, method and conditions, the frozen games."""

from __future__ import annotations

import pytest
from werkzeug.test import Client

from pbem.cli.core import play_moves
from pbem.games import catalog
from pbem.web.shortcut import Shortcut
from tests.web.conftest import players


def answered(app) -> int:
    return app.extensions["pbem.shortcut"].answered


PUBLIC = ["", "/turn/2", "/history", "/history?page=1", "/history/2", "/board.svg", "/feed.atom", "/export.json"]


@pytest.mark.parametrize("path", PUBLIC)
def test_a_repeated_public_page_is_answered_from_memory_as_flask_answered_it(small_site, path):
    _, game_id, app = small_site
    client = app.test_client()
    first = client.get(f"/games/{game_id}{path}")
    assert first.status_code == 200
    before = answered(app)
    again = client.get(f"/games/{game_id}{path}")
    assert answered(app) == before + 1
    assert again.status_code == 200 and again.data == first.data
    assert sorted(again.headers.items()) == sorted(first.headers.items())


def test_the_games_list_is_answered_from_memory_and_a_new_game_shows_at_once(small_site):
    service, _, app = small_site
    client = app.test_client()
    first = client.get("/")
    before = answered(app)
    assert client.get("/").data == first.data and answered(app) == before + 1
    spec = catalog()["kingsburg"]
    newer = service.create(spec.name, players(spec))
    assert newer in client.get("/").get_data(as_text=True) and answered(app) == before + 1


@pytest.mark.parametrize("path", ["", "/turn/2", "/history", "/history/2", "/board.svg", "/export.json"])
def test_a_move_is_shown_on_the_very_next_request(small_site, path):
    service, game_id, app = small_site
    client = app.test_client()
    url = f"/games/{game_id}{path}"
    client.get(url)
    first = client.get(url)
    version = service.game(game_id).version
    play_moves(service, game_id, seed=5, max_moves=1)
    assert service.game(game_id).version == version + 1
    before = answered(app)
    after = client.get(url)
    assert answered(app) == before  # the store moved: Flask answered
    if path in ("", "/history", "/export.json"):
        assert after.headers["ETag"] != first.headers["ETag"]


def test_a_list_view_that_lags_behind_the_store_is_never_answered_from_memory(small_site):
    """The list's view catches up one batch a request: an answer from a view behind the store
    must not be kept for the store's position (the next request shows what it caught up)."""
    service, _, app = small_site
    app.extensions["pbem.summaries"].batch = 1  # one event projected a request
    client = app.test_client()
    client.get("/")
    spec = catalog()["kingsburg"]
    made = [service.create(spec.name, players(spec)) for _ in range(3)]
    shown = []
    for _ in range(8):
        before = answered(app)
        page = client.get("/").get_data(as_text=True)
        shown.append(sum(game in page for game in made))
        if shown[-1] < len(made):
            assert answered(app) == before
    assert shown[-1] == len(made) and shown[0] < len(made)


def test_private_pages_are_never_kept_nor_answered_from_memory(small_site):
    service, game_id, app = small_site
    client = app.test_client()
    token = service.seat_token(game_id, 0)
    shortcut: Shortcut = app.extensions["pbem.shortcut"]
    for path in ("", "/history", "/turn/2", "/history/2", "/board.svg"):
        for _ in range(2):
            assert client.get(f"/games/{game_id}/seat/{token}{path}").status_code == 200
    assert shortcut.answered == 0 and not shortcut._kept
    assert all(token not in str(key) for key in shortcut._kept)


def test_the_language_of_the_request_chooses_the_answer(small_site):
    _, game_id, app = small_site
    client = app.test_client()
    url = f"/games/{game_id}/history"
    english = client.get(url, headers={"Accept-Language": "en"}).get_data(as_text=True)
    czech = client.get(url, headers={"Accept-Language": "cs"}).get_data(as_text=True)
    assert '<html lang="en">' in english and '<html lang="cs">' in czech
    assert client.get(url, headers={"Accept-Language": "en"}).get_data(as_text=True) == english
    assert '<html lang="pl">' in client.get(f"{url}?lang=pl", headers={"Accept-Language": "en"}).get_data(as_text=True)


LONG_AGO = "Mon, 01 Jan 2001 00:00:00 GMT"


def revalidations(page) -> list[dict[str, str]]:
    """What browsers send to revalidate ``page``, current and not."""
    etag, modified = page.headers["ETag"], page.headers["Last-Modified"]
    return [
        {"If-None-Match": etag},
        {"If-None-Match": f"W/{etag}"},
        {"If-None-Match": '"other", ' + etag},
        {"If-None-Match": '"other"'},
        {"If-None-Match": "*"},
        {"If-Modified-Since": modified},
        {"If-Modified-Since": LONG_AGO},
        {"If-None-Match": '"other"', "If-Modified-Since": modified},
        {"If-None-Match": etag, "If-Modified-Since": LONG_AGO},
    ]


def without_date(headers) -> list[tuple[str, str]]:
    return sorted((name, value) for name, value in headers.items() if name != "Date")


@pytest.mark.parametrize("path", ["", "/history", "/export.json"])
def test_a_revalidation_is_answered_from_memory_exactly_as_flask_answers_it(small_site, path):
    _, game_id, app = small_site
    client = app.test_client()
    flask_alone = Client(app.extensions["pbem.shortcut"].app)  # the app behind the shortcut
    url = f"/games/{game_id}{path}"
    page = client.get(url)
    client.get(url)
    statuses = set()
    for method in ("GET", "HEAD"):
        client.open(url, method=method)
        for headers in revalidations(page):
            before = answered(app)
            mine = client.open(url, method=method, headers=headers)
            theirs = flask_alone.open(url, method=method, headers=headers)
            assert answered(app) == before + 1, headers
            assert (mine.status, mine.data) == (theirs.status, theirs.data), headers
            assert without_date(mine.headers) == without_date(theirs.headers), headers
            assert "Date" in mine.headers
            statuses.add(mine.status_code)
    assert statuses == {200, 304}


def test_other_conditional_requests_are_answered_by_flask(small_site):
    _, game_id, app = small_site
    client = app.test_client()
    url = f"/games/{game_id}"
    first = client.get(url)
    client.get(url)
    before = answered(app)
    assert client.get(url, headers={"If-Match": '"other"'}).status_code == 412
    assert client.get(url, headers={"If-Match": first.headers["ETag"]}).data == first.data
    assert client.get(url, headers={"If-Unmodified-Since": LONG_AGO}).data == first.data
    assert client.get(url, headers={"Range": "bytes=0-9"}).status_code == 200
    assert answered(app) == before


def test_a_head_request_gets_the_headers_without_the_body(small_site):
    _, game_id, app = small_site
    client = app.test_client()
    url = f"/games/{game_id}/history"
    page = client.get(url)
    client.get(url)
    for _ in range(2):
        head = client.head(url)
        assert head.status_code == 200 and not head.data
        assert head.headers["ETag"] == page.headers["ETag"]
        assert head.headers["Content-Length"] == str(len(page.data))
    assert client.get(url).data == page.data


def test_a_game_found_frozen_is_not_answered_from_before(small_site):
    service, game_id, app = small_site
    client = app.test_client()
    url = f"/games/{game_id}"
    client.get(url)
    client.get(url)
    before = answered(app)
    service.frozen[game_id] = "a test says so"  # as reading its log would, without a save
    service.game(game_id)  # (the site's copy is reloaded only when the store moves)
    client.get(url)
    assert answered(app) == before


def test_missing_pages_and_errors_are_not_kept(small_site):
    _, game_id, app = small_site
    client = app.test_client()
    shortcut: Shortcut = app.extensions["pbem.shortcut"]
    for url in ("/games/no-such-game", f"/games/{game_id}/turn/999", "/?page=99", "/?status=odd"):
        for _ in range(2):
            assert client.get(url).status_code in (400, 404)
    assert shortcut.answered == 0 and not shortcut._kept


def test_the_kept_answers_stay_within_their_byte_budget():
    calls = []

    def app(environ, start_response):
        calls.append(environ["PATH_INFO"])
        environ["pbem.keep"] = True
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"x" * 100]

    # room for two answers: each is counted with its path (8 characters), method (3) and language (2)
    shortcut = Shortcut(app, lambda: 1, lambda: 0, budget=2 * (100 + 8 + 3 + 2 + Shortcut.OVERHEAD))

    def get(path: str) -> bytes:
        return b"".join(shortcut({"REQUEST_METHOD": "GET", "PATH_INFO": path}, lambda status, headers: None))

    for path in ("/games/a", "/games/b", "/games/a", "/games/c", "/games/a", "/games/b"):
        assert get(path) == b"x" * 100
    assert calls == ["/games/a", "/games/b", "/games/c", "/games/b"]  # b was the least recently used
    assert shortcut.size == shortcut.budget
    get("/games/" + "x" * 200)  # a longer address: it takes the room of both others
    assert len(shortcut._kept) == 1 and shortcut.size <= shortcut.budget


def test_the_feed_names_the_published_address_whatever_host_it_was_asked_at(small_site):
    service, game_id, app = small_site
    client = app.test_client()
    for host in ("games.example.org", "other.example.net", "games.example.org"):
        feed = client.get(f"/games/{game_id}/feed.atom", base_url=f"https://{host}").get_data(as_text=True)
        assert f"{service.settings.base_url}/games/{game_id}" in feed
        assert "example.net" not in feed and "example.org" not in feed


def test_requests_whose_headers_choose_one_language_share_a_kept_page(small_site):
    _, game_id, app = small_site
    client = app.test_client()
    url = f"/games/{game_id}/history"
    czech = client.get(url, headers={"Accept-Language": "cs"}).get_data(as_text=True)
    before = answered(app)
    for header in ("cs-CZ,cs;q=0.9,en;q=0.8", "cs-CZ", "de, cs;q=0.5"):
        assert client.get(url, headers={"Accept-Language": header}).get_data(as_text=True) == czech
    assert answered(app) == before + 3
    polish = client.get(url, headers={"Accept-Language": "pl, cs;q=0.5"}).get_data(as_text=True)
    assert answered(app) == before + 3 and '<html lang="pl">' in polish  # the control: another language
    english = client.get(url, headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert '<html lang="en">' in english and answered(app) == before + 3  # none of the site's: English
    assert client.get(url).get_data(as_text=True) == english and answered(app) == before + 4
