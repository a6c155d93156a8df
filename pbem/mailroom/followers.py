"""The mail follower of the event store, and the dead letters.

``Mailroom.follow()`` reads the notifications stored after its tracked position (the
library's tracking table, row "mailroom") a page at a time and, for each one, queues the mails
it calls for and sets the timers of the game it changed; a page is stored in one transaction
with the follower's position after each notification (``MailViews.record``), so a burst costs one
commit a page, not one a notification, and the outbox keeps the intake's pace. A round costs
O(new notifications); an idle round is a few indexed queries.

A notification whose mails cannot be built or queued (a bug in a game's view, a missing game,
a value the store refuses) becomes a dead letter that names it and its error, logged at ERROR;
the follower moves on. ``retry`` builds it again (after the fix). Only a store that is down or
busy is not the notification's fault (``pbem.service.failures``): that propagates and the same
notification is tried in the next round.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from eventsourcing.persistence import IntegrityError, Tracking

from pbem.mailroom.deadlines import Clocks, utcnow
from pbem.mailroom.outbox import TOPICS, Outbox, topic
from pbem.mailroom.queue import DEAD, QUEUED, RETRIED, Mail, Queued, QueuedMail, Timer, views_for
from pbem.mailroom.records import Correspondent
from pbem.mailroom.scheduler import TIMER_DEAD_PREFIX, Scheduler
from pbem.mailroom.settings import MailSettings
from pbem.mailroom.writer import Round
from pbem.service.es_adapter import Notice
from pbem.service.failures import store_down
from pbem.service.inputs import printable
from pbem.service.service import GameService
from pbem.service.store import GameRecord

log = logging.getLogger("pbem.mail")
FOLLOWER = "mailroom"  # the tracking row of this follower
ABSENCE_EVENTS = (Correspondent.AbsenceAdded, Correspondent.AbsencesCleared, Correspondent.TimezoneChosen)
ABSENCE_TOPICS = [topic(cls) for cls in ABSENCE_EVENTS]
BATCH_SECONDS = 0.05  # a page's mails are stored at least this often: a burst does not hold the first reply
PAGE_MOST = 500  # notifications a page at most (the store's log section, as before the port)
UNBUILT = "/unbuilt"  # suffix of the key of a notification whose mails could not be built


class Mailroom:
    """The service side of the mail pipeline: follower, timers and dead letters."""

    def __init__(self, service: GameService, settings: MailSettings, clock: Any = utcnow):
        self.service = service
        self.settings = settings
        self.clock = clock
        self.views = views_for(service)
        self.clocks = Clocks(service, settings, clock)
        self.outbox = Outbox(service, settings, self.views, self.clocks)
        self.scheduler = Scheduler(service, self.views, self.outbox)
        self.baton = service.baton(FOLLOWER)
        self.stored: Callable[[], None] = _nothing  # called after each page stored (wakes a sender)
        service.witness(self.views.head)  # the follower witnesses each game's size for the store's self-check

    # -- following -----------------------------------------------------------------------------
    def follow(self, page_size: int = 100) -> int:
        """Handle every notification stored since the tracked position; returns how many. On
        PostgreSQL one gateway process at a time does (``Baton``); the others skip the round."""
        if self.baton is None:
            return self._follow(page_size)
        with self.baton.held() as mine:
            return self._follow(page_size) if mine else 0

    def _follow(self, page_size: int) -> int:
        handled = 0
        while True:
            position = self.views.max_tracking_id(FOLLOWER) or 0
            page = self.service.notifications(position, min(page_size, PAGE_MOST), TOPICS + ABSENCE_TOPICS)
            if not page:
                return handled
            try:
                self._page(page)
            except IntegrityError:  # another gateway process recorded these positions first
                log.info("another follower handled notifications up to %s; this round stops", page[-1].id)
                return handled
            handled += len(page)

    def _page(self, page: Sequence[Notice]) -> None:
        """Queue what a page of notifications calls for, in one transaction (``MailViews.record``)
        with the follower's position after each. A notification whose mails cannot be built is a
        dead letter: what came before it is stored first, and a new round starts after it (what
        the round counted for it was never stored). A long page is stored in parts, one every
        ``BATCH_SECONDS`` of building, so its first mails can leave while the rest is built."""
        round_ = self.outbox.round()
        batch: list[Queued] = []
        started = time.monotonic()
        for notification in page:
            if time.monotonic() - started > BATCH_SECONDS:  # what is built leaves now
                self._store(batch)
                batch, started = [], time.monotonic()
            try:
                batch.append(self._build(notification, round_))
            except Exception as error:
                if store_down(error):
                    raise
                log.error("mail for notification %s could not be built: %r", notification.id, error, exc_info=True)
                self._store(batch)
                batch = []
                self._store([self._unbuilt(notification.id, error)])
                round_ = self.outbox.round()
        self._store(batch)

    def _store(self, batch: list[Queued]) -> None:
        """Store a batch at once; when the store refuses a value in it, one notification at a
        time, and the one it refuses becomes a dead letter."""
        if not batch:
            return
        now = self.clock()
        try:
            self.views.record(batch, now)
            log.info("followed notifications %s to %s (%s)", batch[0].source, batch[-1].source, len(batch))
            self.stored()
            return
        except IntegrityError:
            raise  # another follower recorded these positions first (``follow``)
        except Exception as error:
            if store_down(error) or (len(batch) == 1 and batch[0].error is not None):
                raise
        for queued in batch:
            try:
                self.views.record([queued], now)
            except IntegrityError:
                raise
            except Exception as error:
                if store_down(error) or queued.error is not None:
                    raise
                log.error("mail for notification %s could not be stored: %r", queued.source, error, exc_info=True)
                self.views.record([self._unbuilt(queued.source, error)], now)

    def _build(self, notification: Notice, round_: Round) -> Queued:
        """What one notification calls for: its mails, its game's timers and size."""
        tracking = Tracking(FOLLOWER, notification.id)
        event = notification.event()
        if isinstance(event, ABSENCE_EVENTS):
            self._absences(event, round_)
            return Queued(notification.id, tracking)
        mails = self.outbox.mails_for(round_, event, notification.id)
        games, timers = self._timers(event, round_)
        cleared, round_.cleared = round_.cleared, []
        return Queued(notification.id, tracking, mails, games, timers, _head(event), cleared)

    def _timers(self, event: Any, round_: Round) -> tuple[list[str], list[Timer]]:
        if not isinstance(event, (GameRecord.Created, GameRecord.Appended)):
            return [], []
        game_id = event.game_id if isinstance(event, GameRecord.Created) else event.entries[0]["game"]
        try:
            return [game_id], self.scheduler.timers_for(round_.game(game_id), round_.clocks)
        except Exception as error:  # a bad game keeps its old timers; its mails still go out
            if store_down(error):
                raise
            log.exception("deadlines of %s could not be set", game_id)
            return [], []

    def _absences(self, event: Any, round_: Round) -> None:
        person = round_.clocks.records.find(event.originator_id)
        if person is not None:
            self.scheduler.absences_changed(person.email, round_.clocks)

    @staticmethod
    def _unbuilt(position: int, error: BaseException) -> Queued:
        """The dead letter of a notification whose mails could not be built or stored."""
        mail = Mail(f"n{position}{UNBUILT}", "", {"notification": position}, "", DEAD)
        return Queued(position, Tracking(FOLLOWER, position), [mail], error=_describe(error))

    # -- the rest of a worker round -----------------------------------------------------------
    def fire(self, now: datetime | None = None) -> int:
        return self.scheduler.fire(now or self.clock())

    def next_due(self) -> datetime | None:
        """The earliest time a timer fires or a deferred mail is tried again."""
        return self.views.next_due()

    # -- dead letters --------------------------------------------------------------------------
    def dead_letters(self) -> list[QueuedMail]:
        return self.views.dead()

    def retry(self, key: str) -> list[str]:
        """Queue a dead letter again: a mail to send once more, or a notification whose mails
        are built again. Returns the keys queued."""
        now = self.clock()
        letter = self.views.get(key)
        if letter is None or letter.status != DEAD:
            return []
        if key.startswith(TIMER_DEAD_PREFIX):  # a timer that could not fire: due again now
            return self._retry_timer(letter, now)
        if not key.endswith(UNBUILT):
            return [key] if self.views.mark(key, QUEUED, now) else []
        notification = self.service.notification(letter.source)
        if notification is None:
            raise LookupError(f"notification {letter.source} is not in the store")
        event = notification.event()
        round_ = self.outbox.round()
        mails = self.outbox.mails_for(round_, event, letter.source)
        self.views.record([Queued(letter.source, None, mails, cleared=round_.cleared)], now)
        self.views.mark(key, RETRIED, now)
        return [mail.key for mail in mails]

    def _retry_timer(self, letter: QueuedMail, now: datetime) -> list[str]:
        where = letter.model.get("timer") or {}
        timer = self.views.timer(str(where.get("game")), int(where.get("seat", -1)), str(where.get("kind")))
        if timer is not None and timer.version == where.get("version"):
            self.views.move_timers([replace(timer, due=now)])
        self.views.mark(letter.key, RETRIED, now)
        return [letter.key]


def _nothing() -> None:
    return None


def _head(event: Any) -> dict[str, int]:
    """The size a game's log reached with this event (for the self-check of later loads)."""
    if isinstance(event, (GameRecord.Created, GameRecord.Appended)) and event.entries:
        return {event.entries[0]["game"]: event.entries[-1]["index"] + 1}
    return {}


def _describe(error: BaseException) -> str:
    """The error and where it happened, for the dead letter (the log has the whole trace)."""
    frames = traceback.extract_tb(error.__traceback__)[-3:]
    where = "; ".join(f"{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno} {frame.name}" for frame in frames)
    return printable(f"{type(error).__name__}: {error} (at {where})")
