"""Turns, on-reveal abilities, round end and the next round: the facts each move causes.

A ``Turn`` collects facts and folds each one at once, so every rule below reads the state as
it is after the previous fact. Randomness (deck and goal shuffles) comes only from ``rng``.
"""

from __future__ import annotations

from pbem.games.base import Fact, Rng, secret

from .cards import CARD_IDS, GOAL_IDS, GOALS_PER_PLAYER, HAND_SIZE, ROUNDS
from .scoring import final_score, score_column
from .state import GameState, Pending, evolve


class Turn:
    """Facts caused by one move, with the state after each of them.

    ``round_over`` is set once a card laid this turn has filled every goal: the rulebook ends
    the round at that placement, whatever the abilities it sets off do to the goals afterwards.
    """

    def __init__(self, state: GameState | None, round_over: bool = False):
        self._state = state
        self.round_over = round_over
        self.facts: list[Fact] = []

    @property
    def state(self) -> GameState:
        """The state after the facts so far (a game's first fact creates it)."""
        assert self._state is not None, "no fact has started the game yet"
        return self._state

    def add(self, fact: Fact) -> None:
        self.facts.append(fact)
        self._state = evolve(self._state, fact)


# -- setup and drawing ------------------------------------------------------------------------
def setup(players: int, rng: Rng) -> list[Fact]:
    turn = Turn(None)
    turn.add({"kind": "GameStarted", "players": players, "rounds": ROUNDS})
    for seat in range(players):
        turn.add({"kind": "DeckShuffled", "seat": seat, "secret": secret([], {"order": rng.shuffle(CARD_IDS)})})
    goals = rng.shuffle(GOAL_IDS)[: GOALS_PER_PLAYER * players]
    turn.add({"kind": "GoalDeckShuffled", "count": len(goals), "secret": secret([], {"order": goals})})
    for seat in range(players):
        draw(turn, seat, HAND_SIZE, rng)
    start_round(turn, 1, 0, rng)
    return turn.facts


def draw(turn: Turn, seat: int, count: int, rng: Rng) -> None:
    """Draw ``count`` cards, reshuffling the own discard pile when the deck runs out."""
    while count > 0:
        deck = turn.state.decks[seat]
        if not deck:
            pile = turn.state.discards[seat]
            if not pile:
                return
            turn.add(
                {
                    "kind": "DiscardReshuffled",
                    "seat": seat,
                    "count": len(pile),
                    "secret": secret([], {"order": rng.shuffle(pile)}),
                }
            )
            deck = turn.state.decks[seat]
        take = min(count, len(deck))
        drawn = secret([seat], {"cards": list(deck[:take])})
        turn.add({"kind": "CardsDrawn", "seat": seat, "count": take, "secret": drawn})
        count -= take


def start_round(turn: Turn, number: int, start: int, rng: Rng) -> None:
    state = turn.state
    goals = list(state.goal_deck[: state.players])
    turn.add({"kind": "RoundStarted", "round": number, "start": start, "goals": goals})
    for seat in range(state.players):
        missing = HAND_SIZE - len(turn.state.hands[seat])
        if missing > 0:
            draw(turn, seat, missing, rng)


# -- a turn ---------------------------------------------------------------------------------------
def play_card(state: GameState, seat: int, card: str, column: int, rng: Rng) -> Turn:
    """``card`` from ``seat``'s hand face down at the bottom of ``column`` (0-based)."""
    turn = Turn(state)
    turn.add({"kind": "CardPlayed", "seat": seat, "column": column, "secret": secret([seat], {"card": card})})
    placed(turn)
    reveal_above(turn, column, len(turn.state.columns[column].slots) - 1, set())
    if turn.state.pending is None:
        finish_turn(turn, rng)
    return turn


def placed(turn: Turn) -> None:
    """A card has just been laid at the bottom of a column (played, or an arriving Explorer).
    Rulebook p. 2: filling every goal ends the round; the last card laid still turns up the card
    above it and that card's ability is carried out; then the face-down cards are revealed. So
    the end is decided here, before the reveal, whatever the ability then does to the goals."""
    if all(column.filled for column in turn.state.columns):
        turn.round_over = True


def reveal_above(turn: Turn, column: int, position: int, travelled: set[int]) -> None:
    """The card at ``position`` has just arrived: turn up the face-down card directly above it
    and carry out that card's on-reveal ability."""
    if position == 0:
        return
    above = turn.state.columns[column].slots[position - 1]
    if above.face_up:
        return
    turn.add(
        {"kind": "CardRevealed", "column": column, "position": position - 1, "owner": above.owner, "card": above.card}
    )
    ability = ON_REVEAL.get(above.card)
    if ability:
        ability(turn, column, position - 1, travelled)


def _explorer(turn: Turn, column: int, position: int, travelled: set[int]) -> None:
    owner = turn.state.columns[column].slots[position].owner
    if owner in travelled:
        turn.add({"kind": "ExplorerStayed", "owner": owner, "column": column, "reason": "travelled-this-turn"})
        return
    target = next_open_column(turn.state, column)
    if target is None:
        turn.add({"kind": "ExplorerStayed", "owner": owner, "column": column, "reason": "no-open-column"})
        return
    travelled.add(owner)
    turn.add({"kind": "ExplorerTravelled", "owner": owner, "from": column, "to": target})
    placed(turn)
    reveal_above(turn, target, len(turn.state.columns[target].slots) - 1, travelled)


