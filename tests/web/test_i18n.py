"""The site's words come from the gettext catalogs (Flask-Babel): every page in Czech and
Polish has no English word of the site's own, and the language is chosen by ``?lang=``, then
the game's default the application knows, then ``Accept-Language``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbem.web import TEMPLATES, create_app
from pbem.web.i18n import WORDS, word
from tests.web.test_routes import page

CODE = Path(__file__).resolve().parents[2] / "pbem" / "web"
# English words of the site (not of the games) that must not be left on a translated page
ENGLISH = (
    "Final standings",
    "Whose move",
    "Players",
    "History",
    "Downloads",
    "Replay",
    "Skip to content",
    "Verify a game",
    "Public keys",
    "Read-only",
    "Latest signed checkpoint",
    "Deadline",
)


def test_no_template_or_module_uses_the_old_word_tables():
    sources = list((TEMPLATES / "web").glob("*.html")) + list(CODE.glob("*.py"))
    assert len(sources) > 10
    old = [path.name for path in sources if re.search(r"""\bt\(\s*["']""", path.read_text(encoding="utf-8"))]
    assert not old


def test_entry_kinds_and_statuses_have_words(app):
    with app.test_request_context("/?lang=cs"):
        for kind in ("created", "joined", "started", "moved", "resigned", "ended"):
            assert f"kind_{kind}" in WORDS
        assert word("kind_moved") == "táhl(a)"
        assert word("running") == "běží"
        assert word("kind_newfangled") == "newfangled"  # a kind a newer core added shows its name


@pytest.mark.parametrize(
    ("lang", "words"),
    [("cs", ("Konečné pořadí", "Hráči", "Historie")), ("pl", ("Końcowa klasyfikacja", "Gracze", "Historia"))],
)
def test_every_page_of_a_finished_game_is_in_the_chosen_language(client, games, lang, words):
    game_id = games.finished["hidden-pig"]
    text = page(client, f"/games/{game_id}?lang={lang}").get_data(as_text=True)
    assert f'<html lang="{lang}">' in text
    assert all(w in text for w in words)
    for path in (f"/games/{game_id}", f"/games/{game_id}/history", f"/games/{game_id}/turn/2", "/", "/verify", "/keys"):
        body = page(client, f"{path}?lang={lang}").get_data(as_text=True)
        left = [w for w in ENGLISH if re.search(rf">[^<]*\b{w}\b", body)]
        assert not left, (path, left)


def test_polish_by_accept_language_and_the_query_wins(client, games):
    game_id = games.finished["hidden-pig"]
    polish = page(client, f"/games/{game_id}", headers={"Accept-Language": "pl-PL,pl;q=0.9,en;q=0.5"})
    assert "Końcowa klasyfikacja" in polish.get_data(as_text=True)
    assert polish.headers["Content-Language"] == "pl"
    czech = page(client, f"/games/{game_id}?lang=cs", headers={"Accept-Language": "pl"})
    assert "Konečné pořadí" in czech.get_data(as_text=True)
    assert "Nie znaleziono" in page(client, "/games/nope?lang=pl", 404).get_data(as_text=True)


def test_the_games_default_language_comes_before_accept_language(games):
    asked = []

    def game_language(game_id, token):
        asked.append((game_id, token))
        return "pl"

    client = create_app(games.service, {"PBEM_LANGUAGE": game_language}).test_client()
    game_id = games.finished["hidden-pig"]
    body = page(client, f"/games/{game_id}", headers={"Accept-Language": "cs"}).get_data(as_text=True)
    assert "Końcowa klasyfikacja" in body and asked == [(game_id, None)]
    assert "Konečné pořadí" in page(client, f"/games/{game_id}?lang=cs").get_data(as_text=True)
    listing = page(client, "/", headers={"Accept-Language": "cs"})  # no game on the page: no game default
    assert '<html lang="cs">' in listing.get_data(as_text=True)


def test_a_failing_language_lookup_does_not_take_the_page_down(games):
    def broken(game_id, token):
        raise RuntimeError("clock store down")

    client = create_app(games.service, {"PBEM_LANGUAGE": broken}).test_client()
    body = page(client, f"/games/{games.finished['hidden-pig']}", headers={"Accept-Language": "cs"})
    assert "Konečné pořadí" in body.get_data(as_text=True)


@pytest.mark.parametrize(("lang", "round_word"), [("en", "round"), ("cs", "kolo"), ("pl", "runda")])
def test_the_games_list_says_the_phase_in_the_pages_language_with_names(client, games, lang, round_word):
    """A running Kingdom Builder game's phase ("round 3, ann") in the list's language, the
    player named, never "seat 2" / "místo 2" / "miejsce 2"."""
    body = page(client, f"/?game=kingdom-builder&status=running&lang={lang}").get_data(as_text=True)
    phases = re.findall(r'<span class="phase">([^<]*)</span>', body)
    game = games.service.game(games.running["kingdom-builder"])
    assert phases and any(p.startswith(round_word + " ") for p in phases)
    assert any(name in p for p in phases for name in game.names)
    assert not any(word in p for p in phases for word in ("seat", "místo", "miejsce"))
