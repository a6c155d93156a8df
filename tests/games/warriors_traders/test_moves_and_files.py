"""Orders as text (English and Czech), resolution against legal moves, turn-file hooks,
history lines and pictures."""

import random

import pytest

from pbem.games.base import ErrorCode, GameError
from pbem.games.simulate import play_random
from pbem.games.warriors_traders import SPEC

from .support import (
    RNG,
    act,
    at_development,
    at_maneuvers,
    clear,
    placed,
    put,
    refused,
    start,
    with_levels,
    with_stock,
)

NAMES = ["Ann", "Bob", "Cyril", "Dana"]


def _sample_states():
    play = play_random(SPEC, 3, 5, {"map": "east"})
    state = None
    states = []
    for i, fact in enumerate(play.facts):
        state = SPEC.evolve(state, fact)
        if i % 7 == 0 and SPEC.to_move(state):
            states.append(state)
    return states, play


STATES, PLAY = _sample_states()


def test_every_legal_move_round_trips_through_text():
    checked = 0
    for state in STATES:
        for seat in SPEC.to_move(state):
            for move in SPEC.legal_moves(state, seat):
                assert SPEC.parse_move(state, seat, SPEC.format_move(move)) == move
                checked += 1
    assert checked > 100


@pytest.mark.parametrize(
    ("czech", "english"),
    [
        ("rozvoj obchod", "develop trade"),
        ("postav pěchota meath", "build infantry w_meath"),
        ("posil {unit} lukostřelci", "upgrade {unit} archer"),
        ("válka skotsko", None),
        ("nic", "pass"),
    ],
)
def test_czech_keywords(czech, english):
    state = with_stock(at_development(start(2), (("action1", 0), ("action1", 1))), 0, weapons=1, goods=7)
    state = with_levels(state, 0, production=5)
    state, unit = put(state, 0, "infantry", "w_meath")
    czech, english = czech.format(unit=unit), english and english.format(unit=unit)
    if english is None:
        assert SPEC.parse_move(state, 0, "válka scotland") == SPEC.parse_move(state, 0, "war scotland")
        return
    assert SPEC.parse_move(state, 0, czech) == SPEC.parse_move(state, 0, english)


def test_unknown_order_is_a_syntax_error_listing_legal_orders():
    state = at_development(start(2), (("action1", 0), ("action1", 1)))
    error = refused(state, 0, "conquer the world")
    assert error.code == ErrorCode.SYNTAX and "develop production" in error.legal


def test_orders_the_engine_does_not_offer_are_refused_with_a_reason():
    state = at_development(start(2), (("action1", 0), ("action1", 1)))
    error = refused(state, 0, "disband 12")
    assert error.code == ErrorCode.INVALID and "cannot be disbanded" in error.message
    error = refused(state, 0, "starve 12")  # an order of the feeding step only
    assert error.code == ErrorCode.ILLEGAL and "feeding" not in SPEC.phase_label(state)


def test_pass_and_done_both_close_a_step():
    state = at_development(start(2), (("action1", 0), ("action1", 1)))
    assert SPEC.parse_move(state, 0, "done") == ("pass",)
    assert SPEC.parse_move(state, 0, "hotovo") == ("pass",)


def test_bad_argument_is_invalid():
    state = at_development(start(2), (("action1", 0), ("action1", 1)))
    assert refused(state, 0, "develop magic").code == ErrorCode.INVALID
    assert refused(state, 0, "build infantry atlantis").code == ErrorCode.INVALID


def test_illegal_order_says_why_and_what_is_legal():
    state = with_stock(at_development(start(2), (("action1", 0), ("action1", 1))), 0, weapons=0)
    error = refused(state, 0, "build infantry meath")
    assert error.code == ErrorCode.ILLEGAL
    assert "lack 1 weapons" in error.message and "pass" in error.legal


def test_short_orders_resolve_when_unique_and_are_ambiguous_otherwise():
    state = with_stock(at_development(start(2), (("action1", 0), ("action1", 1))), 0, weapons=1)
    assert SPEC.parse_move(state, 0, "build infantry") == ("build", "infantry", "w_meath")
    state = clear(state, "w_dublin")
    state, _ = put(state, 0, "princess", "w_dublin")
    error = refused(state, 0, "build infantry")
    assert error.code == ErrorCode.AMBIGUOUS and len(error.legal) == 2


def test_province_prefix_may_be_ambiguous():
    state = with_stock(at_development(start(2), (("action1", 0), ("action1", 1))), 0, weapons=1)
    with pytest.raises(GameError) as caught:
        SPEC.parse_move(state, 0, "build infantry s")
    assert caught.value.code == ErrorCode.AMBIGUOUS


