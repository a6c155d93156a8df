"""The mail side's aggregates, stored in the service's event store: a correspondent's
preferences, a game's observers and its deadline rules; and ``MailRecords``, the repository
the mailroom reads them through. Their topics are stored with every event; they were first
stored as ``pbem.mailroom.records:...``, which still resolves here."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event
from eventsourcing.utils import register_topic

from pbem import i18n


def mail_uuid(kind: str, key: str) -> UUID:
    return uuid5(NAMESPACE_URL, f"pbem:mail:{kind}:{key}")


class Correspondent(Aggregate):
    """A mail address's preferences: language, board pictures in mail, absence periods, the
    time zone of its weekends (records from before time zones have none: UTC)."""

    snapshotted = True  # read for every mail: snapshots keep loading it short (PbemStore)

    if TYPE_CHECKING:  # made by @event at run time

        class AbsenceAdded(Aggregate.Event):
            first: str
            last: str

        class AbsencesCleared(Aggregate.Event):
            pass

        class TimezoneChosen(Aggregate.Event):
            zone: str

    @staticmethod
    def create_id(email: str) -> UUID:
        return mail_uuid("person", email)

    @event("Registered")
    def __init__(self, email: str):
        self.email = email
        self.language = ""  # none chosen: mail about a game speaks the game's language
        self.pictures = True  # a board picture in the mails that hand them the turn or end a game
        self.absences: list[list[str]] = []  # [[first day, last day], ...] ISO dates
        self.created: list[str] = []  # when this address created games by mail (last day)

    @event("LanguageChosen")
    def choose_language(self, language: str) -> None:
        self.language = language

    @event("PicturesChosen")
    def choose_pictures(self, on: bool) -> None:
        self.pictures = on

    @event("ReceiptsChosen")
    def choose_receipts(self, choice: str) -> None:
        """``on`` (one receipt per mail), ``off`` (none) or ``daily`` (one a day per game)."""
        self.receipts = choice

    @event("AbsenceAdded")
    def add_absence(self, first: str, last: str) -> None:
        self.absences.append([first, last])

    @event("AbsencesCleared")
    def clear_absences(self) -> None:
        self.absences = []

    @event("TimezoneChosen")
    def choose_timezone(self, zone: str) -> None:
        """The time zone this address counts its weekends in (``weekend=off`` games)."""
        self.timezone = zone

    @event("NameGiven")
    def give_name(self, name: str) -> None:
        """The name this address goes by (the display name of its mail), for the seats of the
        games created with it from now on."""
        self.name = name

    def known_name(self) -> str | None:
        """The name this address goes by, if it ever gave one (older records have none)."""
        name = getattr(self, "name", None)
        return str(name) if name else None

    @event("GameCreated")
    def created_game(self, time: str, keep_after: str) -> None:
        """A game this address created by mail (counted against the daily limit)."""
        self.created = [t for t in self.created if t > keep_after] + [time]

    def games_created_since(self, time: str) -> int:
        return sum(1 for t in self.created if t > time)


class Confirmation(Aggregate):
    """A command sent to the service address that changes someone's standing (language,
    absence, subscriptions): it runs only when the address replies ``confirm TOKEN``, so a
    forged From cannot change another person's settings."""

    @staticmethod
    def create_id(token: str) -> UUID:
        return mail_uuid("confirm", token)

    @event("Asked")
    def __init__(self, token: str, email: str, command: str, asked: str):
        self.token = token
        self.email = email
        self.command = command
        self.asked = asked
        self.used = False

    @event("Confirmed")
    def confirm(self, time: str) -> None:
        self.used = True


class VerifiedAddress(Aggregate):
    """An address that has shown it is who it says: it wrote with a seat's token, answered a
    ``confirm TOKEN``, or sent mail DKIM-signed by its own domain. Only such an address "has
    written" to the service (its invitations and replies are not a stranger's); a forged From
    never makes one. One event per address, ever."""

    @staticmethod
    def create_id(email: str) -> UUID:
        return mail_uuid("verified", email)

    @event("Verified")
    def __init__(self, email: str, how: str, since: str):
        self.email = email
        self.how = how  # "token", "confirm" or "dkim"
        self.since = since


class Watchers(Aggregate):
    """Observers of a game: each gets a public digest when a turn ends, or at most one a day
    (``daily``: those who asked ``subscribe GAME daily``)."""

    snapshotted = True  # read for every mail: snapshots keep loading it short (PbemStore)

    @staticmethod
    def create_id(game_id: str) -> UUID:
        return mail_uuid("watchers", game_id)

    @event("Opened")
    def __init__(self, game_id: str):
        self.game_id = game_id
        self.emails: list[str] = []
        self.daily: list[str] = []

    @event("Subscribed")
    def subscribe(self, email: str) -> None:
        if email not in self.emails:
            self.emails.append(email)
        self.daily = [e for e in self.daily_emails() if e != email]  # a digest per turn again

    @event("SubscribedDaily")
    def subscribe_daily(self, email: str) -> None:
        if email not in self.emails:
            self.emails.append(email)
        self.daily = [e for e in self.daily_emails() if e != email] + [email]

    @event("Unsubscribed")
    def unsubscribe(self, email: str) -> None:
        if email in self.emails:
            self.emails.remove(email)
        self.daily = [e for e in self.daily_emails() if e != email]

    def daily_emails(self) -> list[str]:
        """Who wants one digest a day (records stored before daily digests have none)."""
        return list(getattr(self, "daily", []))


