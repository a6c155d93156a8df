"""The development phase: order, the five actions, special actions, moving a token."""

from pbem.games.warriors_traders import SPEC
from pbem.games.warriors_traders.state import order, set_player, unit

from .support import (
    act,
    at_development,
    fact,
    put,
    refused,
    start,
    step,
    with_levels,
    with_stock,
)


def _development(players=3, **options):
    state = start(players, **options)
    seats = order(state)
    queue = [("action1", s) for s in seats] + [("action2", s) for s in reversed(seats)]
    queue += [("special", s) for s in seats] + [("shift", s) for s in seats]
    return at_development(state, tuple(queue))


def test_first_action_in_country_order_second_in_reverse():
    state = _development(3)
    seen = []
    for _ in range(6):
        seat = SPEC.to_move(state)[0]
        seen.append(seat)
        state = act(state, seat, "develop production")
    assert seen == [0, 1, 2, 2, 1, 0]


def test_develop_places_a_token_and_new_levels_work_at_once():
    """FAQ: reaching production IV with the first action allows a fort with the second."""
    state = _development(2)
    state = with_stock(state, 0, goods=12, food=2, gold=1)
    state = set_player(state, 0, tokens=(5, 0, 0))  # one token short of IV (6)
    state = act(state, 0, "develop production")
    assert state.players[0].tokens[0] == 6
    state = act(state, 1, "pass")
    state = act(state, 1, "pass")
    state = act(state, 0, "fort meath")
    assert sum(1 for u in state.units if u.province == "w_meath" and u.kind == "fort") == 2
    assert state.players[0].stock == (0, 0, 1, 0)


def test_build_army_costs_and_military_levels():
    state = with_stock(_development(2), 0, weapons=5, gold=3)
    assert "military level III" in refused(state, 0, "build archer meath").message
    state = act(state, 0, "postav pěchota meath")
    assert state.players[0].stock[2] == 4
    state = with_levels(state, 0, military=3)
    state = act(state, 1, "pass")
    state = act(state, 1, "pass")
    state = act(state, 0, "build archer meath")
    assert state.players[0].stock[2:] == (2, 2)


def test_cavalry_level_option():
    state = with_levels(with_stock(_development(2), 0, weapons=3, gold=2), 0, military=5)
    assert "military level VI" in refused(state, 0, "build cavalry meath").message
    state = with_levels(with_stock(_development(2, cavalry_level="V"), 0, weapons=3, gold=2), 0, military=5)
    state = act(state, 0, "build cavalry meath")
    assert state.players[0].stock[2:] == (0, 0)


def test_one_build_action_builds_exactly_one_army():
    """FAQ: one action, one army, however rich the player is."""
    state = with_stock(_development(2), 0, weapons=10)
    state, facts = step(state, 0, "build infantry meath")
    assert [f["kind"] for f in facts].count("ArmyBuilt") == 1
    assert SPEC.to_move(state) == [1]


def test_army_placed_only_in_own_provinces():
    state = with_stock(_development(2), 0, weapons=1)
    assert "not your province" in refused(state, 0, "build infantry scone").message


def test_fort_needs_masonry_and_at_most_two_per_province():
    state = with_stock(_development(2), 0, goods=36, food=6, gold=3)
    assert "Masonry" in refused(state, 0, "fort meath").message
    state = with_levels(state, 0, production=4)
    state = act(state, 0, "fort meath")
    state = act(state, 1, "pass")
    state = act(state, 1, "pass")
    assert "two forts" in refused(state, 0, "fort meath").message


def test_reinforce_costs_seven_goods_per_step():
    state = with_levels(with_stock(_development(2), 0, goods=21), 0, production=5)
    state, inf = put(state, 0, "infantry", "w_meath")
    state = act(state, 0, f"upgrade {inf} cavalry")
    assert unit(state, inf).kind == "cavalry" and state.players[0].has("goods") == 7


def test_reinforcing_another_players_army_is_refused_in_free_for_all():
    """FAQ: no upgrading another player's army outside an alliance."""
    state = with_levels(with_stock(_development(2), 0, goods=7), 0, production=5)
    state, theirs = put(state, 1, "infantry", "w_scone")
    assert "not your army" in refused(state, 0, f"upgrade {theirs} archer").message


def test_special_actions_university_master_trader_voivode():
    state = _development(2)
    state = with_levels(state, 0, production=7, trade=6, military=7)
    state = with_stock(state, 0, gold=5, weapons=2)
    for text in ("develop trade", "pass", "pass", "develop trade"):
        seat = SPEC.to_move(state)[0]
        state = act(state, seat, text if seat == 0 else "pass")
    assert state.queue[0] == ("special", 0)
    state, facts = step(state, 0, "war scotland")
    assert fact(facts, "WarDeclared")["source"] == "voivode"
    state, facts = step(state, 0, "build infantry meath")
    assert fact(facts, "ArmyBuilt")["source"] == "university"
    state, facts = step(state, 0, "build infantry meath")
    assert fact(facts, "ArmyBuilt")["source"] == "master_trader"
    assert fact(facts, "ArmyBuilt")["paid"] == {"weapons": 1, "gold": 5}
    assert state.queue[0] != ("special", 0)  # nothing left: the step ends by itself


def test_master_trader_charges_five_gold_for_any_special_action():
    state = _development(2)
    state = with_levels(state, 0, trade=6)
    state = at_development(with_stock(state, 0, gold=5), (("special", 0), ("special", 1)))
    state, facts = step(state, 0, "develop military")
    assert fact(facts, "TrackDeveloped")["paid"] == {"gold": 5}
    assert state.players[0].has("gold") == 0


def test_moving_one_token_from_one_track_to_another():
    state = _development(2)
    state = at_development(state, (("shift", 0), ("shift", 1)))
    state = with_levels(state, 0, production=3)
    assert "no token" in refused(state, 0, "shift trade military").message
    state = act(state, 0, "presun produkce obchod")
    assert state.players[0].tokens == (2, 1, 0)


def test_faq_a_war_declared_after_my_first_action_leaves_only_the_second():
    state = with_stock(_development(2), 0, weapons=1)
    state = act(state, 0, "develop production")
    state = act(state, 1, "war ireland")
    state = act(state, 1, "pass")
    assert SPEC.to_move(state) == [0] and state.queue[0] == ("action2", 0)
    state = act(state, 0, "build infantry meath")  # the answer is the second action
    assert any(u.owner == 0 and u.kind == "infantry" for u in state.units)


def test_faq_no_buying_vp_outside_the_trade_phase():
    state = with_stock(_development(2), 0, gold=10)
    assert refused(state, 0, "buy vp").code.value == "illegal"


def test_master_trader_needs_the_five_gold():
    state = with_levels(_development(2), 0, trade=6)
    state = at_development(with_stock(state, 0, gold=4), (("special", 0), ("special", 1)))
    assert "lack 1 gold" in refused(state, 0, "develop military").message


def test_abilities_add_up_example_military_four_builds_archers_and_still_infantry():
    """The rulebook's example (L422-424): a player at military IV may build archers and has not
    lost the ability to build infantry; abilities of a track add up."""
    state = with_levels(with_stock(_development(2), 0, weapons=5, gold=3), 0, military=4)
    legal = SPEC.legal_moves(state, 0)
    assert ("build", "infantry", "w_meath") in legal and ("build", "archer", "w_meath") in legal
    assert ("build", "cavalry", "w_meath") not in legal
