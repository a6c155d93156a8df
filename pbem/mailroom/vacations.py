"""Vacation that is fair (``new ... vacation=DAYS``, default 21): each seat may be away for that
many days per calendar year in each game. An ``absence`` spends them in every game its sender
plays (started, not over), is refused whole when any game's budget would be overdrawn, and is
announced to the other players of those games. Pure functions over the ``VacationTaken`` facts of
a game's ``GameClock``; ``absence off`` gives no days back."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, timedelta
from typing import Any

DEFAULT_DAYS = 21


def days_of(first: str, last: str) -> set[date]:
    """The days of an absence (ISO dates, inclusive)."""
    start, end = date.fromisoformat(first), date.fromisoformat(last)
    return {start + timedelta(days=n) for n in range((end - start).days + 1)}


def taken(vacations: Iterable[Sequence[Any]], seat: int) -> set[date]:
    """The days ``seat`` has taken as vacation in a game (``[seat, first, last]`` each)."""
    days: set[date] = set()
    for who, first, last in vacations:
        if who == seat:
            days |= days_of(first, last)
    return days


def budget_of(rules: dict[str, Any]) -> int:
    return int(rules.get("vacation", DEFAULT_DAYS))


def spend(vacations: Iterable[Sequence[Any]], seat: int, first: str, last: str, budget: int) -> dict[str, int]:
    """What the absence ``first``-``last`` costs ``seat`` in one game: ``new`` days not taken
    before, and the days ``left`` in the first day's year after it; ``year`` and ``over`` (the
    first year it would overdraw, and by how much) when it does not fit."""
    before = taken(vacations, seat)
    wanted = days_of(first, last) - before
    for year in sorted({day.year for day in wanted}):
        used = sum(1 for day in before | wanted if day.year == year)
        if used > budget:
            left = budget - sum(1 for day in before if day.year == year)
            return {"new": len(wanted), "year": year, "left": max(0, left), "over": used - budget}
    year = date.fromisoformat(first).year
    return {"new": len(wanted), "year": year, "left": budget - sum(1 for d in before | wanted if d.year == year)}
