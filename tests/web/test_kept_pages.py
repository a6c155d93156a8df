"""Rendered pages are kept per game version (and the list per position of its view): each is
rendered once, and a move or a new game shows on the very next request."""

from __future__ import annotations

import pytest

from pbem.cli.core import play_moves
from pbem.games import catalog
from tests.web.conftest import players


def get(client, url: str, status: int = 200):
    response = client.get(url)
    assert response.status_code == status, (url, response.status_code)
    return response


def built(app) -> int:
    return app.extensions["pbem.pages"].built


@pytest.mark.parametrize(
    "path", ["", "/turn/2", "/history", "/history/2", "/board.svg", "/turn/5/board.svg", "/feed.atom"]
)
def test_a_page_is_rendered_once_per_version_and_a_move_shows_at_once(small_site, path):
    service, game_id, app = small_site
    client = app.test_client()
    url = f"/games/{game_id}{path}"
    first = get(client, url)
    before = built(app)
    again = get(client, url)
    assert built(app) == before and again.data == first.data and again.headers["ETag"] == first.headers["ETag"]
    version = service.game(game_id).version
    play_moves(service, game_id, seed=5, max_moves=1)
    assert service.game(game_id).version == version + 1
    after = get(client, url)
    if path == "/turn/5/board.svg":  # a past turn's picture stays as it was: kept across versions
        assert built(app) == before and after.data == first.data
    else:
        assert built(app) > before  # rendered again for the new version
    shown = {"": f"<dd>{version + 1}</dd>", "/history": f'/history/{version + 1}"'}
    if path in shown:
        assert shown[path] in after.get_data(as_text=True) and after.headers["ETag"] != first.headers["ETag"]


def test_the_list_shows_a_new_game_at_once(small_site):
    service, game_id, app = small_site
    client = app.test_client()
    assert game_id in get(client, "/").get_data(as_text=True)
    before = built(app)
    get(client, "/")
    assert built(app) == before  # nothing new in the store: the kept page
    spec = catalog()["kingsburg"]
    newer = service.create(spec.name, players(spec))
    assert newer in get(client, "/").get_data(as_text=True)


def test_a_kept_page_holds_nothing_but_its_own_arguments(small_site):
    """What a request adds to a page's address must not reach the page kept for everyone."""
    _, game_id, app = small_site
    client = app.test_client()
    odd = get(client, f"/games/{game_id}/history?since=1&ref=%3Cb%3Espam").get_data(as_text=True)
    assert "spam" not in odd and "ref=%3C" not in odd and "&amp;ref" not in odd
    assert f"/games/{game_id}/history?since=1&amp;lang=cs" in odd  # the language switch keeps ?since
    plain = get(client, f"/games/{game_id}/history?since=1")
    assert plain.get_data(as_text=True) == odd
    czech = get(client, f"/games/{game_id}/history?since=1&lang=cs").get_data(as_text=True)
    assert czech != odd and '<html lang="cs">' in czech


def test_private_pages_are_never_kept(small_site):
    service, game_id, app = small_site
    client = app.test_client()
    token = service.seat_token(game_id, 0)
    before = built(app)
    for path in ("", "/history", "/turn/2", "/history/2", "/board.svg"):
        get(client, f"/games/{game_id}/seat/{token}{path}")
    assert built(app) == before


def test_the_kept_bodies_stay_within_their_byte_budget():
    from pbem.web.pagecache import BodyCache

    overhead = BodyCache.OVERHEAD
    cache = BodyCache(budget=2 * overhead + 10)
    assert cache.get("a", lambda: "12345")[0] == b"12345"
    cache.get("b", lambda: "67890")
    cache.get("a", lambda: "never built")  # used: now the most recent
    cache.get("c", lambda: "xyz")  # over the budget: the least recently used ("b") goes
    assert cache.size == 2 * overhead + 8 and cache.get("b", lambda: "again")[0] == b"again"
    assert cache.size <= cache.budget
    big = "x" * (2 * overhead + 11)
    assert cache.get("big", lambda: big)[0] == big.encode() and cache.size <= cache.budget  # served, not kept
    built = cache.built
    cache.get("big", lambda: big)
    assert cache.built == built + 1


def test_missing_pages_are_not_kept(small_site):
    app = small_site[2]
    client = app.test_client()
    kept = len(app.extensions["pbem.pages"]._kept)
    for number in range(2, 40):
        get(client, f"/?page={number}", 404)
    assert len(app.extensions["pbem.pages"]._kept) == kept
