"""War and its three endings, alliance games, the end of turn, titles and victory."""

from dataclasses import replace

import pytest

from pbem.games.base import ErrorCode, GameError
from pbem.games.warriors_traders import SPEC
from pbem.games.warriors_traders.flow import game_end_fact, turn_end_fact
from pbem.games.warriors_traders.scoring import standings, threshold, title_holders, vp
from pbem.games.warriors_traders.state import War, at_war, set_player

from .support import (
    RNG,
    act,
    at_development,
    at_maneuvers,
    at_trade,
    clear,
    fact,
    put,
    refused,
    start,
    step,
    with_levels,
    with_stock,
)
from .support import (
    at_war as make_war,
)


def test_war_declaration_costs_an_action():
    state = at_development(start(2), (("action1", 0), ("action1", 1)))
    state, facts = step(state, 0, "válka scotland")
    assert fact(facts, "WarDeclared")["source"] == "action"
    assert at_war(state, 0, 1) and state.wars[0].start == state.turn


def test_war_ends_at_the_end_of_a_turn_without_war_damage():
    state = replace(start(2), turn=4, wars=(War((0, 1), 4),))
    assert turn_end_fact(state)["wars_ended"] == [[[0, 1], "no damage this turn"]]


def test_war_ends_at_the_end_of_its_third_turn():
    state = replace(start(2), turn=5, wars=(War((0, 1), 4, damaged=True),))
    assert turn_end_fact(state)["wars_ended"] == []
    state = replace(state, turn=6)
    assert turn_end_fact(state)["wars_ended"] == [[[0, 1], "third turn over"]]


def test_war_ends_by_peace_agreement():
    state = at_trade(make_war(start(2), 0, 1))
    state = with_stock(state, 0, gold=10)  # keeps seat 0 busy enough to answer
    state = act(state, 0, "peace scotland")
    assert 1 in SPEC.to_move(state)
    state, facts = step(state, 1, "mír ireland")
    assert fact(facts, "PeaceMade") and not at_war(state, 0, 1)


def test_a_new_declaration_restarts_the_war():
    state = replace(start(2), turn=3, wars=(War((0, 1), 1, damaged=True),))
    state = at_development(state, (("action1", 1), ("action1", 0)))
    state = act(state, 1, "war ireland")
    assert state.wars == (War((0, 1), 3),)


def test_alliance_war_is_between_alliances():
    state = start(4, mode="alliance", teams="13/24")
    assert [p.team for p in state.players] == [0, 1, 0, 1]
    state = at_development(state, (("action1", 0), ("action1", 1)))
    assert "ally" in refused(state, 0, "war england").message
    state = act(state, 0, "war scotland")
    assert at_war(state, 2, 3) and at_war(state, 0, 3) and not at_war(state, 0, 2)


def test_alliance_movement_and_building_in_allied_provinces():
    state = start(4, mode="alliance", teams="12/34")
    state = clear(state, "w_strathclyde", "w_ulster")
    state, _ = put(state, 1, "princess", "w_strathclyde")
    state, inf = put(state, 0, "infantry", "w_ulster")
    state = at_maneuvers(with_levels(state, 0, military=3), 0, rest=(1,))
    state = act(state, 0, f"move {inf} strathclyde")  # an ally's province: moved through as own
    assert state.units[-1].province == "w_strathclyde"
    state = at_development(with_stock(state, 0, weapons=1), (("action1", 0),))
    state = act(state, 0, "build infantry scone")
    assert any(u.owner == 0 and u.province == "w_scone" for u in state.units)


def test_alliance_reinforcing_an_allys_army():
    """FAQ: yes for an ally, no for an opponent."""
    state = start(4, mode="alliance", teams="12/34")
    state = with_levels(with_stock(state, 0, goods=14), 0, production=5)
    state, ally = put(state, 1, "infantry", "w_scone")
    state, enemy = put(state, 2, "infantry", "w_wessex")
    state = at_development(state, (("action1", 0), ("action2", 0)))
    assert "not your army" in refused(state, 0, f"upgrade {enemy} archer").message
    state = act(state, 0, f"upgrade {ally} archer")
    assert next(u for u in state.units if u.id == ally).kind == "archer"


