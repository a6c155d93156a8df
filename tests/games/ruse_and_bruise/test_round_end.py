"""The end of a round (rulebook p. 2, KONEC JEDNOHO KOLA), on hand-built columns.

"Avšak zaplněním všech Cílových karet kolo končí. Poslední položená karta Vlivu ještě otočí kartu
nad sebou a provede se její schopnost. Poté budou odhaleny dosud zakryté karty." (But filling every
goal card ends the round. The last influence card laid still turns up the card above it and its
ability is carried out. Then the cards still face down are revealed.) So the end is decided when
the last card is laid; the reveal and its ability follow, then scoring, whatever that ability does
to the goals.
"""

from pbem.games.ruse_and_bruise.state import Pending, evolve
from pbem.service import states

from .helpers import SPEC, apply, column, down, first, kinds, position, up


def _winners(facts) -> list[int | None]:
    return [fact["winner"] for fact in facts if fact["kind"] == "ColumnScored"]


def test_the_last_card_ends_the_round_even_when_the_assassin_it_reveals_removes_it():
    """p. 2: "zaplněním všech Cílových karet kolo končí. Poslední položená karta Vlivu ještě otočí
    kartu nad sebou a provede se její schopnost" — the King fills the last goal and turns up the
    Assassin, which sends the King away (p. 4, Mordýř); the round has ended all the same."""
    state = position(
        [column("music-1", up(1, "queen")), column("trade-2", down(1, "assassin"))],
        hands=[("king", "romeo"), ("witch",)],
    )
    facts, after = apply(state, 0, "play KING 2")
    order = kinds(facts)
    assert order.index("CardAssassinated") < order.index("RoundEnded") < order.index("CardsRevealed")
    assert first(facts, "RoundEnded") == {"kind": "RoundEnded", "round": 1, "by": 0, "reason": "filled"}
    assert _winners(facts) == [1, 1]  # the Assassin alone wins trade-2: the King is in the discards
    assert "king" in after.discards[0] and after.round == 2 and after.turn == 1


def test_the_last_card_ends_the_round_even_when_the_explorer_it_reveals_leaves_its_column():
    """p. 2: "Poslední položená karta Vlivu ještě otočí kartu nad sebou a provede se její
    schopnost" — the King fills the last goal and turns up the Explorer, which travels on (p. 4,
    Objevitel) and leaves the King's column one card short; the round has ended all the same."""
    state = position(
        [column("music-1", up(1, "queen")), column("trade-2", down(1, "explorer"))],
        hands=[("king", "romeo"), ("witch",)],
    )
    facts, after = apply(state, 0, "play KING 2")
    order = kinds(facts)
    assert order.index("ExplorerTravelled") < order.index("RoundEnded")
    assert first(facts, "ExplorerTravelled") == {"kind": "ExplorerTravelled", "owner": 1, "from": 1, "to": 0}
    assert _winners(facts) == [1, 0]  # Queen and Explorer take music-1, the lone King trade-2
    assert after.round == 2 and after.won == (("trade-2",), ("music-1",))


def test_a_traitor_revealed_by_the_last_card_still_swaps_and_the_round_still_ends():
    """p. 2: "provede se její schopnost"; p. 5, Zrádce: "může jeho majitel vyměnit Cílovou kartu
    ve sloupci zrádce, za Cílovou kartu v jiném sloupci" — the King fills the last goal and turns
    up the Traitor; its owner still swaps, and the round ends after the swap even though the
    trade-2 goal now lies over a single card."""
    state = position(
        [column("trade-2", down(1, "traitor")), column("music-1", up(1, "queen"))],
        hands=[("king", "romeo"), ("witch",)],
    )
    asking, asked = apply(state, 0, "play KING 1")
    assert asked.pending.kind == "traitor" and SPEC.to_move(asked) == [1] and "RoundEnded" not in kinds(asking)
    facts, after = apply(asked, 1, "swap 2")
    order = kinds(facts)
    assert order.index("GoalsSwapped") < order.index("RoundEnded")
    assert first(facts, "RoundEnded")["by"] == 0
    assert [fact["goal"] for fact in facts if fact["kind"] == "ColumnScored"] == ["music-1", "trade-2"]
    assert _winners(facts) == [0, 1] and after.round == 2


def test_an_arriving_explorer_that_fills_the_last_goal_ends_the_round_though_the_assassin_it_reveals_removes_it():
    """p. 4, Objevitel: "Ve sloupci, do kterého přicestuje, bude položen opět zakrytě zcela dolů.
    Poté se ... odkryje nad ním ležící karta" — an arriving Explorer is laid like a played card, so
    p. 2 applies to it: it fills the last goal, ends the round, still turns up the Assassin above
    it, and the Assassin still sends it away."""
    state = position(
        [column("music-1", down(1, "explorer")), column("trade-3a", up(0, "hermit"), down(1, "assassin"))],
        hands=[("king", "romeo"), ("witch",)],
    )
    facts, after = apply(state, 0, "play KING 1")
    order = kinds(facts)
    assert order.index("ExplorerTravelled") < order.index("CardAssassinated") < order.index("RoundEnded")
    assert first(facts, "CardAssassinated")["card"] == "explorer"
    assert "explorer" in after.discards[1] and after.round == 2


def test_a_round_not_filled_by_the_last_card_goes_on_when_an_ability_empties_a_goal():
    """p. 2: "Jedno kolo končí, když jsou zaplněny všechny Cílové karty" — the King fills its own
    column, but trade-2 still waits for a card, so the round goes on (a control for the tests
    above: only filling every goal ends it)."""
    state = position(
        [column("music-2", down(1, "assassin")), column("trade-2", up(1, "queen"))],
        hands=[("king", "romeo"), ("witch",)],
    )
    facts, after = apply(state, 0, "play KING 1")
    assert "CardAssassinated" in kinds(facts) and "RoundEnded" not in kinds(facts)
    assert after.round == 1 and after.turn == 1


def test_a_choice_stored_before_the_round_end_fix_folds_as_it_did():
    """Facts are stored, not commands: a question stored before ``round_over`` existed folds to
    the same open choice, and a kept state encoded then decodes to it too."""
    state = position([column("trade-2", down(1, "traitor")), column("music-1")], hands=[("king",), ("witch",)])
    old_fact = {"kind": "ChoiceOffered", "choice": "traitor", "seat": 1, "column": 0}
    folded = evolve(state, old_fact)
    assert folded.pending == Pending("traitor", 1, 0) and folded.pending.round_over is False
    kept = states.encode(folded)
    pending = next(value for value in kept["v"].values() if isinstance(value, dict) and "c" in value)
    del pending["v"]["round_over"]  # as a state kept before the field existed
    decoded = states.decode(kept)
    assert decoded == folded and decoded.pending.round_over is False
