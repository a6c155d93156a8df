"""``KingdomBuilder``: the GameSpec tying the pieces together (options, setup, views, history)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pbem.games.base import FoldingGameSpec, Option, Rng, Standing, invalid, rank_by, secret
from pbem.games.speech import N_  # the options' help, said in the reader's language
from pbem.games.text import _, language, ngettext, seat_name

from . import moves, narrow, render, rules
from .board import QUADRANTS
from .data import (
    CARD_NAMES,
    MANDATORY,
    MOVE_TILES,
    SECTION_NAMES,
    TERRAIN_DECK,
    card_name,
    location_name,
    spoken,
    terrain_name,
)
from .rules import Move
from .state import KBState, evolve

RANDOM = "random"
SECTION_CHOICES = (RANDOM, *SECTION_NAMES, *(f"{s}-rotated" for s in SECTION_NAMES))
CARD_KEYS = ("card-1", "card-2", "card-3")


def _options() -> tuple[Option, ...]:
    sections = tuple(
        Option(
            q,
            N_(
                "board section at the corner {key} (NAME upright, NAME-rotated turned 180 degrees, "
                "or random: a random unused section in a random orientation)"
            ),
            RANDOM,
            SECTION_CHOICES,
        )
        for q in QUADRANTS
    )
    cards = tuple(Option(k, N_("a kingdom card in play, or random"), RANDOM, (RANDOM, *CARD_NAMES)) for k in CARD_KEYS)
    return sections + cards


class KingdomBuilder(FoldingGameSpec[KBState, Move]):
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
            raise invalid(_("Each board section can be used once; you chose {chosen}.", chosen=", ".join(fixed)))
        cards = [values[k] for k in CARD_KEYS if values[k] != RANDOM]
        if len(cards) != len(set(cards)):
            raise invalid(_("The 3 kingdom cards must differ; you chose {chosen}.", chosen=", ".join(cards)))
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
        facts += [
            {"kind": "CardDrawn", "seat": s, "secret": secret([s], {"terrain": order[s]})} for s in range(players)
        ]
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

    def say_move(self, move: Move) -> str:
        return moves.say_move(move)

    def command_examples(self) -> list[str]:
        return moves.usage()

    def say_command(self, text: str) -> str:
        words = moves._tokens(text)
        kind = moves.KEYWORDS.get(words[0]) if words else None
        if kind is None:
            return text
        hexes = [h for h in words[1:] if h not in moves.SEPARATORS]
        if kind in MOVE_TILES and len(hexes) == 2:
            return f"{spoken(kind)} {hexes[0].upper()} {spoken('to')} {hexes[1].upper()}"
        return " ".join([spoken(kind), *(h.upper() for h in hexes)])

    def score_label(self, key: str) -> str:
        return _("gold") if key == "gold" else render.score_word(key)

    def decide_and_fold(self, state: KBState, seat: int, move: Move, rng: Rng) -> tuple[list[dict[str, Any]], KBState]:
        return rules.decide_and_fold(state, seat, move, rng)

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
            return ngettext(
                "Round {round}: your terrain card is {terrain}; build {n} more settlement on "
                "{terrain} (or use a tile first).",
                "Round {round}: your terrain card is {terrain}; build {n} more settlements on "
                "{terrain} (or use a tile first).",
                owed,
                round=state.round,
                terrain=terrain_name(state.played),
            )
        return _(
            "Round {round}: use a location tile, or end your turn ({end}).",
            round=state.round,
            end=repr(spoken("end")),
        )

    def phase_label(self, state: KBState) -> str:
        return _("game over") if state.over else _("round {round}, seat {seat}", round=state.round, seat=state.seat + 1)

    # -- presentation ------------------------------------------------------------------------
    def render_text(self, view: Mapping[str, Any], names: Sequence[str]) -> str:
        return render.render_text(view, names)

    def render_svg(self, view: Mapping[str, Any], names: Sequence[str]) -> str | None:
        return render.render_svg(view, names)

    def render_narrow_svg(self, view: Mapping[str, Any], names: Sequence[str]) -> str | None:
        return narrow.render_narrow_svg(view, names)

    def render_mail_svg(self, view: Mapping[str, Any], names: Sequence[str]) -> str | None:
        return narrow.render_mail_svg(view, names)

    def turn_template(self, state: KBState, seat: int, names: Sequence[str]) -> str:
        lines = [f"# Kingdom Builder: {self.phase_label(state)}"]
        if not state.over and seat == state.seat:
            lines.append(
                "# "
                + _(
                    "your card: {terrain}; settlements left: {left}",
                    terrain=terrain_name(state.played),
                    left=state.supply[seat],
                )
            )
            builds = [m[1] for m in rules.legal_moves(state, seat) if m[0] == "build"]
            if builds:
                lines.append("# " + _("build on: {hexes}", hexes=rules.hex_list(builds)))
            for kind in rules.tile_actions(state, seat):
                lines.append(
                    "# " + _("tile {name} is ready ({command} ...)", name=location_name(kind), command=spoken(kind))
                )
            examples = moves.usage()
            lines.append("# " + _("e.g. {examples}", examples=" | ".join(examples[i] for i in (1, 3, 4, 6))))
        return "\n".join(lines) + "\n"

    def describe_fact(self, fact: dict[str, Any], names: Sequence[str]) -> str:
        return describe(fact, names)


def _section(key: str) -> str:
    """English names a section by its id ("oracle"), the other languages by the tile's name."""
    return key if language() == "en" else location_name(key)