class GameClock(Aggregate):
    """A game's deadline rules, and what the scheduler has already done (so each reminder
    and each deadline action happens once)."""

    snapshotted = True  # read for every mail: snapshots keep loading it short (PbemStore)

    if TYPE_CHECKING:  # made by @event at run time

        class VacationTaken(Aggregate.Event):
            seat: int
            first: str
            last: str
            days: int
            left: int

        class Expired(Aggregate.Event):
            time: str

    @staticmethod
    def create_id(game_id: str, rules: dict[str, Any]) -> UUID:
        return mail_uuid("clock", game_id)

    @event("Set")
    def __init__(self, game_id: str, rules: dict[str, Any]):
        self.game_id = game_id
        self.rules = dict(rules)  # deadline, deadline.WORD, reminder, policy, robot-after
        self.done: list[str] = []  # "reminder/VERSION/SEAT", "deadline/VERSION/SEAT"
        self.misses: dict[str, int] = {}  # seat -> misses without a default move

    @event("RulesChanged")
    def change(self, rules: dict[str, Any]) -> None:
        """New values for some rules (e.g. ``mail=off`` from ``pbem move --no-mail``)."""
        self.rules.update(rules)

    @event("VacationTaken")
    def take_vacation(self, seat: int, first: str, last: str, days: int, left: int) -> None:
        """``seat`` is away from ``first`` to ``last`` (``absence``): ``days`` new days of its
        vacation in this game, ``left`` in that year after them (``pbem.mailroom.vacations``)."""
        self.vacations = [*self.vacation_list(), [seat, first, last]]

    def vacation_list(self) -> list[list[Any]]:
        """``[seat, first, last]`` of each vacation taken (records from before have none)."""
        return list(getattr(self, "vacations", []))

    @event("Done")
    def mark(self, marker: str, missed_seat: int | None = None) -> None:
        self.done.append(marker)
        if missed_seat is not None:
            self.misses[str(missed_seat)] = self.misses.get(str(missed_seat), 0) + 1

    @event("Expired")
    def expire(self, time: str) -> None:
        """The game never started within its ``start-within`` days: it expired at ``time``
        (``pbem.mailroom.expiry``); joining it is refused from now on."""
        self.expired = time

    def expired_at(self) -> str | None:
        """When the game expired, or None (records from before never did)."""
        return getattr(self, "expired", None)

    @event("MissesCleared")
    def clear_misses(self, seat: int) -> None:
        """A substitute took over ``seat``: the misses of the player before count no more."""
        self.misses = {key: value for key, value in self.misses.items() if key != str(seat)}


for _old in (Correspondent, Watchers, GameClock):  # topics of events stored before the move
    register_topic(f"pbem.mailroom.records:{_old.__qualname__}", _old)


class MailRecords:
    """The mail records as stored, read through the service's port (``find``: the service's
    ``record``). They change only in a ``Work`` (``Work.aggregate`` gets or makes one), saved
    with the moves and the receipt of the mail that changed them. ``cached()`` gives the
    records of one follower round: each read once, in a cache that only the round sees."""

    def __init__(self, find: Callable[[UUID], Any], cache: dict[UUID, Any] | None = None):
        self._find = find
        self._cache = cache

    def cached(self) -> MailRecords:
        return MailRecords(self._find, {})

    def find(self, record_id: UUID) -> Any:
        """The record with this id, or None."""
        if self._cache is None:
            return self._find(record_id)
        if record_id not in self._cache:
            self._cache[record_id] = self._find(record_id)
        return self._cache[record_id]

    def correspondent(self, email: str) -> Correspondent | None:
        found: Correspondent | None = self.find(Correspondent.create_id(email))
        return found

    def clock(self, game_id: str) -> GameClock | None:
        found: GameClock | None = self.find(GameClock.create_id(game_id, {}))
        return found

    def watchers(self, game_id: str) -> Watchers | None:
        found: Watchers | None = self.find(Watchers.create_id(game_id))
        return found

    def verified(self, email: str) -> bool:
        """Whether ``email`` has written to the service and shown it was itself
        (``VerifiedAddress``); a mail with a forged From never counts."""
        return self.find(VerifiedAddress.create_id(email)) is not None

    def pictures(self, email: str) -> bool:
        """Whether mail to ``email`` carries board pictures (``pictures off`` says no)."""
        person = self.correspondent(email)
        return bool(getattr(person, "pictures", True)) if person is not None else True

    def receipts(self, email: str) -> str:
        """How ``email`` wants receipts of its mails: "on" (default), "off" or "daily"."""
        person = self.correspondent(email)
        return str(getattr(person, "receipts", "on")) if person is not None else "on"

    def language(self, email: str | None, game_id: str | None, hint: str | None = None) -> str:
        """The language of mail to ``email``: the address's chosen one, else the game's
        (``new ... lang=cs``), else ``hint`` (the language of the words a mail to the service
        address used: ``hry`` is Czech), else English."""
        person = self.correspondent(email) if email else None
        if person is not None and person.language:
            return str(person.language)
        clock = self.clock(game_id) if game_id else None
        if clock is not None and "lang" in clock.rules:
            return str(clock.rules["lang"])
        return i18n.known(hint)


def expired_at(record: Callable[[UUID], Any], game_id: str) -> str | None:
    """When ``game_id`` expired (never started within its ``start-within`` days), or None; read
    through ``record`` (a repository's ``record``: an aggregate by id, or None). The web pages,
    the games list and ``status`` say so instead of "waiting for players"."""
    clock = record(GameClock.create_id(game_id, {}))
    return clock.expired_at() if isinstance(clock, GameClock) else None
