"""Scoring: one column at a time in the rulebook's order (page 5-6), and the final count.

Column steps: 1 Musketeers, 2 Wizard, 3 Witch, 4 Prince and Squire; then the unordered cards
(Hermit, Little Giant, Doppelganger, Dragon, Romeo, Beggar) and the sums. A card's position is
its distance from the goal card (0 = directly under it); ties go to the player with a card
closest to the goal card, or with an active Beggar farthest from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .cards import (
    CARDS,
    DRAGON_HALVES,
    GIANT_STEP_HALVES,
    GOALS,
    HERMIT_STEP_HALVES,
    ROMEO_WITH_JULIET_HALVES,
    WITCH_MAX_HALVES,
    WIZARD_MIN_HALVES,
)
from .state import Column, Slot

Entry = tuple[int, Slot]  # (position, slot)


@dataclass(frozen=True)
class ColumnResult:
    winner: int | None
    reason: str  # "highest", "lowest" (Beggar), "prince-and-squire", "empty"
    removed: tuple[Entry, ...] = ()
    numbers: dict[int, int | None] = field(default_factory=dict)  # position -> half points
    sums: dict[int, int] = field(default_factory=dict)  # seat -> half points
    musketeers: bool = False


def _count(entries: Sequence[Entry], card: str) -> int:
    return sum(1 for _, slot in entries if slot.card == card)


def test_halves(entries: Sequence[Entry], index: int, suit: str) -> int | None:
    """The printed number the Wizard and Witch judge; a Doppelganger is judged as the card it
    copies (the next card below it), or has none."""
    for _, slot in entries[index:]:
        printed = CARDS[slot.card].printed_halves(suit)
        if slot.card != "doppelganger":
            return printed
    return None


def _remove(entries: list[Entry], suit: str, keep) -> tuple[list[Entry], list[Entry]]:
    tests = [test_halves(entries, i, suit) for i in range(len(entries))]
    kept = [entry for entry, test in zip(entries, tests, strict=False) if keep(entry[1], test)]
    gone = [entry for entry, test in zip(entries, tests, strict=False) if not keep(entry[1], test)]
    return kept, gone


def wizard_step(entries: list[Entry], suit: str) -> tuple[list[Entry], list[Entry]]:
    """A single Wizard removes every card numbered 10 or more; two or more cancel."""
    if _count(entries, "wizard") != 1:
        return entries, []
    return _remove(entries, suit, lambda slot, test: test is None or test < WIZARD_MIN_HALVES)


def witch_step(entries: list[Entry], suit: str) -> tuple[list[Entry], list[Entry]]:
    """A single Witch removes every card numbered 9 or less except herself; two or more cancel."""
    if _count(entries, "witch") != 1:
        return entries, []
    return _remove(entries, suit, lambda slot, test: slot.card == "witch" or test is None or test > WITCH_MAX_HALVES)


def prince_and_squire(entries: Sequence[Entry]) -> int | None:
    """The seat whose Prince and Squire both lie here (closest pair card wins), or None."""
    best: tuple[int, int] | None = None
    for seat in {slot.owner for _, slot in entries}:
        mine = [pos for pos, slot in entries if slot.owner == seat and slot.card in ("prince", "squire")]
        cards = {slot.card for _, slot in entries if slot.owner == seat}
        if {"prince", "squire"} <= cards and (best is None or min(mine) < best[0]):
            best = (min(mine), seat)
    return None if best is None else best[1]


def own_number(entries: Sequence[Entry], index: int, suit: str, abilities: bool) -> int | None:
    """A card's number before Dragons: Hermit, Little Giant, Romeo and Doppelganger applied."""
    slot = entries[index][1]
    card = slot.card
    others = len(entries) - 1
    if not abilities:
        return CARDS[card].printed_halves(suit)
    if card == "doppelganger":
        return own_number(entries, index + 1, suit, True) if index + 1 < len(entries) else None
    if card == "hermit":
        return (CARDS[card].halves or 0) + HERMIT_STEP_HALVES * others
    if card == "little_giant":
        return (CARDS[card].halves or 0) + GIANT_STEP_HALVES * others
    if card == "romeo" and any(s.card == "juliet" and s.owner == slot.owner for _, s in entries):
        return ROMEO_WITH_JULIET_HALVES
    return CARDS[card].printed_halves(suit)


