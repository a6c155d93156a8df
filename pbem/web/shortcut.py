"""Repeated requests for a public page answered before Flask runs.

A kept page (``pagecache``) still cost a request's whole way through Flask: the request
context, the hooks, the language choice, routing, loading the game from ``ReadGames``, the
page's key, the caching headers, ``after_request``; some 150 to 250 µs a request, more than
a bare Flask route costs in all. Here the finished response of such a page (status, headers
and body) is kept by everything it can depend on, and the next request that names the same
things is answered from memory, with one query for the store's position.

What a response depends on, and so its key:

* the request as the page reads it: method (HEAD answers no body), path, query string (the
  page's arguments and ``?lang=``), the language ``Accept-Language`` chooses among the site's
  (a page reads the header only through that choice, ``pbem.web.i18n.choose_language``; so
  ``cs-CZ,cs;q=0.9`` and ``cs`` share a kept page, and one the warmer kept for ``cs``), the
  host, scheme and mount point (the links a page makes);
* the store's position: everything a public page shows is stored (games, their clocks and
  absences, the games list's view), and every save moves the position, so a page kept at one
  position is right for as long as the position stays;
* how many games the process found frozen (a game can be found frozen by reading its log,
  without a save), so a page kept before that is not answered again;
* the undeliverable marks (a player whose mail keeps bouncing is named on the game page):
  set and lifted in the mail tables, not by a save, so their count and newest time are asked
  too (one more small query a request).

Only responses a view marks as keepable (``keep``) are kept: public pages whose content is
a function of the above. Never a seat's private page (the path is not even looked up), never
an answer to a conditional request (a revalidation, ``If-None-Match`` or ``If-Modified-Since``,
is answered from a kept page as Flask would: 304 or the page; the others go to Flask), never
anything but a 200, never one that sets a cookie. Bounded in bytes, least recently used
dropped first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from flask import request
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import http_date, is_resource_modified, parse_accept_header, remove_entity_headers

from pbem.i18n import DEFAULT, LANGUAGES

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

KEEP = "pbem.keep"  # set by a view: this response may be answered again from memory
POSITION = "pbem.position"  # the store's position this request was keyed at
# a browser revalidating what it keeps: answered here from a kept page, as Flask would (304 or 200)
REVALIDATION = ("HTTP_IF_NONE_MATCH", "HTTP_IF_MODIFIED_SINCE")
# the other conditional request headers (answered by Flask only: 206, 412, 416)
OTHER_CONDITIONS = ("HTTP_IF_MATCH", "HTTP_IF_UNMODIFIED_SINCE", "HTTP_IF_RANGE", "HTTP_RANGE")
NOT_MODIFIED = "304 NOT MODIFIED"
# what a kept page's response depends on in the request (method and path first): its arguments
# and language, and the host, scheme and mount point its links name
REQUEST_PARTS = (
    "REQUEST_METHOD",
    "PATH_INFO",
    "QUERY_STRING",
    "HTTP_ACCEPT_LANGUAGE",
    "HTTP_HOST",
    "wsgi.url_scheme",
    "SCRIPT_NAME",
)
LANGUAGE = "HTTP_ACCEPT_LANGUAGE"  # keyed by the language it chooses, not by its text
MAX_HEADER = 512  # Accept-Language headers up to this length have their choice kept
MIB = 1 << 20

Kept = tuple[str, list[tuple[str, str]], bytes]


def spoken(accept_language: str) -> str:
    """The site's language an ``Accept-Language`` header chooses, as a page chooses it when
    neither the URL nor the game names one (``pbem.web.i18n.choose_language``); the choices of
    the short headers browsers send are kept."""
    if len(accept_language) > MAX_HEADER:
        return _chosen(accept_language)
    return _kept_choice(accept_language)


def _chosen(accept_language: str) -> str:
    return parse_accept_header(accept_language, LanguageAccept).best_match(LANGUAGES, default=DEFAULT) or DEFAULT


_kept_choice = lru_cache(maxsize=1024)(_chosen)


def keep() -> None:
    """Mark the response of this request as one the shortcut may answer again: a public page
    whose content depends only on what ``Shortcut``'s key names."""
    request.environ[KEEP] = True


def keyed_position() -> int | None:
    """The store's position this request is keyed at (None when the shortcut does not look
    at it): a view whose content comes from a view of the store that may lag (the games list)
    keeps its response only when what it shows has reached this position."""
    found = request.environ.get(POSITION)
    return found if isinstance(found, int) else None


