"""The site's language, through Flask-Babel and the catalogs of pbem/i18n.py.

A page's language is, in this order: ``?lang=en|cs|pl`` (kept in the page's links), the
language the application knows for the page's game (it may give a function
``PBEM_LANGUAGE(game_id, token) -> str | None``, token being the seat's on private pages;
``pbem serve`` gives the game's ``lang=`` kept by the mail gateway), then the browser's
``Accept-Language``, then English. The games' texts (boards, history lines, moves) are
spoken in the page's language too: each request runs inside ``pbem.i18n.speaking``.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, current_app, g, request
from flask_babel import Babel, lazy_gettext, lazy_pgettext

from pbem import i18n

LANGUAGES = i18n.LANGUAGES
DEFAULT = i18n.DEFAULT

# words the pages choose by a key (a game's status, a history entry's kind); a status describes
# a game, and Czech and Polish adjectives agree with the noun: hence the context
WORDS: dict[str, Any] = {
    "running": lazy_pgettext("game status", "running"),
    "finished": lazy_pgettext("game status", "finished"),
    "waiting_join": lazy_gettext("waiting for players"),
    "expired": lazy_pgettext("game status", "expired"),
    "kind_created": lazy_gettext("game created"),
    "kind_joined": lazy_gettext("joined"),
    "kind_started": lazy_gettext("game started"),
    "kind_moved": lazy_gettext("moved"),
    "kind_resigned": lazy_gettext("handed to the robot"),
    "kind_ended": lazy_gettext("game ended"),
    "kind_said": lazy_gettext("message"),
    "kind_noted": lazy_gettext("note"),
    "kind_named": lazy_gettext("new name"),
    "kind_undo": lazy_gettext("asks to take back a move"),
    "kind_consented": lazy_gettext("agrees to take back a move"),
    "kind_withdrawn": lazy_gettext("move withdrawn by consent"),
    "kind_proposed": lazy_gettext("proposal"),
    "kind_voted": lazy_gettext("vote"),
    "kind_decided": lazy_gettext("proposal decided"),
    "kind_substitute": lazy_gettext("substitute invited"),
    "kind_handed": lazy_gettext("seat handed to a substitute"),
}


def install(app: Flask) -> None:
    """Flask-Babel on ``app``, reading the package's catalogs."""
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(i18n.LOCALE_DIR))
    app.config.setdefault("BABEL_DEFAULT_LOCALE", DEFAULT)
    Babel(app, locale_selector=selected_language)

    @app.before_request
    def speak_the_page_language() -> None:
        g.speaking = i18n.speaking(selected_language())
        g.speaking.__enter__()

    @app.teardown_request
    def stop_speaking(error: BaseException | None) -> None:
        speaking = g.pop("speaking", None)
        if speaking is not None:
            speaking.__exit__(None, None, None)


def choose_language() -> tuple[str, bool]:
    """The page's language and whether it was chosen explicitly in the URL."""
    asked = request.args.get("lang", "")
    if asked in LANGUAGES:
        return asked, True
    known = _known_default()
    if known is not None:
        return known, False
    best = request.accept_languages.best_match(LANGUAGES, default=DEFAULT)
    return best or DEFAULT, False


def selected_language() -> str:
    if not hasattr(g, "lang"):
        g.lang, g.lang_explicit = choose_language()
    return str(g.lang)


def _known_default() -> str | None:
    """The language the application knows for this page's game (and seat), if any."""
    find = current_app.config.get("PBEM_LANGUAGE")
    game_id = (request.view_args or {}).get("game_id")
    if find is None or not game_id:
        return None
    try:
        found = find(game_id, (request.view_args or {}).get("token"))
    except Exception:  # a lookup problem must not take the page down
        current_app.logger.exception("language lookup failed for %s", game_id)
        return None
    return found if found in LANGUAGES else None


def word(key: str) -> str:
    """The word for ``key``; a key a newer core added shows its own name."""
    found = WORDS.get(key)
    return str(found) if found is not None else key.removeprefix("kind_")
