"""The independent referee (``tests/referee/models.py``) against the engines: many seeded
random games per game and player count; the referee's ranks and scores must equal the
standings each engine reports."""

import pytest

from pbem.games import get_spec
from pbem.games.simulate import play_random
from tests.referee.models import REFEREES

GAMES_PER_COUNT = 6


def _agrees(name: str, players_counts, games: int = GAMES_PER_COUNT) -> None:
    spec = get_spec(name)
    for players in players_counts:
        for seed in range(games):
            play = play_random(spec, players, 1000 + seed)
            expected = REFEREES[name](play.state, play.facts)
            reported = {s.seat: (s.rank, s.score) for s in play.standings}
            assert reported == expected, (name, players, seed)


def test_referee_agrees_with_the_engine_on_kingsburg():
    """The referee's own model of the end of the game (p. 9: after year V the most VP wins; ties go
    to goods, then buildings, then are shared) gives the engine's standings in seeded games."""
    _agrees("kingsburg", range(2, 6))


def test_referee_agrees_with_the_engine_on_kingdom_builder():
    """The referee's own model of the final score (the three cards plus castles; the most gold wins,
    ties share) gives the engine's standings in seeded games."""
    _agrees("kingdom-builder", range(2, 5))


def test_referee_agrees_with_the_engine_on_ruse_and_bruise():
    """The referee's own model of the final score (p. 3: the plain sum, or with every suit twice the
    best of each suit minus 1 per further card; the highest score wins, equal scores share) gives
    the engine's standings in seeded games."""
    _agrees("ruse-and-bruise", range(2, 7))


def test_referee_agrees_with_the_engine_on_warriors_traders():
    """The referee's own model of victory (the threshold for the player count at the end of a turn,
    or the tenth turn) gives the engine's standings in seeded games."""
    _agrees("warriors-traders", range(2, 7))


@pytest.mark.parametrize(
    ("goals", "score"),
    [
        (["alchemy-5", "fencing-3a", "farming-1", "trade-4", "religion-3b", "music-2"], 36),  # 2 * 18
        (["alchemy-5", "alchemy-4"], 9),
    ],
)
def test_referee_counts_goal_cards_as_the_rulebook_says(goals, score):
    from tests.referee.models import ruse_and_bruise_score

    assert ruse_and_bruise_score(goals) == score
