"""Turns and the on-reveal abilities (rulebook pages 2 and 4), on hand-built columns."""

import pytest

from pbem.games.base import GameError

from .helpers import SPEC, apply, column, down, first, kinds, position, up

G5, G4, G3 = "music-5", "trade-4", "farming-3a"


def test_a_played_card_goes_face_down_to_the_bottom_and_reveals_the_card_above_whatever_its_colour():
    state = position([column(G5, down(1, "king")), column(G4)], hands=[("queen", "romeo", "hermit"), ()])
    facts, after = apply(state, 0, "play QUEEN 1")
    assert kinds(facts)[:2] == ["CardPlayed", "CardRevealed"]
    assert first(facts, "CardRevealed") == {
        "kind": "CardRevealed",
        "column": 0,
        "position": 0,
        "owner": 1,
        "card": "king",
    }
    slots = after.columns[0].slots
    assert (slots[1].owner, slots[1].card, slots[1].face_up) == (0, "queen", False)
    assert slots[0].face_up


def test_the_first_card_of_a_column_and_a_card_under_a_face_up_card_reveal_nothing():
    state = position([column(G5, up(1, "king")), column(G4)], hands=[("queen", "romeo", "hermit"), ()])
    facts, _ = apply(state, 0, "play QUEEN 1")
    assert "CardRevealed" not in kinds(facts)
    facts, _ = apply(state, 0, "play QUEEN 2")
    assert "CardRevealed" not in kinds(facts)


def test_the_player_draws_after_playing_and_play_passes_clockwise():
    state = position([column(G5), column(G4)], hands=[("queen", "romeo", "hermit"), ("king",)])
    facts, after = apply(state, 0, "play QUEEN 1")
    assert first(facts, "CardsDrawn")["seat"] == 0
    assert len(after.hands[0]) == 3 and after.turn == 1


def test_an_empty_deck_is_refilled_from_the_own_discard_pile():
    state = position(
        [column(G5), column(G4)],
        hands=[("queen", "romeo", "hermit"), ("king",)],
        decks=[(), ()],
        discards=[("wizard", "witch"), ()],
    )
    facts, after = apply(state, 0, "play QUEEN 1")
    assert kinds(facts)[1:3] == ["DiscardReshuffled", "CardsDrawn"]
    assert after.discards[0] == () and len(after.decks[0]) == 1 and len(after.hands[0]) == 3


def test_explorer_travels_right_goes_face_down_to_the_bottom_and_reveals_the_card_above_it():
    state = position([column(G5, down(1, "explorer")), column(G4, down(1, "queen"))], hands=[("king",), ()])
    facts, after = apply(state, 0, "play KING 1")
    assert first(facts, "ExplorerTravelled") == {"kind": "ExplorerTravelled", "owner": 1, "from": 0, "to": 1}
    assert [s.card for s in after.columns[0].slots] == ["king"]
    explorer = after.columns[1].slots[-1]
    assert (explorer.card, explorer.face_up, explorer.known) == ("explorer", False, True)
    assert after.columns[1].slots[0].face_up  # the Queen above it was revealed


def test_explorer_wraps_from_the_rightmost_column_to_the_leftmost():
    state = position([column(G5), column(G4), column(G3, down(1, "explorer"))], players=3, hands=[("king",), (), ()])
    facts, _ = apply(state, 0, "play KING 3")
    assert first(facts, "ExplorerTravelled")["to"] == 0


def test_explorer_skips_columns_closed_by_a_storm():
    state = position(
        [column(G5, down(1, "explorer")), column(G4, up(1, "storm"), closed=True), column(G3)],
        players=3,
        hands=[("king",), (), ()],
    )
    facts, _ = apply(state, 0, "play KING 1")
    assert first(facts, "ExplorerTravelled")["to"] == 2