def _quadrant(key: str) -> str:
    names = {
        "top-left": lambda: _("top-left"),
        "top-right": lambda: _("top-right"),
        "bottom-left": lambda: _("bottom-left"),
        "bottom-right": lambda: _("bottom-right"),
    }
    return names[key]() if key in names else key


def _started(fact: dict[str, Any], person: str, names: Sequence[str]) -> str:
    parts = [
        (
            _("{section} (rotated) {quadrant}", section=_section(s["name"]), quadrant=_quadrant(s["quadrant"]))
            if s["rotated"]
            else f"{_section(s['name'])} {_quadrant(s['quadrant'])}"
        )
        for s in fact["sections"]
    ]
    cards = ", ".join(card_name(c) for c in fact["cards"])
    return _(
        "Game started for {players} players; board: {board}; kingdom cards: {cards}.",
        players=fact["players"],
        board="; ".join(parts),
        cards=cards,
    )


def _turn_started(fact: dict[str, Any], person: str, names: Sequence[str]) -> str:
    return _(
        "Round {round}: {who} plays {terrain}.",
        round=fact["round"],
        who=person,
        terrain=terrain_name(fact["terrain"]),
    )


def _card_replaced(fact: dict[str, Any], person: str, names: Sequence[str]) -> str:
    unusable = fact["unusable"]
    if unusable is None:
        return _("{who}: the next card is {terrain}.", who=person, terrain=terrain_name(fact["terrain"]))
    return _(
        "{who}: {gone} has no free hex and leaves the game; the next card is {terrain}.",
        who=person,
        gone=terrain_name(unusable),
        terrain=terrain_name(fact["terrain"]),
    )


def _built(fact: dict[str, Any], person: str, names: Sequence[str]) -> str:
    if fact["action"] == "build":
        return _("{who} built on {hex}.", who=person, hex=fact["hex"])
    return _("{who} built on {hex} with the {tile}.", who=person, hex=fact["hex"], tile=location_name(fact["action"]))


def _moved(fact: dict[str, Any], person: str, names: Sequence[str]) -> str:
    return _(
        "{who} moved a settlement from {source} to {target} with the {tile}.",
        who=person,
        source=fact["from"],
        target=fact["to"],
        tile=location_name(fact["action"]),
    )


def _tile_taken(fact: dict[str, Any], person: str, names: Sequence[str]) -> str:
    return _("{who} took a {tile} tile at {hex}.", who=person, tile=location_name(fact["location"]), hex=fact["hex"])


def _tile_lost(fact: dict[str, Any], person: str, names: Sequence[str]) -> str:
    return _(
        "{who} lost the {tile} tile of {hex} (no settlement next to it).",
        who=person,
        tile=location_name(fact["location"]),
        hex=fact["hex"],
    )


def _ended(fact: dict[str, Any], person: str, names: Sequence[str]) -> str:
    scores = "; ".join(f"{seat_name(names, s['seat'])} {s['total']}" for s in fact["scores"])
    if fact.get("blocked"):
        return _("Game over. No terrain card could be played any more. Gold: {scores}.", scores=scores)
    return _("Game over. Gold: {scores}.", scores=scores)


# the line of history of each kind of fact: (fact, the seat's name, all names) -> the line
_DESCRIBERS: dict[str, Callable[[dict[str, Any], str, Sequence[str]], str]] = {
    "GameStarted": _started,
    "DeckShuffled": lambda fact, person, names: ngettext(
        "The {n} terrain card was shuffled face down.", "The {n} terrain cards were shuffled face down.", fact["cards"]
    ),
    "CardDrawn": lambda fact, person, names: _("{who} drew a terrain card.", who=person),
    "TurnStarted": _turn_started,
    "CardReplaced": _card_replaced,
    "SettlementBuilt": _built,
    "SettlementMoved": _moved,
    "TileTaken": _tile_taken,
    "TileLost": _tile_lost,
    "TurnEnded": lambda fact, person, names: _("{who} ended the turn.", who=person),
    "GameEnded": _ended,
}


def describe(fact: dict[str, Any], names: Sequence[str]) -> str:
    """One line of history; hidden card draws say only that a card was drawn."""
    describer = _DESCRIBERS.get(fact["kind"])
    if describer is None:
        return str(fact["kind"])
    return describer(fact, seat_name(names, fact.get("seat", -1)), names)


SPEC = KingdomBuilder()
