"""Rendered bodies kept in the process, so a page is rendered once and then served from memory.

A key names everything a body depends on: the game and its version (a page of a past version
never changes, and a new move makes a new version, so nothing has to be invalidated: the old
keys age out), the page and its validated arguments, the language. Bounded: the least recently
used body is dropped first. Public bodies only; a seat's private pages are never kept.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

from flask import current_app, g


class BodyCache:
    """Bodies and their ETags by key, at most ``size`` of them (least recently used dropped)."""

    def __init__(self, size: int):
        self.size = size
        self._kept: OrderedDict[Hashable, tuple[bytes, str]] = OrderedDict()
        self._lock = threading.Lock()
        self.built = 0  # bodies built (tests count them)

    def get(self, key: Hashable, build: Callable[[], bytes | str]) -> tuple[bytes, str]:
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
                return found
        body = build()  # outside the lock: two threads may build the same body, both right
        data = body.encode() if isinstance(body, str) else body
        made = (data, hashlib.sha256(data).hexdigest()[:32])
        with self._lock:
            self.built += 1
            self._kept[key] = made
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return made


PAGES = 2048  # HTML pages and board pictures (tens of KB each at most)
EXPORTS = 16  # export.json files (up to a few MB each)


def install(extensions: dict[str, object]) -> None:
    """The app's caches (``create_app``)."""
    extensions["pbem.pages"] = BodyCache(PAGES)
    extensions["pbem.exports"] = BodyCache(EXPORTS)


def pages() -> BodyCache:
    return current_app.extensions["pbem.pages"]  # type: ignore[no-any-return]


def exports() -> BodyCache:
    return current_app.extensions["pbem.exports"]  # type: ignore[no-any-return]


def board_key(game_id: str, version: int, frozen: str | None) -> tuple[Hashable, ...]:
    """A public board picture's key: the picture of version N never changes, whatever came
    after it, and has no words of the site's language."""
    return ("board", game_id, version, frozen)


def page_key(*parts: Hashable) -> tuple[Hashable, ...]:
    """A page's key: its own parts and the language the request chose (and whether the links
    must carry it)."""
    return (*parts, g.get("lang"), g.get("lang_explicit"))
