"""One test per rule of the advisors' gifts (phase step c)."""

from pbem.games.kingsburg import SPEC

from .support import ANN, BRIAN, CINDY, NAMES, gifts_for, influencing, of_kind, play


def test_gift_choice_stated_with_influence_saves_a_round_trip():
    state = influencing(p0={"dice": (6, 6, 6)})
    state, _ = play(state, ANN, "influence 12 with 6 6 take gold stone")
    state, _ = play(state, BRIAN, "pass")
    state, facts = play(state, CINDY, "pass")
    state, facts = play(state, ANN, "pass")
    gift = of_kind(facts, "GiftReceived")[0]
    assert gift["delta"] == {"gold": 1, "stone": 1, "plus2": 1}
    assert state.step == "build"  # nobody was asked about the Duchess


def test_stated_gift_choice_that_no_longer_fits_is_asked_again():
    state, facts = gifts_for(6, choice=("give", "stone"), gold=1, wood=1)
    assert of_kind(facts, "GiftReceived") == [] and of_kind(facts, "GiftDeclined") == []
    assert SPEC.to_move(state) == [ANN]
    assert SPEC.legal_texts(state, ANN) == ["take nothing", "give gold", "give wood"]


def test_gift_can_be_declined():
    state, _ = gifts_for(4)
    state, facts = play(state, ANN, "take nothing")
    assert facts[0]["kind"] == "GiftDeclined"


def test_alchemist_exchanges_one_good_for_the_other_two():
    state, _ = gifts_for(6, stone=1)
    state, facts = play(state, ANN, "give stone")
    assert facts[0]["delta"] == {"gold": 1, "wood": 1, "stone": -1}


def test_alchemist_without_goods_gives_nothing():
    _, facts = gifts_for(6)
    assert of_kind(facts, "GiftDeclined")[0]["advisor"] == 6


def test_smuggler_pays_one_vp_for_three_goods():
    state, _ = gifts_for(14, vp=2)
    state, facts = play(state, ANN, "take 3 wood")
    assert facts[0]["delta"] == {"wood": 3, "vp": -1}


def test_smuggler_needs_a_vp_to_pay():
    _, facts = gifts_for(14, vp=0)
    assert of_kind(facts, "GiftDeclined")[0]["advisor"] == 14


def test_queen_gives_two_goods_three_vp_and_a_private_look_at_the_enemy():
    state, _ = gifts_for(17)
    state, facts = play(state, ANN, "take gold gold")
    assert facts[0]["delta"] == {"gold": 2, "vp": 3}
    assert facts[1]["kind"] == "CardPeeked" and facts[1]["secret"]["to"] == [ANN]
    assert state.players[ANN].peeks == (state.deck[0],)


def test_general_gives_two_soldiers_and_a_private_look_at_the_enemy():
    _, facts = gifts_for(10)
    assert of_kind(facts, "GiftReceived")[0]["delta"] == {"soldiers": 2}
    assert of_kind(facts, "CardPeeked")[0]["secret"]["data"] == {"card": "y1_goblins_3"}


def test_king_gives_gold_wood_stone_and_a_soldier():
    _, facts = gifts_for(18)
    assert of_kind(facts, "GiftReceived")[0]["delta"] == {"gold": 1, "wood": 1, "stone": 1, "soldiers": 1}


def test_fixed_gifts_need_no_answer():
    for advisor, delta in [
        (1, {"vp": 1}),
        (2, {"gold": 1}),
        (3, {"wood": 1}),
        (5, {"soldiers": 1}),
        (8, {"gold": 2}),
        (13, {"stone": 3}),
        (15, {"gold": 1, "wood": 1, "stone": 1}),
        (16, {"gold": 4}),
    ]:
        _, facts = gifts_for(advisor)
        assert of_kind(facts, "GiftReceived")[0]["delta"] == delta


def test_choice_gifts_offer_every_option():
    expected = {
        4: ["take nothing", "take gold", "take wood"],
        9: ["take nothing", "take gold wood", "take wood stone"],
        11: ["take nothing", "take wood stone", "take gold stone"],
    }
    for advisor, options in expected.items():
        state, _ = gifts_for(advisor)
        assert SPEC.legal_texts(state, ANN) == options
    state, _ = gifts_for(12)
    assert len(SPEC.legal_moves(state, ANN)) == 1 + 6  # 2 goods of choice: 6 ways
    state, _ = gifts_for(7)
    assert SPEC.legal_texts(state, ANN) == ["take nothing", "take gold", "take wood", "take stone"]


