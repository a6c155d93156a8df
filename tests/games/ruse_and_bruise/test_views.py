"""Hidden information: hands, deck orders and face-down cards stay with their owners."""

from pbem.games.base import SeededRng, can_see
from pbem.games.simulate import fold

from .helpers import SPEC, apply, column, down, position, under_cloak, up


def _table():
    return position(
        [
            column("music-5", up(1, "romeo"), down(0, "king"), down(1, "queen")),
            column("trade-4", up(0, "cloak"), under_cloak(0, "wizard"), down(1, "explorer")),
            column("farming-2", Slot_known(1)),
        ],
        players=3,
        hands=[("witch", "hermit", "dragon"), ("juliet",), ("beggar",)],
    )


def Slot_known(owner):
    from pbem.games.ruse_and_bruise.state import Slot

    return Slot(owner, "explorer", face_up=False, known=True)


def _cards(view, index):
    return [card["card"] for card in view["columns"][index]["cards"]]


def test_a_player_sees_the_own_hand_and_own_face_down_cards_only():
    """Hidden cards stay secret: a player sees the own hand and the own face-down cards, nobody
    else's."""
    state = _table()
    mine = SPEC.view(state, 0)
    assert mine["hand"] == ["witch", "hermit", "dragon"]
    assert _cards(mine, 0) == ["romeo", "king", None]
    assert _cards(mine, 1) == ["cloak", "wizard", None]
    theirs = SPEC.view(state, 1)
    assert theirs["hand"] == ["juliet"]
    assert _cards(theirs, 0) == ["romeo", None, "queen"] and _cards(theirs, 1) == ["cloak", None, "explorer"]


def test_the_public_sees_no_hand_and_no_face_down_card_except_a_travelled_explorer():
    """Hidden cards stay secret from the public: no hand and no face-down card, except an Explorer
    everybody saw travel."""
    view = SPEC.view(_table(), None)
    assert "hand" not in view and [p["hand"] for p in view["players"]] == [3, 1, 1]
    assert _cards(view, 0) == ["romeo", None, None] and _cards(view, 1) == ["cloak", None, None]
    assert _cards(view, 2) == ["explorer"]


def test_facts_keep_played_drawn_and_tucked_cards_secret_to_their_owner():
    state = position([column("music-5", down(1, "cloak")), column("trade-4")], hands=[("king",), ("romeo", "juliet")])
    facts, after = apply(state, 0, "play KING 1")
    played = facts[0]
    assert played["secret"]["to"] == [0] and not can_see(played, 1) and not can_see(played, None)
    assert "king" not in str({k: v for k, v in played.items() if k != "secret"})
    facts, _ = apply(after, 1, "tuck JULIET")
    assert facts[0]["secret"]["to"] == [1] and facts[1]["secret"]["to"] == [1]


def test_deck_orders_are_secret_to_everybody():
    facts = SPEC.setup(3, {}, SeededRng(5))
    shuffles = [f for f in facts if f["kind"] in ("DeckShuffled", "GoalDeckShuffled")]
    assert len(shuffles) == 4 and all(f["secret"]["to"] == [] for f in shuffles)
    draws = [f for f in facts if f["kind"] == "CardsDrawn"]
    assert [f["secret"]["to"] for f in draws] == [[0], [1], [2]]


def test_setup_deals_three_cards_and_reveals_one_goal_per_player():
    facts = SPEC.setup(4, {}, SeededRng(2))
    state = fold(SPEC, facts)
    assert [len(hand) for hand in state.hands] == [3] * 4 and [len(deck) for deck in state.decks] == [22] * 4
    assert len(state.columns) == 4 and len(state.goal_deck) == 6 * 4 - 4
    assert state.round == 1 and state.turn == 0


def test_describe_fact_hides_what_the_public_may_not_know():
    names = ["Ann", "Bob"]
    played = {"kind": "CardPlayed", "seat": 0, "column": 2, "secret": {"to": [0], "data": "c0ffee"}}
    assert SPEC.describe_fact(played, names) == "Ann plays a card face down into column 3."
    revealed = {"kind": "CardRevealed", "column": 0, "position": 1, "owner": 1, "card": "assassin"}
    assert SPEC.describe_fact(revealed, names) == "Bob's Assassin is revealed in column 1."
    scored = {
        "kind": "ColumnScored",
        "column": 0,
        "goal": "trade-3a",
        "winner": 1,
        "reason": "highest",
        "half_point_sums": [19, 40],
        "removed": [{"position": 0, "owner": 0, "card": "king"}],
    }
    assert SPEC.describe_fact(scored, names) == ("Bob wins Trade 3 in column 1 (Ann 9½, Bob 20; removed: Ann's King).")


def test_render_text_and_svg_draw_card_backs_for_hidden_cards():
    state = _table()
    names = ["Ann", "Bob", "Cid"]
    text = SPEC.render_text(SPEC.view(state, 1), names)
    assert "Column 1: Music 5 (open)" in text and "Ann: face down" in text and "Your hand: Juliet" in text
    assert "King" not in text
    svg = SPEC.render_svg(SPEC.view(state, None), names)
    assert svg.startswith("<svg") and "card back" in svg and "King" not in svg and "Romeo" in svg


def test_turn_template_shows_the_own_hand_and_the_legal_commands_as_comments():
    state = _table()
    template = SPEC.turn_template(state, 0, ["Ann", "Bob", "Cid"])
    lines = template.splitlines()
    assert all(line.startswith("#") for line in lines)
    assert "# Your hand: Witch, Hermit, Dragon" in lines and "# play WITCH 1" in lines
    assert "Juliet" not in template and "Queen" not in template
