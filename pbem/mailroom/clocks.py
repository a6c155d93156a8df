"""Correspondence clocks (``new ... clock=7d+1d``): each seat has a bank of time that runs only
while the game waits on that seat, and grows by an increment when the seat's turn ends.

Pure functions: time comes from the entries' recorded times, passed in, never from the wall
clock. What stops a seat's clock (its absences, and weekends in its time zone under
``weekend=off``) comes in as a function ``stops(start, end)`` giving the merged, sorted
periods within a window, so the walk below is the same for every seat.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, date, datetime, timedelta, tzinfo
from functools import cache
from itertools import pairwise
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from pbem.games.speech import _

Period = tuple[datetime, datetime]
Stops = Callable[[datetime, datetime], list[Period]]

SPAN = re.compile(r"^(?:(\d{1,3})d)?(?:(\d{1,4})h)?$")
BANK_HOURS = (1, 60 * 24)  # a bank: 1 hour to 60 days
MOVE_HOURS = (0, 60 * 24)  # an increment: none to 60 days
MAX_HOURS = (1, 120 * 24)  # a cap: 1 hour to 120 days
CLOCK_USAGE = "clock=BANK+MOVE, e.g. clock=7d+1d or clock=36h+12h"
MAX_ZONE_LENGTH = 64
MAX_WINDOWS = 200  # a walk that needs more windows than this gives up (no deadline)


def span_hours(text: str) -> int | None:
    """``7d``, ``36h``, ``1d12h`` or a bare number of hours, as hours; None if it is none."""
    text = text.strip().lower()
    if text.isascii() and text.isdigit() and len(text) <= 5:
        return int(text)
    found = SPAN.match(text) if text.isascii() and text else None
    if found is None or not any(found.groups()):
        return None
    return int(found.group(1) or 0) * 24 + int(found.group(2) or 0)


def _bounded(key: str, text: str, bounds: tuple[int, int]) -> int:
    hours = span_hours(text)
    if hours is None or not bounds[0] <= hours <= bounds[1]:
        raise ValueError(
            _("{key} takes a time from {low} to {high} hours (like 7d or 36h), not {value}").format(
                key=key, low=bounds[0], high=bounds[1], value=repr(text[:20])
            )
        )
    return hours


def parse_clock(value: str) -> tuple[int, int]:
    """``clock=BANK+MOVE`` as hours (bank, increment); a bank alone has no increment."""
    bank, plus, move = value.partition("+")
    return _bounded("clock", bank, BANK_HOURS), _bounded("clock", move, MOVE_HOURS) if plus else 0


def parse_clock_max(value: str) -> int:
    return _bounded("clock.max", value, MAX_HOURS)


def zone_of(text: str) -> str | None:
    """A time zone name as the tz database spells it (``Europe/Prague``), matched without case;
    None for anything else (bounded: no path, no file is ever opened for an unknown name)."""
    text = text.strip()
    if not text or len(text) > MAX_ZONE_LENGTH or not text.isascii():
        return None
    return _zones().get(text.lower())


@cache
def _zones() -> dict[str, str]:
    return {name.lower(): name for name in available_timezones()} | {"utc": "UTC"}


# -- what stops a clock ---------------------------------------------------------------------
def absence_periods(absences: Iterable[Sequence[str]]) -> list[Period]:
    """Absences ``[[first day, last day], ...]`` (ISO dates, inclusive, UTC days) as periods."""
    periods = []
    for first, last in absences:
        start = datetime.combine(date.fromisoformat(first), datetime.min.time(), UTC)
        end = datetime.combine(date.fromisoformat(last), datetime.min.time(), UTC) + timedelta(days=1)
        periods.append((start, end))
    return periods


def weekends(zone: str, start: datetime, end: datetime) -> list[Period]:
    """The Saturdays and Sundays in time zone ``zone`` that touch ``[start, end)``, in UTC."""
    tz = _tz(zone)
    day = start.astimezone(tz).date() - timedelta(days=2)
    periods: list[Period] = []
    while True:
        saturday = day + timedelta(days=(5 - day.weekday()) % 7)
        begin = datetime.combine(saturday, datetime.min.time(), tz).astimezone(UTC)
        if begin >= end:
            return periods
        monday = datetime.combine(saturday + timedelta(days=2), datetime.min.time(), tz).astimezone(UTC)
        if monday > start:
            periods.append((begin, monday))
        day = saturday + timedelta(days=1)


def _tz(zone: str) -> tzinfo:
    """A zone by name; UTC for a name this machine's time zone data no longer knows."""
    if zone == "UTC":
        return UTC
    try:
        return ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def stops_of(absences: Iterable[Sequence[str]], zone: str | None, paused: Sequence[Period] = ()) -> Stops:
    """What stops one seat's clock: its absences, the game's pauses and, with a ``zone``, its
    weekends there."""
    periods = absence_periods(absences) + list(paused)

    def stops(start: datetime, end: datetime) -> list[Period]:
        found = [(a, b) for a, b in periods if b > start and a < end]
        if zone is not None:
            found += weekends(zone, start, end)
        return merged(found)

    return stops


def merged(periods: Iterable[Period]) -> list[Period]:
    out: list[Period] = []
    for start, end in sorted(periods):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def running(start: datetime, end: datetime, stops: Stops) -> timedelta:
    """How long a clock runs from ``start`` to ``end``: the time not stopped."""
    if end <= start:
        return timedelta(0)
    total = end - start
    for a, b in stops(start, end):
        total -= min(b, end) - max(a, start)
    return total


def runs_out(since: datetime, left: timedelta, stops: Stops) -> datetime | None:
    """The moment a clock with ``left`` on it, running from ``since``, reaches zero (at once if
    it has nothing left); None if the stops keep it from running out within reason."""
    cursor, remaining = since, left
    if remaining <= timedelta(0):
        return since
    for _window in range(MAX_WINDOWS):
        end = cursor + remaining + timedelta(days=8)
        for a, b in stops(cursor, end):
            a, b = max(a, cursor), min(b, end)
            if remaining <= a - cursor:
                return cursor + remaining
            remaining -= a - cursor
            cursor = b
        if remaining <= end - cursor:
            return cursor + remaining
        remaining -= end - cursor
        cursor = end
    return None


# -- the banks ------------------------------------------------------------------------------
def banks(
    turns: Sequence[tuple[datetime, frozenset[int]]],
    seats: int,
    rules: tuple[int, int, int],
    stops: Callable[[int], Stops],
) -> list[timedelta]:
    """Each seat's time left after the last of ``turns`` (each: an entry's recorded time and the
    seats the game waited on after it). ``rules``: bank, increment and cap in hours. A seat's
    clock runs from one entry to the next while the game waits on it; when the game stops
    waiting on it, its turn is over and it gains the increment (up to the cap, from no less
    than nothing). Another seat's move changes nothing for it."""
    bank, move, cap = (timedelta(hours=h) for h in rules)
    left = [bank] * seats
    for (time, waiting), (after, next_waiting) in pairwise(turns):
        for seat in waiting:
            if seat >= seats:
                continue
            left[seat] -= running(time, after, stops(seat))
            if seat not in next_waiting:
                left[seat] = min(cap, max(left[seat], timedelta(0)) + move)
    return left


def clock_rules(rules: dict[str, object]) -> tuple[int, int, int] | None:
    """A game's clock (bank, increment, cap in hours) from its stored rules; None without."""
    if "clock" not in rules:
        return None
    bank, move = (int(str(part)) for part in str(rules["clock"]).split("+"))
    cap = int(str(rules.get("clock.max") or max(bank, MAX_HOURS[1])))
    return bank, move, cap
