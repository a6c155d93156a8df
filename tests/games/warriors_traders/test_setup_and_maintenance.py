"""Setup, maintenance (feeding, collection with the track multipliers, taxes)."""

from dataclasses import replace

from pbem.games.warriors_traders import SPEC, rules
from pbem.games.warriors_traders.flow import collection, feeding_fact
from pbem.games.warriors_traders.scoring import vp, vp_sources
from pbem.games.warriors_traders.state import BARBARIAN, owner, track_level

from .support import act, clear, placed, put, refused, start, step, with_levels, with_stock


def test_setup_barbarian_forts_in_capitals_and_armies_elsewhere():
    state = start(2)
    gmap = state.gmap
    players_capitals = {"w_meath", "w_scone"}
    for pid, province in gmap.provinces.items():
        here = [u for u in state.units if u.province == pid]
        if pid in players_capitals:
            assert all(u.owner >= 0 for u in here)
        elif province.type == "capital":
            assert [(u.owner, u.kind) for u in here] == [(BARBARIAN, "fort")]
        else:
            assert [(u.owner, u.kind) for u in here] == [(BARBARIAN, "infantry")]


def test_setup_capital_fort_and_four_princesses_and_six_vp():
    state = start(3)
    for seat, capital in enumerate(("w_meath", "w_scone", "w_wessex")):
        kinds = sorted(u.kind for u in state.units if u.province == capital)
        assert kinds == ["fort", "princess", "princess", "princess", "princess"]
        assert owner(state, capital) == seat
        assert state.players[seat].stock == (1, 0, 1, 1)  # food, goods, weapons, gold
    state = placed(state, {0: (3, 0, 0), 1: (0, 3, 0), 2: (0, 0, 3)})
    # 3 (capital) + 3 (fort) + 3 (one title each, nobody ties)
    assert [vp_sources(state, s)["provinces"] + vp_sources(state, s)["forts"] for s in range(3)] == [6, 6, 6]


def test_setup_three_development_tokens_placed_freely():
    state = start(2)
    assert SPEC.to_move(state) == [0, 1]
    state = act(state, 0, "develop military")
    state = act(state, 0, "rozvoj vojenství")
    state = act(state, 0, "develop production")
    assert state.players[0].tokens == (1, 0, 2)
    assert SPEC.to_move(state) == [1]
    refused(state, 0, "develop trade")
    state = placed(state, {0: (0, 0, 0)})
    # nobody holds a trade centre yet, so the trade phase passes by itself
    assert state.phase == "development" and state.turn == 1


def test_starting_tokens_are_placed_in_secret_then_revealed():
    state = act(start(2), 0, "develop military")
    assert SPEC.view(state, 1)["players"][0] == {
        "seat": 0,
        "country": "ireland",
        "country_name": "Ireland",
        "team": 0,
        "stock": {"food": 1, "goods": 0, "weapons": 1, "gold": 1},
        "tokens_placed": 1,
        "hidden": True,
    }
    assert SPEC.view(state, 0)["players"][0]["tokens"]["military"] == 1
    assert SPEC.public_move_text(state, 0, ("develop", "trade")) == "place a starting token"
    state = act(state, 0, "develop military")
    state = act(state, 0, "develop trade")
    for text in ("develop trade", "develop trade", "develop production"):
        state, facts = step(state, 1, text)
    revealed = next(f for f in facts if f["kind"] == "TokensRevealed")
    assert revealed["tokens"] == [[0, 1, 2], [1, 2, 0]]
    assert SPEC.view(state, 1)["players"][0]["tokens"] == {"production": 0, "trade": 1, "military": 2}


def test_revised_edition_adds_an_infantry_in_the_capital():
    state = start(2, edition="revised")
    assert sorted(u.kind for u in state.units if u.province == "w_meath").count("infantry") == 1


def test_resource_collection_example_fig13():
    """1 food, 3 goods, 1 weapon; production III, military I: 1 food, 6 goods, 0 weapons."""
    state = start(2)
    state = with_levels(state, 0, production=3, military=1)
    # Meath (capital) gives food 1 goods 1 weapons 1; add Dublin (goods 2): 1 food, 3 goods, 1 weapon
    state = clear(state, "w_dublin")
    state, _ = put(state, 0, "princess", "w_dublin")
    assert collection(state, 0) == {"food": 1, "goods": 6, "weapons": 0, "gold": 0}


def test_feeding_costs_one_two_three_food_and_unfed_armies_die():
    state = start(2)
    state, inf = put(state, 0, "infantry", "w_meath")
    state, arch = put(state, 0, "archer", "w_meath")
    state, cav = put(state, 0, "cavalry", "w_meath")
    fact = feeding_fact(with_stock(state, 0, food=6))
    assert fact["fed"]["0"] == 6 and fact["starved"] == []
    fact = feeding_fact(with_stock(state, 0, food=4))
    assert fact["fed"]["0"] == 4 and fact["starved"] == [arch]  # cavalry 3 + infantry 1
    fact = feeding_fact(with_stock(state, 0, food=0))
    assert sorted(fact["starved"]) == sorted([inf, arch, cav])