def test_explorer_travels_again_every_time_it_is_revealed():
    state = position([column(G5, down(1, "explorer")), column(G4)], hands=[("king", "queen"), ()])
    _, after = apply(state, 0, "play KING 1")
    after = position(after.columns, hands=[("queen",), ()])
    facts, again = apply(after, 0, "play QUEEN 2")
    assert first(facts, "ExplorerTravelled") == {"kind": "ExplorerTravelled", "owner": 1, "from": 1, "to": 0}
    assert again.columns[0].slots[-1].card == "explorer"


def test_an_arriving_explorer_can_reveal_another_explorer_which_travels_on():
    state = position(
        [column(G5, down(1, "explorer")), column(G4, down(0, "explorer")), column(G3, down(1, "queen"))],
        players=3,
        hands=[("king",), (), ()],
    )
    facts, after = apply(state, 0, "play KING 1")
    trips = [(f["owner"], f["from"], f["to"]) for f in facts if f["kind"] == "ExplorerTravelled"]
    assert trips == [(1, 0, 1), (0, 1, 2)]
    assert after.columns[2].slots[0].face_up


def test_an_explorer_travels_at_most_once_per_turn_so_chains_end():
    # Three Explorers in two columns would chase each other for ever: E0 goes to column 1 and
    # reveals E1, E1 goes to column 2 and reveals E2, E2 goes to column 1 and reveals E0 again.
    state = position(
        [column(G5, down(1, "explorer")), column(G4, down(0, "explorer"))],
        players=3,
        hands=[(), (), ("explorer",)],
        turn=2,
    )
    facts, after = apply(state, 2, "play EXPLORER 2")
    stayed = [f for f in facts if f["kind"] == "ExplorerStayed"]
    assert [f["owner"] for f in facts if f["kind"] == "ExplorerTravelled"] == [0, 1, 2]
    assert stayed == [{"kind": "ExplorerStayed", "owner": 0, "column": 0, "reason": "travelled-this-turn"}]
    assert after.columns[0].slots[0].face_up


def test_an_explorer_with_no_other_open_column_stays_face_up():
    state = position([column(G5, down(1, "explorer")), column(G4, up(1, "storm"), closed=True)], hands=[("king",), ()])
    facts, after = apply(state, 0, "play KING 1")
    assert first(facts, "ExplorerStayed")["reason"] == "no-open-column"
    assert after.columns[0].slots[0].face_up and after.columns[0].slots[0].card == "explorer"


def test_assassin_sends_the_card_that_revealed_it_to_its_owners_discard_pile_openly():
    state = position([column(G5, down(1, "assassin")), column(G4)], hands=[("king", "queen"), ()])
    facts, after = apply(state, 0, "play KING 1")
    assert first(facts, "CardAssassinated") == {
        "kind": "CardAssassinated",
        "column": 0,
        "position": 1,
        "owner": 0,
        "card": "king",
    }
    assert [s.card for s in after.columns[0].slots] == ["assassin"] and after.discards[0] == ("king",)


def test_a_card_placed_under_a_face_up_assassin_is_safe():
    state = position([column(G5, up(1, "assassin")), column(G4)], hands=[("king",), ()])
    facts, after = apply(state, 0, "play KING 1")
    assert "CardAssassinated" not in kinds(facts) and len(after.columns[0].slots) == 2


def test_an_arriving_explorer_that_reveals_an_assassin_is_discarded():
    state = position([column(G5, down(1, "explorer")), column(G4, down(1, "assassin"))], hands=[("king",), ()])
    facts, after = apply(state, 0, "play KING 1")
    assert first(facts, "CardAssassinated")["card"] == "explorer"
    assert after.discards[1] == ("explorer",)


def test_storm_closes_its_column_and_fills_its_goal():
    state = position([column(G5, down(1, "storm")), column(G4)], hands=[("king", "queen"), ("romeo",)])
    facts, after = apply(state, 0, "play KING 1")
    assert "ColumnClosed" in kinds(facts)
    assert after.columns[0].closed and after.columns[0].filled
    assert all(move.column != 1 for move in SPEC.legal_moves(after, 1))
    with pytest.raises(GameError) as error:
        SPEC.parse_move(after, 1, "play ROMEO 1")
    assert "closed by a Storm" in error.value.message


