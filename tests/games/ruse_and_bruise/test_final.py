"""Final scoring (rulebook page 3) and the end of the game."""

from pbem.games.base import SeededRng
from pbem.games.ruse_and_bruise.scoring import final_score
from pbem.games.simulate import fold

from .helpers import SPEC, column, position, up


def test_rulebook_final_example_leonardo_six_suits_13_doubled_is_26():
    goals = ["alchemy-1", "fencing-2", "farming-3a", "trade-1", "religion-4", "music-2"]
    result = final_score(goals)
    assert (result.plain, result.six_suits, result.score) == (13, 26, 26)


def test_rulebook_final_example_sarah_plain_sum_20():
    goals = ["alchemy-5", "alchemy-4", "fencing-5", "trade-3a", "music-3a"]
    result = final_score(goals)
    assert (result.plain, result.six_suits, result.score) == (20, None, 20)


def test_rulebook_final_example_isabelle_15_doubled_minus_one_is_29():
    goals = ["alchemy-3a", "fencing-2", "farming-4", "trade-1", "religion-2", "music-3a", "music-1"]
    result = final_score(goals)
    assert (result.plain, result.six_suits, result.score) == (16, 29, 29)


def test_six_suit_count_takes_the_best_card_of_each_suit_and_the_better_count_wins():
    goals = ["alchemy-5", "alchemy-4", "alchemy-3a", "fencing-1", "farming-1", "trade-1", "religion-1", "music-1"]
    result = final_score(goals)
    assert result.six_suits == 2 * 10 - 2 and result.plain == 17 and result.score == 18
    many = [
        "alchemy-5",
        "alchemy-4",
        "alchemy-3a",
        "alchemy-3b",
        "alchemy-2",
        "fencing-1",
        "farming-1",
        "trade-1",
        "religion-1",
        "music-1",
    ]
    assert final_score(many).score == final_score(many).plain == 22


def _last_round(won):
    state = position(
        [column("music-1", up(0, "queen")), column("trade-1")], hands=[("king",), ("romeo",)], round=6, goal_deck=()
    )
    from dataclasses import replace

    return replace(state, won=won)


def test_the_game_ends_after_the_sixth_round_with_standings():
    state = _last_round((("alchemy-5",), ("fencing-5",)))
    move = SPEC.parse_move(state, 0, "play KING 2")
    facts = SPEC.decide(state, 0, move, SeededRng(1))
    after = fold(SPEC, facts, state)
    assert facts[-1]["kind"] == "GameEnded" and SPEC.to_move(after) == []
    standings = {s.seat: s for s in SPEC.outcome(after)}
    assert standings[0].score == 7 and standings[1].score == 5
    assert standings[0].rank == 1 and standings[1].rank == 2


def test_equal_final_scores_share_the_place():
    state = _last_round((("alchemy-4",), ("fencing-5", "music-1")))
    move = SPEC.parse_move(state, 0, "play KING 2")
    after = fold(SPEC, SPEC.decide(state, 0, move, SeededRng(1)), state)
    standings = {s.seat: s for s in SPEC.outcome(after)}
    assert standings[0].score == standings[1].score == 6
    assert standings[0].rank == standings[1].rank == 1


def test_outcome_is_none_while_the_game_runs():
    assert SPEC.outcome(_last_round(((), ()))) is None
