"""Hidden information stays hidden; the text, SVG and history lines render every situation."""

import json
import re
import xml.etree.ElementTree as ET

from pbem.games.kingsburg import SPEC
from pbem.games.kingsburg.data import ENEMIES
from pbem.games.kingsburg.moves import say_move
from pbem.games.simulate import play_random

from .support import ANN, BRIAN, NAMES, at, gifts_for, new_game, with_players


def _redacted(fact):
    if "secret" not in fact:
        return fact
    return {**fact, "secret": {"to": fact["secret"]["to"], "commitment": "0" * 64}}


def test_public_view_never_shows_the_enemy_deck_or_peeks():
    hidden_seen = []

    def on_step(before, seat, move, facts, after):
        public = json.dumps(SPEC.view(after, None))
        for card in after.deck:  # not revealed yet
            if card in public:
                hidden_seen.append(card)
        for s, p in enumerate(after.players):
            own = json.dumps(SPEC.view(after, s))
            for other, q in enumerate(after.players):
                if other != s:
                    for card in q.peeks:
                        if card not in p.peeks and card != after.enemy:
                            assert card not in own

    for seed in range(6):
        play_random(SPEC, 2 + seed % 4, seed, on_step=on_step)
    assert hidden_seen == []


def test_seat_sees_its_own_peek():
    state, _ = gifts_for(10)
    mine = SPEC.view(state, ANN)["players"][ANN]["peeked"]
    assert mine == [{"id": "y1_goblins_3", "name": "Goblins", "year": 1, "strength": 3}]
    assert "peeked" not in SPEC.view(state, BRIAN)["players"][ANN]
    assert SPEC.view(state, None)["players"][ANN]["peeks"] == 1  # that she looked is public


def test_text_rendering_shows_court_dice_stocks_and_province():
    state, _ = gifts_for(10)
    state = with_players(state, p0={"buildings": {"statue", "inn"}, "gold": 3})
    text = SPEC.render_text(SPEC.view(state, ANN), NAMES)
    assert text.startswith("Kingsburg - year 1, ")
    assert "Ann: 1 VP, 3 gold" in text
    assert "[x] Statue" in text and "[ ] Chapel" in text and "you saw the enemy: Goblins strength 3" in text


def test_text_rendering_of_the_court():
    from dataclasses import replace

    from pbem.games.kingsburg.state import Placement

    state = at(new_game(3), "spring", "influence", order=(0, 1, 2), cursor=1)
    court = list(state.court)
    court[8] = (Placement(ANN, (5, 3)),)
    court[12] = (Placement(-1, (6, 4, 2)), Placement(BRIAN, (6, 4), (2,), True, True))
    text = SPEC.render_text(SPEC.view(replace(state, court=tuple(court)), None), NAMES)
    assert " 8 Treasurer      Ann [5 3]" in text
    assert "12 Duchess        neutral [6 4 2]; Brian [6 4 w2 +2] envoy" in text


def test_svg_is_well_formed_for_every_player_count():
    for players in (2, 5):
        play = play_random(SPEC, players, 3)
        svg = SPEC.render_svg(SPEC.view(play.state, None), NAMES)
        root = ET.fromstring(svg)
        assert root.tag.endswith("svg")
    state, _ = gifts_for(10)
    assert "General" in SPEC.render_svg(SPEC.view(state, None), NAMES)


def test_every_fact_has_a_history_line_even_when_redacted():
    for players, option in ((2, "die"), (4, "tokens")):
        play = play_random(SPEC, players, 11, options={"reinforcements": option})
        for fact in play.facts:
            line = SPEC.describe_fact(_redacted(fact), NAMES)
            assert line and line != fact["kind"] and "{" not in line
            if "secret" in fact and fact["kind"] == "CardPeeked":
                assert all(e.name not in line for e in ENEMIES.values() if e.id == fact["secret"]["data"]["card"])


def test_phase_label():
    assert SPEC.phase_label(at(new_game(3), "summer", "influence", year=2)) == "year 2, summer: influence"
    assert SPEC.phase_label(at(new_game(3), "recruit", "recruit", year=4)) == "year 4, recruitment"


def test_the_decision_example_is_a_legal_move_never_a_building_the_player_has():
    state = at(new_game(3), "spring", "build", order=(0, 1, 2), cursor=0)
    state = with_players(state, p0={"gold": 5, "wood": 5, "stone": 5, "buildings": {"statue"}})
    legal = [say_move(m) for m in SPEC.legal_moves(state, ANN)]
    sentence = SPEC.decision_text(state, ANN, NAMES)
    assert "'build statue'" not in sentence
    examples = re.findall(r"'([^']+)'", sentence)
    assert examples and all(e in legal for e in examples), (sentence, legal)