def test_orders_out_of_turn_are_refused():
    state = at_development(start(2), (("action1", 0), ("action1", 1)))
    # the service says whose turn it is before parsing; the game refuses the order as illegal,
    # and its decide refuses a move made out of turn
    error = refused(state, 1, "develop trade")
    assert error.code == ErrorCode.ILLEGAL and "not your turn" in error.message
    with pytest.raises(GameError) as caught:
        SPEC.decide(state, 1, ("develop", "trade"), RNG)
    assert caught.value.code == ErrorCode.NOT_YOUR_TURN


def test_phase_label_template_and_end_of_turn_file():
    state = placed(start(2))
    assert SPEC.phase_label(state) == "turn 1, development, the first action"
    template = SPEC.turn_template(state, 0, NAMES)
    assert template.startswith("# Warriors & Traders: turn 1, development, the first action")
    assert "#   develop military" in template and all(line.startswith("#") for line in template.splitlines())
    assert SPEC.end_of_turn_file(state, 0) == ("pass",)
    assert SPEC.end_of_turn_file(state, 1) is None
    assert SPEC.default_move(state, 0) == ("pass",)


def test_a_turn_file_of_movement_orders_then_done():
    state = with_levels(start(2), 0, military=4)
    state = clear(state, "w_munster", "w_dublin")
    state, a = put(state, 0, "infantry", "w_meath")
    state, b = put(state, 0, "infantry", "w_meath")
    state = at_maneuvers(state, 0, rest=(1,))
    assert SPEC.phase_label(state) == "turn 1, maneuvers, army movement"
    for line in (f"move {a} munster", f"tah {b} dublin"):
        state = act(state, 0, line)
    assert SPEC.end_of_turn_file(state, 0) == ("done",)
    state = act(state, 0, "done")
    assert state.step == "princess" and SPEC.end_of_turn_file(state, 0) == ("done",)


def test_damage_assignment_is_hidden_in_public_move_text():
    assert SPEC.public_move_text(None, 0, ("hit", 5, 2)) == "assign damage"
    assert SPEC.public_move_text(None, 0, ("develop", "trade")) == "develop trade"


def test_every_fact_of_a_game_has_a_history_line_with_names():
    for fact in PLAY.facts:
        redacted = {k: v for k, v in fact.items() if k != "secret"}
        line = SPEC.describe_fact(redacted, NAMES[:3])
        assert line and not line.startswith(fact["kind"] + ":")
    started = SPEC.describe_fact(PLAY.facts[0], NAMES[:3])
    assert "Ann plays" in started


def test_render_text_and_svg():
    state = PLAY.state
    view = SPEC.view(state, 0)
    text = SPEC.render_text(view, NAMES[:3])
    assert "approximate data" in text and "Ann" in text
    svg = SPEC.render_svg(view, NAMES[:3])
    assert svg.startswith("<svg") and svg.count("<circle") == len(state.gmap.provinces)
    assert "approximate map" in svg


def test_random_move_is_always_legal():
    rng = random.Random(3)
    for state in STATES:
        for seat in SPEC.to_move(state):
            move = SPEC.random_move(state, seat, rng)
            assert move in SPEC.legal_moves(state, seat)


def test_turn_template_and_history_show_the_invented_numbers():
    state = placed(start(2))
    template = SPEC.turn_template(state, 0, NAMES)
    assert "# APPROXIMATE NUMBERS" in template
    assert "#   action points per military level I-VII: 2 2 2 3 3 4 4" in template
    started = SPEC.describe_fact(SPEC.setup(2, {"countries": "order"}, RNG)[0], NAMES)
    assert "Invented numbers in play" in started and "bank ratio (X:1) per trade level" in started


def test_the_decision_of_a_damage_step_names_its_battle():
    """A damage file answers one battle: the next battle's damage is another decision, so the
    service adds no closing ``auto`` to it (GameSpec.decision)."""
    from dataclasses import replace

    from pbem.games.warriors_traders.state import Battle

    state = replace(placed(start(2)), phase="maneuvers", step="battle", queue=(("maneuver", 0),))
    first = replace(state, battle=Battle("w_wessex", 0, -1, (1,), (2,), (1, 1)))
    second = replace(state, battle=Battle("w_munster", 0, -1, (1,), (3,), (1, 1)))
    assert SPEC.phase_label(first) == SPEC.phase_label(second)
    assert SPEC.decision(first, 0) != SPEC.decision(second, 0)
    assert SPEC.decision(first, 0) != SPEC.decision(replace(first, round=2), 0)
