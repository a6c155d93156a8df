"""The immutable game state and the pure fold of facts into it (``evolve``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pbem.games.base import replace_at, secret_data, update

from .board import Board, build_board, hex_of
from .data import MANDATORY, SETTLEMENTS, TILES_PER_HEX


@dataclass(frozen=True)
class KBState:
    players: int
    board: Board
    cards: tuple[str, ...]  # the 3 kingdom cards in play
    owner: tuple[int, ...]  # seat per hex, -1 when empty
    homes: tuple[frozenset[int], ...]  # each seat's settlement hexes
    supply: tuple[int, ...]
    tiles_left: tuple[int, ...]  # per location hex (board.locations order)
    held: tuple[frozenset[int], ...]  # location hexes whose tile a seat holds
    taken: tuple[frozenset[int], ...]  # location hexes a seat ever took a tile from
    hands: tuple[str | None, ...]  # hidden terrain card per seat
    deck: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    removed: int = 0  # unusable terrain cards taken out of the game
    seat: int = 0
    round: int = 1
    played: str | None = None  # terrain card played this turn
    built: int = 0  # settlements of the mandatory action built this turn
    fresh: frozenset[int] = frozenset()  # tiles gained this turn (usable from the next one)
    used: frozenset[int] = frozenset()  # tiles used this turn
    ending: bool = False  # someone placed their last settlement; finish the round
    over: bool = False
    final: tuple[Any, ...] = ()  # the scores, as stated by GameEnded

    def mandatory_pending(self) -> bool:
        """The seat to move still owes settlements of the mandatory action."""
        return self.played is not None and self.built < MANDATORY and self.supply[self.seat] > 0

    def tile_index(self, location_hex: int) -> int:
        return self.board.locations.index(location_hex)


def _initial(fact: dict[str, Any]) -> KBState:
    layout = tuple((s["name"], bool(s["rotated"])) for s in fact["sections"])
    board = build_board(layout)
    n = fact["players"]
    return KBState(
        players=n,
        board=board,
        cards=tuple(fact["cards"]),
        owner=(-1,) * len(board.terrain),
        homes=(frozenset(),) * n,
        supply=(SETTLEMENTS,) * n,
        tiles_left=(TILES_PER_HEX,) * len(board.locations),
        held=(frozenset(),) * n,
        taken=(frozenset(),) * n,
        hands=(None,) * n,
    )


def _place(state: KBState, seat: int, hex_: int) -> KBState:
    homes = replace_at(state.homes, seat, state.homes[seat] | {hex_})
    return update(state, owner=replace_at(state.owner, hex_, seat), homes=homes)


def _lift(state: KBState, seat: int, hex_: int) -> KBState:
    return update(
        state, owner=replace_at(state.owner, hex_, -1), homes=replace_at(state.homes, seat, state.homes[seat] - {hex_})
    )


def _use_tile(state: KBState, fact: dict[str, Any]) -> KBState:
    tile = fact.get("tile")
    return state if tile is None else update(state, used=state.used | {hex_of(tile)})


def _built(state: KBState, fact: dict[str, Any]) -> KBState:
    seat = fact["seat"]
    state = _place(state, seat, hex_of(fact["hex"]))
    supply = state.supply[seat] - 1
    state = update(state, supply=replace_at(state.supply, seat, supply), ending=state.ending or supply == 0)
    if fact["action"] == "build":
        return update(state, built=state.built + 1)
    return _use_tile(state, fact)


def _moved(state: KBState, fact: dict[str, Any]) -> KBState:
    seat = fact["seat"]
    state = _lift(state, seat, hex_of(fact["from"]))
    return _use_tile(_place(state, seat, hex_of(fact["to"])), fact)


def _tile_taken(state: KBState, fact: dict[str, Any]) -> KBState:
    seat, hex_ = fact["seat"], hex_of(fact["hex"])
    i = state.tile_index(hex_)
    return update(
        state,
        tiles_left=replace_at(state.tiles_left, i, state.tiles_left[i] - 1),
        held=replace_at(state.held, seat, state.held[seat] | {hex_}),
        taken=replace_at(state.taken, seat, state.taken[seat] | {hex_}),
        fresh=state.fresh | {hex_},
    )


def _tile_lost(state: KBState, fact: dict[str, Any]) -> KBState:
    seat, hex_ = fact["seat"], hex_of(fact["hex"])
    return update(state, held=replace_at(state.held, seat, state.held[seat] - {hex_}), fresh=state.fresh - {hex_})


def _shuffled(state: KBState, fact: dict[str, Any]) -> KBState:
    return update(state, deck=tuple(secret_data(fact)["order"]), discard=())


def _drawn(state: KBState, fact: dict[str, Any]) -> KBState:
    hands = replace_at(state.hands, fact["seat"], secret_data(fact)["terrain"])
    return update(state, deck=state.deck[1:], hands=hands)


def _turn_started(state: KBState, fact: dict[str, Any]) -> KBState:
    seat = fact["seat"]
    return update(
        state,
        seat=seat,
        round=fact["round"],
        played=fact["terrain"],
        built=0,
        hands=replace_at(state.hands, seat, None),
        fresh=frozenset(),
        used=frozenset(),
    )


def _card_replaced(state: KBState, fact: dict[str, Any]) -> KBState:
    drew = fact["terrain"] is not None
    return update(
        state,
        played=fact["terrain"],
        removed=state.removed + (fact["unusable"] is not None),
        deck=state.deck[1:] if drew else state.deck,
    )


def _turn_ended(state: KBState, fact: dict[str, Any]) -> KBState:
    discard = state.discard + ((state.played,) if state.played is not None else ())
    return update(state, discard=discard, played=None, fresh=frozenset(), used=frozenset())


def _game_ended(state: KBState, fact: dict[str, Any]) -> KBState:
    return update(
        state, over=True, final=tuple((s["seat"], s["total"], tuple(s["gold"].items())) for s in fact["scores"])
    )


_FOLD = {
    "SettlementBuilt": _built,
    "SettlementMoved": _moved,
    "TileTaken": _tile_taken,
    "TileLost": _tile_lost,
    "DeckShuffled": _shuffled,
    "CardDrawn": _drawn,
    "TurnStarted": _turn_started,
    "CardReplaced": _card_replaced,
    "TurnEnded": _turn_ended,
    "GameEnded": _game_ended,
}


def evolve(state: KBState | None, fact: dict[str, Any]) -> KBState:
    """Fold one fact into the state (pure; the first fact must be GameStarted)."""
    kind = fact["kind"]
    if kind == "GameStarted":
        return _initial(fact)
    if state is None or kind not in _FOLD:
        raise ValueError(f"Kingdom Builder cannot fold a {kind!r} fact here")
    return _FOLD[kind](state, fact)
