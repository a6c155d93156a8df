"""The state of a game and the pure fold ``evolve`` over facts.

Every pile is a tuple; a deck's top card is its first element. A column lists its slots from
the goal card downwards, so the index of a slot is its distance from the goal card.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pbem.games.base import Fact, replace_at, secret_data, update

from .cards import CARDS, GOALS


@dataclass(frozen=True)
class Slot:
    """One influence card in a column."""

    owner: int
    card: str
    face_up: bool = False
    known: bool = False  # face down, but everybody saw it (an Explorer after its trip)
    tucked: bool = False  # lying under the Cloak directly above it

    @property
    def public(self) -> bool:
        return self.face_up or self.known


@dataclass(frozen=True)
class Column:
    goal: str
    slots: tuple[Slot, ...] = ()
    closed: bool = False  # a revealed Storm: no more cards, the goal counts as filled

    @property
    def filled(self) -> bool:
        return self.closed or len(self.slots) >= GOALS[self.goal].value


@dataclass(frozen=True)
class Pending:
    """A follow-up choice of a card's owner: tuck under a Cloak, or a Traitor's swap."""

    kind: str  # "cloak" or "traitor"
    seat: int
    column: int  # index, 0-based
    round_over: bool = False  # the placement that revealed the card filled every goal


@dataclass(frozen=True)
class GameState:
    players: int
    round: int = 0
    turn: int = 0  # the seat whose turn it is
    plays: int = 0  # cards played this round, for the phase label
    decks: tuple[tuple[str, ...], ...] = ()
    hands: tuple[tuple[str, ...], ...] = ()
    discards: tuple[tuple[str, ...], ...] = ()
    goal_deck: tuple[str, ...] = ()
    columns: tuple[Column, ...] = ()
    won: tuple[tuple[str, ...], ...] = ()
    pending: Pending | None = None
    scores: tuple[int, ...] | None = None  # set when the game has ended

    @property
    def finished(self) -> bool:
        return self.scores is not None


def _set_column(state: GameState, index: int, column: Column) -> GameState:
    return update(state, columns=replace_at(state.columns, index, column))


def _set_slots(state: GameState, index: int, slots: tuple[Slot, ...]) -> GameState:
    return _set_column(state, index, update(state.columns[index], slots=slots))


def find_slot(column: Column, owner: int, card: str) -> int:
    for index, slot in enumerate(column.slots):
        if slot.owner == owner and slot.card == card:
            return index
    raise ValueError(f"no {card} of seat {owner} in the column")


def _started(state: None, fact: Fact) -> GameState:
    n = fact["players"]
    empty = ((),) * n
    return GameState(players=n, decks=empty, hands=empty, discards=empty, won=empty)


def _deck_shuffled(state: GameState, fact: Fact) -> GameState:
    order = tuple(secret_data(fact)["order"])
    return update(state, decks=replace_at(state.decks, fact["seat"], order))


def _discard_reshuffled(state: GameState, fact: Fact) -> GameState:
    seat = fact["seat"]
    order = tuple(secret_data(fact)["order"])
    return update(state, decks=replace_at(state.decks, seat, order), discards=replace_at(state.discards, seat, ()))


def _drawn(state: GameState, fact: Fact) -> GameState:
    seat, count = fact["seat"], fact["count"]
    deck = state.decks[seat]
    hand = state.hands[seat] + deck[:count]
    return update(state, decks=replace_at(state.decks, seat, deck[count:]), hands=replace_at(state.hands, seat, hand))


def _goal_deck(state: GameState, fact: Fact) -> GameState:
    return update(state, goal_deck=tuple(secret_data(fact)["order"]))


def _round_started(state: GameState, fact: Fact) -> GameState:
    goals = tuple(fact["goals"])
    return update(
        state,
        round=fact["round"],
        turn=fact["start"],
        plays=0,
        goal_deck=state.goal_deck[len(goals) :],
        columns=tuple(Column(goal) for goal in goals),
    )


def _without(hand: tuple[str, ...], card: str) -> tuple[str, ...]:
    index = hand.index(card)
    return hand[:index] + hand[index + 1 :]


def _played(state: GameState, fact: Fact) -> GameState:
    seat, column = fact["seat"], fact["column"]
    card = secret_data(fact)["card"]
    hands = replace_at(state.hands, seat, _without(state.hands[seat], card))
    state = update(state, hands=hands, plays=state.plays + 1)
    return _set_slots(state, column, (*state.columns[column].slots, Slot(seat, card)))


def _revealed(state: GameState, fact: Fact) -> GameState:
    column = state.columns[fact["column"]]
    index = fact["position"]
    slot = update(column.slots[index], face_up=True, known=True)
    return _set_slots(state, fact["column"], replace_at(column.slots, index, slot))


def _travelled(state: GameState, fact: Fact) -> GameState:
    source = state.columns[fact["from"]]
    index = find_slot(source, fact["owner"], "explorer")
    state = _set_slots(state, fact["from"], source.slots[:index] + source.slots[index + 1 :])
    target = state.columns[fact["to"]]
    arrived = Slot(fact["owner"], "explorer", face_up=False, known=True)
    return _set_slots(state, fact["to"], (*target.slots, arrived))


def _assassinated(state: GameState, fact: Fact) -> GameState:
    column = state.columns[fact["column"]]
    index = fact["position"]
    slot = column.slots[index]
    state = _set_slots(state, fact["column"], column.slots[:index] + column.slots[index + 1 :])
    return update(state, discards=replace_at(state.discards, slot.owner, state.discards[slot.owner] + (slot.card,)))


def _closed(state: GameState, fact: Fact) -> GameState:
    return _set_column(state, fact["column"], update(state.columns[fact["column"]], closed=True))


def _offered(state: GameState, fact: Fact) -> GameState:
    # "round_over" is only in facts stored since the round-end fix; older facts fold as before
    return update(state, pending=Pending(fact["choice"], fact["seat"], fact["column"], fact.get("round_over", False)))


def _declined(state: GameState, fact: Fact) -> GameState:
    return update(state, pending=None)


def _tucked(state: GameState, fact: Fact) -> GameState:
    seat, index = fact["seat"], fact["column"]
    card = secret_data(fact)["card"]
    column = state.columns[index]
    below = find_slot(column, seat, "cloak") + 1
    slots = (*column.slots[:below], Slot(seat, card, tucked=True), *column.slots[below:])
    state = update(state, hands=replace_at(state.hands, seat, _without(state.hands[seat], card)), pending=None)
    return _set_slots(state, index, slots)


def _swapped(state: GameState, fact: Fact) -> GameState:
    a, b = fact["column"], fact["other"]
    first, second = state.columns[a], state.columns[b]
    state = _set_column(state, a, update(first, goal=second.goal))
    return update(_set_column(state, b, update(second, goal=first.goal)), pending=None)


def _turn_ended(state: GameState, fact: Fact) -> GameState:
    return update(state, turn=fact["next"])


def _cards_revealed(state: GameState, fact: Fact) -> GameState:
    columns = tuple(
        update(column, slots=tuple(update(slot, face_up=True, known=True) for slot in column.slots))
        for column in state.columns
    )
    return update(state, columns=columns)


def _column_scored(state: GameState, fact: Fact) -> GameState:
    winner = fact["winner"]
    if winner is None:
        return state
    return update(state, won=replace_at(state.won, winner, state.won[winner] + (fact["goal"],)))


def _table_cleared(state: GameState, fact: Fact) -> GameState:
    discards = [list(pile) for pile in state.discards]
    for column in state.columns:
        for slot in column.slots:
            discards[slot.owner].append(slot.card)
    return update(state, discards=tuple(tuple(pile) for pile in discards), columns=(), pending=None)


def _game_ended(state: GameState, fact: Fact) -> GameState:
    return update(state, scores=tuple(fact["scores"]))


def _no_change(state: GameState, fact: Fact) -> GameState:
    return state


EVOLVERS: dict[str, Callable[[Any, Fact], GameState]] = {
    "GameStarted": _started,
    "DeckShuffled": _deck_shuffled,
    "DiscardReshuffled": _discard_reshuffled,
    "CardsDrawn": _drawn,
    "GoalDeckShuffled": _goal_deck,
    "RoundStarted": _round_started,
    "CardPlayed": _played,
    "CardRevealed": _revealed,
    "ExplorerTravelled": _travelled,
    "ExplorerStayed": _no_change,
    "CardAssassinated": _assassinated,
    "ColumnClosed": _closed,
    "ChoiceOffered": _offered,
    "ChoiceDeclined": _declined,
    "CardTucked": _tucked,
    "GoalsSwapped": _swapped,
    "TurnEnded": _turn_ended,
    "RoundEnded": _no_change,
    "CardsRevealed": _cards_revealed,
    "ColumnScored": _column_scored,
    "TableCleared": _table_cleared,
    "GameEnded": _game_ended,
}


def evolve(state: GameState | None, fact: Fact) -> GameState:
    return EVOLVERS[fact["kind"]](state, fact)


def to_move(state: GameState) -> list[int]:
    """The owner of an open Cloak or Traitor choice, else the seat whose turn it is."""
    if state.finished:
        return []
    return [state.pending.seat] if state.pending is not None else [state.turn]


def card_count(state: GameState, seat: int) -> int:
    """Cards of one colour across deck, hand, table and discard pile (always 25)."""
    on_table = sum(1 for column in state.columns for slot in column.slots if slot.owner == seat)
    return len(state.decks[seat]) + len(state.hands[seat]) + len(state.discards[seat]) + on_table


__all__ = ["CARDS", "Column", "GameState", "Pending", "Slot", "card_count", "evolve", "find_slot", "to_move"]