def next_open_column(state: GameState, column: int) -> int | None:
    """The next column to the right (wrapping) that no Storm has closed, or None."""
    count = len(state.columns)
    for step in range(1, count):
        candidate = (column + step) % count
        if not state.columns[candidate].closed:
            return candidate
    return None


def _assassin(turn: Turn, column: int, position: int, travelled: set[int]) -> None:
    victim = turn.state.columns[column].slots[position + 1]
    turn.add(
        {
            "kind": "CardAssassinated",
            "column": column,
            "position": position + 1,
            "owner": victim.owner,
            "card": victim.card,
        }
    )


def _storm(turn: Turn, column: int, position: int, travelled: set[int]) -> None:
    turn.add({"kind": "ColumnClosed", "column": column})


def _cloak(turn: Turn, column: int, position: int, travelled: set[int]) -> None:
    owner = turn.state.columns[column].slots[position].owner
    if turn.state.hands[owner]:
        _offer(turn, "cloak", owner, column)


def _traitor(turn: Turn, column: int, position: int, travelled: set[int]) -> None:
    owner = turn.state.columns[column].slots[position].owner
    _offer(turn, "traitor", owner, column)


def _offer(turn: Turn, choice: str, seat: int, column: int) -> None:
    """Ask the card's owner; the answer comes in a later move, so an ended round is recorded in
    the question (only when it has ended, so other facts read as they always did)."""
    fact: Fact = {"kind": "ChoiceOffered", "choice": choice, "seat": seat, "column": column}
    if turn.round_over:
        fact["round_over"] = True
    turn.add(fact)


ON_REVEAL = {"explorer": _explorer, "assassin": _assassin, "storm": _storm, "cloak": _cloak, "traitor": _traitor}


# -- follow-up choices ------------------------------------------------------------------------------
def _pending(state: GameState) -> Pending:
    assert state.pending is not None, "decide allows a follow-up only while a choice is open"
    return state.pending


def tuck(state: GameState, seat: int, card: str, rng: Rng) -> Turn:
    turn = Turn(state, _pending(state).round_over)
    column = _pending(state).column
    turn.add({"kind": "CardTucked", "seat": seat, "column": column, "secret": secret([seat], {"card": card})})
    draw(turn, seat, 1, rng)
    finish_turn(turn, rng)
    return turn


def swap(state: GameState, seat: int, other: int, rng: Rng) -> Turn:
    turn = Turn(state, _pending(state).round_over)
    turn.add({"kind": "GoalsSwapped", "seat": seat, "column": _pending(state).column, "other": other})
    finish_turn(turn, rng)
    return turn


def decline(state: GameState, seat: int, rng: Rng) -> Turn:
    pending = _pending(state)
    turn = Turn(state, pending.round_over)
    turn.add({"kind": "ChoiceDeclined", "choice": pending.kind, "seat": seat, "column": pending.column})
    finish_turn(turn, rng)
    return turn


# -- end of a turn, of a round, of the game ---------------------------------------------------------
def finish_turn(turn: Turn, rng: Rng) -> None:
    """The active player draws; the round ends when a card laid this turn filled every goal, when
    every goal is filled after the turn (a Storm, a tucked card, a Traitor's swap), or when nobody
    can play."""
    active = turn.state.turn
    draw(turn, active, 1, rng)
    state = turn.state
    if turn.round_over or all(column.filled for column in state.columns):
        end_round(turn, active, "filled", rng)
        return
    skipped: list[int] = []
    for step in range(1, state.players + 1):
        seat = (active + step) % state.players
        if state.hands[seat]:
            turn.add({"kind": "TurnEnded", "seat": active, "next": seat, "skipped": skipped})
            return
        skipped.append(seat)
    end_round(turn, active, "no-cards", rng)


def end_round(turn: Turn, ender: int, reason: str, rng: Rng) -> None:
    state = turn.state
    turn.add({"kind": "RoundEnded", "round": state.round, "by": ender, "reason": reason})
    hidden = [
        {"column": c, "position": p, "owner": slot.owner, "card": slot.card}
        for c, column in enumerate(state.columns)
        for p, slot in enumerate(column.slots)
        if not slot.face_up
    ]
    turn.add({"kind": "CardsRevealed", "cards": hidden})
    for index, column in enumerate(turn.state.columns):
        turn.add(scored_fact(index, column, turn.state.players))
    turn.add({"kind": "TableCleared", "round": state.round})
    if state.round < ROUNDS:
        start_round(turn, state.round + 1, (ender + 1) % state.players, rng)
        return
    results = [final_score(goals) for goals in turn.state.won]
    turn.add(
        {
            "kind": "GameEnded",
            "scores": [r.score for r in results],
            "plain": [r.plain for r in results],
            "six_suits": [r.six_suits for r in results],
        }
    )


def scored_fact(index: int, column, players: int) -> Fact:
    result = score_column(column)
    sums: list[int | None] = [result.sums.get(seat) for seat in range(players)]
    removed = [{"position": pos, "owner": slot.owner, "card": slot.card} for pos, slot in result.removed]
    return {
        "kind": "ColumnScored",
        "column": index,
        "goal": column.goal,
        "winner": result.winner,
        "reason": result.reason,
        "half_point_sums": sums,
        "removed": removed,
    }