def test_cloak_owner_may_tuck_a_card_face_down_under_it_and_draws_at_once():
    state = position(
        [column(G5, down(1, "cloak")), column(G4)], hands=[("king", "queen"), ("romeo", "hermit", "juliet")]
    )
    facts, after = apply(state, 0, "play KING 1")
    assert SPEC.to_move(after) == [1]
    assert after.pending.kind == "cloak"
    facts, done = apply(after, 1, "tuck JULIET")
    assert kinds(facts)[:2] == ["CardTucked", "CardsDrawn"]
    assert facts[1]["seat"] == 1
    slots = done.columns[0].slots
    assert [(s.card, s.tucked, s.face_up) for s in slots] == [
        ("cloak", False, True),
        ("juliet", True, False),
        ("king", False, False),
    ]
    assert len(done.hands[1]) == 3 and done.turn == 1 and done.pending is None


def test_cloak_tuck_may_be_declined():
    state = position([column(G5, down(1, "cloak")), column(G4)], hands=[("king",), ("romeo",)])
    _, after = apply(state, 0, "play KING 1")
    facts, done = apply(after, 1, "pass")
    assert kinds(facts)[0] == "ChoiceDeclined" and done.pending is None and len(done.columns[0].slots) == 2


def test_cloak_owner_without_cards_in_hand_gets_no_choice():
    state = position([column(G5, down(1, "cloak")), column(G4)], hands=[("king",), ()], decks=[("queen",), ()])
    facts, after = apply(state, 0, "play KING 1")
    assert "ChoiceOffered" not in kinds(facts) and after.pending is None


def test_a_tucked_card_never_triggers_its_on_reveal_ability():
    state = position(
        [column("music-1", down(1, "cloak")), column("trade-1", up(0, "king"))],
        hands=[("king", "queen"), ("explorer", "hermit")],
        decks=[("witch",), ("romeo",)],
    )
    _, after = apply(state, 0, "play QUEEN 1")
    facts, _ = apply(after, 1, "tuck EXPLORER")
    assert "ExplorerTravelled" not in kinds(facts) and "RoundEnded" in kinds(facts)
    revealed = first(facts, "CardsRevealed")["cards"]
    assert {"column": 0, "position": 1, "owner": 1, "card": "explorer"} in revealed


def test_traitor_owner_may_swap_this_columns_goal_with_another_column():
    state = position(
        [column(G5, down(1, "traitor")), column(G4), column(G3)], players=3, hands=[("king",), ("romeo",), ()]
    )
    _, after = apply(state, 0, "play KING 1")
    assert after.pending.kind == "traitor" and SPEC.to_move(after) == [1]
    assert [SPEC.format_move(m) for m in SPEC.legal_moves(after, 1)] == ["swap 2", "swap 3", "pass"]
    facts, done = apply(after, 1, "swap 3")
    assert first(facts, "GoalsSwapped") == {"kind": "GoalsSwapped", "seat": 1, "column": 0, "other": 2}
    assert [c.goal for c in done.columns] == [G3, G4, G5]
    assert done.turn == 1


def test_a_traitor_swap_that_fills_every_goal_ends_the_round():
    full = [up(0, "queen"), up(1, "romeo"), up(0, "wizard"), up(1, "witch"), up(0, "dragon")]
    state = position([column("music-5", down(1, "traitor")), column("trade-1", *full)], hands=[("king",), ("hermit",)])
    _, after = apply(state, 0, "play KING 1")
    assert after.pending is not None and not after.columns[0].filled  # 2 cards under a 5
    facts, done = apply(after, 1, "swap 2")
    assert "RoundEnded" in kinds(facts)
    assert first(facts, "RoundEnded")["by"] == 0 and done.round == 2


