"""Victory is checked only at the end of a turn: the rulebook's FAQ case played through the orders
players send, from the trade phase to the end of the turn."""

from dataclasses import replace

from pbem.games.warriors_traders import SPEC
from pbem.games.warriors_traders.scoring import threshold, vp
from pbem.games.warriors_traders.state import set_player

from .support import at_trade, at_war, clear, placed, put, start, step, with_levels, with_stock

IRELAND, SCOTLAND = 0, 1
SCONE, LOTHIAN = "w_scone", "w_lothian"


def _scotland_one_vp_short():
    """Four players, free-for-all (threshold 33). Scotland holds two forts in its capital Scone
    and 32 VP, with 10 gold to buy one more; Ireland, at war with Scotland, has four cavalry in
    Lothian next to Scone. The trade phase of turn 2 begins."""
    state = placed(start(4, vp_purchase="anyone"))
    state, _ = put(state, SCOTLAND, "fort", SCONE)
    state = set_player(state, SCOTLAND, bought=32 - vp(state, SCOTLAND))
    state = with_stock(state, SCOTLAND, gold=10)
    state = with_levels(clear(state, LOTHIAN), IRELAND, military=7)
    cavalry = []
    for _ in range(4):
        state, unit_id = put(state, IRELAND, "cavalry", LOTHIAN)
        cavalry.append(unit_id)
    assert threshold(state) == 33 and vp(state, SCOTLAND) == 32
    return at_trade(replace(at_war(state, IRELAND, SCOTLAND), turn=2)), cavalry


def _everybody_else_passes(state, facts, until):
    """Every order nobody in the story cares about: ``done`` where it is legal, else ``pass``,
    until ``until(state)`` holds or the turn has ended."""
    while not until(state) and SPEC.to_move(state) and not any(fact["kind"] == "TurnEnded" for fact in facts):
        seat = SPEC.to_move(state)[0]
        legal = {SPEC.format_move(move) for move in SPEC.legal_moves(state, seat)}
        state, more = step(state, seat, "done" if "done" in legal else "pass")
        facts += more
    return state


def _irelands_maneuver(state):
    return state.phase == "maneuvers" and SPEC.to_move(state) == [IRELAND] and state.step == "move"


def _the_trade_phase_in_which_scotland_buys_its_33rd_vp():
    state, cavalry = _scotland_one_vp_short()
    state, facts = step(state, SCOTLAND, "buy vp")
    assert vp(state, SCOTLAND) == 33 and state.phase == "trade"  # reached, during the trade phase
    state = _everybody_else_passes(state, facts, _irelands_maneuver)
    assert _irelands_maneuver(state)
    assert vp(state, SCOTLAND) == 33 and not any(fact["kind"] == "GameEnded" for fact in facts)
    return state, cavalry


def test_faq_a_victory_threshold_reached_in_the_trade_phase_and_lost_before_the_end_of_the_turn_wins_nothing():
    """FAQ (L1000-1003): "Hrajeme "všichni proti všem" ve 4 hráčích. Jako první jsem dosáhl
    hranice podmínek vítězství (33VB) během obchodní fáze tím, že jsem nějaké vítězné body koupil.
    Na konci tahu byly dvě z mých pevností zničeny a já jsem zpět pod hranicí nutnou pro vítězství.
    Vyhrál jsem?" — "Ne. Vítězství nastává až na konci daného tahu." (Victory is checked at the
    end of the turn.) Scotland buys its 33rd VP in the trade phase; in the maneuvers Ireland
    destroys both forts of Scone; at the end of the turn Scotland has 27 and the game goes on."""
    state, cavalry = _the_trade_phase_in_which_scotland_buys_its_33rd_vp()
    for unit_id in cavalry:
        state, _ = step(state, IRELAND, f"move {unit_id} scone")
    state, facts = step(state, IRELAND, "done")
    forts = [u.id for u in state.units if u.province == SCONE and u.kind == "fort"]
    assert len(forts) == 2 and any(fact["kind"] == "BattleStarted" for fact in facts)
    for fort in forts:  # Ireland's 12 damage: 5 on each fort (toughness 5), the rest as it falls
        state, _ = step(state, IRELAND, f"hit {fort} 5")
    state, _ = step(state, IRELAND, "auto")
    for unit_id, damage in zip(cavalry, (3, 3, 2, 2), strict=True):  # the forts' 10: nobody dies
        state, more = step(state, SCOTLAND, f"hit {unit_id} {damage}")
        facts += more
    resolved = next(fact for fact in facts if fact["kind"] == "BattleResolved")
    assert set(forts) <= set(resolved["killed"]) and str(SCOTLAND) not in resolved["vp"]
    state = _everybody_else_passes(state, facts, lambda s: False)
    assert any(fact["kind"] == "TurnEnded" and fact["turn"] == 2 for fact in facts)
    assert not any(fact["kind"] == "GameEnded" for fact in facts)
    assert vp(state, SCOTLAND) == 27 and state.turn == 3 and state.phase != "over"


def test_faq_control_the_victory_threshold_still_held_at_the_end_of_the_turn_ends_the_game():
    """The same turn without Ireland's attack: Scotland still has 33 VP at the end of the turn,
    and the game ends there ("Vítězství nastává až na konci daného tahu")."""
    state, _ = _the_trade_phase_in_which_scotland_buys_its_33rd_vp()
    facts: list[dict] = []
    state = _everybody_else_passes(state, facts, lambda s: False)
    ended = next(fact for fact in facts if fact["kind"] == "GameEnded")
    assert ended["turn"] == 2 and ended["reason"] == "victory threshold reached"
    assert ended["vp"][SCOTLAND] == 33 and state.phase == "over"
