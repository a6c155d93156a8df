"""The building rules and the mandatory action (rulebook pp. 2-4), on hand-built positions.

Board: see helpers.LAYOUT. Around E5 (grass): D4 castle, E4 grass, D5 water, F5 grass,
D6 water, E6 grass.
"""

from dataclasses import replace

import pytest

from pbem.games.base import ErrorCode, GameError, SeededRng
from pbem.games.kingdom_builder import SPEC
from pbem.games.kingdom_builder.board import name
from pbem.games.kingdom_builder.locations import free_of_terrain

from .helpers import h, kinds, play, position, refused, targets


def test_build_only_on_the_terrain_of_the_played_card():
    """Mandatory action (L131-133): the settlements go on the terrain of the played card."""
    state = position(played="G")
    error = refused(state, 0, "build C4")
    assert error.code == ErrorCode.ILLEGAL
    assert "Flower field, not Grass" in error.message and "E4" in error.message
    after, facts = play(state, 0, "build E4")
    assert facts[0] == {"kind": "SettlementBuilt", "seat": 0, "hex": "E4", "action": "build"}
    assert after.owner[h("E4")] == 0 and after.supply[0] == 39


def test_one_settlement_per_hex():
    """Building rules: one settlement per hex; an occupied hex is refused."""
    state = position({1: ["E4"]}, played="G")
    assert "occupied" in refused(state, 0, "build E4").message


def test_never_on_water_mountain_castle_or_location_by_building():
    for terrain in "GCDFT":
        state = position(played=terrain)
        built_on = {SPEC.format_move(m).split()[1] for m in SPEC.legal_moves(state, 0)}
        assert built_on and all(state.board.terrain[h(x)] == terrain for x in built_on)
    assert "Water" in refused(position(played="G"), 0, "build D5").message


def test_next_to_an_own_settlement_when_possible():
    """The picture example of two possible placements (L247): next to an own settlement when that is
    possible."""
    state = position({0: ["E5"]}, played="G")
    assert targets(state, 0, "build") == ["build E4", "build F5", "build E6"]
    error = refused(state, 0, "build J8")
    assert "next to your settlements" in error.message and "E4, F5, E6" in error.message


def test_anywhere_on_the_terrain_when_nothing_is_adjacent():
    """The picture example of a mandatory action that cannot build next to an own settlement (L251):
    then anywhere on the card's terrain."""
    state = position({0: ["A1"]}, played="G")
    assert len(targets(state, 0, "build")) == len(free_of_terrain(state, "G")) > 20


def test_adjacency_is_checked_again_for_each_settlement():
    state, _ = play(position({0: ["E5"]}, played="G"), 0, "build F5")
    assert "build G5" in targets(state, 0, "build")  # next to F5, not to E5


def test_mandatory_action_is_three_settlements_then_the_turn_passes():
    """The picture example of a mandatory action (L153): three settlements on the card's terrain,
    then the next player's turn."""
    state, facts = play(position({0: ["E5"]}, played="G"), 0, "build E4", "build F5", "build E6")
    assert kinds(facts) == ["SettlementBuilt"] * 3 + ["TurnEnded", "CardDrawn", "TurnStarted"]
    assert state.seat == 1 and state.played == "F" and state.supply[0] == 36
    assert facts[-1] == {"kind": "TurnStarted", "seat": 1, "round": 1, "terrain": "F"}


def test_three_hexes_in_one_build_command():
    """Mandatory action: the three settlements may be named in one build command."""
    state, facts = play(position({0: ["E5"]}, played="G"), 0, "build E4 F5 G5")
    assert [f.get("hex") for f in facts[:3]] == ["E4", "F5", "G5"] and state.seat == 1


def test_a_chained_build_is_all_or_nothing():
    """Mandatory action: a build naming several hexes is refused whole when one of them may not be
    built on."""
    state = position({0: ["E5"]}, played="G")
    with pytest.raises(GameError) as error:
        SPEC.parse_move(state, 0, "build E4 J8")
    assert "J8" in error.value.message and state.owner[h("E4")] == -1


