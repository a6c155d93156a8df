"""The trade phase: bank, routes, offers, buying VP, Monopoly, peace talks."""

from pbem.games.base import ErrorCode
from pbem.games.warriors_traders import SPEC
from pbem.games.warriors_traders.scoring import vp_sources

from .support import act, at_trade, clear, put, refused, settle, start, with_levels, with_stock


def _traders(players=2, **options):
    """Every seat holds its country's trade centre and 20 food (so it keeps something to do)."""
    state = start(players, **options)
    for seat in range(players):
        centre = next(
            p
            for p in state.gmap.country(state.players[seat].country).provinces
            if state.gmap.provinces[p].type == "trade_center"
        )
        state = clear(state, centre)
        state, _ = put(state, seat, "princess", centre)
        state = with_stock(state, seat, food=20)
    return at_trade(state)


def test_bank_exchange_at_the_track_ratio():
    state = with_stock(_traders(), 0, goods=14)
    state = act(state, 0, "bank goods gold 2")
    assert state.players[0].has("goods") == 0 and state.players[0].has("gold") == 3
    state = with_levels(with_stock(state, 0, goods=5), 0, trade=3)  # 5:1 at level III
    state = act(state, 0, "banka výrobky zlato")
    assert state.players[0].has("goods") == 0


def test_bank_exchange_uses_one_resource_type_only():
    """FAQ: 3 weapons and 4 goods do not make 7 for 1 gold."""
    state = with_stock(_traders(), 0, weapons=3, goods=4)
    assert "need 7 goods" in refused(state, 0, "bank goods gold").message
    assert refused(state, 0, "bank goods weapons gold").code == ErrorCode.INVALID


def test_trade_needs_a_trade_centre():
    state = at_trade(with_stock(start(2), 0, goods=7))
    assert SPEC.to_move(state) == [0, 1]
    assert "trade centre" in refused(state, 0, "bank goods gold").message


def test_player_without_trade_centre_skips_the_trade_phase():
    state = settle(at_trade(start(2)))
    assert state.phase == "development"


def test_trade_routes_by_trade_level_and_never_closed():
    state = _traders(3)
    assert "allows 0" in refused(state, 0, "route scotland").message
    state = with_levels(state, 0, trade=2)
    state = act(state, 0, "route scotland")
    assert "allows 1" in refused(state, 0, "route england").message
    state = with_levels(state, 0, trade=4)
    state = act(state, 0, "cesta england")
    assert state.routes == ((0, 1), (0, 2))
    state = with_levels(state, 0, trade=1)  # levels lost by a shift do not close routes
    assert state.routes == ((0, 1), (0, 2))


def test_a_level_one_player_may_be_the_partner_of_a_route():
    """FAQ: only the player opening the route needs the trade level."""
    state = with_levels(_traders(), 1, trade=2)
    state = act(state, 1, "route ireland")
    assert state.routes == ((1, 0),)


def test_offers_between_players_in_any_ratio_over_a_route():
    state = with_levels(_traders(), 0, trade=2)
    state = with_stock(with_stock(state, 0, food=5), 1, gold=1)
    assert "open trade route" in refused(state, 0, "offer scotland 5 food for 1 gold").message
    state = act(state, 0, "route scotland")
    state = act(state, 1, "done")
    state = act(state, 0, "nabidka scotland 5 jidlo za 1 zlato")
    assert 1 in SPEC.to_move(state)  # the partner must answer
    state = act(state, 1, "accept 1")
    assert state.players[0].has("food") == 0 and state.players[0].has("gold") == 2
    assert state.players[1].has("food") == 25 and state.players[1].has("gold") == 0


def test_declined_offer_changes_nothing():
    state = with_levels(_traders(), 0, trade=2)
    state = act(state, 0, "route scotland")
    state = act(state, 0, "offer scotland 1 food for 1 weapons")
    before = state.players
    state = act(state, 1, "decline 1")
    assert state.players == before and state.offers == ()


def test_buying_vp_costs_ten_gold():
    state = with_stock(_traders(), 0, gold=25)
    state = act(state, 0, "buy 2 vp")
    assert state.players[0].has("gold") == 5 and vp_sources(state, 0)["bought"] == 2
    assert "cost 10" in refused(state, 0, "buy vp").message


def test_buying_vp_without_trade_centre_follows_the_option():
    state = at_trade(with_stock(start(2), 0, gold=10))
    assert "trade centre" in refused(state, 0, "buy vp").message
    state = at_trade(with_stock(start(2, vp_purchase="anyone"), 0, gold=10))
    state = act(state, 0, "kup 1 vb")
    assert state.players[0].bought == 1


def test_monopoly_stops_everyone_else_trading():
    state = with_stock(with_stock(_traders(), 0, goods=9), 1, goods=9)
    state = with_levels(state, 1, trade=7)
    assert "Monopoly" in refused(state, 0, "bank goods gold").message
    state = act(state, 1, "bank goods gold 3")
    assert state.players[1].has("gold") == 4


def test_no_trading_after_the_trade_phase():
    """FAQ: forgotten exchanges cannot be made later."""
    state = with_stock(_traders(), 0, goods=7)
    state = act(state, 0, "done")
    state = act(state, 1, "done")
    assert state.phase == "development"
    error = refused(state, 0, "bank goods gold")
    assert error.code in (ErrorCode.ILLEGAL, ErrorCode.NOT_YOUR_TURN)


def test_an_offer_may_bundle_several_resources_on_each_side():
    """L348-349: players over a route exchange resources "in any ratio": an offer may name
    several resources on either side ("5 food and 2 goods for 1 gold 1 weapons")."""
    state = with_levels(_traders(), 0, trade=2)
    state = with_stock(with_stock(state, 0, food=5, goods=2), 1, gold=1, weapons=1)
    state = act(state, 0, "route scotland")
    move = SPEC.parse_move(state, 0, "offer scotland 5 food and 2 goods for 1 gold 1 weapons")
    assert move == ("offer", "scotland", (("food", 5), ("goods", 2)), (("weapons", 1), ("gold", 1)))
    assert SPEC.parse_move(state, 0, SPEC.format_move(move)) == move
    assert SPEC.parse_move(state, 0, "nabidka scotland 5 jidlo a 2 vyrobky za 1 zlato 1 zbrane") == move
    before = [state.players[seat].stock for seat in (0, 1)]  # food, goods, weapons, gold
    state = act(state, 0, SPEC.format_move(move))
    state = act(state, 1, "accept 1")
    change = (-5, -2, +1, +1)
    assert state.players[0].stock == tuple(b + c for b, c in zip(before[0], change, strict=False))
    assert state.players[1].stock == tuple(b - c for b, c in zip(before[1], change, strict=False))


def test_an_offer_names_no_resource_on_both_sides():
    state = with_levels(_traders(), 0, trade=2)
    state = act(with_stock(state, 0, food=5), 0, "route scotland")
    assert "other resources" in refused(state, 0, "offer scotland 2 food for 1 food 1 gold").message


def test_an_offer_fact_of_the_older_one_resource_form_still_replays():
    state = with_levels(_traders(), 0, trade=2)
    state = act(with_stock(state, 0, food=5), 0, "route scotland")
    old = {
        "kind": "OfferMade",
        "offer": state.next_offer,
        "seat": 0,
        "to": 1,
        "give": "food",
        "give_n": 5,
        "get": "gold",
        "get_n": 1,
    }
    assert SPEC.evolve(state, old).offers[-1].give == (("food", 5),)
