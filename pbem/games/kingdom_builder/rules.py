"""Turn flow: what a seat may do now, the facts a move causes, and the automatic follow-ups.

A move is a small tuple (see ``moves.py`` for the text): ``("build", hex, ...)`` for settlements
of the mandatory action (one to three, in order), ``(tile, hex)`` for the 5 building tiles,
``(tile, from, to)`` for the 3 moving tiles, ``("end",)``.

A turn: the seat's terrain card is played face up when the turn starts. Tiles may be used
before the mandatory action or after it, never between its settlements. The turn ends by
itself once the mandatory action is done and no held tile can still be used; otherwise the
seat sends ``end``.
"""

from __future__ import annotations

from typing import Any

from pbem.games.base import ErrorCode, GameError, Rng, evolve_all, illegal, secret
from pbem.games.text import _, ngettext

from .board import HEXES, name
from .data import BUILD_TILES, LOCATIONS, MANDATORY, location_name, spoken, terrain_name
from .locations import build_targets, has_free, move_options, move_targets, tile_usable, touches
from .scoring import final_scores
from .state import KBState, evolve

Move = tuple[Any, ...]  # ("build", hex, ...), (tile, hex), (tile, from, to) or ("end",)
Fact = dict[str, Any]


def apply(state: KBState | None, facts: list[Fact]) -> KBState:
    return evolve_all(evolve, state, facts)


# -- what is legal -------------------------------------------------------------------------
def ready_tiles(state: KBState, seat: int) -> dict[str, list[int]]:
    """Tiles the seat may use now, by location kind: held, not new this turn, not used yet."""
    board = state.board
    ready: dict[str, list[int]] = {}
    for loc in sorted(state.held[seat] - state.fresh - state.used):
        ready.setdefault(board.location_at(loc), []).append(loc)
    return ready


def in_mandatory(state: KBState) -> bool:
    """Between the first and last settlement of the mandatory action: no tiles now."""
    return state.mandatory_pending() and state.built > 0


def tile_actions(state: KBState, seat: int) -> list[str]:
    """Tile kinds the seat may use now (right phase, a ready tile, something to do)."""
    if state.over or seat != state.seat or in_mandatory(state):
        return []
    return [kind for kind in ready_tiles(state, seat) if tile_usable(state, seat, kind)]


def legal_moves(state: KBState, seat: int) -> list[Move]:
    if state.over or seat != state.seat:
        return []
    moves: list[Move] = []
    if state.mandatory_pending():
        moves += [("build", h) for h in build_targets(state, seat, "build")]
    for kind in tile_actions(state, seat):
        if kind in BUILD_TILES:
            moves += [(kind, h) for h in build_targets(state, seat, kind)]
        else:
            moves += [(kind, s, t) for s, t in move_options(state, seat, kind)]
    if not state.mandatory_pending():
        moves.append(("end",))
    return moves


def hex_list(hexes: list[int], limit: int = 60) -> str:
    shown = ", ".join(name(h) for h in hexes[:limit])
    return _("{hexes} and {n} more", hexes=shown, n=len(hexes) - limit) if len(hexes) > limit else shown


def check(state: KBState, seat: int, move: Move) -> None:
    """Raise a GameError saying why, if ``move`` (one step) is not legal now."""
    if state.over:
        raise GameError(ErrorCode.GAME_OVER, _("The game is over."))
    if seat != state.seat:
        raise GameError(ErrorCode.NOT_YOUR_TURN, _("It is not your turn; seat {seat} is to move.", seat=state.seat + 1))
    _check_shape(move)
    kind = move[0]
    if kind == "end":
        if state.mandatory_pending():
            left = MANDATORY - state.built
            raise illegal(
                ngettext(
                    "You cannot end the turn yet: build {n} more settlement on {terrain} first ({build} ...).",
                    "You cannot end the turn yet: build {n} more settlements on {terrain} first ({build} ...).",
                    left,
                    terrain=terrain_name(state.played),
                    build=_build_word(),
                )
            )
        return
    if kind == "build":
        _check_build(state, seat, move[1])
        return
    _check_tile(state, seat, move)


_ARITY = {
    "end": (1,),
    "build": (2,),
    **{k: (2,) for k in BUILD_TILES},
    **{k: (3,) for k in LOCATIONS if k not in BUILD_TILES},
}


def _check_shape(move: Move) -> None:
    """A move is a tuple: a known action word, then the right number of hexes of the map."""
    ok = (
        isinstance(move, tuple)
        and bool(move)
        and move[0] in _ARITY
        and len(move) in _ARITY[move[0]]
        and all(isinstance(x, int) and 0 <= x < HEXES for x in move[1:])
    )
    if not ok:
        raise illegal(_("{move} is not a Kingdom Builder move.", move=repr(move)))


