"""Deadlines and reminders as timers: the follower sets a game's timers whenever the game
changes (``timers_for``), and each round fires only the timers that are due (``fire``), so an
idle round costs one indexed query however many games there are.

Firing is idempotent, so two gateway processes may race for a timer: a deadline's action is a
game write with its own idempotency key (``deadline:GAME/VERSION/SEAT``, a namespace no mail
can reach), a reminder is a mail with a unique key. One failing timer is logged, postponed by
an hour and kept as a dead letter with its error (``pbem mail-dead``; ``--retry`` makes it due
at once); it never stops the others. Only a store that is down ends the round.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from eventsourcing.persistence import RecordConflictError

from pbem import i18n
from pbem.ledger import proposals
from pbem.ledger.entries import instant
from pbem.mailroom import expiry
from pbem.mailroom.clocks import Period, clock_rules
from pbem.mailroom.deadlines import Clocks, deadline_at, entry_time, hours_for, misses, reminder_lead
from pbem.mailroom.outbox import Outbox
from pbem.mailroom.queue import DEAD, Mail, MailViews, Timer
from pbem.mailroom.records import GameClock
from pbem.mailroom.writer import Round
from pbem.service.failures import store_down
from pbem.service.game import LoadedGame
from pbem.service.inputs import printable
from pbem.service.service import MAX_SAVE_ATTEMPTS, GameService, Work
from pbem.service.store import Receipt

log = logging.getLogger("pbem.mail")
RETRY_FAILED_TIMER = timedelta(hours=1)
TIMER_DEAD_PREFIX = "timer:"  # keys of the dead letters of timers that could not fire


def deadline_key(game_id: str, version: int, seat: int) -> str:
    return f"deadline:{game_id}/{version}/{seat}"


def timer_dead_key(timer: Timer) -> str:
    """The dead letter of a timer that could not fire (one per timer, however often it fails)."""
    return f"{TIMER_DEAD_PREFIX}{timer.game_id}/{timer.version}/{timer.seat}/{timer.kind}"


LAPSE = "lapse"  # the timer of a proposal's votes closing (pbem/ledger/proposals.py)


def lapse_timer(game: LoadedGame) -> list[Timer]:
    """The moment the open proposal's votes close, if one is open after the game's last entry."""
    asked = proposals.open_proposal(game.entries, instant(game.last["time"]))
    if asked is None:
        return []
    seat = int(asked["seat"])
    since, until = instant(asked["time"]), instant(asked["until"])
    return [Timer(game.id, seat, LAPSE, game.version, game.emails[seat], since, proposals.VOTE_DAYS * 24, until)]


class Scheduler:
    def __init__(self, service: GameService, views: MailViews, outbox: Outbox):
        self.service = service
        self.views = views
        self.outbox = outbox

    # -- setting timers (the follower) ---------------------------------------------------------
    def timers_for(self, game: LoadedGame, clocks: Clocks) -> list[Timer]:
        """The reminder and deadline of every seat the game now waits for (``clocks``: the
        follower round's look-ups). In a game with a clock, a seat's deadline is when its bank
        runs out (``Clocks.deadline``), so another seat's move leaves it where it was."""
        if not game.started:  # a game waiting for its players expires when they take too long
            found = expiry.timer(game, clocks.rules(game.id), clocks.records.clock(game.id))
            return [found] if found is not None else []
        if game.ended:
            return []
        return self._turn_timers(game, clocks) + lapse_timer(game)

    def _turn_timers(self, game: LoadedGame, clocks: Clocks) -> list[Timer]:
        state = self.service.state(game)
        if state is None:
            return []
        rules = clocks.rules(game.id)
        left = clocks.time_left(game, game.version)
        with i18n.english():  # the rules name phases in English
            hours = hours_for(rules, game.spec.phase_label(state))
        if hours <= 0 and left is None:
            return []
        since = entry_time(game, game.version)
        timers: list[Timer] = []
        for seat in game.spec.to_move(state):
            if seat in game.robots:
                continue
            email = game.emails[seat]
            if left is not None:
                hours = max(0, int(left[seat].total_seconds() // 3600))
                due = clocks.deadline(game, game.version, seat)
            else:
                due = self._due(since, hours, email, clocks, clocks.pauses(game))
            if due is not None:
                timers += self._seat_timers(
                    Timer(game.id, seat, "deadline", game.version, email, since, hours, due), rules
                )
        return timers

    @staticmethod
    def _seat_timers(deadline: Timer, rules: dict[str, Any]) -> list[Timer]:
        """A seat's deadline and, when the rules ask for one, its reminder."""
        lead = reminder_lead(rules, deadline.hours)
        if not lead:
            return [deadline]
        return [deadline, replace(deadline, kind="reminder", due=deadline.due - timedelta(hours=lead))]

    @staticmethod
    def _due(
        since: datetime, hours: int, email: str, clocks: Clocks, paused: tuple[Period, ...] = ()
    ) -> datetime | None:
        try:
            return deadline_at(since, hours, clocks.absences(email), paused)
        except (OverflowError, ValueError):
            log.error("absences of %s give no valid deadline; none is set", email)
            return None

    def absences_changed(self, email: str, clocks: Clocks) -> None:
        """Move the timers of one player after an absence or time zone was added or cleared."""
        moved = []
        for timer in self.views.timers_of(email):
            if timer.kind in (expiry.KIND, LAPSE):  # a game's expiry, a proposal's votes: whoever is away
                continue
            rules = clocks.rules(timer.game_id)
            if clock_rules(rules) is not None:
                deadline = clocks.deadline(self.service.game(timer.game_id), timer.version, timer.seat)
            else:
                paused = clocks.pauses(self.service.game(timer.game_id))
                deadline = self._due(timer.since, timer.hours, email, clocks, paused)
            if deadline is None:
                continue
            lead = reminder_lead(rules, timer.hours)
            due = deadline - timedelta(hours=lead) if timer.kind == "reminder" else deadline
            if due != timer.due:
                moved.append(replace(timer, due=due))
        self.views.move_timers(moved)

    # -- firing --------------------------------------------------------------------------------
    def fire(self, now: datetime, limit: int = 50) -> int:
        """Act on every due timer; returns how many were acted on."""
        return self._fire_due(now, limit, self.outbox.round())

    def _fire_due(self, now: datetime, limit: int, round_: Round) -> int:
        done = 0
        for timer in self.views.due_timers(now, limit):
            try:
                acted = self._fire(timer, now, round_)
            except Exception as error:  # one bad game or timer must not stop the others
                if store_down(error):
                    raise
                self._failed(timer, now, error)
                round_ = self.outbox.round()  # what the round counted for it was never stored
                continue
            if self.views.fired(timer) and acted:
                done += 1
        return done

    def _failed(self, timer: Timer, now: datetime, error: Exception) -> None:
        """Postpone a timer that could not fire, and show it as a dead letter."""
        log.exception("timer %s of %s failed; tried again later", timer.kind, timer.game_id)
        self.views.move_timers([replace(timer, due=now + RETRY_FAILED_TIMER)])
        where = {"timer": {"game": timer.game_id, "seat": timer.seat, "kind": timer.kind, "version": timer.version}}
        dead = Mail(timer_dead_key(timer), "", where, "", DEAD)
        self.views.enqueue([dead], now, 0, error=printable(f"{type(error).__name__}: {error}"))

    def _fire(self, timer: Timer, now: datetime, round_: Round) -> bool:
        game = round_.game(timer.game_id)
        if timer.kind == expiry.KIND:
            return self._expire(round_, game, now)
        if timer.kind == LAPSE:
            return self._lapsed(round_, game, timer, now)
        state = self.service.state(game)
        if game.version != timer.version or game.ended or state is None or timer.seat not in game.spec.to_move(state):
            return False  # the game moved on; its new timers replace this one
        if timer.kind == "reminder":
            due = timer.due + timedelta(hours=reminder_lead(round_.clocks.rules(game.id), timer.hours))
            mails = self.outbox.notice(round_, game, timer.seat, "reminder", {"deadline": due})
            self.views.enqueue(mails, now, 0)
            return True
        return self._missed(round_, game, timer.seat, state, now)

    def _lapsed(self, round_: Round, game: LoadedGame, timer: Timer, now: datetime) -> bool:
        """A proposal's votes closed undecided: every player not played by the robot is told
        (the log has no entry for it: the proposal is simply no longer open). A change of the
        game since the timer was set set a new one, if the proposal was still open."""
        asked = proposals.open_proposal(game.entries, instant(game.last["time"]))
        if game.version != timer.version or game.ended or asked is None or instant(asked["until"]) > now:
            return False
        extra = {"passed": False, "lapsed": True, "number": asked["index"] + 1, "what": asked["what"]}
        for seat in sorted(set(range(len(game.names))) - game.robots):
            key = f"lapse/{game.id}/{asked['index']}/{seat}"
            self.views.enqueue(self.outbox.notice(round_, game, seat, "decided", extra, key=key), now, 0)
        return True

    def _expire(self, round_: Round, game: LoadedGame, now: datetime) -> bool:
        """A game that never started expires: the fact on its clock and a notice to every
        player (queued first, under keys of their own, as a missed deadline's notice)."""
        for _attempt in range(MAX_SAVE_ATTEMPTS):
            work = expiry.expire(self.service, game, now)
            if work is None:
                return False  # it started, or another process expired it first
            extra = expiry.notice_extra(game, round_.clocks.rules(game.id))
            for seat in range(len(game.names)):
                self.views.enqueue(self.outbox.notice(round_, game, seat, "expired", extra), now, 0)
            try:
                work.commit()
            except RecordConflictError:
                game = self.service.game(game.id)
                continue
            return True
        raise RuntimeError(f"game {game.id}: too many concurrent changes at its expiry, gave up")

    def _missed(self, round_: Round, game: LoadedGame, seat: int, state: Any, now: datetime) -> bool:
        """A missed deadline, as one ``Work`` like a mail: the default move (under the policy
        "default", with the receipt the deadline notice is built from) or the miss marked on the
        game's clock (with the "missed" notice queued first: its key is unique, so a repeat
        queues nothing), and the seat handed to the robot when it has missed too often, unless
        mail to the player bounces."""
        rules = round_.clocks.rules(game.id)
        marker = f"deadline/{game.version}/{seat}"
        policy = rules.get("policy")
        limit = int(rules.get("robot-after") or 0)
        move = game.spec.default_move(state, seat) if policy == "default" else None
        key = deadline_key(game.id, game.version, seat)
        for attempt in range(MAX_SAVE_ATTEMPTS):
            work = self.service.work(key, fresh=attempt > 0)
            clock = work.find(GameClock.create_id(game.id, {}))
            if clock and marker in clock.done:
                return False
            count = misses(game, clock, seat) + 1
            if not self._default_move(work, game, seat, move, {"seat": seat, "misses": count, "limit": limit}):
                work.aggregate(GameClock.create_id(game.id, {}), lambda: GameClock(game.id, {})).mark(
                    marker, missed_seat=seat if policy == "default" else None
                )
                extra = {"policy": policy, "misses": count, "limit": limit}
                self.views.enqueue(self.outbox.notice(round_, game, seat, "missed", extra), now, 0)
            # the robot does not take the seat of a player whose mail bounces: she never heard
            # of her turns (the other players' mails say so); default moves keep the game going
            if policy == "default" and limit and count >= limit and not self.views.undeliverable(game.emails[seat]):
                work.run(game.id, self.service.robot_plan(seat, "missed-turns"))  # refused when already one
            try:
                work.commit()
            except RecordConflictError:
                if self.service.receipt_for(key) is not None:
                    return True  # another process played the default move first
                continue
            return True
        raise RuntimeError(f"game {game.id}: too many concurrent changes at a deadline, gave up")

    def _default_move(self, work: Work, game: LoadedGame, seat: int, move: Any, info: dict[str, Any]) -> bool:
        """Plan the default move for ``seat`` into ``work`` with its receipt; False when there is
        none or the rules refuse it (then the miss is marked instead)."""
        if move is None:
            return False
        plan = self.service.orders_plan(
            game.emails[seat], [(1, game.spec.format_move(move))], "deadline", None, None, False
        )
        outcome = work.run(game.id, plan)
        if not outcome.ok:
            return False
        context = {"deadline": info}
        work.add(
            Receipt.of(
                deadline_key(game.id, game.version, seat), outcome.game_id, outcome.to_dict() | {"context": context}
            )
        )
        return True
