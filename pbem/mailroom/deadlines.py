"""Deadlines: per game and phase, reminders, absences and the missed-turn policy.

The deadline of a seat that is waited for runs from the game's last change; in a game with a
correspondence clock (``clock=7d+1d``, ``pbem.mailroom.clocks``) it is the moment the seat's
bank runs out, which another seat's move does not change. Rules come from
the game's ``GameClock`` (set with ``new ... deadline=48``) or the installation's defaults.
An absence period stops the clock (``deadline_at``), and so does a pause the players agreed to
(``propose pause 7d``: ``pbem.ledger.proposals``, read from the log by ``Clocks.pauses``).
``Clocks`` looks up a game's rules and a player's absences; the scheduler
(``pbem.mailroom.scheduler``) keeps the timers. The clock is passed in, so tests never sleep.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

from pbem import i18n
from pbem.ledger import handovers, proposals
from pbem.mailroom.clocks import Period, Stops, banks, clock_rules, merged, runs_out, stops_of
from pbem.mailroom.records import GameClock, MailRecords
from pbem.mailroom.settings import MailSettings
from pbem.service.game import LoadedGame
from pbem.service.service import GameService

MAX_KEPT_GAMES = 256  # games whose waits ``Clocks.turns`` keeps in a process
# game id -> per entry (its time, the seats waited on after it); (None, ...) before the start
TURNS: dict[str, tuple[tuple[datetime | None, frozenset[int]], ...]] = {}
# game id -> (entries read, the pauses passed in them): only new entries are read again
PAUSES: dict[str, tuple[int, tuple[Period, ...]]] = {}


def utcnow() -> datetime:
    return datetime.now(UTC)


def rules_for(clock: GameClock | None, settings: MailSettings) -> dict[str, Any]:
    rules: dict[str, Any] = {
        "deadline": settings.deadline_hours,
        "reminder": settings.reminder_hours,
        "policy": settings.policy,
        "robot-after": settings.robot_after,
    }
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


def deadline_at(
    since: datetime, hours: int, absences: list[list[str]], paused: tuple[Period, ...] = ()
) -> datetime | None:
    """When a turn that began at ``since`` runs out; None without a deadline. The clock stands
    still during absences and the game's pauses: the deadline is the moment when ``hours`` of
    present time have passed, walking through them in order (overlapping ones merged)."""
    if hours <= 0:
        return None
    remaining = timedelta(hours=hours)
    cursor = since
    for start, end in merged([*(_period(first, last) for first, last in absences), *paused]):
        if end <= cursor:
            continue
        if start > cursor:
            if remaining <= start - cursor:
                break
            remaining -= start - cursor
        cursor = end
    return cursor + remaining


def _period(first: str, last: str) -> tuple[datetime, datetime]:
    start = datetime.combine(date.fromisoformat(first), datetime.min.time(), UTC)
    end = datetime.combine(date.fromisoformat(last), datetime.min.time(), UTC) + timedelta(days=1)
    return start, end


def reminder_lead(rules: dict[str, Any], hours: int) -> int:
    """Hours before the deadline that the reminder goes out: the configured lead, but at most
    a quarter of the deadline and at least one hour, so it never comes with "your turn"; 0 for
    no reminder."""
    wanted = int(rules.get("reminder") or 0)
    if wanted <= 0 or hours < 2:
        return 0
    return max(1, min(wanted, hours // 4))


def entry_time(game: LoadedGame, version: int) -> datetime:
    return datetime.fromisoformat(game.entries[version - 1]["time"])


def misses(game: LoadedGame, clock: GameClock | None, seat: int) -> int:
    """Deadlines a seat has missed: default moves played for it, plus misses without one
    (since a substitute took the seat over: the misses before were another player's)."""
    since = handovers.last_handed(game.entries, seat)
    played = sum(
        1
        for e in game.entries[since:]
        if e["kind"] == "moved" and e.get("source") == "deadline" and e.get("seat") == seat
    )
    return played + (clock.misses.get(str(seat), 0) if clock else 0)


class Clocks:
    """Reads what deadlines depend on: a game's ``GameClock`` rules and a player's absences."""

    def __init__(
        self, service: GameService, settings: MailSettings, now: Any = utcnow, records: MailRecords | None = None
    ):
        self.service = service
        self.settings = settings
        self.now = now
        self.records = records or MailRecords(service.record)
        # a round's time left per (game, its version, version asked); None outside a round, whose
        # look-ups must see an absence or time zone changed since
        self._left: dict[tuple[str, int, int], list[timedelta]] | None = None

    def for_round(self) -> Clocks:
        """The same look-ups for one follower round: each mail record read once, into a cache
        that only the round sees."""
        clocks = Clocks(self.service, self.settings, self.now, self.records.cached())
        clocks._left = {}
        return clocks

    def find(self, aggregate_id: Any) -> Any:
        """A mail record (None if there is none); read once per round in a round's ``Clocks``."""
        return self.records.find(aggregate_id)

    def clock_of(self, game_id: str) -> GameClock | None:
        return self.records.clock(game_id)

    def rules(self, game_id: str) -> dict[str, Any]:
        return rules_for(self.clock_of(game_id), self.settings)

    def absences(self, email: str) -> list[list[str]]:
        person = self.records.correspondent(email)
        return list(person.absences) if person else []

    def zone(self, email: str) -> str | None:
        """The time zone ``email`` chose (``timezone Europe/Prague``), None if none."""
        person = self.records.correspondent(email)
        zone = getattr(person, "timezone", None) if person else None
        return str(zone) if zone else None

    def stops(self, game: LoadedGame, seat: int) -> Stops:
        """What stops the clock of ``seat``: its player's absences, the game's pauses and,
        under ``weekend=off``, Saturdays and Sundays in the player's time zone (UTC if none was
        chosen)."""
        email = game.emails[seat]
        weekend = str(self.rules(game.id).get("weekend") or "on") == "off"
        return stops_of(self.absences(email), (self.zone(email) or "UTC") if weekend else None, self.pauses(game))

    @staticmethod
    def pauses(game: LoadedGame) -> tuple[Period, ...]:
        """The pauses the players of ``game`` agreed to (``propose pause``), read from its log;
        kept per process, so a change reads only the new entries."""
        done, found = PAUSES.get(game.id, (0, ()))
        if done > game.version:
            done, found = 0, ()  # another game under this id (another store of this process)
        if done < game.version:
            entries = game.entries
            new = [e for e in entries[done:] if e["kind"] == proposals.DECIDED]
            if new:
                found = tuple(proposals.pauses(entries))
            PAUSES.pop(game.id, None)
            PAUSES[game.id] = (game.version, found)
            while len(PAUSES) > MAX_KEPT_GAMES:
                PAUSES.pop(next(iter(PAUSES)), None)
        return found

    def turns(self, game: LoadedGame, version: int) -> list[tuple[datetime, frozenset[int]]]:
        """For each entry up to ``version`` since the game started: its recorded time and the
        seats the game waited on after it (robots' seats left out). The entries of a game never
        change, so what was read is kept per process (``TURNS``) and only new entries are
        folded: a game's change costs the states of its new entries, not of its whole log."""
        known = TURNS.get(game.id, ())
        if known and not self._same(game, known):
            known = ()  # another game under this id (another store of this process): read again
        if len(known) < version:
            start = len(known)
            if not known:
                start = next((n for n, e in enumerate(game.entries[:version]) if e["kind"] == "started"), version)
                known = ((None, frozenset()),) * start
            known = known + tuple(self._turn(game, v) for v in range(start + 1, version + 1))
            TURNS.pop(game.id, None)
            TURNS[game.id] = known
            while len(TURNS) > MAX_KEPT_GAMES:
                TURNS.pop(next(iter(TURNS)), None)
        robots = game.robots
        return [(time, waiting - robots) for time, waiting in known[:version] if time is not None]

    @staticmethod
    def _same(game: LoadedGame, known: tuple[tuple[datetime | None, frozenset[int]], ...]) -> bool:
        """Whether what is kept for this game's id is this game's: the last time kept matches."""
        last = len(known)
        if last > game.version or known[-1][0] is None:
            return False
        return known[-1][0] == entry_time(game, last)

    def _turn(self, game: LoadedGame, version: int) -> tuple[datetime | None, frozenset[int]]:
        state = self.service.state(game, version)
        if state is None:
            return None, frozenset()
        return entry_time(game, version), frozenset(game.spec.to_move(state))

    def time_left(self, game: LoadedGame, version: int) -> list[timedelta] | None:
        """Each seat's time left at ``version`` of a game with a clock (None without one); kept
        in this ``Clocks`` (one round's), since every mail of a round about the game asks."""
        rules = clock_rules(self.rules(game.id))
        if rules is None or not game.started:
            return None
        key = (game.id, game.version, version)
        if self._left is not None and key in self._left:
            return list(self._left[key])
        stops = {seat: self.stops(game, seat) for seat in range(len(game.emails))}
        left = banks(self.turns(game, version), len(game.emails), rules, stops.__getitem__)
        if self._left is not None:
            self._left[key] = left
        return list(left)

    def deadline(self, game: LoadedGame, version: int, seat: int) -> datetime | None:
        """The deadline of ``seat`` at ``version`` (for the text of mails, too)."""
        if not game.started or seat in game.robots:
            return None
        state = self.service.state(game, version)
        if state is None:
            return None
        left = self.time_left(game, version)
        if left is not None:
            try:
                return runs_out(entry_time(game, version), left[seat], self.stops(game, seat))
            except (OverflowError, ValueError):
                return None
        with i18n.english():  # the rules name phases in English
            hours = hours_for(self.rules(game.id), game.spec.phase_label(state))
        try:
            return deadline_at(entry_time(game, version), hours, self.absences(game.emails[seat]), self.pauses(game))
        except (OverflowError, ValueError):  # a stored absence from before the bounds: no deadline
            return None
