"""The ``GameSpec`` of Ruse & Bruise: wires the rules modules to the core contract."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from pbem.games.base import Fact, FoldingGameSpec, Rng, Standing, illegal, rank_by
from pbem.games.text import _, fold_key, language

from . import moves, narrow, play, render
from .cards import GOALS, goal_text, match_cards
from .moves import Move
from .scoring import final_score
from .state import GameState, evolve, to_move


class RuseAndBruise(FoldingGameSpec[GameState, Move]):
    name = "ruse-and-bruise"

    @property  # a title in the reader's language, read like the base class's attribute
    def title(self) -> str:  # type: ignore[override]
        """The title the rulebook of the language spoken now prints (Czech: Královské rošády)."""
        return _("Ruse & Bruise (Kabale und Hiebe)")

    min_players = 2
    max_players = 6
    options = ()

    def setup(self, players: int, options: Mapping[str, str], rng: Rng) -> list[Fact]:
        self.settings(players, options)
        return play.setup(players, rng)

    def evolve(self, state: GameState | None, fact: Fact) -> GameState:
        return evolve(state, fact)

    def to_move(self, state: GameState) -> list[int]:
        return to_move(state)

    def legal_moves(self, state: GameState, seat: int) -> list[Move]:
        return moves.legal_moves(state, seat)

    def parse_move(self, state: GameState, seat: int, text: str) -> Move:
        return moves.parse(state, seat, text, partial(self.legal_texts, state, seat))  # said if refused

    def format_move(self, move: Move) -> str:
        return moves.format_move(move)

    def say_move(self, move: Move) -> str:
        return moves.say_move(move)

    def command_examples(self) -> list[str]:
        return [
            moves.say_move(move)
            for move in (
                Move(moves.PLAY, "king", 3),
                Move(moves.TUCK, "queen"),
                Move(moves.SWAP, column=2),
                Move(moves.PASS),
            )
        ]

    def say_command(self, text: str) -> str:
        words = text.split()
        kind = moves.VERBS.get(fold_key(words[0])) if words else None
        if kind is None:
            return text
        named_cards = match_cards(" ".join(w for w in words[1:] if not w.isdigit()))
        numbers = [w for w in words[1:] if w.isdigit()]
        card = next(iter(named_cards)) if len(named_cards) == 1 else None
        if kind in (moves.PLAY, moves.TUCK) and card is None:
            return text
        column = int(numbers[0]) if len(numbers) == 1 else None
        return moves.say_move(Move(kind, card, column))

    def score_item(self, item: str) -> str:
        # English keeps the goal card's id ("music-3b"), as its scores always said
        return goal_text(item) if item in GOALS and language() != "en" else item

    def score_label(self, key: str) -> str:
        labels = {"goals": lambda: _("goals"), "plain": lambda: _("plain"), "six_suits": lambda: _("six suits")}
        return labels[key]() if key in labels else key

    def public_move_text(self, state: GameState, seat: int, move: Move) -> str:
        return moves.public_text(move)

    def decide_and_fold(self, state: GameState, seat: int, move: Move, rng: Rng) -> tuple[list[Fact], GameState]:
        if not isinstance(move, Move) or move not in moves.legal_moves(state, seat):
            shown = self.say_move(move) if isinstance(move, Move) else repr(move)
            raise illegal(_("{move} is not a legal move now.", move=repr(shown)), self.legal_texts(state, seat))
        match move:
            case Move(kind=moves.PLAY, card=str(card), column=int(column)):
                turn = play.play_card(state, seat, card, column - 1, rng)
            case Move(kind=moves.TUCK, card=str(card)):
                turn = play.tuck(state, seat, card, rng)
            case Move(kind=moves.SWAP, column=int(column)):
                turn = play.swap(state, seat, column - 1, rng)
            case _:
                turn = play.decline(state, seat, rng)
        return turn.facts, turn.state

    def outcome(self, state: GameState) -> list[Standing] | None:
        if not state.finished or state.scores is None:
            return None
        ranks = rank_by({seat: (score,) for seat, score in enumerate(state.scores)})
        standings = []
        for seat, score in enumerate(state.scores):
            result = final_score(state.won[seat])
            details = {"goals": list(state.won[seat]), "plain": result.plain, "six_suits": result.six_suits}
            standings.append(Standing(seat, ranks[seat], score, details))
        return standings

    def view(self, state: GameState, viewer: int | None) -> dict[str, Any]:
        return render.view(state, viewer)

    def render_text(self, view: Mapping[str, Any], names: Sequence[str]) -> str:
        return render.render_text(view, names)

    def render_svg(self, view: Mapping[str, Any], names: Sequence[str]) -> str:
        return render.render_svg(view, names)

    def render_narrow_svg(self, view: Mapping[str, Any], names: Sequence[str]) -> str:
        return narrow.render_narrow_svg(view, names)

    def render_mail_svg(self, view: Mapping[str, Any], names: Sequence[str]) -> str:
        return narrow.render_mail_svg(view, names)

    def describe_fact(self, fact: Fact, names: Sequence[str]) -> str:
        return render.describe_fact(fact, names)

    def default_move(self, state: GameState, seat: int) -> Move | None:
        legal = moves.legal_moves(state, seat)
        if not legal:
            return None
        return Move(moves.PASS) if state.pending is not None else legal[0]

    def reveals(self, state: GameState, seat: int, facts: Sequence[Fact]) -> bool:
        # another player's face-down card turned up (alone, or all at the round's end), new
        # goal cards, or cards drawn into this seat's hand
        return any(
            (f["kind"] == "CardRevealed" and f["owner"] != seat)
            or f["kind"] in ("CardsRevealed", "RoundStarted")
            or (f["kind"] == "CardsDrawn" and f["seat"] == seat)
            for f in facts
        )

    def phase_label(self, state: GameState) -> str:
        return render.phase_label(state)

    def turn_template(self, state: GameState, seat: int, names: Sequence[str]) -> str:
        """The legal commands, preceded by the seat's hand and the columns as comments."""
        picture = render.render_text(render.view(state, seat), names).splitlines()
        lines = [f"# {line}" for line in picture]
        lines.append("# " + _("one command per line, e.g. {example}; legal now:", example=moves._example()))
        return "\n".join(lines + [f"# {text}" for text in self.legal_texts(state, seat)]) + "\n"
