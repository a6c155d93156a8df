"""The read-only web site: an app factory with blueprints; GET and HEAD only.

``create_app(service)`` is what ``pbem serve-web`` and ``pbem serve`` (web and mail together)
run. Templates come from the package ``pbem.templates`` (the checkout's top-level ``templates/``,
package data in the wheel) and static files from ``pbem/web/static``, both found through
``importlib.resources`` so an installed wheel works from any directory. Nothing here writes to
the store.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path
from typing import Any

from flask import Flask, Response, abort, g, request, url_for
from werkzeug.exceptions import HTTPException

from pbem.web import i18n
from pbem.web.helpers import ReadGames, add_vary

TEMPLATES = Path(str(files("pbem.templates")))
STATIC = Path(str(files("pbem.web") / "static"))
READ_METHODS = ("GET", "HEAD")
CHECK_PATH = "/verify"  # the one POST: it checks an uploaded receipt and writes nothing (web/checks.py)
PAGE_POLICY = (
    "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self'; form-action 'self'; "
    "base-uri 'none'; frame-ancestors 'none'"
)


def _mail_address(value: str | None) -> str | None:
    """``PBEM_MAIL_ADDRESS`` as the gateway takes it (default pbem@localhost), None when the
    gateway would refuse it (no ``@``, or a ``+``): then no address is shown."""
    address = (value or "pbem@localhost").strip().lower()
    return address if address.count("@") == 1 and "+" not in address else None


def create_app(service: Any = None, config: dict[str, Any] | None = None) -> Flask:
    """The site for ``service`` (a ``GameService``; made from the environment when None). The
    pages are given only its reader (queries); the games list follows its store."""
    templates = Path((config or {}).get("PBEM_TEMPLATES") or TEMPLATES)
    app = Flask(__name__, template_folder=str(templates), static_folder=str(STATIC))
    app.config.update(JSON_SORT_KEYS=False, FINISHED_MAX_AGE=86400)
    app.config.update(config or {})
    # the service address of the mail gateway, read as the gateway reads it: private pages show
    # the seat's address to write to (a config given by the caller wins)
    app.config.setdefault("PBEM_MAIL_ADDRESS", _mail_address(os.environ.get("PBEM_MAIL_ADDRESS")))
    if service is None:
        from pbem.service.service import GameService

        service = GameService()
    app.extensions["pbem.reader"] = reader = service.reader
    if "PBEM_SUMMARIES" in app.config:  # a GameSummaryQuery given by the caller (tests, benchmarks)
        app.extensions["pbem.summaries"] = app.config["PBEM_SUMMARIES"]
    else:
        from pbem.service.summaries import follower_for

        app.extensions["pbem.summaries"] = follower = follower_for(service)
        if app.config.get("PBEM_DEADLINE"):  # the list shows the same deadlines as the game pages
            follower.projection.deadline = app.config["PBEM_DEADLINE"]

    from pbem.web import checks, downloads, health, pagecache, pages, private
    from pbem.web.shortcut import Shortcut

    pagecache.install(app.extensions)
    app.extensions["pbem.games"] = ReadGames()
    app.extensions["pbem.deadlines"] = {}  # (game, version, store position) -> deadline

    app.register_blueprint(pages.bp)
    app.register_blueprint(private.bp)
    app.register_blueprint(downloads.bp)
    app.register_blueprint(health.bp)
    app.register_blueprint(checks.bp)
    i18n.install(app)
    _install_hooks(app)
    # kept public pages are answered again before Flask runs, while the store stays as it was
    # the bounce marks are not in the event store: a mark set or lifted moves no position
    marks = app.extensions["pbem.marks"] = _marks(service, app.config)
    shortcut = Shortcut(
        app.wsgi_app, reader.position, lambda: (len(reader.frozen), marks.generation() if marks else None)
    )
    app.extensions["pbem.shortcut"] = shortcut
    app.wsgi_app = shortcut  # type: ignore[method-assign]
    return app


def _marks(service: Any, config: dict[str, Any]) -> Any:
    """The read port of the undeliverable marks (``PBEM_MARKS`` given by the caller, else the
    one in the service's database; None for a service without a store, as some tests give)."""
    if "PBEM_MARKS" in config:
        return config["PBEM_MARKS"]
    store = getattr(service, "store", None)
    if store is None:
        return None
    from pbem.mailroom.marks import UndeliverableMarks

    return UndeliverableMarks.of(store)


def follow_summaries(app: Flask, stop: Any = None, interval: float = 1.0) -> Any:
    """Keep the games list's and the players' ratings' read models caught up in background
    threads (``pbem serve`` and ``pbem serve-web``); requests to ``/`` and ``/players`` also
    catch up, so this only keeps them cheap after bursts of moves (and verifies each game's
    export once, as it ends, away from any request). Returns the stop event."""
    import threading

    stop = stop or threading.Event()
    follower = app.extensions["pbem.summaries"]
    if hasattr(follower, "follow"):
        follower.follow(stop, interval)
    app.extensions["pbem.reader"].ratings().follow(stop, interval)
    from pbem.web.warm import warm

    warm(app, stop)  # the pages a move makes new, rendered right after its commit
    return stop


def site() -> Flask:
    """The site with its followers (the games list, the ratings, the warmer): what a WSGI
    server runs in each worker process (``gunicorn 'pbem.web:site()'``, deploy/)."""
    app = create_app()
    follow_summaries(app)
    return app


def _install_hooks(app: Flask) -> None:
    @app.before_request
    def read_only() -> None:
        i18n.selected_language()
        if request.method not in READ_METHODS and not (request.method == "POST" and request.path == CHECK_PATH):
            abort(405, valid_methods=list(READ_METHODS))

    @app.after_request
    def headers(response: Response) -> Response:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        if (response.content_type or "").startswith("text/html"):
            response.headers.setdefault("Content-Security-Policy", PAGE_POLICY)
            response.headers["Content-Language"] = getattr(g, "lang", i18n.DEFAULT)
            add_vary(response, "Accept-Language")
        if response.status_code == 405:
            response.headers["Allow"] = ", ".join(READ_METHODS)
        return response

    @app.errorhandler(HTTPException)
    def error_page(error: HTTPException) -> Response:
        from flask import render_template
        from flask_babel import gettext as _

        i18n.selected_language()
        titles = {400: _("Bad request"), 404: _("Not found"), 405: _("This site is read-only")}
        helps = {
            404: _("There is no such game, turn or page."),
            405: _("Moves are sent by mail, turn file or the command line, never through this site."),
        }
        title = titles.get(error.code or 0, error.name)
        detail = helps.get(error.code or 0, error.description or "")
        body = render_template("web/error.html", code=error.code, title=title, detail=detail)
        response = app.make_response((body, error.code or 500))
        if error.code == 405:
            response.headers["Allow"] = ", ".join(READ_METHODS)
        response.headers["Cache-Control"] = "no-store"
        return response

    @app.context_processor
    def helpers() -> dict[str, Any]:
        return {
            "word": i18n.word,
            "lang": getattr(g, "lang", i18n.DEFAULT),
            "link": link,
            "link_maker": link_maker,
            "lang_explicit": getattr(g, "lang_explicit", False),
            "switch_language": switch_language,
            "languages": i18n.LANGUAGES,
        }


def link(endpoint: str, **values: Any) -> str:
    """``url_for`` that keeps a language chosen in the URL."""
    if getattr(g, "lang_explicit", False):
        values.setdefault("lang", g.lang)
    return url_for(endpoint, **values)


SLOTS = {"game_id": "pbem-slot", "turn": 987654321, "page": 987654321}


def link_maker(endpoint: str, slot: str, **values: Any) -> Callable[[object], str]:
    """``link`` for many values of one URL part (a page listing 50 games or entries): the URL
    is built once with a marker, and each link replaces the marker (the last one in the URL)."""
    marker = SLOTS[slot]
    head, _, tail = link(endpoint, **values, **{slot: marker}).rpartition(str(marker))
    return lambda value: f"{head}{value}{tail}"


PAGE_ARGS = ("game", "status", "page", "since")  # the query arguments a page's content depends on


def switch_language(lang: str) -> str:
    """This page's address in another language. Only the arguments pages read are kept: a
    rendered page is kept and served to everyone who asks for the same content, so nothing
    else a request carries may end up in it."""
    if request.endpoint is None or request.url_rule is None:
        return url_for("pages.games", lang=lang)
    args = {key: value for key, value in request.args.items() if key in PAGE_ARGS}
    # the page's own URL parts win over a query argument of the same name
    values: dict[str, Any] = {**args, **(request.view_args or {}), "lang": lang}
    return url_for(request.endpoint, **values)
