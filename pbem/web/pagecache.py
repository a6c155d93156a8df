"""Rendered bodies kept in the process, so a page is rendered once and then served from memory.

A key names everything a body depends on: the game and its version (a page of a past version
never changes, and a new move makes a new version, so nothing has to be invalidated: the old
keys age out), the page and its validated arguments, the language. Bounded in bytes: the least
recently used bodies are dropped first. Public bodies only; a seat's private pages are never kept.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import cast

from flask import current_app, g


class BodyCache:
    """Bodies and their ETags by key, at most ``budget`` bytes (each body counted with
    ``OVERHEAD`` more for its key and ETag; least recently used dropped first). An empty body
    (a page that does not exist) or one larger than the budget is returned but not kept, so
    asking for a billion missing pages keeps nothing."""

    OVERHEAD = 256

    def __init__(self, budget: int):
        self.budget = budget
        self.size = 0  # bytes of the kept bodies
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
            if data and key not in self._kept and len(data) + self.OVERHEAD <= self.budget:
                self._kept[key] = made
                self.size += len(data) + self.OVERHEAD
            while self.size > self.budget:
                self.size -= len(self._kept.popitem(last=False)[1][0]) + self.OVERHEAD
        return made


MIB = 1 << 20
PAGES = 64 * MIB  # HTML pages (a few KB to some 25 KB) and board pictures (up to some 100 KB)
EXPORTS = 64 * MIB  # export.json files (up to a few MB each)


def install(extensions: dict[str, object]) -> None:
    """The app's caches (``create_app``)."""
    extensions["pbem.pages"] = BodyCache(PAGES)
    extensions["pbem.exports"] = BodyCache(EXPORTS)


def pages() -> BodyCache:
    return cast(BodyCache, current_app.extensions["pbem.pages"])


def exports() -> BodyCache:
    return cast(BodyCache, current_app.extensions["pbem.exports"])


def board_key(game_id: str, version: int, frozen: str | None, narrow: bool = False) -> tuple[Hashable, ...]:
    """A public board picture's key: the picture of version N never changes, whatever came
    after it; its labels and legend are in the language the request chose (``narrow``: the
    picture for narrow screens)."""
    return ("board", game_id, version, frozen, g.get("lang"), narrow)


def page_key(*parts: Hashable) -> tuple[Hashable, ...]:
    """A page's key: its own parts and the language the request chose (and whether the links
    must carry it)."""
    return (*parts, g.get("lang"), g.get("lang_explicit"))