def _check_build(state: KBState, seat: int, hex_: int) -> None:
    if not state.mandatory_pending():
        why = (
            _("you have no settlement left")
            if state.supply[seat] == 0
            else _("no terrain card could be played this turn")
            if state.played is None
            else _("your 3 settlements of this turn are built")
        )
        raise illegal(_("No mandatory settlement to build: {why}. Use a location tile or end the turn.", why=why))
    legal = build_targets(state, seat, "build")
    if hex_ not in legal:
        raise illegal(
            _(
                "You cannot build on {hex}: {why} Legal hexes for {terrain}: {legal}.",
                hex=name(hex_),
                why=why_not(state, seat, hex_, state.played),
                terrain=terrain_name(state.played),
                legal=hex_list(legal),
            )
        )


def why_not(state: KBState, seat: int, hex_: int, terrain: str | None) -> str:
    """A sentence: why a settlement may not go on this hex."""
    if state.owner[hex_] >= 0:
        return _("it is occupied.")
    actual = state.board.terrain[hex_]
    if terrain is not None and actual != terrain:
        return _("it is {actual}, not {terrain}.", actual=terrain_name(actual), terrain=terrain_name(terrain))
    if not touches(state, seat, hex_):
        return _("you have free hexes of that kind next to your settlements, and must build there.")
    return _("it is not allowed there.")


def _build_word() -> str:
    return spoken("build")


def _check_tile(state: KBState, seat: int, move: Move) -> None:
    kind = move[0]
    if kind not in LOCATIONS:
        raise illegal(_("There is no action {kind}.", kind=repr(kind)))
    title = location_name(kind)
    if in_mandatory(state):
        raise illegal(
            ngettext(
                "Finish your mandatory action first: {n} settlement left; tiles are used before "
                "or after it, not in between.",
                "Finish your mandatory action first: {n} settlements left; tiles are used before "
                "or after it, not in between.",
                MANDATORY - state.built,
            )
        )
    held = [loc for loc in state.held[seat] if state.board.location_at(loc) == kind]
    if not held:
        raise illegal(_("You hold no {tile} tile.", tile=title))
    if kind not in ready_tiles(state, seat):
        when = (
            _("you took it this turn; it works from your next turn")
            if set(held) <= state.fresh
            else _("you already used it this turn")
        )
        raise illegal(_("Your {tile} tile cannot be used now: {when}.", tile=title, when=when))
    if kind in BUILD_TILES:
        if state.supply[seat] == 0:
            raise illegal(_("The {tile} builds a settlement, and you have none left.", tile=title))
        legal = build_targets(state, seat, kind)
        if move[1] not in legal:
            raise illegal(
                _(
                    "The {tile} cannot build on {hex}. Legal hexes: {legal}.",
                    tile=title,
                    hex=name(move[1]),
                    legal=hex_list(legal) or _("none"),
                )
            )
        return
    source, target = move[1], move[2]
    if source not in state.homes[seat]:
        mine = sorted(state.homes[seat])
        raise illegal(
            _("You have no settlement on {hex} to move; yours are on {mine}.", hex=name(source), mine=hex_list(mine))
        )
    legal = move_targets(state, seat, kind, source)
    if target not in legal:
        raise illegal(
            _(
                "The {tile} cannot move {source} to {target}. Legal targets from {source}: {legal}.",
                tile=title,
                source=name(source),
                target=name(target),
                legal=hex_list(legal) or _("none"),
            )
        )


# -- facts of one step ---------------------------------------------------------------------
def _tile_gains(state: KBState, seat: int, hex_: int) -> list[Fact]:
    facts = []
    for loc in state.board.near_location[hex_]:
        if loc not in state.taken[seat] and state.tiles_left[state.tile_index(loc)] > 0:
            facts.append(
                {"kind": "TileTaken", "seat": seat, "location": state.board.location_at(loc), "hex": name(loc)}
            )
    return facts


def _tile_losses(state: KBState, seat: int) -> list[Fact]:
    return [
        {"kind": "TileLost", "seat": seat, "location": state.board.location_at(loc), "hex": name(loc)}
        for loc in sorted(state.held[seat])
        if not touches(state, seat, loc)
    ]


