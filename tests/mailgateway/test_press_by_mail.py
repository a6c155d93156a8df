"""Press by mail: ``tell NAME: text`` at a seat's address, the message's own mail to each
reader with their receipt, and replies to it from any mail client, which are messages back
and never commands."""

from __future__ import annotations

import json
from email.message import EmailMessage

import pytest

from pbem.ledger.receipts import check_receipt
from tests.mailgateway.conftest import SERVICE, Memory, address_of, make_mail
from tests.mailgateway.conftest import text_of as raw_text_of

ANN, BOB, CAROL = "ann@example.org", "bob@example.org", "carol@example.org"
SECRET_WORDS = "meet me at the north gate, heron-7731"


def _game(gw, transport: Memory, options: dict[str, str] | None = None) -> str:
    game_id = gw.service.create("hidden-pig", [ANN, BOB, CAROL], {"rounds": "2", **(options or {})}, b"\x01" * 32)
    for player in (ANN, BOB, CAROL):
        gw.service.join(game_id, player)
    gw.work()
    transport.clear()
    return game_id


def text_of(msg: EmailMessage) -> str:
    return raw_text_of(msg).replace("\r\n", "\n")


def _press(transport: Memory, to: str) -> list[EmailMessage]:
    return [m for m in transport.to(to) if m["X-Pbem-Kind"] == "press"]


def _replies(transport: Memory, to: str) -> list[EmailMessage]:
    return [m for m in transport.to(to) if m["X-Pbem-Kind"] == "reply"]


def _receipt(msg: EmailMessage) -> dict:
    (part,) = [p for p in msg.iter_attachments() if p.get_filename() == "receipt.json"]
    return json.loads(part.get_content())


def test_a_private_message_reaches_exactly_its_recipient_with_a_receipt(gw, transport):
    game_id = _game(gw, transport)
    body = f"tell bob: {SECRET_WORDS}\nand bring the dice\n\ntell all: table hello\n\nhold"
    gw.receive(make_mail(ANN, address_of(gw, game_id, ANN), body))
    gw.work()
    to_bob, _ = _press(transport, BOB)
    assert "ann (pbem)" in to_bob["From"]
    assert f"{SECRET_WORDS}\nand bring the dice" in text_of(to_bob)
    checked = check_receipt(_receipt(to_bob), [str(gw.service.keys.signer().verifier)])
    assert checked.text == f"{SECRET_WORDS}\nand bring the dice"
    copy, _ = _press(transport, ANN)
    assert SECRET_WORDS in text_of(copy) and check_receipt(_receipt(copy)).text == checked.text
    (to_carol,) = transport.to(CAROL)  # the table message: she reads it, and nothing of the private one
    assert "table hello" in text_of(to_carol) and SECRET_WORDS not in text_of(to_carol)
    assert SECRET_WORDS not in json.dumps(_receipt(to_carol))
    reply = _replies(transport, ANN)[0]
    assert "Your message to bob was delivered." in text_of(reply)
    assert "Your moves were applied." in text_of(reply)


def test_a_message_is_delivered_even_when_a_move_of_the_mail_is_refused(gw, transport):
    game_id = _game(gw, transport)
    gw.receive(make_mail(BOB, address_of(gw, game_id, BOB), "tell all: sorry, not my turn yet\n\nhold"))
    gw.work()
    reply = _replies(transport, BOB)[0]
    assert "Your message to everyone at the table was delivered." in text_of(reply)
    assert "Your mail was not applied" in text_of(reply)  # the move was refused, the message went
    for player in (ANN, CAROL):
        (msg,) = _press(transport, player)
        assert "sorry, not my turn yet" in text_of(msg)


@pytest.mark.parametrize(
    ("line", "readers"),
    [
        ("napiš bob, carol: ahoj vám oběma", [BOB, CAROL]),
        ("napisz wszystkim: cześć", [BOB, CAROL]),
        ("Napiš všem: zdravím", [BOB, CAROL]),
        ("tell Carol: hi", [CAROL]),
    ],
)
def test_press_words_in_every_language(gw, transport, line, readers):
    game_id = _game(gw, transport)
    gw.receive(make_mail(ANN, address_of(gw, game_id, ANN), line))
    gw.work()
    text = line.split(":", 1)[1].strip()
    for player in (BOB, CAROL):
        assert (any(text in text_of(m) for m in _press(transport, player))) is (player in readers)


