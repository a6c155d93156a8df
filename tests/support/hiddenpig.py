"""Hidden Pig: a small dice game with one secret card per seat, for the core's own tests.

Never shipped as a product game. Each seat is dealt a secret card (1-9) from a shuffled deck;
on a turn a seat rolls a die as often as it likes (a 1 loses the turn's points) or holds to
bank them. After ``rounds`` turns each, cards are revealed; score = banked points + card.
"""

from __future__ import annotations

from dataclasses import dataclass

from pbem.games.base import (
    GameSpec,
    Option,
    Rng,
    Standing,
    illegal,
    rank_by,
    secret,
    secret_data,
    syntax,
    update,
)


@dataclass(frozen=True)
class PigState:
    players: int
    rounds: int
    cards: tuple[int | None, ...]
    banked: tuple[int, ...]
    turn_points: int = 0
    seat: int = 0
    turns_taken: int = 0
    revealed: bool = False


class HiddenPig(GameSpec):
    name = "hidden-pig"
    title = "Hidden Pig (test game)"
    min_players = 2
    max_players = 4
    options = (Option("rounds", "turns each seat plays", "3", ("1", "2", "3", "5")),)

    def setup(self, players, options, rng: Rng):
        deck = rng.shuffle(range(1, 10))
        facts = [{"kind": "GameStarted", "players": players, "rounds": int(options["rounds"])}]
        for seat in range(players):
            facts.append({"kind": "CardDealt", "seat": seat, "secret": secret([seat], {"card": deck[seat]})})
        return facts

    def evolve(self, state, fact):
        kind = fact["kind"]
        if kind == "GameStarted":
            n = fact["players"]
            return PigState(n, fact["rounds"], (None,) * n, (0,) * n)
        if kind == "CardDealt":
            return _set_card(state, fact["seat"], secret_data(fact)["card"])
        if kind == "DieRolled":
            if fact["value"] == 1:
                return _next_turn(update(state, turn_points=0))
            return update(state, turn_points=state.turn_points + fact["value"])
        if kind == "PointsBanked":
            banked = list(state.banked)
            banked[fact["seat"]] += fact["points"]
            return _next_turn(update(state, banked=tuple(banked), turn_points=0))
        if kind == "CardRevealed":
            return update(_set_card(state, fact["seat"], fact["card"]), revealed=True)
        raise ValueError(f"unknown fact {kind}")

    def to_move(self, state):
        return [] if _finished(state) else [state.seat]

    def legal_moves(self, state, seat):
        return [] if seat not in self.to_move(state) else ["roll", "hold"]

    def parse_move(self, state, seat, text):
        word = text.strip().lower()
        if word not in ("roll", "hold", "hod", "drz"):
            raise syntax(f"{text!r} is not a Hidden Pig command.", ["roll", "hold"])
        move = {"hod": "roll", "drz": "hold"}.get(word, word)
        if move not in self.legal_moves(state, seat):
            raise illegal(f"{text!r} is not legal now.", self.legal_texts(state, seat))
        return move

    def format_move(self, move):
        return move

    def decide(self, state, seat, move, rng):
        if move not in self.legal_moves(state, seat):
            raise illegal(f"{move!r} is not legal now.", self.legal_texts(state, seat))
        if move == "roll":
            facts = [{"kind": "DieRolled", "seat": seat, "value": rng.randint(1, 6)}]
        else:
            facts = [{"kind": "PointsBanked", "seat": seat, "points": state.turn_points}]
        after = state
        for fact in facts:
            after = self.evolve(after, fact)
        if after.turns_taken >= after.rounds * after.players:
            facts += [{"kind": "CardRevealed", "seat": s, "card": after.cards[s]} for s in range(after.players)]
        return facts

    def outcome(self, state):
        if not _finished(state):
            return None
        scores = {s: state.banked[s] + state.cards[s] for s in range(state.players)}
        ranks = rank_by({s: (score,) for s, score in scores.items()})
        return [Standing(s, ranks[s], scores[s], {"card": state.cards[s]}) for s in range(state.players)]

    def view(self, state, viewer):
        cards = [c if (state.revealed or viewer == s) else None for s, c in enumerate(state.cards)]
        return {
            "banked": list(state.banked),
            "turn_points": state.turn_points,
            "seat": state.seat,
            "cards": cards,
            "turns_taken": state.turns_taken,
        }

    def default_move(self, state, seat):
        return "hold"


def _set_card(state: PigState, seat: int, card: int) -> PigState:
    cards = list(state.cards)
    cards[seat] = card
    return update(state, cards=tuple(cards))


def _next_turn(state: PigState) -> PigState:
    return update(state, seat=(state.seat + 1) % state.players, turns_taken=state.turns_taken + 1)


def _finished(state: PigState) -> bool:
    return state.revealed


SPEC = HiddenPig()