def test_the_round_ends_when_every_goal_is_filled_and_the_last_card_still_reveals_and_acts():
    state = position(
        [column("music-2", up(1, "queen"), down(1, "storm")), column("trade-1", up(0, "hermit"))],
        hands=[("king",), ("romeo",)],
    )
    facts, _ = apply(state, 0, "play KING 1")
    order = kinds(facts)
    assert order.index("ColumnClosed") < order.index("RoundEnded")


def test_at_round_end_face_down_cards_are_revealed_without_their_abilities():
    """p. 2: "Poté budou odhaleny dosud zakryté karty. Akce, které by musely být ihned vykonány
    (viz str.4), se však již neprovádí" — the Explorer turned up at the end does not travel."""
    state = position(
        [
            column("music-2", up(1, "queen"), down(1, "explorer")),
            column("trade-1", up(0, "hermit"), down(1, "assassin")),
        ],
        hands=[("witch",), ("romeo",)],
    )
    facts, _ = apply(state, 0, "play WITCH 2")
    assert "CardAssassinated" in kinds(facts)  # the last card still reveals and acts
    revealed = first(facts, "CardsRevealed")["cards"]
    assert {"column": 0, "position": 1, "owner": 1, "card": "explorer"} in revealed
    assert kinds(facts).count("ExplorerTravelled") == 0


def test_after_scoring_cards_go_to_discards_and_the_next_round_starts_left_of_the_ender():
    state = position(
        [column("music-1", up(1, "queen")), column("trade-1")], players=3, hands=[(), ("romeo",), ("king",)], turn=1
    )
    facts, after = apply(state, 1, "play ROMEO 2")
    assert kinds(facts)[-1] in ("RoundStarted", "CardsDrawn")
    started = first(facts, "RoundStarted")
    assert started["round"] == 2 and started["start"] == 2 and after.turn == 2
    assert "queen" in after.discards[1] and "romeo" in after.discards[1]
    assert len(after.columns) == 3 and all(not c.slots for c in after.columns)
    assert after.won[1] == ("music-1", "trade-1")


def test_every_hand_is_refilled_to_three_at_the_start_of_a_round():
    state = position(
        [column("music-1", up(1, "queen")), column("trade-1")],
        hands=[(), ("romeo",)],
        turn=1,
        decks=[(), ("king",)],
        discards=[("witch", "wizard", "hermit", "dragon"), ()],
    )
    _, after = apply(state, 1, "play ROMEO 2")
    assert len(after.hands[0]) == 3 and len(after.hands[1]) == 3


def test_a_player_without_cards_is_skipped_and_the_round_ends_when_nobody_can_play():
    state = position(
        [column("music-5"), column("trade-1")], players=3, hands=[("king",), (), ("queen",)], decks=[(), (), ()]
    )
    facts, after = apply(state, 0, "play KING 1")
    assert first(facts, "TurnEnded") == {"kind": "TurnEnded", "seat": 0, "next": 2, "skipped": [1]}
    facts, after = apply(after, 2, "play QUEEN 1")
    assert first(facts, "RoundEnded")["reason"] == "no-cards"


def test_the_player_who_ends_the_round_still_draws():
    state = position(
        [column("music-1", up(1, "queen")), column("trade-1")],
        hands=[("king", "romeo"), ("witch",)],
        decks=[("wizard",), ()],
    )
    facts, _ = apply(state, 0, "play KING 2")
    order = kinds(facts)
    assert order.index("CardsDrawn") < order.index("RoundEnded") and first(facts, "CardsDrawn")["seat"] == 0


def test_a_goal_swapped_into_a_storm_column_is_filled_and_specialists_follow_the_new_goal():
    from pbem.games.ruse_and_bruise.scoring import score_column

    state = position(
        [column("trade-5", down(1, "traitor")), column("music-4", up(1, "storm"), up(0, "merchant"), closed=True)],
        hands=[("king",), ("romeo",)],
    )
    _, after = apply(state, 0, "play KING 1")
    _, done = apply(after, 1, "swap 2")
    assert done.columns[1].goal == "trade-5" and done.columns[1].filled
    assert score_column(done.columns[1]).numbers[1] == 24