def test_alliance_thresholds_and_team_victory():
    assert threshold(start(4, mode="alliance")) == 65
    assert threshold(start(6, mode="alliance")) == 75
    assert threshold(start(6, mode="alliance", teams="12/34/56")) == 55
    state = replace(start(4, mode="alliance", teams="12/34"), phase="over")
    state = set_player(state, 0, bought=10)
    ranks = {s.seat: s.rank for s in standings(state)}
    assert ranks == {0: 1, 1: 1, 2: 2, 3: 2}  # alliances are ranked, not seats


def test_free_for_all_thresholds_by_player_count():
    assert [threshold(start(n)) for n in range(2, 7)] == [42, 37, 33, 30, 27]


def test_merchant_doubles_gold_and_the_cap_is_twenty_per_resource():
    """FAQ: a Merchant with 15 gold and nothing else doubles to 30 and keeps 20."""
    state = with_levels(start(2), 0, trade=4)
    state = set_player(state, 0, stock=(0, 0, 0, 15))
    state = set_player(state, 1, stock=(25, 3, 0, 15))
    end = turn_end_fact(replace(state, turn=1))
    assert end["doubled"] == {"0": 15}
    assert end["discarded"] == {"0": {"gold": 10}, "1": {"food": 5}}


def test_end_of_turn_clears_damage_and_stands_retreated_armies():
    state = start(2)
    state, a = put(state, 0, "infantry", "w_meath", damage=1, retreated=True)
    from pbem.games.warriors_traders.evolve import evolve

    after = evolve(replace(state, turn=1), turn_end_fact(replace(state, turn=1)))
    u = next(x for x in after.units if x.id == a)
    assert u.damage == 0 and not u.retreated


def test_titles_go_to_the_player_furthest_along_and_ties_leave_them():
    """FAQ: at level III, 2 tokens towards IV beat 1 token towards IV."""
    state = start(3)
    state = set_player(state, 0, tokens=(4, 1, 1))
    state = set_player(state, 1, tokens=(5, 1, 0))
    state = set_player(state, 2, tokens=(0, 0, 0))
    assert title_holders(state) == {"production": 1, "trade": None, "military": 0}
    assert vp(state, 1) == 6 + 3 and vp(state, 0) == 6 + 3


def test_victory_is_checked_only_at_the_end_of_a_turn():
    """FAQ: VP above the threshold during the trade phase win nothing if they are lost by
    the end of the turn; at the end of the turn the threshold ends the game."""
    state = replace(start(4), turn=3, phase="between")
    assert game_end_fact(state) is None
    state = set_player(state, 2, bought=27)  # 6 + 27 = 33, the 4-player threshold
    ended = game_end_fact(state)
    assert ended["reason"] == "victory threshold reached"
    assert game_end_fact(replace(set_player(state, 2, bought=0), turn=10))["reason"] == "tenth turn over"


def test_game_over_refuses_orders():
    state = replace(start(2), phase="over")
    assert refused(state, 0, "done").code == ErrorCode.ILLEGAL  # the service says "over" first
    with pytest.raises(GameError) as caught:
        SPEC.decide(state, 0, ("done",), RNG)
    assert caught.value.code == ErrorCode.GAME_OVER
    assert SPEC.outcome(state) is not None and SPEC.to_move(state) == []


def _maneuvers_then_follow(state, turn, seats):
    """Put ``state`` into the maneuvers of ``turn`` and run everything nobody has to decide
    (nobody here has an army or a princess that can move)."""
    from pbem.games.warriors_traders.flow import follow_ups

    state = replace(state, turn=turn, phase="maneuvers", step="", queue=tuple(("maneuver", s) for s in seats))
    return follow_ups(state)


