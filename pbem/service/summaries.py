"""The games list as a read model: one summary row per game, kept by a follower of the event
store, so the site's list, its filters and ``/health`` never load a game.

Built on eventsourcing's projection machinery: ``GameSummaries`` is a ``Projection`` whose view
is a ``TrackingRecorder`` (SQLite or PostgreSQL) that writes a game's row and the tracking record
of the event that produced it in one transaction. ``SummaryFollower.catch_up`` pulls the
notifications stored after the view's tracking position and projects each once, so a round costs
O(new events). Several processes may follow at once: the tracking insert refuses a position
already recorded (the whole transaction rolls back, the other process did the same work), and a
row is only replaced by one from a later notification, so the order in which processes commit
does not matter.

The view itself (its rows, tables and queries) is ``pbem.service.summary_view``.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import suppress
from datetime import datetime
from typing import Any, Protocol

from eventsourcing.domain import OriginatorVersionError
from eventsourcing.persistence import IntegrityError, Tracking
from eventsourcing.projection import Projection
from eventsourcing.utils import get_topic

from pbem.games import catalog
from pbem.mailroom.records import GameClock, expired_at
from pbem.service.game import load
from pbem.service.repository import GameRepository
from pbem.service.store import GameRecord
from pbem.service.summary_view import (
    PAGE_SIZE,
    STATUS_FILTERS,
    GameSummary,
    SummaryPage,
    SummaryView,
    open_view,
    summarise,
)

logger = logging.getLogger(__name__)


class GameSummaries(Projection[SummaryView]):
    """The projection: a game's summary after each of its events, written to the view with the
    event's tracking record. ``load`` and ``state`` are the game repository's (cached) game and state."""

    name = "summaries"
    # a game that never started in time expires on its clock (``pbem.mailroom.expiry``)
    topics = (get_topic(GameRecord.Created), get_topic(GameRecord.Appended), get_topic(GameClock.Expired))

    def __init__(self, view: SummaryView, repository: GameRepository):
        super().__init__(view)
        self.repository = repository
        # the mail side's ``(game, version, seat) -> datetime | None`` (``pbem serve``); without
        # it the rows have no deadline
        self.deadline: Callable[[Any, int, int], datetime | None] | None = None

    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        summary = self.summary_of(domain_event, tracking)
        with suppress(IntegrityError):  # another process recorded this notification first
            self.view.save_many([summary] if summary else [], tracking)

    def process_page(self, page: list[tuple[Any, Tracking]]) -> None:
        """A page of events in one transaction: the latest row of each game they touch and the
        tracking record of the last event (the rows carry their own notification ids, so a row
        is never replaced by an older one, whichever process commits first)."""
        if not page:
            return
        latest: dict[str, GameSummary] = {}
        for domain_event, tracking in page:
            summary = self.summary_of(domain_event, tracking)
            if summary is not None:
                latest[summary.id] = summary
        with suppress(IntegrityError):  # another process recorded these notifications (or later) first
            self.view.save_many(list(latest.values()), page[-1][1])

    def summary_of(self, domain_event: Any, tracking: Tracking) -> GameSummary | None:
        entries = getattr(domain_event, "entries", None)
        if entries is None:  # a game's clock: it expired
            clock = self.repository.record(domain_event.originator_id)
            record = self.repository.store.game(clock.game_id) if isinstance(clock, GameClock) else None
            entries = self.repository.store.game_log(record).entries if record is not None else None
        if not entries:
            return None
        game_id = entries[-1]["game"]
        version = entries[-1]["index"] + 1
        store = self.repository.store
        try:
            record = store.game(game_id)
        except OriginatorVersionError as error:  # an event missing: the game is frozen, its row stays as it was
            logger.warning("game summaries: %s cannot be read (event %s missing)", game_id, error.args[1:])
            return None
        if record is None:  # not a game's event after all
            return None
        spec = state = deadline = None
        try:
            game = load(record, lambda _: store.game_log(record))
            spec, state = game.spec, self.repository.state(game, version)
        except Exception as error:  # a type no longer offered, a rules bug: list it without a phase
            logger.warning("game summaries: %s at version %s without its rules: %s", game_id, version, error)
        else:
            if version == game.version:  # the game's latest event: only its row is kept
                deadline = self.deadline_of(game, state)
        expired = state is None and expired_at(self.repository.record, game_id) is not None
        return summarise(
            game_id, store.game_log(record).entries[:version], spec, state, tracking.notification_id, deadline, expired
        )

    def deadline_of(self, game: Any, state: Any) -> datetime | None:
        """The earliest deadline of the seats the game waits for now (None without a clock)."""
        if self.deadline is None or state is None or game.ended:
            return None
        try:
            found = [self.deadline(game, game.version, seat) for seat in game.spec.to_move(state)]
        except Exception:  # a clock problem must not stop the list
            logger.exception("game summaries: the deadline of %s failed", game.id)
            return None
        return min((moment for moment in found if moment is not None), default=None)


class GameSummaryQuery(Protocol):
    """What the web site may ask about the list of games (its query port)."""

    def list_games(self, game_type: str | None, status: str | None, page: int) -> SummaryPage: ...

    def position_now(self) -> int:
        """Catch up; the list's rows change only when this number does."""
        ...

    def count(self) -> int: ...