def shortcut_path(path: str) -> bool:
    """The paths of public kept pages: the games list and a game's pages, not a seat's."""
    return path == "/" or (path.startswith("/games/") and "/seat/" not in path)


class Shortcut:
    """WSGI middleware in front of the Flask app. ``position`` is the store's position,
    ``generation`` anything else a page depends on that a save does not move (how many games
    are frozen, the undeliverable marks' generation)."""

    OVERHEAD = 512  # bytes counted per kept response for its headers and the key's other parts

    def __init__(
        self,
        app: WSGIApplication,
        position: Callable[[], int],
        generation: Callable[[], Hashable],
        budget: int = 32 * MIB,
    ):
        self.app = app
        self.position = position
        self.generation = generation
        self.budget = budget
        self.size = 0
        self._kept: OrderedDict[tuple[Hashable, ...], Kept] = OrderedDict()
        self._lock = threading.Lock()
        self.answered = 0  # requests answered here (tests count them)

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        key = self._key(environ)
        if key is None:
            return self.app(environ, start_response)
        revalidating = any(header in environ for header in REVALIDATION)
        found = self._find(key)
        if found is not None:
            status, headers, body = _revalidated(environ, found) if revalidating else found
            start_response(status, list(headers))
            return [body] if body else []
        if revalidating:  # the answer may be a 304: not the page to keep
            return self.app(environ, start_response)
        return self._through_app(environ, start_response, key)

    def _key(self, environ: WSGIEnvironment) -> tuple[Hashable, ...] | None:
        asked = tuple(
            spoken(str(environ.get(name, ""))) if name == LANGUAGE else str(environ.get(name, ""))
            for name in REQUEST_PARTS
        )
        method, path = asked[0], asked[1]
        if method not in ("GET", "HEAD") or not shortcut_path(path) or any(h in environ for h in OTHER_CONDITIONS):
            return None
        position = self.position()  # read first: a save after it makes the next request miss
        environ[POSITION] = position
        return (*asked, position, self.generation())

    def _find(self, key: tuple[Hashable, ...]) -> Kept | None:
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
                self.answered += 1
            return found

    def _through_app(
        self, environ: WSGIEnvironment, start_response: StartResponse, key: tuple[Hashable, ...]
    ) -> Iterable[bytes]:
        started: list[Any] = []

        def capture(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            started[:] = [status, headers]
            return start_response(status, headers) if exc_info is None else start_response(status, headers, exc_info)

        result = self.app(environ, capture)
        if not environ.get(KEEP) or not started or not _keepable(started[0], started[1]):
            return result
        try:
            body = b"".join(result)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
        self._store(key, (started[0], list(started[1]), body))
        return [body] if body else []

    def _store(self, key: tuple[Hashable, ...], kept: Kept) -> None:
        cost = _cost(key, kept)
        if cost > self.budget:
            return
        with self._lock:
            if key in self._kept:
                return
            self._kept[key] = kept
            self.size += cost
            while self.size > self.budget:
                self.size -= _cost(*self._kept.popitem(last=False))


def _revalidated(environ: WSGIEnvironment, kept: Kept) -> Kept:
    """The answer to ``If-None-Match`` / ``If-Modified-Since`` from a kept page, exactly as
    ``public_cache`` has Flask give it (``Response.make_conditional``): a 304 without the
    body's own headers when the client's copy is current, else the page; a ``Date`` either way."""
    status, headers, body = kept
    named = {name.lower(): value for name, value in headers}
    date = ("Date", http_date())
    if is_resource_modified(environ, named.get("etag"), last_modified=named.get("last-modified")):
        return status, [*headers, date], body
    left = list(headers)
    remove_entity_headers(left)
    return NOT_MODIFIED, [*left, date], b""


def _keepable(status: str, headers: list[tuple[str, str]]) -> bool:
    return status.startswith("200 ") and not any(name.lower() == "set-cookie" for name, _ in headers)


def _cost(key: tuple[Hashable, ...], kept: Kept) -> int:
    """The bytes a kept response is counted for: its body, the request's own strings (a
    visitor chooses their length) and ``Shortcut.OVERHEAD``."""
    return len(kept[2]) + sum(len(part) for part in key if isinstance(part, str)) + Shortcut.OVERHEAD
