"""A whole game played by mail, from "new" to the final standings."""

from __future__ import annotations

import json

from pbem.ledger.receipts import check_receipt
from tests.mailgateway.conftest import SERVICE, address_of, joined_by_mail, make_mail, text_of
from tests.mailgateway.playbook import state_of

ANN, BOB = "ann@example.net", "bob@example.com"


def test_hidden_pig_from_new_to_final_standings(gw, transport):
    assert gw.receive(make_mail(ANN, SERVICE, f"new hidden-pig {ANN} {BOB} rounds=1")) == "processed"
    gw.work()
    (game_id,) = gw.service.game_ids()
    (reply,) = [m for m in transport.to(ANN) if m["In-Reply-To"]]  # the answer to Ann's "new"
    assert "Created game" in text_of(reply)
    invitations = [m for m in transport.to(BOB) if "invited" in state_of(m)]
    assert len(invitations) == 1
    assert invitations[0]["From"].addresses[0].addr_spec == address_of(gw, game_id, BOB)
    for player in (ANN, BOB):
        assert gw.receive(make_mail(player, address_of(gw, game_id, player), "join lucky-" + player)) == "processed"
    gw.work()
    assert gw.service.game(game_id).started
    turns = 0
    while not gw.service.game(game_id).ended and turns < 200:
        state = gw.service.state(gw.service.game(game_id))
        seat = gw.service.game(game_id).spec.to_move(state)[0]
        player = (ANN, BOB)[seat]
        transport.clear()
        gw.receive(make_mail(player, address_of(gw, game_id, player), "hold"))
        gw.work()
        turns += 1
        reply = next(m for m in transport.to(player) if m["In-Reply-To"])
        assert "applied: hold" in text_of(reply)
        assert reply["Auto-Submitted"] == "auto-replied"
        attachment = next(part for part in reply.iter_attachments() if part.get_filename() == "receipt.json")
        receipt = json.loads(attachment.get_content())
        assert check_receipt(receipt, [str(gw.service.keys.signer().verifier)]).summary()
    assert gw.service.game(game_id).ended
    for player in (ANN, BOB):
        final = [m for m in transport.to(player) if "over" in state_of(m)]
        assert final and "Final standings" in text_of(final[0])


def real_game() -> str | None:
    from pbem.games import catalog

    names = [name for name in catalog() if name != "hidden-pig"]
    return "ruse-and-bruise" if "ruse-and-bruise" in names else (names[0] if names else None)


def test_a_real_game_by_mail_from_join_to_final_standings(gw, transport):
    import random

    name = real_game()
    if name is None:
        import pytest

        pytest.skip("no real game is registered")
    players = ["ann@example.net", "bob@example.com"]
    gw.receive(make_mail(players[0], SERVICE, f"new {name} {' '.join(players)}"))
    gw.work()
    (game_id,) = gw.service.game_ids()
    for player in players:
        gw.receive(make_mail(player, address_of(gw, game_id, player), "připojit"))
    chooser = random.Random(7)
    for _ in range(2000):
        game = gw.service.game(game_id)
        if game.ended:
            break
        state = gw.service.state(game)
        seat = game.spec.to_move(state)[0]
        move = game.spec.format_move(game.spec.random_move(state, seat, chooser))
        assert gw.receive(make_mail(players[seat], address_of(gw, game_id, players[seat]), move)) == "processed"
        assert gw.service.game(game_id).version > game.version, move
    gw.work()
    assert gw.service.game(game_id).ended
    sources = {e.get("source") for e in gw.service.game(game_id).entries if e["kind"] == "moved"}
    assert sources == {"email"}
    for player in players:
        final = [m for m in transport.to(player) if "over" in state_of(m)]
        assert len(final) == 1 and "Final standings" in text_of(final[0])
        assert len([m for m in transport.to(player) if m["In-Reply-To"]]) > 3


def _all_games() -> list[str]:
    from pbem.games import catalog

    return sorted(catalog())


import pytest  # noqa: E402


@pytest.mark.parametrize("name", _all_games())
def test_every_game_works_by_mail(gw, transport, name):
    """Every registered game: created, joined and a few turns played by mail, each reply
    showing the player's view; no gateway change is needed for a new game."""
    import random

    from pbem.games import get_spec

    spec = get_spec(name)
    players = [f"p{n}@example.net" for n in range(spec.min_players)]
    gw.receive(make_mail(players[0], SERVICE, f"new {name} {' '.join(players)}"))
    gw.work()
    (game_id,) = gw.service.game_ids()
    joined_by_mail(gw, game_id, players)
    chooser = random.Random(3)
    for _ in range(6):
        game = gw.service.game(game_id)
        if game.ended:
            break
        state = gw.service.state(game)
        seat = game.spec.to_move(state)[0]
        move = game.spec.format_move(game.spec.random_move(state, seat, chooser))
        transport.clear()
        gw.receive(make_mail(players[seat], address_of(gw, game_id, players[seat]), move))
        gw.work()
        (reply,) = [m for m in transport.to(players[seat]) if m["In-Reply-To"]]
        said = " ".join(text_of(reply).split())  # the text part's sentences are broken into 72-character lines
        assert "applied: " in said and "attached as receipt.json" in said
