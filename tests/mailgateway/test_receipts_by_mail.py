"""Receipts by mail (docs/mail.md "Checking a receipt", docs/verification.md): one receipt per
mail, covering every entry the mail made, checked offline and on the web's /verify page."""

from __future__ import annotations

import copy
import json

import pytest

from pbem.games.base import SeededRng
from pbem.ledger.receipts import ReceiptError, check_receipt
from tests.mailgateway.conftest import address_of, make_mail
from tests.mailgateway.playbook import text_of

ANN, BOB = "ann@example.net", "bob@example.com"


@pytest.fixture
def kingdom(gw, transport):
    game_id = gw.service.create("kingdom-builder", [ANN, BOB], {}, seed=b"\x07" * 32)
    for player in (ANN, BOB):
        gw.receive(make_mail(player, address_of(gw, game_id, player), "join"))
    gw.work()
    transport.clear()
    return game_id


def three_builds(gw, game_id: str) -> tuple[str, list[str]]:
    """The player to move and three settlements they may build one after another (a Kingdom
    Builder turn: none of them draws, so one mail applies all three)."""
    game = gw.service.game(game_id)
    spec, state = game.spec, gw.service.state(game)
    seat = spec.to_move(state)[0]
    lines: list[str] = []
    for _ in range(3):
        line = next(text for text in spec.legal_texts(state, seat, limit=10_000) if text.startswith("build"))
        _, state = spec.decide_and_fold(state, seat, spec.parse_move(state, seat, line), SeededRng(0))
        lines.append(line)
    return game.emails[seat], lines


def receipt_of(mail) -> dict:
    (attachment,) = mail.iter_attachments()
    return json.loads(attachment.get_content())


def test_a_mail_with_three_moves_gets_one_receipt_that_proves_all_three(gw, transport, kingdom):
    player, lines = three_builds(gw, kingdom)
    before = gw.service.game(kingdom).version
    gw.receive(make_mail(player, address_of(gw, kingdom, player), "\n".join(lines)))
    gw.work()
    (reply,) = [m for m in transport.to(player) if m["X-Pbem-Kind"] == "reply"]
    receipt = receipt_of(reply)
    checked = check_receipt(receipt, [str(gw.service.keys.signer().verifier)])
    assert checked.indexes == [before, before + 1, before + 2]
    assert [
        gw.service.game(kingdom).spec.say_command(e["command"])
        for e in [checked.entry] + [part.entry for part in checked.more]
    ] == [gw.service.game(kingdom).spec.say_command(line) for line in lines]
    assert receipt["format"] == "pbem-receipt/2"
    assert f"(turns {before + 1} to {before + 3} of the signed log)" in " ".join(text_of(reply).split())


@pytest.mark.parametrize("which", [0, 1, 2])
def test_tampering_with_any_entry_of_a_mail_receipt_fails_it(gw, transport, kingdom, which):
    player, lines = three_builds(gw, kingdom)
    gw.receive(make_mail(player, address_of(gw, kingdom, player), "\n".join(lines)))
    gw.work()
    (reply,) = [m for m in transport.to(player) if m["X-Pbem-Kind"] == "reply"]
    receipt = receipt_of(reply)
    trusted = [str(gw.service.keys.signer().verifier)]
    check_receipt(copy.deepcopy(receipt), trusted)  # the positive control: untouched, it holds
    part = receipt if which == 0 else receipt["more"][which - 1]
    part["entry"]["command"] += " 9"  # another move than the one played
    with pytest.raises(ReceiptError, match="the entry was changed"):
        check_receipt(receipt, trusted)
    del part["leaf_hash"]
    with pytest.raises(ReceiptError, match="inclusion proof fails"):
        check_receipt(receipt, trusted)


def test_a_mail_receipt_cannot_drop_the_moves_it_claims_by_format(gw, transport, kingdom):
    player, lines = three_builds(gw, kingdom)
    gw.receive(make_mail(player, address_of(gw, kingdom, player), "\n".join(lines)))
    gw.work()
    (reply,) = [m for m in transport.to(player) if m["X-Pbem-Kind"] == "reply"]
    receipt = receipt_of(reply) | {"format": "pbem-receipt/9"}
    with pytest.raises(ReceiptError, match="unknown receipt format"):
        check_receipt(receipt)
