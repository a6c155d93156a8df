"""``GameSpec.reveals`` per game: which facts show a seat something that was hidden from it
(such a command ends a batch; see tests/service/test_reveals_end_a_batch.py)."""

from pbem.games import get_spec


def test_kingsburg_reveals_the_enemy_and_a_peek_only_to_the_one_who_looked():
    spec = get_spec("kingsburg")
    peek = {"kind": "CardPeeked", "seat": 0, "advisor": 10, "secret": {"to": [0], "data": {"card": "x"}}}
    assert spec.reveals(None, 0, [peek]) and not spec.reveals(None, 1, [peek])
    assert spec.reveals(None, 1, [{"kind": "EnemyRevealed", "card": "y1_goblins_3"}])
    assert not spec.reveals(None, 0, [{"kind": "GiftReceived", "seat": 0, "advisor": 8, "delta": {"gold": 2}}])


def test_kingdom_builder_reveals_a_drawn_terrain_card_to_its_drawer():
    spec = get_spec("kingdom-builder")
    drawn = {"kind": "CardDrawn", "seat": 1, "secret": {"to": [1], "data": {"terrain": "grass"}}}
    assert spec.reveals(None, 1, [drawn]) and not spec.reveals(None, 0, [drawn])


def test_warriors_traders_reveals_starting_tokens_and_battle_damage():
    spec = get_spec("warriors-traders")
    assert spec.reveals(None, 0, [{"kind": "TokensRevealed", "tokens": []}])
    against_a_player = {"kind": "BattleResolved", "hits": [[0, 12, 1], [1, 31, 2]]}
    against_barbarians = {"kind": "BattleResolved", "hits": [[0, 12, 1], [-1, 31, 2]]}
    assert spec.reveals(None, 0, [against_a_player]) and spec.reveals(None, 1, [against_a_player])
    assert not spec.reveals(None, 0, [against_barbarians])  # barbarians follow public priorities
    assert not spec.reveals(None, 0, [{"kind": "TokenPlaced", "seat": 0, "secret": {"to": [0], "data": {}}}])


def test_ruse_and_bruise_reveals_another_players_card_not_ones_own():
    spec = get_spec("ruse-and-bruise")
    theirs = {"kind": "CardRevealed", "column": 0, "position": 0, "owner": 0, "card": "cloak"}
    assert spec.reveals(None, 1, [theirs]) and not spec.reveals(None, 0, [theirs])
    drawn = {"kind": "CardsDrawn", "seat": 1, "count": 1, "secret": {"to": [1], "data": {"cards": ["king"]}}}
    assert spec.reveals(None, 1, [drawn]) and not spec.reveals(None, 0, [drawn])
