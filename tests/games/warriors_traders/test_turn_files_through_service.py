"""A turn file closes only the step it was written for. For every step a Warriors & Traders
file can be written for, a seeded game is played (through the real service) to a moment where
the file's last order leaves its author facing the *following* decision; that decision must
still be open afterwards, not answered by the closing ``done`` / ``pass`` / ``auto``."""

from __future__ import annotations

import random

import pytest

from pbem.games.base import SeededRng
from pbem.games.simulate import fold
from pbem.games.warriors_traders import SPEC, rules
from pbem.service.service import GameService

# where the search starts (players, first seed): found once, kept so the test stays quick; if
# the robot's choices change the search simply goes on to later seeds
STEPS = {
    "setup": (2, 0),
    "action1": (2, 0),
    "action2": (2, 0),
    "special": (2, 46),
    "shift": (3, 0),
    "trade": (2, 0),
    "move": (2, 0),
    "battle": (2, 0),
    "princess": (2, 0),
    "bonus": (4, 87),
    "feed": (2, 0),
}
SEEDS_TO_TRY = 60
RNG = SeededRng(0)  # Warriors & Traders draws nothing after setup; decide never uses it


def _step(state) -> str:
    return rules.current_step(state) or state.phase


def _order_before_a_following_decision(state, seat):
    """A legal order after which ``seat`` must decide something else, and that decision."""
    for move in SPEC.legal_moves(state, seat):
        after = fold(SPEC, SPEC.decide(state, seat, move, RNG), state)
        if seat in SPEC.to_move(after) and SPEC.decision(after, seat) != SPEC.decision(state, seat):
            return move, SPEC.decision(after, seat)
    return None


def _find(step: str, players: int, seed: int):
    """Moves (seat, text) of a seeded game up to a moment when a seat faces ``step`` and one
    order leads it to a following decision; that seat, order and decision."""
    state = fold(SPEC, SPEC.setup(players, SPEC.normalize_options({"countries": "order"}, players), RNG))
    chooser = random.Random(seed)
    played: list[tuple[int, str]] = []
    for _ in range(5000):
        seats = SPEC.to_move(state)
        if not seats:
            return None
        seat = seats[chooser.randrange(len(seats))]
        if _step(state) == step and (found := _order_before_a_following_decision(state, seat)):
            return played, seat, SPEC.format_move(found[0]), found[1]
        move = SPEC.random_move(state, seat, chooser)
        state = fold(SPEC, SPEC.decide(state, seat, move, RNG), state)
        played.append((seat, SPEC.format_move(move)))
    return None


def _replayed(service: GameService, players: int, played: list[tuple[int, str]]) -> str:
    emails = [f"p{seat}@example.org" for seat in range(players)]
    game_id = service.create("warriors-traders", emails, {"countries": "order"}, seed=bytes(32))
    for email in emails:
        service.join(game_id, email)
    run: list[str] = []
    for index, (seat, text) in enumerate(played):  # each seat's consecutive orders in one batch
        run.append(text)
        if index + 1 == len(played) or played[index + 1][0] != seat:
            while run:  # orders after a reveal are skipped: send them again
                outcome = service.submit(game_id, emails[seat], run, "cli")
                assert outcome.ok and any(r.status == "applied" for r in outcome.lines), outcome.to_dict()
                run = [line.text for line in outcome.lines if line.status == "skipped"]
    return game_id


@pytest.mark.parametrize("step", sorted(STEPS))
def test_a_turn_file_does_not_close_the_decision_after_its_own(step, sqlite_settings):
    players, first = STEPS[step]
    for seed in range(first, first + SEEDS_TO_TRY):
        if found := _find(step, players, seed):
            break
    else:
        pytest.fail(f"no game of seeds {first}..{first + SEEDS_TO_TRY} reaches the situation for {step}")
    played, seat, order, following = found
    service = GameService(sqlite_settings)
    game_id = _replayed(service, players, played)
    game = service.game(game_id)
    state = service.state(game)
    assert _step(state) == step and seat in SPEC.to_move(state)
    email = game.emails[seat]
    text = f"game: {game_id}\nplayer: {email}\nversion: {game.version}\nphase: {SPEC.phase_label(state)}\n{order}\n"
    outcome = service.submit_turn_file(text, email)
    assert outcome.ok, outcome.to_dict()
    assert [line.text for line in outcome.lines] == [order]  # nothing added after it
    after = service.state(service.game(game_id))
    assert seat in SPEC.to_move(after) and SPEC.decision(after, seat) == following