def numbers(entries: Sequence[Entry], suit: str, abilities: bool) -> list[int | None]:
    """Final numbers of the remaining cards: Dragons lower other owners' cards, floor 0."""
    values = [own_number(entries, i, suit, abilities) for i in range(len(entries))]
    dragons = [slot.owner for _, slot in entries if slot.card == "dragon"] if abilities else []
    result: list[int | None] = []
    for (_, slot), value in zip(entries, values, strict=False):
        if value is not None:
            value = max(0, value - DRAGON_HALVES * sum(1 for owner in dragons if owner != slot.owner))
        result.append(value)
    return result


def score_column(column: Column) -> ColumnResult:
    """Who wins this column's goal card, with the numbers behind it."""
    suit = GOALS[column.goal].suit
    entries: list[Entry] = list(enumerate(column.slots))
    if not entries:
        return ColumnResult(None, "empty")
    musketeers = _count(entries, "musketeers") > 0
    removed: list[Entry] = []
    if not musketeers:
        entries, gone = wizard_step(entries, suit)
        removed += gone
        entries, gone = witch_step(entries, suit)
        removed += gone
        pair = prince_and_squire(entries)
        if pair is not None:
            return ColumnResult(pair, "prince-and-squire", tuple(removed))
    values = numbers(entries, suit, abilities=not musketeers)
    beggar = not musketeers and _count(entries, "beggar") > 0
    by_position = {pos: value for (pos, _), value in zip(entries, values, strict=False)}
    winner, sums = _winner(entries, values, beggar)
    reason = ("lowest" if beggar else "highest") if winner is not None else "empty"
    return ColumnResult(winner, reason, tuple(removed), by_position, sums, musketeers)


def _winner(entries: Sequence[Entry], values: Sequence[int | None], beggar: bool) -> tuple[int | None, dict[int, int]]:
    sums: dict[int, int] = {}
    closest: dict[int, int] = {}
    farthest: dict[int, int] = {}
    numbered: set[int] = set()
    for (pos, slot), value in zip(entries, values, strict=False):
        seat = slot.owner
        sums[seat] = sums.get(seat, 0) + (value or 0)
        closest[seat] = min(closest.get(seat, pos), pos)
        farthest[seat] = max(farthest.get(seat, pos), pos)
        if value is not None:
            numbered.add(seat)
    if beggar:
        contenders = [seat for seat in sums if seat in numbered]
        key = lambda seat: (-sums[seat], farthest[seat])  # noqa: E731 - lowest sum, then farthest
    else:
        contenders = list(sums)
        key = lambda seat: (sums[seat], -closest[seat])  # noqa: E731 - highest sum, then closest
    if not contenders:
        return None, sums
    return max(contenders, key=key), sums


@dataclass(frozen=True)
class FinalScore:
    score: int
    plain: int
    six_suits: int | None  # None without a goal card of every suit


def final_score(goals: Sequence[str]) -> FinalScore:
    """The better of the plain sum and, with all six suits, twice the best card per suit minus
    one point per further goal card."""
    plain = sum(GOALS[goal].value for goal in goals)
    best: dict[str, int] = {}
    for goal in goals:
        card = GOALS[goal]
        best[card.suit] = max(best.get(card.suit, 0), card.value)
    six = None
    if len(best) == 6:
        six = 2 * sum(best.values()) - (len(goals) - 6)
    return FinalScore(max(plain, six or 0), plain, six)
