"""One whole opening turn played through the orders players send, from setup to turn 2."""

from pbem.games.warriors_traders import SPEC
from pbem.games.warriors_traders.scoring import vp

from .support import act, start, step


def test_an_opening_turn_from_setup_to_the_next_maintenance():
    state = start(2)
    for seat in (0, 1):
        for text in ("develop military", "develop military", "develop production"):
            state = act(state, seat, text)
    # turn 1 maintenance: Meath's symbols, weapons x1 at military III
    assert state.players[0].stock == (2, 1, 2, 1)
    # nobody holds a trade centre: straight to the first action, in country order
    assert SPEC.phase_label(state) == "turn 1, development, the first action"
    assert SPEC.to_move(state) == [0]
    state = act(state, 0, "build infantry")  # the capital is the only province: no need to name it
    state = act(state, 1, "postav pěchota")
    assert SPEC.to_move(state) == [1]  # the second action goes in reverse order
    state = act(state, 1, "develop trade")
    state = act(state, 0, "develop trade")
    state = act(state, 0, "pass")  # moving a token
    state = act(state, 1, "pass")
    assert SPEC.phase_label(state) == "turn 1, maneuvers, army movement"
    army = next(u for u in state.units if u.owner == 0 and u.kind == "infantry")
    assert army.ap == 2  # military III (3 tokens) on the approximate track
    state = act(state, 0, f"move {army.id} munster")
    state, facts = step(state, 0, "done")
    resolved = next(f for f in facts if f["kind"] == "BattleResolved")
    # 1 damage each way: the infantry (no Commander) dies at 0 life, the barbarian retreats
    barbarian = str(resolved["hits"][1][1])
    assert resolved["killed"] == [army.id] and barbarian in resolved["retreated"]
    assert resolved["vp"] == {} and resolved["captured"] is None
    assert vp(state, 0) == 6  # capital + fort; titles tie
    # seat 0's princesses may step into the now free Munster; then seat 1 maneuvers
    assert SPEC.phase_label(state) == "turn 1, maneuvers, princess movement"
    state = act(state, 0, "done")
    assert SPEC.to_move(state) == [1]
    state = act(state, 1, "done")
    # end of turn, turn 2 maintenance (the armies eat their food), then development again
    assert state.turn == 2 and state.phase == "development"
    # start 1 food, +1 from Meath in each maintenance, and no army left to feed
    assert state.players[0].has("food") == 1 + 1 + 1
