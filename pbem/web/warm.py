"""Pages warmed after every move: a follower of the event store in the web process renders the
public pages a new version of a game makes new, right after the commit, so the first visitor
(a player following the link in a turn mail) gets a kept page instead of paying its rendering.

The site keeps a page per game version (``pagecache``), so a move makes every page of its game
new; the warmer renders the ones a move's visitors ask for: the latest turn (the page every
mail links), the game page, the newest history page and entry and the board pictures, in each
language the site speaks, ``export.json`` and the first page of the games list. Older turns and
history pages are rendered when asked, as before (one is a few milliseconds), and so is the
feed (a feed reader polls; nobody waits for it, and it is a long page to render).

Each page is rendered by a request to the app's own WSGI callable, at the site's published
address (``PBEM_BASE_URL``, so that its links carry the mount point a visitor's do): the same
shortcut, view, hooks and keys a visitor's request has, without a socket. So the page is kept
twice: rendered for its version (``pagecache``), and as the finished response the shortcut
answers a visitor with before Flask runs (``pbem.web.shortcut``, keyed by the store's position,
the host and the language), which makes the first request after a move cost what a kept page
costs when nothing else was stored meanwhile. It only fills the process's caches and writes
nothing. The follower is woken by the commit
(``GameService.commits``: at once in this process, by the writer's signal or PostgreSQL's
NOTIFY from others) and reads the notifications after its position, so a burst of moves to one
game warms its latest version once. Each worker process keeps its own pages, so each warms its
own.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from flask import Flask
from werkzeug.test import EnvironBuilder

from pbem.web.history import page_of_entry
from pbem.web.i18n import LANGUAGES

logger = logging.getLogger(__name__)

NEWEST = 500  # notifications looked at in one round at most (a warmer far behind warms the newest)


def pages_of(game_id: str, version: int) -> list[str]:
    """The public pages of a game that a move to ``version`` makes new and visitors ask for."""
    base = f"/games/{game_id}"
    return [  # the page every mail links first
        f"{base}/turn/{version}",
        f"{base}/turn/{version}/board.svg",
        base,
        f"{base}/board.svg",
        f"{base}/history/{version}",
        f"{base}/history",  # the newest history page, as the game page links it
        f"{base}/history?page={page_of_entry(version, version - 1)}",
    ]


class Warmer:
    """Renders the pages new versions make new, once per round, in ``languages``."""

    def __init__(self, app: Flask, languages: tuple[str, ...] = tuple(LANGUAGES)):
        self.app = app
        self.reader = app.extensions["pbem.reader"]
        self.languages = languages
        self.base_url = self.reader.settings.base_url + "/"  # PBEM_BASE_URL, with any mount point
        self.position = self.reader.position()  # what was stored before the warmer started is not warmed
        self.warmed = 0  # pages rendered (tests count them)
        self.done = self.position  # the position whose pages are all warm

    def round(self) -> int:
        """Warm the games moved since the last round; returns how many games."""
        head = self.reader.position()
        if head <= self.position:
            return 0
        versions = self.reader.moved(max(self.position, head - NEWEST), head)
        self.position = head
        for game_id, version in versions.items():
            for path in pages_of(game_id, version):
                self._warm(path)
            self._get(f"/games/{game_id}/export.json", None)  # one body for every language
        if versions:
            self._warm("/")
        self.done = head
        return len(versions)

    def _warm(self, path: str) -> None:
        for lang in self.languages:
            self._get(path, lang)

    def _get(self, path: str, lang: str | None) -> None:
        headers = [("Accept-Language", lang)] if lang else []
        # at the site's published address: its mount point is in the links a kept page holds
        environ = EnvironBuilder(path, base_url=self.base_url, headers=headers).get_environ()
        answered: list[str] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            answered.append(status)
            return lambda data: None

        try:
            body = self.app.wsgi_app(environ, start_response)
            try:
                for _ in body:  # read whole: the shortcut keeps a page as its body is read
                    pass
            finally:
                close = getattr(body, "close", None)
                if close is not None:
                    close()
        except Exception:  # a page that fails fails its visitor too; the warmer moves on
            logger.exception("warming %s failed", path)
            return
        if answered and answered[0].startswith("200"):
            self.warmed += 1
        else:  # a board of a game that draws none (404), say: what its visitor gets too
            logger.debug("warming %s: %s", path, answered[0] if answered else "no answer")

    def follow(self, stop: threading.Event, interval: float = 5.0) -> threading.Thread:
        """Warm after every commit (woken by it; ``interval`` is the safety net) in a daemon
        thread until ``stop`` is set."""
        commits = self.reader.commits()

        def loop() -> None:
            seen = commits.count()
            while not stop.is_set():
                try:
                    self.round()
                except Exception:  # a store hiccup: the next commit or the tick tries again
                    logger.exception("warming pages failed")
                seen = commits.wait(seen, interval)

        thread = threading.Thread(target=loop, name="pbem-warm", daemon=True)
        thread.start()
        return thread


def warm(app: Flask, stop: threading.Event, interval: float = 5.0) -> Any:
    """Start the app's warmer (``follow_summaries`` does, for ``pbem serve`` and the site)."""
    warmer = app.extensions["pbem.warmer"] = Warmer(app)
    return warmer.follow(stop, interval)
