"""The ``GameSpec`` of Ruse & Bruise: wires the rules modules to the core contract."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.base import Fact, GameSpec, Rng, Standing, illegal, rank_by

from . import moves, play, render
from .moves import Move
from .scoring import final_score
from .state import GameState, evolve, to_move


class RuseAndBruise(GameSpec[GameState, Move]):
    name = "ruse-and-bruise"
    title = "Ruse & Bruise (Kabale und Hiebe)"
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
        return moves.parse(state, seat, text, self.legal_texts(state, seat))

    def format_move(self, move: Move) -> str:
        return moves.format_move(move)

    def public_move_text(self, state: GameState, seat: int, move: Move) -> str:
        return moves.public_text(move)

    def decide(self, state: GameState, seat: int, move: Move, rng: Rng) -> list[Fact]:
        if not isinstance(move, Move) or move not in moves.legal_moves(state, seat):
            shown = self.format_move(move) if isinstance(move, Move) else repr(move)
            raise illegal(f"{shown!r} is not a legal move now.", self.legal_texts(state, seat))
        match move:
            case Move(kind=moves.PLAY, card=str(card), column=int(column)):
                return play.play_card(state, seat, card, column - 1, rng)
            case Move(kind=moves.TUCK, card=str(card)):
                return play.tuck(state, seat, card, rng)
            case Move(kind=moves.SWAP, column=int(column)):
                return play.swap(state, seat, column - 1, rng)
        return play.decline(state, seat, rng)

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
        return any((f["kind"] == "CardRevealed" and f["owner"] != seat)
                   or f["kind"] in ("CardsRevealed", "RoundStarted")
                   or (f["kind"] == "CardsDrawn" and f["seat"] == seat) for f in facts)

    def phase_label(self, state: GameState) -> str:
        return render.phase_label(state)

    def turn_template(self, state: GameState, seat: int, names: Sequence[str]) -> str:
        """The legal commands, preceded by the seat's hand and the columns as comments."""
        picture = render.render_text(render.view(state, seat), names).splitlines()
        lines = [f"# {line}" for line in picture]
        lines.append("# one command per line, e.g. 'play KING 3' / 'hraj Král 3'; legal now:")
        return "\n".join(lines + [f"# {text}" for text in self.legal_texts(state, seat)]) + "\n"