def test_feeding_happens_before_collection():
    """FAQ: collecting first and feeding afterwards is not allowed."""
    state = placed(start(2))
    state, inf = put(state, 0, "cavalry", "w_meath")
    state = replace(state, phase="between", turn=1)
    state = act_turn_start(state)
    assert SPEC.to_move(state) == [0] and rules.current_step(state) == "feed"  # 1 food is short
    state = act(state, 0, "done")  # feed what can be fed
    assert all(u.id != inf for u in state.units)  # 1 food cannot feed a cavalry
    assert state.phase != "maintenance"  # then collection, and on


def test_a_player_short_of_food_chooses_which_armies_starve():
    """Czech rulebook, maintenance (L294-307): each player feeds his armies, in country order;
    an army not fed in full dies. FAQ: a player may leave armies unfed on purpose. The engine
    asks the players whose food cannot feed every army which ones starve."""
    state = placed(start(2))
    state, cavalry = put(state, 0, "cavalry", "w_meath")
    state, archer = put(state, 0, "archer", "w_meath")
    state = with_stock(replace(state, phase="between", turn=1), 0, food=3)
    state = act_turn_start(state)
    assert SPEC.to_move(state) == [0]
    assert ("starve", archer) in SPEC.legal_moves(state, 0) and ("starve", cavalry) in SPEC.legal_moves(state, 0)
    state = act(state, 0, f"starve {cavalry}")  # the default would have fed the cavalry
    alive = {u.id for u in state.units}
    assert cavalry not in alive and archer in alive  # 3 food feed the archer now
    assert state.phase != "maintenance"  # no longer short: the step ended by itself


def test_a_player_with_enough_food_is_not_asked():
    state = placed(start(2))
    state, archer = put(state, 0, "archer", "w_meath")
    state = act_turn_start(with_stock(replace(state, phase="between", turn=1), 0, food=2))
    assert state.phase != "maintenance" and archer in {u.id for u in state.units}


def act_turn_start(state):
    from .support import settle

    return settle(state)


def test_production_tax_and_trade_tax_give_gold():
    state = start(2)
    state = clear(state, "w_dublin")
    state, _ = put(state, 0, "princess", "w_dublin")
    assert collection(state, 0)["gold"] == 0
    state = with_levels(state, 0, production=6, trade=5)
    assert track_level(state, 0, "production") == 6
    assert collection(state, 0)["gold"] == 2  # 1 per capital + 1 per trade centre


def test_province_vp_by_type():
    state = start(2)
    state = clear(state, "w_dublin", "w_munster")
    state, _ = put(state, 0, "princess", "w_dublin")
    state, _ = put(state, 0, "princess", "w_munster")
    assert vp_sources(state, 0)["provinces"] == 3 + 2 + 1
    assert vp(state, 0) == 6 + 3 + 3 * 0  # no titles while all tracks tie


def test_faq_one_food_does_not_feed_a_cavalry_as_infantry():
    state = start(2)
    state, cav = put(state, 0, "cavalry", "w_meath")
    fact = feeding_fact(with_stock(state, 0, food=1))
    assert fact["starved"] == [cav] and fact["fed"]["0"] == 0


def test_faq_a_new_production_level_pays_only_from_the_next_maintenance():
    from .support import at_development

    state = at_development(start(2), (("action1", 0), ("action1", 1)))
    before = state.players[0].stock
    state = act(state, 0, "develop production")
    assert state.players[0].stock == before


def test_an_army_may_be_left_unfed_on_purpose_even_with_food_for_all():
    """FAQ L886-887: with food for every army a player may still leave some unfed; they die.
    By mail the order is given at any earlier decision (``starve UNIT`` outside feeding) and
    takes effect at the next feeding, without spending the decision it was given in."""
    state = placed(start(2))
    state, infantry = put(state, 0, "infantry", "w_meath")
    state, archer = put(state, 0, "archer", "w_meath")
    state = with_stock(replace(state, phase="development", queue=(("action1", 0), ("action1", 1))), 0, food=5)
    state, facts = step(state, 0, f"starve {archer}")
    assert facts[0]["kind"] == "StarvationOrdered" and state.unfed == (archer,)
    assert SPEC.to_move(state) == [0] and rules.current_step(state) == "action1"  # still its first action
    assert "already" in refused(state, 0, f"starve {archer}").message
    fed = feeding_fact(replace(state, phase="maintenance", step="feed"))
    assert fed["starved"] == [archer] and fed["fed"]["0"] == 1  # only the infantry eats
    after = SPEC.evolve(replace(state, phase="maintenance", step="feed"), fed)
    assert archer not in {u.id for u in after.units} and infantry in {u.id for u in after.units}
    assert after.unfed == ()


def test_an_order_to_leave_an_army_unfed_is_refused_for_someone_elses_army():
    """Feeding: a player may leave only his own armies without food."""
    state = placed(start(2))
    state, theirs = put(state, 1, "infantry", "w_lothian")
    state = replace(state, phase="development", queue=(("action1", 0), ("action1", 1)))
    assert "not one of your armies" in refused(state, 0, f"starve {theirs}").message
