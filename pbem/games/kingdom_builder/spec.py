"""``KingdomBuilder``: the GameSpec tying the pieces together (options, setup, views, history)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.base import GameSpec, Option, Rng, Standing, invalid, rank_by, secret
from pbem.games.text import seat_name

from . import moves, render, rules
from .board import QUADRANTS
from .data import CARD_NAMES, MANDATORY, SECTION_NAMES, TERRAIN_DECK, card_name, location_name, terrain_name
from .rules import Move
from .state import KBState, evolve

RANDOM = "random"
SECTION_CHOICES = (RANDOM, *SECTION_NAMES, *(f"{s}-rotated" for s in SECTION_NAMES))
CARD_KEYS = ("card-1", "card-2", "card-3")


def _options() -> tuple[Option, ...]:
    sections = tuple(
        Option(q, f"board section at the {q} (NAME upright, NAME-rotated turned 180 degrees, "
                  f"or random: a random unused section in a random orientation)", RANDOM, SECTION_CHOICES)
        for q in QUADRANTS
    )
    cards = tuple(Option(k, "a kingdom card in play, or random", RANDOM, (RANDOM, *CARD_NAMES)) for k in CARD_KEYS)
    return sections + cards


class KingdomBuilder(GameSpec[KBState, Move]):
    name = "kingdom-builder"
    title = "Kingdom Builder"
    turn_end_words = ("end", "done", "pass", "konec", "hotovo")
    min_players = 2
    max_players = 4
    options = _options()

    # -- options and setup -----------------------------------------------------------------
    def normalize_options(self, raw: Mapping[str, str], players: int) -> dict[str, str]:
        values = super().normalize_options(raw, players)
        fixed = [values[q].removesuffix("-rotated") for q in QUADRANTS if values[q] != RANDOM]
        if len(fixed) != len(set(fixed)):
            raise invalid(f"Each board section can be used once; you chose {', '.join(fixed)}.")
        cards = [values[k] for k in CARD_KEYS if values[k] != RANDOM]
        if len(cards) != len(set(cards)):
            raise invalid(f"The 3 kingdom cards must differ; you chose {', '.join(cards)}.")
        return values

    def setup(self, players: int, options: Mapping[str, str], rng: Rng) -> list[dict[str, Any]]:
        values = self.settings(players, options)
        fixed = {values[q].removesuffix("-rotated") for q in QUADRANTS}
        pool = rng.shuffle([s for s in SECTION_NAMES if s not in fixed])
        sections = []
        for q in QUADRANTS:
            if values[q] == RANDOM:
                sections.append({"quadrant": q, "name": pool.pop(0), "rotated": rng.randint(0, 1) == 1})
            else:
                section = values[q].removesuffix("-rotated")
                sections.append({"quadrant": q, "name": section, "rotated": values[q] != section})
        chosen = [values[k] for k in CARD_KEYS]
        spare = rng.shuffle([c for c in CARD_NAMES if c not in chosen])
        cards = [c if c != RANDOM else spare.pop(0) for c in chosen]
        order = rng.shuffle(list(TERRAIN_DECK))
        facts: list[dict[str, Any]] = [
            {"kind": "GameStarted", "players": players, "sections": sections, "cards": cards},
            {"kind": "DeckShuffled", "cards": len(order), "secret": secret([], {"order": order})},
        ]
        facts += [{"kind": "CardDrawn", "seat": s, "secret": secret([s], {"terrain": order[s]})}
                  for s in range(players)]
        facts.append({"kind": "TurnStarted", "seat": 0, "round": 1, "terrain": order[0]})
        state = rules.apply(None, facts)
        return facts + rules.settle(state, rng)

    # -- the rules ---------------------------------------------------------------------------
    def evolve(self, state: KBState | None, fact: dict[str, Any]) -> KBState:
        return evolve(state, fact)

    def to_move(self, state: KBState) -> list[int]:
        return [] if state.over else [state.seat]

    def legal_moves(self, state: KBState, seat: int) -> list[Move]:
        return rules.legal_moves(state, seat)

    def parse_move(self, state: KBState, seat: int, text: str) -> Move:
        return moves.parse_move(state, seat, text)

    def format_move(self, move: Move) -> str:
        return moves.format_move(move)

    def decide(self, state: KBState, seat: int, move: Move, rng: Rng) -> list[dict[str, Any]]:
        return rules.decide(state, seat, move, rng)

    def outcome(self, state: KBState) -> list[Standing] | None:
        if not state.over:
            return None
        ranks = rank_by({seat: (total,) for seat, total, _ in state.final})
        return [Standing(seat, ranks[seat], total, {"gold": dict(gold)}) for seat, total, gold in state.final]

    def view(self, state: KBState, viewer: int | None) -> dict[str, Any]:
        return render.make_view(state, viewer)

    def default_move(self, state: KBState, seat: int) -> Move | None:
        """A missed deadline: the first legal mandatory settlement, else end the turn."""
        if state.over or seat != state.seat:
            return None
        return rules.legal_moves(state, seat)[0] if state.mandatory_pending() else ("end",)

    def reveals(self, state: KBState, seat: int, facts: Sequence[dict[str, Any]]) -> bool:
        # the seat's next terrain card, drawn from the face-down deck
        return any(f["kind"] == "CardDrawn" and f["seat"] == seat for f in facts)

    def end_of_turn_file(self, state: KBState, seat: int) -> Move | None:
        if state.over or seat != state.seat or state.mandatory_pending():
            return None
        return ("end",)

    def decision_text(self, state: KBState, seat: int, names: Sequence[str]) -> str:
        if state.mandatory_pending():
            owed = MANDATORY - state.built
            return (f"Round {state.round}: your terrain card is {terrain_name(state.played)}; build {owed} more "
                    f"settlement{'s' if owed != 1 else ''} on {terrain_name(state.played)} (or use a tile first).")
        return f"Round {state.round}: use a location tile, or end your turn ('end')."

    def phase_label(self, state: KBState) -> str:
        return "game over" if state.over else f"round {state.round}, seat {state.seat + 1}"

    # -- presentation ------------------------------------------------------------------------
    def render_text(self, view: Mapping[str, Any], names: Sequence[str]) -> str:
        return render.render_text(view, names)

    def render_svg(self, view: Mapping[str, Any], names: Sequence[str]) -> str | None:
        return render.render_svg(view, names)

    def turn_template(self, state: KBState, seat: int, names: Sequence[str]) -> str:
        lines = [f"# Kingdom Builder: {self.phase_label(state)}"]
        if not state.over and seat == state.seat:
            lines.append(f"# your card: {terrain_name(state.played)}; settlements left: {state.supply[seat]}")
            builds = [m[1] for m in rules.legal_moves(state, seat) if m[0] == "build"]
            if builds:
                lines.append(f"# build on: {rules.hex_list(builds)}")
            for kind in rules.tile_actions(state, seat):
                lines.append(f"# tile {location_name(kind)} is ready ({kind} ...)")
            lines.append("# e.g. build C4 D4 E5 | tavern F7 | harbor G3 to H9 | end")
        return "\n".join(lines) + "\n"

    def describe_fact(self, fact: dict[str, Any], names: Sequence[str]) -> str:
        return describe(fact, names)


def describe(fact: dict[str, Any], names: Sequence[str]) -> str:
    """One line of history; hidden card draws say only that a card was drawn."""
    kind = fact["kind"]
    seat = fact.get("seat", -1)
    person = seat_name(names, seat)
    if kind == "GameStarted":
        parts = [f"{s['name']}{' (rotated)' if s['rotated'] else ''} {s['quadrant']}" for s in fact["sections"]]
        cards = ", ".join(card_name(c) for c in fact["cards"])
        return f"Game started for {fact['players']} players; board: {'; '.join(parts)}; kingdom cards: {cards}."
    if kind == "DeckShuffled":
        return f"The {fact['cards']} terrain cards were shuffled face down."
    if kind == "CardDrawn":
        return f"{person} drew a terrain card."
    if kind == "TurnStarted":
        return f"Round {fact['round']}: {person} plays {terrain_name(fact['terrain'])}."
    if kind == "CardReplaced":
        unusable = fact["unusable"]
        gone = "" if unusable is None else f"{terrain_name(unusable)} has no free hex and leaves the game; "
        return f"{person}: {gone}the next card is {terrain_name(fact['terrain'])}."
    if kind == "SettlementBuilt":
        how = "" if fact["action"] == "build" else f" with the {location_name(fact['action'])}"
        return f"{person} built on {fact['hex']}{how}."
    if kind == "SettlementMoved":
        return (f"{person} moved a settlement from {fact['from']} to {fact['to']} "
                f"with the {location_name(fact['action'])}.")
    if kind == "TileTaken":
        return f"{person} took a {location_name(fact['location'])} tile at {fact['hex']}."
    if kind == "TileLost":
        return f"{person} lost the {location_name(fact['location'])} tile of {fact['hex']} (no settlement next to it)."
    if kind == "TurnEnded":
        return f"{person} ended the turn."
    if kind == "GameEnded":
        scores = "; ".join(f"{seat_name(names, s['seat'])} {s['total']}" for s in fact["scores"])
        why = " No terrain card could be played any more." if fact.get("blocked") else ""
        return f"Game over.{why} Gold: {scores}."
    return kind


SPEC = KingdomBuilder()