def reply_to(msg: EmailMessage, sender: str, new_text: str, style: str) -> bytes:
    quoted = "\n".join("> " + line for line in text_of(msg).splitlines())
    attribution = {
        "gmail": f"On Mon, Jan 5, 2026 at 12:00 PM {msg['From']} wrote:",
        "thunderbird": "Dne 05. 01. 26 v 12:00 ann (pbem) napsal(a):",
        "outlook": f"-----Original Message-----\nFrom: {msg['From']}\nSent: Monday, January 5, 2026 12:00 PM",
    }[style]
    body = f"{new_text}\n\n{attribution}\n{quoted}\n"
    headers = {"In-Reply-To": msg["Message-ID"], "References": msg["References"] or ""}
    return make_mail(sender, msg["Reply-To"], body, subject="Re: " + msg["Subject"], headers=headers)


@pytest.mark.parametrize("style", ["gmail", "thunderbird", "outlook"])
def test_replying_to_a_message_sends_a_message_back_and_applies_no_command(gw, transport, style):
    game_id = _game(gw, transport)
    gw.receive(make_mail(ANN, address_of(gw, game_id, ANN), f"tell bob: {SECRET_WORDS}"))
    gw.work()
    (to_bob,) = _press(transport, BOB)
    transport.clear()
    version = gw.service.game(game_id).version
    gw.receive(reply_to(to_bob, BOB, "resign\nhold\nno deal, heron", style))
    gw.work()
    game = gw.service.game(game_id)
    assert game.version == version + 1 and game.entry(version)["kind"] == "said"
    assert game.entry(version)["to"] == [0] and not game.robots  # "resign" was a word, not a command
    (back,) = _press(transport, ANN)
    assert "resign\nhold\nno deal, heron" in text_of(back)
    assert SECRET_WORDS not in text_of(back).split("no deal, heron")[1]  # the quote is not sent on
    assert not [m for m in transport.to(BOB) if m["X-Pbem-Kind"] == "reply"]  # the copy is the answer
    assert to_bob["References"] in back["References"]  # one conversation, one thread


def test_press_none_refuses_with_a_clear_reply(gw, transport):
    game_id = _game(gw, transport, {"press": "none"})
    version = gw.service.game(game_id).version
    gw.receive(make_mail(ANN, address_of(gw, game_id, ANN), "tell bob: hello"))
    gw.work()
    reply = _replies(transport, ANN)[0]
    assert "press=none" in text_of(reply)
    assert gw.service.game(game_id).version == version and not _press(transport, BOB)


def test_press_public_refuses_private_messages_and_observers_read_table_ones(gw, transport):
    game_id = _game(gw, transport, {"press": "public"})
    watcher = "dave@example.org"
    gw.receive(make_mail(watcher, SERVICE, f"subscribe {game_id}"))
    gw.work()
    from tests.mailgateway.conftest import confirmed

    confirmed(gw, transport, watcher, f"subscribe {game_id}")
    transport.clear()
    gw.receive(make_mail(ANN, address_of(gw, game_id, ANN), "tell bob: psst\n\ntell all: hello table"))
    gw.work()
    reply = _replies(transport, ANN)[0]
    assert "press=public" in text_of(reply)
    assert not any("psst" in text_of(m) for m in _press(transport, BOB))
    assert any("hello table" in text_of(m) for m in _press(transport, watcher))


def test_observers_do_not_read_table_messages_of_a_game_whose_press_is_all(gw, transport):
    game_id = _game(gw, transport)
    from tests.mailgateway.conftest import confirmed

    confirmed(gw, transport, "dave@example.org", f"subscribe {game_id}")
    transport.clear()
    gw.receive(make_mail(ANN, address_of(gw, game_id, ANN), "tell all: players only"))
    gw.work()
    assert not any("players only" in text_of(m) for m in transport.to("dave@example.org"))
    assert any("players only" in text_of(m) for m in _press(transport, BOB))  # positive control


def test_a_stranger_cannot_send_press(gw, transport):
    game_id = _game(gw, transport)
    version = gw.service.game(game_id).version
    gw.receive(make_mail("mallory@example.org", address_of(gw, game_id, ANN), "tell bob: I am ann"))
    gw.receive(make_mail("mallory@example.org", SERVICE, f"tell bob: I am ann {game_id}"))
    gw.work()
    assert gw.service.game(game_id).version == version
    assert not _press(transport, BOB)


def test_a_message_holding_a_seat_token_is_refused(gw, transport):
    game_id = _game(gw, transport)
    version = gw.service.game(game_id).version
    leaked = address_of(gw, game_id, ANN)
    gw.receive(make_mail(ANN, leaked, f"tell bob: write to {leaked} for me"))
    gw.work()
    assert gw.service.game(game_id).version == version and not _press(transport, BOB)
    reply = _replies(transport, ANN)[0]
    assert "private address or link" in text_of(reply)


