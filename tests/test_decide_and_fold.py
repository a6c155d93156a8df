"""``decide_and_fold`` gives what ``decide`` gives, and the state that folding those facts
gives: the rules replay of ``verify`` takes that state instead of folding every fact again,
so for every game the two must agree after every move of whole random games."""

import random

import pytest

from pbem.games import catalog
from pbem.games.base import FoldingGameSpec, SeededRng
from pbem.games.simulate import fold

SEEDS = 2


def _cases():
    for name, spec in catalog().items():
        for players in sorted({spec.min_players, spec.max_players}):
            for seed in range(SEEDS):
                yield pytest.param(name, players, seed, id=f"{name}-{players}p-{seed}")


@pytest.mark.parametrize("name, players, seed", list(_cases()))
def test_decide_and_fold_agrees_with_decide_then_fold(name, players, seed):
    spec = catalog()[name]
    options = spec.normalize_options({}, players)
    chooser = random.Random(f"players-{seed}")
    state = fold(spec, spec.setup(players, options, SeededRng(f"setup-{seed}")))
    moves = 0
    while spec.to_move(state):
        seats = spec.to_move(state)
        seat = seats[chooser.randrange(len(seats))]
        move = spec.random_move(state, seat, chooser)
        facts = spec.decide(state, seat, move, SeededRng(f"{seed}-{moves}"))
        both, after = spec.decide_and_fold(state, seat, move, SeededRng(f"{seed}-{moves}"))
        folded = fold(spec, facts, state)
        assert both == facts, f"move {moves}"
        assert after == folded, f"move {moves}: the state decide_and_fold gives is not the folded one"
        state, moves = after, moves + 1
    assert spec.outcome(state) is not None and moves > 10


def test_the_product_games_fold_while_they_decide():
    # the four games return the state they computed; the default (fold again) stays for others
    folding = {name for name, spec in catalog().items() if isinstance(spec, FoldingGameSpec)}
    assert {"kingsburg", "kingdom-builder", "ruse-and-bruise", "warriors-traders"} <= folding
