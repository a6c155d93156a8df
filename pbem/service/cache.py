"""Game states by (game, version), so that loading any past version does not replay the whole
history. States are immutable, so sharing them is safe. Every ``stride``-th version and the
last ``recent`` versions of each game are kept; a past version is folded from the nearest kept
one."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any


class StateCache:
    def __init__(self, stride: int = 32, max_games: int = 256, recent: int = 16):
        self.stride = stride
        self.recent = recent  # off-stride versions kept besides the newest: the last computed
        self.max_games = max_games
        self._games: OrderedDict[str, dict[int, Any]] = OrderedDict()
        self._recent: dict[str, OrderedDict[int, bool]] = {}  # off-stride versions kept, oldest first
        self._lock = threading.Lock()

    def nearest(self, game_id: str, version: int) -> tuple[int, Any]:
        """The kept (version, state) closest at or below ``version``; (0, None) if none."""
        with self._lock:
            states = self._games.get(game_id)
            if not states:
                return 0, None
            self._games.move_to_end(game_id)
            if version in states:  # the usual case: a writer's next move, a page of the newest state
                return version, states[version]
            best = max((v for v in states if v <= version), default=0)
            return best, states.get(best)

    def pin(self, game_id: str, version: int, state: Any) -> None:
        """Keep a state like a stride's (a kept state read from the store: the next request near
        it folds from here instead of asking the store again)."""
        with self._lock:
            self._games.setdefault(game_id, {})[version] = state
            self._games.move_to_end(game_id)

    def keep(self, game_id: str, version: int, state: Any, latest: bool = False) -> None:
        with self._lock:
            states = self._games.setdefault(game_id, {})
            self._games.move_to_end(game_id)
            recent = self._recent.setdefault(game_id, OrderedDict())
            states[version] = state
            while len(self._games) > self.max_games:
                dropped, _ = self._games.popitem(last=False)
                self._recent.pop(dropped, None)
            if version % self.stride == 0:
                return
            # off-stride states: the latest, and the last few computed (the mail follower and
            # the pages walk forward through recent versions, one after another)
            recent[version] = latest
            recent.move_to_end(version)
            if latest:
                for old in [v for v, was_latest in recent.items() if was_latest and v != version]:
                    recent[old] = False
            while len(recent) > self.recent:
                old, was_latest = recent.popitem(last=False)
                if was_latest:  # never drop the newest
                    recent[old] = True
                    continue
                states.pop(old, None)
