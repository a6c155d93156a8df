"""Receipts by mail (docs/mail.md "Checking a receipt", docs/verification.md): one receipt per
mail, covering every entry the mail made, checked offline and on the web's /verify page."""

from __future__ import annotations

import copy
import json

import pytest

from pbem.games.base import SeededRng
from pbem.ledger.receipts import ReceiptError, check_receipt
from tests.mailgateway.conftest import address_of, joined_by_mail, make_mail
from tests.mailgateway.playbook import text_of

ANN, BOB = "ann@example.net", "bob@example.com"


@pytest.fixture
def kingdom(gw, transport):
    game_id = joined_by_mail(gw, gw.service.create("kingdom-builder", [ANN, BOB], {}, seed=b"\x07" * 32), [ANN, BOB])
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


def replies_to(transport, player):
    return [m for m in transport.to(player) if m["X-Pbem-Kind"] == "reply"]


def build_one_by_one(gw, transport, clock, game_id, player, lines, pause_seconds=20):
    """Each line in a mail of its own; the replies, in order."""
    replies = []
    for line in lines:
        clock.advance(seconds=pause_seconds)
        gw.receive(make_mail(player, address_of(gw, game_id, player), line))
        gw.work()
        replies.append(replies_to(transport, player)[-1])
    return replies


@pytest.mark.parametrize(
    ("words", "choice"),
    [
        ("receipts off", "off"),
        ("receipts daily", "daily"),
        ("receipts on", "on"),
        ("potvrzení vypnout", "off"),
        ("Potvrzeni denně", "daily"),
        ("potvrzení zapnout", "on"),
        ("potwierdzenia wyłącz", "off"),
        ("potwierdzenia codziennie", "daily"),
        ("potwierdzenia włącz", "on"),
    ],
)
def test_receipts_off_on_daily_are_read_in_each_language(words, choice):
    from pbem.mailroom.commands import parse_command, receipts_of

    command = parse_command(words)
    assert command is not None and command.name == "receipts" and receipts_of(command.args) == choice


def test_receipts_with_another_word_are_refused_with_the_usage(gw, transport, kingdom):
    gw.receive(make_mail(ANN, address_of(gw, kingdom, ANN), "receipts sometimes"))
    gw.work()
    assert "receipts on, receipts off or receipts daily" in " ".join(text_of(transport.to(ANN)[-1]).split())


def test_receipts_off_leaves_the_receipt_out_of_replies(gw, transport, kingdom, clock):
    player, lines = three_builds(gw, kingdom)
    gw.receive(make_mail(player, address_of(gw, kingdom, player), "receipts off"))
    gw.work()
    assert "Receipts: off." in text_of(transport.to(player)[-1])
    (reply,) = build_one_by_one(gw, transport, clock, kingdom, player, lines[:1])
    assert list(reply.iter_attachments()) == [] and "receipt.json" not in text_of(reply)
    gw.receive(make_mail(player, address_of(gw, kingdom, player), "receipts on"))
    gw.work()
    (reply,) = build_one_by_one(gw, transport, clock, kingdom, player, lines[1:2])  # the positive control
    assert [p.get_filename() for p in reply.iter_attachments()] == ["receipt.json"]


def test_receipts_daily_sends_one_a_day_proving_every_entry_since_the_last(gw, transport, kingdom, clock):
    player, lines = three_builds(gw, kingdom)
    gw.receive(make_mail(player, address_of(gw, kingdom, player), "potvrzení denně"))
    gw.work()
    first, second = build_one_by_one(gw, transport, clock, kingdom, player, lines[:2])
    # the reply to the join (in the fixture, seconds ago) carried the day's receipt
    assert list(first.iter_attachments()) == [] and list(second.iter_attachments()) == []
    (third,) = build_one_by_one(gw, transport, clock, kingdom, player, lines[2:], pause_seconds=25 * 3600)
    checked = check_receipt(receipt_of(third), [str(gw.service.keys.signer().verifier)])
    last = gw.service.game(kingdom).version - 1
    assert checked.indexes == [last - 2, last - 1, last]  # the three builds, made over two days


def test_receipts_at_the_service_address_are_confirmed_first(gw, transport, kingdom, clock):
    from tests.mailgateway.conftest import SERVICE, confirmed

    player, lines = three_builds(gw, kingdom)
    gw.receive(make_mail(player, SERVICE, "receipts off"))
    gw.work()
    assert "confirm" in text_of(transport.to(player)[-1])
    (reply,) = build_one_by_one(gw, transport, clock, kingdom, player, lines[:1])
    assert [p.get_filename() for p in reply.iter_attachments()] == ["receipt.json"]  # not confirmed yet
    confirmed(gw, transport, player, "receipts off")
    (reply,) = build_one_by_one(gw, transport, clock, kingdom, player, lines[1:2])
    assert list(reply.iter_attachments()) == []
