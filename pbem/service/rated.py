"""Players' ratings as a read model: a follower of the event store keeps, beside the games
list's rows, one row per game for the ratings (``rated_games``), so the web's players page and
``pbem ratings`` on the live store never export and verify every finished game again.

A game's row is written when it is created (not finished) and again when its ``ended`` entry
is followed: then, once, its export is verified as ``pbem ratings --from`` verifies it, and the
row keeps what the ratings read of it (``pbem.ledger.ratings.result_of``) or why it is left
out. The rows and the tracking record of the notifications they come from are written in one
transaction (eventsourcing's ``TrackingRecorder``, the same view as the games list, under a
tracking name of its own), so several processes may follow at once, as for the list.

The table itself is folded in memory with the same ``RatingTable`` as the files: in the order
the games ended, so the numbers are those of ``pbem ratings --from`` to the last bit. A game
that ends after those already folded (the usual case) is added to the fold; one that sorts
before them (two games ending in the same second, a clock set back) folds the table again.
"""

from __future__ import annotations

import json
import logging
import threading
import weakref
from collections.abc import Callable
from contextlib import suppress
from typing import Any

from eventsourcing.persistence import IntegrityError, Tracking
from eventsourcing.utils import get_topic

from pbem.ledger.ratings import RatingTable, finished_games, order_of, result_of
from pbem.service.store import GameRecord
from pbem.service.summary_view import SummaryView

logger = logging.getLogger(__name__)

RUNNING, RATED, LEFT_OUT = "running", "rated", "left-out"
TOPICS = (get_topic(GameRecord.Created), get_topic(GameRecord.Appended))


class RatingsFollower:
    """Follows the store into the ``rated_games`` rows and keeps their fold. ``repository`` is
    a ``GameRepository`` (its store gives the notifications), ``export`` the reader's export of
    a finished game; ``view`` is the games list's view (``SummaryFollower.view``)."""

    def __init__(self, repository: Any, view: SummaryView, export: Callable[[str], dict[str, Any]], batch: int = 200):
        self.export = export
        self.store = repository.store
        self.view = view
        self.name = f"{self.store.name}.ratings"  # its own tracking beside the list's
        self.batch = batch
        self._lock = threading.Lock()
        self._rows: dict[str, dict[str, Any]] = {}  # every game's row, read from the view
        self._read = 0  # the notification id up to which the rows were read
        self._fold: tuple[list[dict[str, Any]], RatingTable] | None = None  # folded results, table
        self._answer: tuple[int, dict[str, Any]] | None = None  # (rows read, the table's dict)

    def position(self) -> int:
        return self.view.max_tracking_id(self.name) or 0

    def catch_up(self) -> int:
        """Follow one batch of notifications after the view's position; returns how many."""
        with self._lock:
            after = self.position()
            page = self.store.notifications(after, self.batch, list(TOPICS))
            if not page:
                return 0
            rows: dict[str, dict[str, Any]] = {}
            for notice in page:
                row = self._row_of(notice.event(), notice.id)
                if row is not None:  # a game created and ended in one batch keeps its place
                    rows[row["id"]] = row | {"created": rows.get(row["id"], row)["created"]}
            with suppress(IntegrityError):  # another process followed these first
                self.view.save_rated(list(rows.values()), Tracking(self.name, page[-1].id))
            return len(page)

    def catch_up_all(self) -> int:
        total = 0
        while (done := self.catch_up()) > 0:
            total += done
        return total

    def _row_of(self, event: Any, notification_id: int) -> dict[str, Any] | None:
        entries = event.entries
        if not entries:
            return None
        game_id = entries[-1]["game"]
        row = {"id": game_id, "created": notification_id, "notification_id": notification_id}
        if entries[-1]["kind"] != "ended":  # (an imported game is created with its end: rated below)
            return (
                row | {"state": RUNNING, "ended": "", "result": f"{game_id}: not finished"}
                if entries[0]["kind"] == "created"
                else None
            )
        try:
            kept, left_out = finished_games([self.export(game_id)])
        except Exception as error:  # a game that cannot be exported is left out, named
            logger.warning("ratings: %s cannot be exported: %s", game_id, error)
            kept, left_out = [], [f"{game_id}: does not verify ({error})"]
        if not kept:
            return row | {"state": LEFT_OUT, "ended": "", "result": left_out[0]}
        result = result_of(kept[0])
        return row | {"state": RATED, "ended": result["ended"], "result": json.dumps(result)}

    # -- the query ---------------------------------------------------------------------
    def table(self) -> dict[str, Any]:
        """The ratings as ``pbem.ledger.ratings.ratings`` gives them for this store's exports."""
        self.catch_up_all()
        with self._lock:
            changed = self.view.rated_since(self._read)
            if self._answer is not None and not changed:
                return self._answer[1]
            for row in changed:
                self._rows[row["id"]] = row
                self._read = max(self._read, int(row["notification_id"]))
            answer = self._table(changed)
            self._answer = (self._read, answer)
            return answer

    def _table(self, changed: list[dict[str, Any]]) -> dict[str, Any]:
        new = sorted((json.loads(r["result"]) for r in changed if r["state"] == RATED), key=order_of)
        if self._fold is None or (new and self._fold[0] and order_of(new[0]) < order_of(self._fold[0][-1])):
            results = sorted(
                (json.loads(r["result"]) for r in self._rows.values() if r["state"] == RATED), key=order_of
            )
            folded: list[dict[str, Any]] = []
            self._fold = (folded, RatingTable())
            new = results
        folded, table = self._fold
        seen = set(table.games)
        for result in new:
            if result["game"] not in seen:  # a game is rated once, when it ends
                table.add(result)
                folded.append(result)
        rows = sorted(self._rows.values(), key=lambda r: (int(r["created"]), r["id"]))
        return table.to_dict([r["result"] for r in rows if r["state"] != RATED])

    def follow(self, stop: threading.Event, interval: float = 1.0) -> threading.Thread:
        """Keep following in a daemon thread until ``stop`` is set (``pbem serve``)."""

        def loop() -> None:
            while not stop.is_set():
                try:
                    self.table()
                except Exception:  # a store hiccup: try again next round; a request catches up too
                    logger.exception("ratings: catch-up failed")
                stop.wait(interval)

        thread = threading.Thread(target=loop, name="pbem-ratings", daemon=True)
        thread.start()
        return thread


_FOLLOWERS: weakref.WeakKeyDictionary[Any, RatingsFollower] = weakref.WeakKeyDictionary()
_FOLLOWERS_LOCK = threading.Lock()


def ratings_for(repository: Any, export: Callable[[str], dict[str, Any]]) -> RatingsFollower:
    """One ratings follower per game repository (service) in a process, on the games list's
    view; ``export``: the reader's export of a game."""
    from pbem.service.summaries import follower_for

    with _FOLLOWERS_LOCK:
        follower = _FOLLOWERS.get(repository)
        if follower is None:
            follower = _FOLLOWERS[repository] = RatingsFollower(repository, follower_for(repository).view, export)
        return follower
