"""Every game, played by seeded random players to the end, keeps the contract's invariants.

Each game's own tests run the large numbers (1,000 games and more); this suite runs a few
games per player count for every game so that a new game is checked the day it lands.
Set PBEM_CONFORMANCE_GAMES to run more.
"""

import json
import os
import random

import pytest

from pbem.games import catalog
from pbem.games.base import SECRET
from pbem.games.simulate import fold, play_random

GAMES_PER_COUNT = int(os.environ.get("PBEM_CONFORMANCE_GAMES", "3"))


def _cases():
    for name, spec in catalog().items():
        for players in range(spec.min_players, spec.max_players + 1):
            for seed in range(GAMES_PER_COUNT):
                yield pytest.param(name, players, seed, id=f"{name}-{players}p-{seed}")


def _json_plain(value) -> None:
    """Raise if value is not str/int/bool/None/list/dict (floats are banned too)."""
    if isinstance(value, bool) or value is None or isinstance(value, (str, int)):
        return
    if isinstance(value, list):
        for item in value:
            _json_plain(item)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            assert isinstance(key, str), f"non-string key {key!r}"
            _json_plain(item)
        return
    raise AssertionError(f"not JSON-plain: {type(value).__name__} {value!r}")


def _check_step(spec, players, seed):
    sampler = random.Random(seed)

    def on_step(before, seat, move, facts, after):
        text = spec.format_move(move)
        assert spec.parse_move(before, seat, text) == move, f"parse(format) changed {text!r}"
        legal = spec.legal_moves(before, seat)
        for other in sampler.sample(legal, min(3, len(legal))):
            assert spec.parse_move(before, seat, spec.format_move(other)) == other
        assert facts, f"{text!r} produced no fact"
        for fact in facts:
            _json_plain(fact)
            assert isinstance(fact.get("kind"), str)
            if SECRET in fact:
                assert set(fact[SECRET]) == {"to", "data"}
        for viewer in [None, *range(players)]:
            _json_plain(spec.view(after, viewer))

    return on_step


@pytest.mark.parametrize(("name", "players", "seed"), list(_cases()))
def test_random_game_reaches_an_end_and_replays(name, players, seed):
    spec = catalog()[name]
    play = play_random(spec, players, seed, on_step=_check_step(spec, players, seed))

    standings = play.standings
    assert standings is not None, "the game stopped asking for moves but has no outcome"
    assert sorted(s.seat for s in standings) == list(range(players))
    assert min(s.rank for s in standings) == 1
    assert spec.to_move(play.state) == []

    stored = json.loads(json.dumps(play.facts))
    assert fold(spec, stored) == play.state, "replaying the stored facts gave another state"
