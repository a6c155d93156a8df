"""Hand-built positions for the Ruse & Bruise tests."""

from __future__ import annotations

from pbem.games.base import ErrorCode, GameError, SeededRng
from pbem.games.ruse_and_bruise import SPEC
from pbem.games.ruse_and_bruise.cards import CARD_IDS, GOAL_IDS
from pbem.games.ruse_and_bruise.moves import Move
from pbem.games.ruse_and_bruise.state import Column, GameState, Slot
from tests.support import contract


def up(owner: int, card: str) -> Slot:
    return Slot(owner, card, face_up=True, known=True)


def down(owner: int, card: str) -> Slot:
    return Slot(owner, card)


def under_cloak(owner: int, card: str) -> Slot:
    return Slot(owner, card, tucked=True)


def column(goal: str, *slots: Slot, closed: bool = False) -> Column:
    return Column(goal, tuple(slots), closed)


def position(columns, hands=None, players=2, turn=0, decks=None, discards=None, round=1, goal_deck=None) -> GameState:
    """A state in the middle of a round. Decks default to the cards not in hand or on the table."""
    columns = tuple(columns)
    hands = tuple(tuple(hand) for hand in (hands or [()] * players))
    if decks is None:
        decks = []
        for seat in range(players):
            used = set(hands[seat]) | {s.card for c in columns for s in c.slots if s.owner == seat}
            used |= set((discards or [()] * players)[seat])
            decks.append(tuple(card for card in CARD_IDS if card not in used))
    if goal_deck is None:
        on_table = {c.goal for c in columns}
        goal_deck = tuple(g for g in GOAL_IDS if g not in on_table)[: 6 * players - players]
    return GameState(
        players=players,
        round=round,
        turn=turn,
        plays=0,
        decks=tuple(tuple(d) for d in decks),
        hands=hands,
        discards=tuple(tuple(d) for d in (discards or [()] * players)),
        goal_deck=tuple(goal_deck),
        columns=columns,
        won=((),) * players,
    )


def apply(state: GameState, seat: int, text: str, seed: int = 0):
    """Parse and decide a command; return (facts, new state)."""
    after, facts = contract.apply(SPEC, state, seat, text, SeededRng(seed))
    return facts, after


def refused(state: GameState, seat: int, text: str, seed: int = 0, code: ErrorCode | None = None) -> GameError:
    """The command is refused and the state is unchanged (against a deep copy)."""
    return contract.refused(SPEC, state, seat, text, SeededRng(seed), code)


def refused_when_parsed(state: GameState, seat: int, text: str, code: ErrorCode | None = None) -> GameError:
    return contract.refused_when_parsed(SPEC, state, seat, text, code)


def kinds(facts) -> list[str]:
    return [fact["kind"] for fact in facts]


def first(facts, kind: str) -> dict:
    return next(fact for fact in facts if fact["kind"] == kind)


__all__ = [
    "SPEC",
    "Move",
    "apply",
    "column",
    "down",
    "first",
    "kinds",
    "position",
    "refused",
    "refused_when_parsed",
    "under_cloak",
    "up",
]
