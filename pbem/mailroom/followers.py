"""The mail follower of the event store, and the dead letters.

``Mailroom.follow()`` reads the notifications stored after its tracked position (the
library's tracking table, row "mailroom") and, for each one, queues the mails it calls for and
sets the timers of the game it changed, in one transaction with the new position. A round
costs O(new notifications); an idle round is a few indexed queries.

A notification whose mails cannot be built or queued (a bug in a game's view, a missing game,
a value the store refuses) becomes a dead letter that names it and its error, logged at ERROR;
the follower moves on. ``retry`` builds it again (after the fix). Only a store that is down or
busy is not the notification's fault (``pbem.service.failures``): that propagates and the same
notification is tried in the next round.
"""

from __future__ import annotations

import logging
import traceback
from dataclasses import replace
from datetime import datetime
from typing import Any

from eventsourcing.persistence import IntegrityError, Tracking

from pbem.mailroom.deadlines import Clocks, utcnow
from pbem.mailroom.outbox import TOPICS, Outbox, topic
from pbem.mailroom.queue import DEAD, QUEUED, RETRIED, Mail, QueuedMail, Timer, views_for
from pbem.mailroom.records import Correspondent
from pbem.mailroom.scheduler import TIMER_DEAD_PREFIX, Scheduler
from pbem.mailroom.settings import MailSettings
from pbem.mailroom.writer import Round
from pbem.service.failures import store_down
from pbem.service.inputs import printable
from pbem.service.service import GameService
from pbem.service.store import GameRecord

log = logging.getLogger("pbem.mail")
FOLLOWER = "mailroom"  # the tracking row of this follower
ABSENCE_EVENTS = (Correspondent.AbsenceAdded, Correspondent.AbsencesCleared, Correspondent.TimezoneChosen)
ABSENCE_TOPICS = [topic(cls) for cls in ABSENCE_EVENTS]
UNBUILT = "/unbuilt"  # suffix of the key of a notification whose mails could not be built


class Mailroom:
    """The service side of the mail pipeline: follower, timers and dead letters."""

    def __init__(self, service: GameService, settings: MailSettings, clock: Any = utcnow):
        self.service = service
        self.settings = settings
        self.clock = clock
        self.views = views_for(service.store)
        self.clocks = Clocks(service, settings, clock)
        self.outbox = Outbox(service, settings, self.views, self.clocks)
        self.scheduler = Scheduler(service, self.views, self.outbox)
        service.witness(self.views.head)  # the follower witnesses each game's size for the store's self-check

    # -- following -----------------------------------------------------------------------------
    def follow(self, page_size: int = 100) -> int:
        """Handle every notification stored since the tracked position; returns how many."""
        handled = 0
        store = self.service.store
        while True:
            position = self.views.max_tracking_id(FOLLOWER) or 0
            page = store.notification_log.select(
                position + 1, min(page_size, store.log_section_size), topics=TOPICS + ABSENCE_TOPICS
            )
            if not page:
                return handled
            round_ = self.outbox.round()
            for notification in page:
                try:
                    if not self._handle(notification, round_):
                        round_ = self.outbox.round()  # what the round counted for it was never stored
                except IntegrityError:  # another gateway process recorded this position first
                    log.info("another follower handled notification %s; this round stops", notification.id)
                    return handled
                handled += 1

    def _handle(self, notification: Any, round_: Round) -> bool:
        """Queue what one notification calls for; False when it became a dead letter."""
        now = self.clock()
        tracking = Tracking(FOLLOWER, notification.id)
        try:
            self._queue(notification, round_, now, tracking)
        except IntegrityError:
            raise  # another follower recorded this position first (``follow``)
        except Exception as error:
            if store_down(error):
                raise
            log.error("mail for notification %s could not be built: %r", notification.id, error, exc_info=True)
            self.views.enqueue([self._unbuilt(notification.id)], now, notification.id, tracking, error=_describe(error))
            return False
        return True

    def _queue(self, notification: Any, round_: Round, now: datetime, tracking: Tracking) -> None:
        event = self.service.store.mapper.to_domain_event(notification)
        if isinstance(event, ABSENCE_EVENTS):
            self._absences(event, round_)
            self.views.set_timers([], [], [], now, notification.id, tracking)
            return
        mails = self.outbox.mails_for(round_, event, notification.id)
        games, timers = self._timers(event, round_)
        self.views.set_timers(games, timers, mails, now, notification.id, tracking, _head(event))

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
    def _unbuilt(position: int) -> Mail:
        return Mail(f"n{position}{UNBUILT}", "", {"notification": position}, "", DEAD)

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
        notification = self.service.store.notification_log.select(letter.source, 1)[0]
        event = self.service.store.mapper.to_domain_event(notification)
        mails = self.outbox.mails_for(self.outbox.round(), event, letter.source)
        self.views.enqueue(mails, now, letter.source)
        self.views.mark(key, RETRIED, now)
        return [mail.key for mail in mails]

    def _retry_timer(self, letter: QueuedMail, now: datetime) -> list[str]:
        where = letter.model.get("timer") or {}
        timer = self.views.timer(str(where.get("game")), int(where.get("seat", -1)), str(where.get("kind")))
        if timer is not None and timer.version == where.get("version"):
            self.views.move_timers([replace(timer, due=now)])
        self.views.mark(letter.key, RETRIED, now)
        return [letter.key]


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