def test_the_turn_cannot_end_before_the_mandatory_action():
    state = position(played="G")
    assert "build 3 more" in refused(state, 0, "end").message
    state, _ = play(state, 0, "build E4")
    assert "build 2 more" in refused(state, 0, "end").message


def test_card_without_free_hex_is_replaced_when_the_turn_starts():
    canyon = [x for x in range(400) if position().board.terrain[x] == "C"]
    state = position(
        {0: ["E5", "E4", "F5"], 1: [name(x) for x in canyon]},
        played="G",
        built=2,
        supply={1: 10},
        hands=(None, "C"),
        deck=("D", "T"),
    )
    state, facts = play(state, 0, "build E6")
    replaced = [f for f in facts if f["kind"] == "CardReplaced"]
    # seat 0 drew the D at the end of its turn; seat 1's C is unusable and the T replaces it
    assert replaced == [{"kind": "CardReplaced", "seat": 1, "unusable": "C", "terrain": "T"}]
    assert state.hands[0] == "D"
    assert state.seat == 1 and state.played == "T" and state.removed == 1 and "C" not in state.discard


def test_card_is_replaced_when_its_terrain_runs_out_during_the_turn():
    forest = [name(x) for x in range(400) if position().board.terrain[x] == "T" and name(x) != "F7"]
    state = position({1: forest}, played="T", supply={1: 10}, deck=("D", "G"))
    state, facts = play(state, 0, "build F7")
    assert facts[1] == {"kind": "CardReplaced", "seat": 0, "unusable": "T", "terrain": "D"}
    assert state.played == "D" and state.built == 1
    assert all(m[0] == "build" and state.board.terrain[m[1]] == "D" for m in SPEC.legal_moves(state, 0))


def test_discards_are_reshuffled_when_the_deck_runs_out():
    state = replace(position(played="G"), deck=(), discard=("C", "D", "T"))
    state, facts = play(state, 0, "build E4 F4 E5")
    assert kinds(facts)[3:6] == ["TurnEnded", "DeckShuffled", "CardDrawn"]
    shuffled = facts[4]
    assert shuffled["secret"]["to"] == [] and sorted(shuffled["secret"]["data"]["order"]) == ["C", "D", "G", "T"]
    assert facts[5]["secret"]["to"] == [0] and len(state.deck) == 3


def test_fewer_than_three_settlements_left_builds_what_remains():
    state, facts = play(position(played="G", supply={0: 2}), 0, "build E4 F4")
    assert state.supply[0] == 0 and state.ending and state.seat == 1
    assert kinds(facts).count("SettlementBuilt") == 2


def test_the_round_is_finished_after_the_last_settlement():
    state = position(players=3, seat=1, played="G", supply={1: 3})
    state, facts = play(state, 1, "build E4 F4 E5")
    assert state.ending and not state.over and state.seat == 2
    state, facts = play(state, 2, *[SPEC.format_move(SPEC.default_move(state, 2))])
    while not state.over:
        state, facts = play(state, 2, SPEC.format_move(SPEC.default_move(state, 2)))
    assert facts[-1]["kind"] == "GameEnded" and SPEC.to_move(state) == []
    assert SPEC.outcome(state) is not None


def test_the_last_seat_placing_its_last_settlement_ends_the_game_at_once():
    state = position(players=2, seat=1, played="G", supply={1: 3})
    state, facts = play(state, 1, "build E4 F4 E5")
    assert facts[-1]["kind"] == "GameEnded" and state.over


def test_a_game_where_no_terrain_card_is_left_ends_instead_of_looping():
    # cannot happen with 25 cards and 160 settlements, but the engine must not hang
    from pbem.games.kingdom_builder.rules import settle

    state = position(played=None, deck=(), hands=(None, None))
    facts = settle(state, SeededRng(0))
    assert facts[-1]["kind"] == "GameEnded" and facts[-1]["blocked"] is True