def step_facts(state: KBState, seat: int, move: Move) -> list[Fact]:
    """The facts of one legal step (checked first), without the turn's follow-ups."""
    check(state, seat, move)
    kind = move[0]
    if kind == "end":
        return []
    if kind == "build" or kind in BUILD_TILES:
        fact: Fact = {"kind": "SettlementBuilt", "seat": seat, "hex": name(move[1]), "action": kind}
        if kind != "build":
            fact["tile"] = name(ready_tiles(state, seat)[kind][0])
        return [fact, *_tile_gains(evolve(state, fact), seat, move[1])]
    fact = {
        "kind": "SettlementMoved",
        "seat": seat,
        "from": name(move[1]),
        "to": name(move[2]),
        "action": kind,
        "tile": name(ready_tiles(state, seat)[kind][0]),
    }
    after = evolve(state, fact)
    losses = _tile_losses(after, seat)
    return [fact, *losses, *_tile_gains(apply(after, losses), seat, move[2])]


# -- follow-ups: cards, end of turn, end of game ----------------------------------------------
def _shuffle_if_needed(state: KBState, rng: Rng) -> list[Fact]:
    if state.deck or not state.discard:
        return []
    order = rng.shuffle(list(state.discard))
    return [{"kind": "DeckShuffled", "cards": len(order), "secret": secret([], {"order": order})}]


def card_facts(state: KBState, rng: Rng) -> list[Fact]:
    """While the mandatory action is owed but the played terrain has no free hex (or there is
    no card): the unusable card leaves the game and the next card of the deck is played."""
    facts: list[Fact] = []
    seat = state.seat
    while state.built < MANDATORY and state.supply[seat] > 0 and not has_free(state, state.played):
        new = _shuffle_if_needed(state, rng)
        state = apply(state, new)
        if not state.deck and state.played is None:
            break
        top = state.deck[0] if state.deck else None
        new.append({"kind": "CardReplaced", "seat": seat, "unusable": state.played, "terrain": top})
        state = evolve(state, new[-1])
        facts += new
    return facts


def end_turn_facts(state: KBState, rng: Rng) -> list[Fact]:
    """Discard the played card, draw a new hidden one, then end the game or start the next turn."""
    seat = state.seat
    facts: list[Fact] = [{"kind": "TurnEnded", "seat": seat}]
    state = evolve(state, facts[0])
    new = _shuffle_if_needed(state, rng)
    state = apply(state, new)
    if state.deck:
        new.append({"kind": "CardDrawn", "seat": seat, "secret": secret([seat], {"terrain": state.deck[0]})})
        state = evolve(state, new[-1])
    facts += new
    if state.ending and seat == state.players - 1:
        return [*facts, {"kind": "GameEnded", "scores": final_scores(state)}]
    following = (seat + 1) % state.players
    start = {
        "kind": "TurnStarted",
        "seat": following,
        "round": state.round + (following == 0),
        "terrain": state.hands[following],
    }
    return [*facts, start]


def settle(state: KBState, rng: Rng) -> list[Fact]:
    """Automatic follow-ups after a step: replace unusable cards, end turns with nothing left
    to do, end the game after the last round."""
    return settle_and_fold(state, rng)[0]


def settle_and_fold(state: KBState, rng: Rng) -> tuple[list[Fact], KBState]:
    """``settle``, and the state after its facts."""
    facts: list[Fact] = []
    idle = 0  # turns ended here with nothing to do; a whole round of them means a blocked game
    while not state.over:
        new = card_facts(state, rng)
        state = apply(state, new)
        facts += new
        if state.mandatory_pending() or tile_actions(state, state.seat):
            break
        idle += not state.mandatory_pending() and state.built == 0
        if idle > state.players:  # no terrain card can be played by anyone: score now
            ended = {"kind": "GameEnded", "blocked": True, "scores": final_scores(state)}
            return [*facts, ended], evolve(state, ended)
        new = end_turn_facts(state, rng)
        state = apply(state, new)
        facts += new
    return facts, state


def decide(state: KBState, seat: int, move: Move, rng: Rng) -> list[Fact]:
    """All facts of a move: its steps (a build may name up to 3 hexes) and the follow-ups."""
    return decide_and_fold(state, seat, move, rng)[0]


def decide_and_fold(state: KBState, seat: int, move: Move, rng: Rng) -> tuple[list[Fact], KBState]:
    """``decide``, and the state after the facts."""
    steps = [("build", h) for h in move[1:]] if move[0] == "build" else [move]
    if move[0] == "build" and not 1 <= len(steps) <= MANDATORY:
        raise illegal(ngettext("A build names 1 to {n} hex.", "A build names 1 to {n} hexes.", MANDATORY))
    facts: list[Fact] = []
    for number, single in enumerate(steps):
        new = step_facts(state, seat, single)
        if number < len(steps) - 1:  # the terrain may run out between two settlements
            new += card_facts(apply(state, new), rng)
        state = apply(state, new)
        facts += new
    if move[0] == "end":
        new = end_turn_facts(state, rng)
        state = apply(state, new)
        facts += new
    more, after = settle_and_fold(state, rng)
    return facts + more, after