class SummaryFollower:
    """Follows the event store with the projection; the web's ``GameSummaryQuery``.

    ``repository`` is a ``GameRepository`` (its store gives the notifications, its record and state
    caches make each projected event cost only the entries since the game's last one)."""

    def __init__(self, repository: GameRepository, view: SummaryView | None = None, batch: int = 500):
        self.repository = repository
        self.store = repository.store
        self.view = view or open_view(repository.settings.store_env(), repository.settings.home)
        self.projection = GameSummaries(self.view, repository)
        self.batch = batch
        self._lock = threading.Lock()
        self._known: int | None = None  # the view's position as this follower last saw it
        self._counts: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[int, int]] = {}
        self._types: tuple[int | None, tuple[str, ...]] = (None, ())
        self._head: int | None = None  # the store's position at the last complete catch-up
        self._total: tuple[int | None, int] = (None, 0)  # the view's position and its row count

    def position(self) -> int:
        return self.view.max_tracking_id(self.store.name) or 0

    def _notifications(self, after: int, limit: int) -> Iterator[tuple[Any, Tracking]]:
        for notice in self.store.notifications(after, limit, list(self.projection.topics)):
            yield notice.event(), Tracking(self.store.name, notice.id)

    def catch_up(self, limit: int | None = None) -> int:
        """Project the events stored since the view's position (at most ``limit``, default one
        batch); returns how many were projected. One thread of a process at a time."""
        with self._lock:
            done = 0
            wanted = limit or self.batch
            if self._known is None:
                self._known = self.position()
            while done < wanted:
                # From the position this follower knows: when another process went further, the
                # page is refused whole (IntegrityError) and the next one starts after it.
                page = list(self._notifications(self._known, min(self.batch, wanted - done)))
                self.projection.process_page(page)
                done += len(page)
                if not page:
                    break
                self._known = page[-1][1].notification_id
            return done

    def catch_up_all(self) -> int:
        total = 0
        while (done := self.catch_up()) > 0:
            total += done
        return total

    # -- the query port ---------------------------------------------------------------------
    def position_now(self) -> int:
        """Catch up, then the position the view is at as far as this follower knows: the rows
        change only when it moves (the site keeps a rendered page of the list per position).
        While the store's own position stays where it was at the last complete catch-up,
        nothing new can be projected, and the store is asked only that."""
        head = self.repository.position()
        # fewer than a batch: the end of the log as it was at ``head`` (or later) was reached
        if head != self._head and self.catch_up() < self.batch:
            self._head = head
        return self._known or 0

    def list_games(self, game_type: str | None, status: str | None, page: int = 1) -> SummaryPage:
        self.catch_up()
        statuses = STATUS_FILTERS.get(status or "", ())
        types = (game_type,) if game_type else self._offered_types()
        total = self._count(types, statuses)
        pages = max(1, -(-total // PAGE_SIZE))
        rows = self.view.select(types, statuses, (page - 1) * PAGE_SIZE, PAGE_SIZE) if page <= pages else []
        return SummaryPage(rows, page, pages, total)

    def _offered_types(self) -> tuple[str, ...]:
        """The type filter of an unfiltered list: none when every type in the view is offered
        (the usual case, which the activity index serves in order), else the offered ones, so
        games of a type no longer offered stay out. Kept until the position moves."""
        known, types = self._types
        if known is None or known != self._known:
            offered = set(catalog())
            present = self.view.game_types()
            types = () if present <= offered else tuple(sorted(offered))
            self._types = (self._known, types)
        return types

    def _count(self, types: tuple[str, ...], statuses: tuple[str, ...]) -> int:
        """Row counts are kept until the position moves: the rows only change with events."""
        known, cached = self._counts.get((types, statuses), (None, 0))
        if known is not None and known == self._known:
            return cached
        total = self.view.count(types, statuses)
        self._counts[types, statuses] = (self._known or 0, total)
        return total

    def count(self) -> int:
        """All rows. The view is asked its position every time (``/health`` checks that it
        answers); the count is kept while the position stays."""
        position = self.position()
        known, total = self._total
        if known != position:
            total = self.view.count()
            self._total = (position, total)
        return total

    def follow(self, stop: threading.Event, interval: float = 1.0) -> threading.Thread:
        """Keep catching up in a daemon thread until ``stop`` is set (for ``pbem serve``)."""

        def loop() -> None:
            while not stop.is_set():
                try:
                    self.catch_up_all()
                except Exception:  # a store hiccup: try again next round, requests catch up too
                    logger.exception("game summaries: catch-up failed")
                stop.wait(interval)

        thread = threading.Thread(target=loop, name="pbem-summaries", daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        self.view.close()


_FOLLOWERS: weakref.WeakKeyDictionary[Any, SummaryFollower] = weakref.WeakKeyDictionary()
_FOLLOWERS_LOCK = threading.Lock()


def follower_for(repository: GameRepository) -> SummaryFollower:
    """One follower per game repository (service) in a process: apps made over the same service share
    its view and its connections."""
    with _FOLLOWERS_LOCK:
        follower = _FOLLOWERS.get(repository)
        if follower is None:
            follower = _FOLLOWERS[repository] = SummaryFollower(repository)
        return follower
