"""Warm after every move: the pages a new version makes new are rendered by the web process's
follower right after the commit, so the first visitor's request renders nothing."""

from __future__ import annotations

import threading

import pytest

from pbem.config import Settings
from pbem.service.service import GameService
from pbem.web import create_app
from pbem.web.pagecache import pages
from pbem.web.warm import Warmer, pages_of
from tests.service.helpers import started_pig, to_move_email


@pytest.fixture
def site(tmp_path):
    service = GameService(Settings(home=tmp_path / "home"))
    game_id = started_pig(service)
    app = create_app(service)
    yield service, game_id, app
    service.close()


def _built(app) -> int:
    with app.app_context():
        return pages().built


def _move(service: GameService, game_id: str) -> int:
    assert service.submit(game_id, to_move_email(service, game_id), "hold").ok
    return service.game(game_id).version


def _first_visits(app, game_id: str, version: int) -> int:
    """Pages rendered while a visitor asks for each page the move made new, in each language."""
    client = app.test_client()
    before = _built(app)
    for path in [p for p in pages_of(game_id, version) if not p.endswith(".svg")]:  # Hidden Pig draws no board
        for lang in ("en", "cs", "pl"):
            assert client.get(path, headers={"Accept-Language": lang}).status_code == 200, path
    return _built(app) - before


def test_a_warmed_move_leaves_nothing_to_render_for_its_first_visitors(site):
    service, game_id, app = site
    warmer = Warmer(app)
    version = _move(service, game_id)
    assert warmer.round() == 1
    assert warmer.warmed > 0
    assert _first_visits(app, game_id, version) == 0


def test_without_the_warmer_the_first_visitors_render_the_pages(site):
    service, game_id, app = site  # the positive control: the pages are new after a move
    version = _move(service, game_id)
    assert _first_visits(app, game_id, version) > 0


def test_the_warmer_is_woken_by_the_commit(site):
    service, game_id, app = site
    warmer = Warmer(app)
    stop = threading.Event()
    thread = warmer.follow(stop, interval=60)  # the tick is far: only the commit can wake it
    try:
        version = _move(service, game_id)
        for _ in range(200):
            if warmer.done >= service.position():
                break
            threading.Event().wait(0.05)
        assert warmer.warmed > 0 and _first_visits(app, game_id, version) == 0
    finally:
        stop.set()
        service.commits().ring()
        thread.join(timeout=10)
    assert not thread.is_alive()


def test_a_warmer_started_late_warms_only_what_comes_after(site):
    service, game_id, app = site
    _move(service, game_id)
    warmer = Warmer(app)
    assert warmer.round() == 0 and warmer.warmed == 0


def test_warmed_pages_link_under_the_sites_mount_point(tmp_path):
    service = GameService(Settings(home=tmp_path / "home", base_url="http://games.example/pbem"))
    game_id = started_pig(service)
    app = create_app(service)
    warmer = Warmer(app)
    _move(service, game_id)
    warmer.round()
    page = app.test_client().get(f"/games/{game_id}", base_url="http://games.example/pbem/").get_data(as_text=True)
    assert f'href="/pbem/games/{game_id}/history' in page
    service.close()


def test_the_first_visitor_after_a_warmed_move_is_answered_from_memory(site):
    service, game_id, app = site
    warmer = Warmer(app)
    version = _move(service, game_id)
    warmer.round()
    shortcut = app.extensions["pbem.shortcut"]
    client = app.test_client()
    base = service.settings.base_url + "/"  # a visitor follows a mail's link: the published address
    paths = [f"/games/{game_id}/turn/{version}", f"/games/{game_id}", f"/games/{game_id}/history", "/"]
    for lang in ("en", "cs-CZ,cs;q=0.9", "pl"):
        before = shortcut.answered
        for path in paths:
            assert client.get(path, base_url=base, headers={"Accept-Language": lang}).status_code == 200
        assert shortcut.answered == before + len(paths), lang
    before = shortcut.answered
    assert client.get(f"/games/{game_id}/export.json", base_url=base).status_code == 200
    assert shortcut.answered == before + 1


def test_without_the_warmer_the_first_visitor_after_a_move_goes_through_flask(site):
    service, game_id, app = site  # the positive control
    version = _move(service, game_id)
    shortcut = app.extensions["pbem.shortcut"]
    before = shortcut.answered
    response = app.test_client().get(f"/games/{game_id}/turn/{version}", base_url=service.settings.base_url + "/")
    assert response.status_code == 200 and shortcut.answered == before
