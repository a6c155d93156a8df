"""Deadlines: per game and phase, reminders, absences and the missed-turn policy.

The deadline of a seat that is waited for runs from the game's last change. Rules come from
the game's ``GameClock`` (set with ``new ... deadline=48``) or the installation's defaults.
An absence period stops the clock: the part of it that falls between the turn's start and
the deadline is added to the deadline. ``Scheduler.tick(now)`` does what is due; the clock is
passed in, so tests never sleep.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from typing import Any

from eventsourcing.persistence import RecordConflictError

from mailgateway.records import Correspondent, GameClock
from mailgateway.settings import MailSettings
from pbem.games.base import GameError
from pbem.service.game import LoadedGame


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def rules_for(clock: GameClock | None, settings: MailSettings) -> dict[str, Any]:
    rules: dict[str, Any] = {"deadline": settings.deadline_hours, "reminder": settings.reminder_hours,
                             "policy": settings.policy, "robot-after": settings.robot_after}
    if clock is not None:
        rules.update(clock.rules)
    return rules


def hours_for(rules: dict[str, Any], phase: str) -> int:
    """The deadline in hours for a phase: a ``deadline.WORD`` rule whose WORD occurs in the
    phase's name wins over the game's ``deadline``."""
    for key, value in sorted(rules.items()):
        if key.startswith("deadline.") and key.split(".", 1)[1] and key.split(".", 1)[1] in phase.lower():
            return int(value)
    return int(rules.get("deadline") or 0)


def deadline_at(since: datetime, hours: int, absences: list[list[str]]) -> datetime | None:
    """When a turn that began at ``since`` runs out; None without a deadline. Every absence
    overlapping the running clock extends it by the overlap."""
    if hours <= 0:
        return None
    due = since + timedelta(hours=hours)
    for first, last in sorted(absences):
        start = datetime.combine(date.fromisoformat(first), datetime.min.time(), timezone.utc)
        end = datetime.combine(date.fromisoformat(last), datetime.min.time(), timezone.utc) + timedelta(days=1)
        overlap = min(end, due) - max(start, since)
        if overlap > timedelta(0):
            due += overlap
    return due


def entry_time(game: LoadedGame, version: int) -> datetime:
    return datetime.fromisoformat(game.entries[version - 1]["time"])


def misses(game: LoadedGame, clock: GameClock | None, seat: int) -> int:
    """Deadlines a seat has missed: default moves played for it, plus misses without one."""
    played = sum(1 for e in game.entries if e["kind"] == "moved" and e.get("source") == "deadline"
                 and e.get("seat") == seat)
    return played + (clock.misses.get(str(seat), 0) if clock else 0)


class Scheduler:
    def __init__(self, gateway: Any):
        self.gateway = gateway
        self.service = gateway.service
        self.store = gateway.service.store
        self.settings: MailSettings = gateway.settings
        self.finished: set[str] = set()  # games known to be over: never loaded again

    def clock_of(self, game_id: str) -> GameClock | None:
        return self.gateway.get(GameClock.create_id(game_id, {}))

    def absences(self, email: str) -> list[list[str]]:
        person = self.gateway.get(Correspondent.create_id(email))
        return person.absences if person else []

    def deadline(self, game: LoadedGame, version: int, seat: int) -> datetime | None:
        """The deadline of ``seat`` at ``version`` (for the text of mails, too)."""
        if not game.started or seat in game.robots:
            return None
        rules = rules_for(self.clock_of(game.id), self.settings)
        state = self.service.state(game, version)
        if state is None:
            return None
        hours = hours_for(rules, game.spec.phase_label(state))
        return deadline_at(entry_time(game, version), hours, self.absences(game.emails[seat]))

    def tick(self, now: datetime | None = None) -> int:
        """Do every due reminder and deadline action; returns how many actions were taken."""
        now = now or self.gateway.clock()
        done = 0
        for game_id in self.service.game_ids():
            if game_id in self.finished:
                continue
            try:
                done += self._tick_game(game_id, now)
            except RecordConflictError:
                continue  # someone changed the game meanwhile; the next tick sees the new state
        return done

    def _tick_game(self, game_id: str, now: datetime) -> int:
        game = self.service.game(game_id)
        if game.ended:
            self.finished.add(game_id)
        if not game.started or game.ended:
            return 0
        clock = self.clock_of(game_id)
        rules = rules_for(clock, self.settings)
        limit = int(rules.get("robot-after") or 0)
        state = self.service.state(game)
        for seat in game.spec.to_move(state):
            if seat in game.robots:
                continue
            if limit and misses(game, clock, seat) >= limit:
                self._to_robot(game_id, seat)
                return 1
            due = self.deadline(game, game.version, seat)
            if due is None:
                continue
            if now >= due:
                return self._missed(game, clock, rules, seat, state)
            reminder = int(rules.get("reminder") or 0)
            marker = f"reminder/{game.version}/{seat}"
            if reminder and now >= due - timedelta(hours=reminder) and not (clock and marker in clock.done):
                clock = clock or GameClock(game_id, {})
                clock.mark(marker)
                mail = self.gateway.outbox.notice(game, seat, "reminder", {"deadline": due})
                self.store.save(clock, *mail)
                return 1
        return 0

    def _missed(self, game: LoadedGame, clock: GameClock | None, rules: dict[str, Any], seat: int,
                state: Any) -> int:
        marker = f"deadline/{game.version}/{seat}"
        if clock and marker in clock.done:
            return 0
        email = game.emails[seat]
        count = misses(game, clock, seat) + 1
        limit = int(rules.get("robot-after") or 0)
        move = game.spec.default_move(state, seat) if rules.get("policy") == "default" else None
        if move is not None:
            outcome = self.service.submit(
                game.id, email, [game.spec.format_move(move)], source="deadline",
                idempotency_key=f"deadline/{game.id}/{game.version}/{seat}",
                context={"deadline": {"seat": seat, "misses": count, "limit": limit}})
            if outcome.ok or outcome.duplicate:
                if limit and count >= limit:
                    self._to_robot(game.id, seat)
                return 1
        clock = clock or GameClock(game.id, {})
        clock.mark(marker, missed_seat=seat if rules.get("policy") == "default" else None)
        extra = {"policy": rules.get("policy"), "misses": count, "limit": limit}
        self.store.save(clock, *self.gateway.outbox.notice(game, seat, "missed", extra))
        if rules.get("policy") == "default" and limit and count >= limit:
            self._to_robot(game.id, seat)
        return 1

    def _to_robot(self, game_id: str, seat: int) -> None:
        try:
            self.service.hand_to_robot(game_id, seat, "missed-turns")
        except GameError:
            pass  # already a robot, or the game ended meanwhile