def test_stable_adds_a_soldier_to_soldier_gifts():
    stable = {"palisade", "stable"}
    for advisor, soldiers in ((5, 2), (10, 3), (18, 2)):
        _, facts = gifts_for(advisor, buildings=stable)
        assert of_kind(facts, "GiftReceived")[0]["delta"]["soldiers"] == soldiers


def test_every_advisors_help_can_be_declined_with_the_influence():
    """Czech rulebook p. 4, step c: a player may decline the help of an advisor he influenced,
    fixed gifts included (e.g. to keep fewer goods for the envoy)."""
    state = influencing(p0={"dice": (6, 2, 1)})
    state, facts = play(state, ANN, "influence 8 with 6 2 take nothing")
    assert facts[0]["choice"] == ["take"]
    assert "declining the help" in SPEC.describe_fact(facts[0], NAMES)
    gold = state.players[ANN].gold
    state, _ = play(state, BRIAN, "pass")
    state, _ = play(state, CINDY, "pass")
    state, facts = play(state, ANN, "pass")
    declined = of_kind(facts, "GiftDeclined")
    assert [f["advisor"] for f in declined] == [8] and not of_kind(facts, "GiftReceived")
    assert state.players[ANN].gold == gold
    assert SPEC.describe_fact(declined[0], NAMES) == "Ann declines the help of the Treasurer."


def test_a_fixed_gift_declined_in_advance_is_declined_for_each_fixed_advisor():
    for advisor in (1, 2, 3, 5, 8, 10, 13, 15, 16, 18):
        _state, facts = gifts_for(advisor, choice=("take",))
        assert of_kind(facts, "GiftDeclined")[0]["advisor"] == advisor
        assert not of_kind(facts, "GiftReceived") and not of_kind(facts, "CardPeeked")


def test_smuggler_at_zero_vp_says_why_it_gives_nothing():
    _state, facts = gifts_for(14, choice=("take", "wood", "wood", "wood"), vp=0)
    declined = of_kind(facts, "GiftDeclined")[0]
    assert declined["unable"] == "vp"
    text = SPEC.describe_fact(declined, NAMES)
    assert "cannot pay the Smuggler 1 VP" in text and "declines" not in text


def test_alchemist_without_goods_says_why_it_gives_nothing():
    _state, facts = gifts_for(6, choice=("give", "stone"))
    declined = of_kind(facts, "GiftDeclined")[0]
    assert declined["unable"] == "goods" and "declines" not in SPEC.describe_fact(declined, NAMES)


def test_every_advisors_help_can_be_declined_in_advance_and_the_history_says_so():
    """Each of the 18 advisors, the ones that ask (4, 6, 7, 9, 11, 12, 14, 17) included: the
    influence stated with ``take nothing`` gives nothing, peeks at nothing, and the history
    line says the player declined."""
    for advisor in range(1, 19):
        state, facts = gifts_for(advisor, choice=("take",), gold=1, wood=1, stone=1, vp=2)
        declined = of_kind(facts, "GiftDeclined")
        assert [f["advisor"] for f in declined] == [advisor], advisor
        assert not of_kind(facts, "GiftReceived") and not of_kind(facts, "CardPeeked"), advisor
        assert SPEC.describe_fact(declined[0], NAMES).startswith("Ann declines the help of the "), advisor
        assert state.players[ANN].gold == 1 and state.players[ANN].vp == 2, advisor


def test_every_asking_advisors_help_can_be_declined_when_asked():
    for advisor in (4, 6, 7, 9, 11, 12, 14, 17):
        state, _ = gifts_for(advisor, gold=1, wood=1, stone=1, vp=2)
        assert SPEC.to_move(state) == [ANN] and "take nothing" in SPEC.legal_texts(state, ANN), advisor
        state, facts = play(state, ANN, "take nothing")
        assert [f["kind"] for f in facts][:1] == ["GiftDeclined"] and facts[0]["advisor"] == advisor
        assert "declines" in SPEC.describe_fact(facts[0], NAMES)
        assert not of_kind(facts, "GiftReceived") and not of_kind(facts, "CardPeeked")