def test_the_sixty_first_message_of_a_day_is_refused(gw, transport, clock):
    game_id = _game(gw, transport)
    for number in range(60):
        assert gw.service.say(game_id, ANN, ["bob"], f"note {number}").ok
    version = gw.service.game(game_id).version
    gw.receive(make_mail(ANN, address_of(gw, game_id, ANN), "tell bob: one more"))
    gw.work()
    assert gw.service.game(game_id).version == version
    reply = [m for m in transport.to(ANN) if m["X-Pbem-Kind"] == "reply"][-1]
    assert "60 messages" in text_of(reply)
    assert gw.service.say(game_id, BOB, ["ann"], "bob has his own budget").ok
    clock.advance(hours=24, seconds=1)
    assert gw.service.say(game_id, ANN, ["bob"], "a day later").ok


def test_a_message_over_four_kib_is_refused_by_mail(gw, transport):
    game_id = _game(gw, transport)
    version = gw.service.game(game_id).version
    long = "\n".join(["x" * 900] * 5)  # no line over the mail's 1000 characters, 4504 bytes in all
    gw.receive(make_mail(ANN, address_of(gw, game_id, ANN), "tell bob: " + long))
    gw.work()
    assert gw.service.game(game_id).version == version and not _press(transport, BOB)
    reply = [m for m in transport.to(ANN) if m["X-Pbem-Kind"] == "reply"][-1]
    assert "4096 bytes" in text_of(reply)


@pytest.mark.parametrize(
    ("address", "conversation"),
    [
        ("pbem+kingsburg-0a1b.abc234.to1@example.org", "to1"),
        ("pbem+kingsburg-0a1b.abc234.toall@example.org", "toall"),
        ("pbem+kingsburg-0a1b.abc234@example.org", None),
    ],
)
def test_a_conversation_address_names_its_game_token_and_target(address, conversation):
    from pbem.mailroom.addresses import parse_target

    target = parse_target(address, SERVICE)
    assert target is not None and target.game_id == "kingsburg-0a1b" and target.token == "abc234"
    assert target.conversation == conversation


@pytest.mark.parametrize(
    "address", ["pbem+g.abc..to1@example.org", "pbem+g..to1@example.org", "pbem+g.abc.to1.x@example.org"]
)
def test_a_malformed_conversation_address_is_not_ours(address):
    from pbem.mailroom.addresses import parse_target

    assert parse_target(address, SERVICE) is None


def test_a_reply_to_an_unknown_conversation_changes_nothing(gw, transport):
    game_id = _game(gw, transport)
    version = gw.service.game(game_id).version
    bad = address_of(gw, game_id, BOB).replace("@", ".to9@")
    gw.receive(make_mail(BOB, bad, "hello?"))
    gw.work()
    assert gw.service.game(game_id).version == version
    assert "unknown-conversation" in text_of(_replies(transport, BOB)[0])


@pytest.mark.parametrize(
    ("line", "sealed"),
    [
        ("note: hold after two rolls", False),
        ("poznámka: držet po dvou hodech", False),
        ("notatka: trzymać po dwóch rzutach", False),
        ("note sealed: carol wins", True),
        ("poznámka zapečetěná: vyhraje carol", True),
        ("notatka zapieczętowana: wygra carol", True),
    ],
)
def test_a_note_by_mail_is_the_seats_alone_and_a_sealed_one_opens_at_the_end(gw, transport, line, sealed):
    game_id = _game(gw, transport)
    text = line.split(":", 1)[1].strip()
    gw.receive(make_mail(ANN, address_of(gw, game_id, ANN), f"{line}\n\nhold"))
    gw.work()
    game = gw.service.game(game_id)
    (entry,) = [e for e in game.entries if e["kind"] == "noted"]
    assert entry["seat"] == 0 and entry["sealed"] is sealed
    reply = _replies(transport, ANN)[0]
    assert "Your moves were applied." in text_of(reply) and text in text_of(reply)
    assert "receipt.json" in text_of(reply)  # the move's receipt
    for player in (BOB, CAROL):
        assert all(text not in text_of(m) for m in transport.to(player))
    assert any("sealed a note" in text_of(m) or "made a private note" in text_of(m) for m in transport.to(BOB))


def test_a_note_alone_gets_its_receipt(gw, transport):
    game_id = _game(gw, transport)
    gw.receive(make_mail(BOB, address_of(gw, game_id, BOB), "note sealed: ann will roll twice"))
    gw.work()
    reply = _replies(transport, BOB)[0]
    assert check_receipt(_receipt(reply)).text == "ann will roll twice"
