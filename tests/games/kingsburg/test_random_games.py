"""1,000 seeded random games (250 each for 2, 3, 4 and 5 players, options varied) with the
game's invariants checked after every move."""

import json

import pytest

from pbem.games.kingsburg import SPEC
from pbem.games.kingsburg.state import STOCK_KEYS, row_prefix_ok
from pbem.games.simulate import fold, play_random

GAMES_PER_COUNT = 250
REINFORCEMENTS = ("die", "difference", "tokens")


class Invariants:
    """``on_step`` hook: no negative stock, VP = the sum of every VP change in the facts,
    rows filled from the left, and (for some games) parse(format(move)) == move."""

    def __init__(self, players: int, check_text: bool):
        self.vp = [0] * players
        self.check_text = check_text
        self.steps = 0

    def __call__(self, before, seat, move, facts, after):
        self.steps += 1
        if self.check_text:
            assert SPEC.parse_move(before, seat, SPEC.format_move(move)) == move
        for fact in facts:
            if "delta" in fact:
                self.vp[fact["seat"]] += fact["delta"].get("vp", 0)
        for s, p in enumerate(after.players):
            assert all(p.stock(k) >= 0 for k in STOCK_KEYS), (s, p)
            assert p.vp == self.vp[s], (s, p.vp, self.vp[s])
            assert row_prefix_ok(p.buildings), p.buildings


def _options(seed: int) -> dict[str, str]:
    return {"reinforcements": REINFORCEMENTS[seed % 3], "demons": ("primary", "alternative")[seed % 2]}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_keep_the_invariants_and_end_after_year_five(players, random_games):
    for seed in range(random_games(GAMES_PER_COUNT)):
        hook = Invariants(players, check_text=seed < 10)
        play = play_random(SPEC, players, seed, options=_options(seed), on_step=hook)
        state = play.state
        assert state.over and state.year == 5 and SPEC.to_move(state) == []
        assert sum(f["kind"] == "EnemyRevealed" for f in play.facts) == 5
        standings = play.standings
        assert sorted(s.seat for s in standings) == list(range(players))
        assert min(s.rank for s in standings) == 1
        assert [s.score for s in standings] == [p.vp for p in state.players]
        if seed < 5:  # replay from stored JSON gives the same state
            assert fold(SPEC, json.loads(json.dumps(play.facts))) == state


@pytest.mark.parametrize(
    ("players", "scores", "ranks", "facts", "digest"),
    [
        (2, [0, 12], [2, 1], 389, "92cbbd5f69a53395"),
        (5, [7, 4, 0, 7, 9], [2, 4, 5, 3, 1], 626, "1d049e74fb53f8bb"),
    ],
)
def test_golden_game_is_unchanged(players, scores, ranks, facts, digest):
    """A pinned seeded game: any change to the rules or the fact format shows up here (bump
    ``rules_version`` and update the pin when the change is meant)."""
    import hashlib

    play = play_random(SPEC, players, 2026)
    assert [s.score for s in play.standings] == scores
    assert [s.rank for s in play.standings] == ranks
    assert len(play.facts) == facts
    assert hashlib.sha256(json.dumps(play.facts, sort_keys=True).encode()).hexdigest()[:16] == digest
