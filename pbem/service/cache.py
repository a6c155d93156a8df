"""Game states by (game, version), so that loading any past version does not replay the whole
history. States are immutable, so sharing them is safe. Every ``stride``-th version and the
latest version of each game are kept; a past version is folded from the nearest kept one."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any


class StateCache:
    def __init__(self, stride: int = 32, max_games: int = 256):
        self.stride = stride
        self.max_games = max_games
        self._games: OrderedDict[str, dict[int, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def nearest(self, game_id: str, version: int) -> tuple[int, Any]:
        """The kept (version, state) closest at or below ``version``; (0, None) if none."""
        with self._lock:
            states = self._games.get(game_id)
            if not states:
                return 0, None
            self._games.move_to_end(game_id)
            best = max((v for v in states if v <= version), default=0)
            return best, states.get(best)

    def keep(self, game_id: str, version: int, state: Any, latest: bool = False) -> None:
        if not (latest or version % self.stride == 0):
            return
        with self._lock:
            states = self._games.setdefault(game_id, {})
            self._games.move_to_end(game_id)
            if latest:  # only one off-stride state per game: the newest
                for old in [v for v in states if v % self.stride and v != version]:
                    del states[old]
            states[version] = state
            while len(self._games) > self.max_games:
                self._games.popitem(last=False)