def test_the_game_ends_at_the_end_of_the_turn_that_reaches_the_threshold():
    state = set_player(start(2), 1, bought=36)  # 6 + 36 = 42, the 2-player threshold
    facts, state = _maneuvers_then_follow(state, 2, (0, 1))
    ended = fact(facts, "GameEnded")
    assert ended["turn"] == 2 and ended["reason"] == "victory threshold reached"
    assert [s.rank for s in SPEC.outcome(state)] == [2, 1]


def test_below_the_threshold_the_game_goes_on():
    state = set_player(start(2), 1, bought=35)
    facts, state = _maneuvers_then_follow(state, 2, (0, 1))
    assert not any(f["kind"] == "GameEnded" for f in facts) and state.turn == 3


def test_an_alliance_wins_together():
    state = start(4, mode="alliance", teams="12/34")
    state = set_player(set_player(state, 2, bought=30), 3, bought=23)  # 36 + 29 = 65
    facts, state = _maneuvers_then_follow(state, 5, (3,))
    assert fact(facts, "GameEnded")["reason"] == "victory threshold reached"
    assert {s.seat: s.rank for s in SPEC.outcome(state)} == {0: 2, 1: 2, 2: 1, 3: 1}
    assert SPEC.outcome(state)[2].details["team_vp"] == 65


def test_peace_is_proposed_and_agreed_outside_the_trade_phase():
    """The rulebook sets no time for a peace agreement (L775: the war ends at once when the
    players agree): a proposal sent at one decision is agreed at the other side's next one,
    and neither order spends an action."""
    state = at_development(make_war(start(2), 0, 1), (("action1", 0), ("action1", 1)))
    state, facts = step(state, 0, "peace scotland")
    assert fact(facts, "PeaceProposed") and SPEC.to_move(state) == [0]
    assert rules_step(state) == "action1"  # still seat 0's first action
    state = act(state, 0, "pass")
    state, facts = step(state, 1, "mír ireland")
    assert fact(facts, "PeaceMade") and not at_war(state, 0, 1)
    assert SPEC.to_move(state) == [1] and rules_step(state) == "action1"


def test_peace_proposals_stand_until_the_end_of_the_turn():
    state = at_trade(make_war(start(2), 0, 1))
    state = with_stock(state, 0, gold=10)
    state = act(state, 0, "peace scotland")
    state = replace(state, phase="maneuvers", step="", queue=(("maneuver", 1),), done=frozenset())
    state = with_levels(state, 1, military=1)
    state, _ = put(state, 1, "infantry", "w_lothian")
    state = replace(
        state,
        units=tuple(replace(u, ap=2) if u.owner == 1 else u for u in state.units),
        step="move",
        queue=(("maneuver", 1),),
    )
    state, facts = step(state, 1, "peace ireland")
    assert fact(facts, "PeaceMade") and not at_war(state, 0, 1)
    ended = SPEC.evolve(state, turn_end_fact(state))
    assert ended.peace == ()


def test_no_peace_while_armies_of_the_two_sides_are_about_to_fight():
    state = make_war(start(2), 0, 1)
    state, _ = put(state, 1, "infantry", "w_meath", engaged=True)
    state = replace(state, phase="maneuvers", step="move", queue=(("maneuver", 1),))
    assert "about to fight" in refused(state, 1, "peace ireland").message


def test_a_peace_proposal_alone_does_not_make_the_game_wait():
    """Outside the trade phase a seat whose only order besides ending the step is a peace
    proposal is not waited for (its part ends automatically, as before)."""
    from pbem.games.warriors_traders import rules

    state = at_development(make_war(start(2), 0, 1), (("special", 0),))
    assert SPEC.legal_moves(state, 0) == [("done",), ("peace", "scotland")]
    assert not rules.has_choice(state, 0)


def rules_step(state):
    from pbem.games.warriors_traders import rules

    return rules.current_step(state)
