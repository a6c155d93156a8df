"""Issue 28, the attacks: budgets no forger can move and a bounded cost for every input. One
regression test per attack, each through a real SMTP conversation with the gateway (aiosmtpd on
loopback, smtplib as the attacker's MTA), with a positive control where it helps. Each failed
on the code before its fix (main at 2cf27b7)."""

from __future__ import annotations

import base64

import pytest

from mailgateway import parse
from mailgateway.parse import parse_message
from tests.mailgateway.conftest import SERVICE, address_of, make_mail, text_of
from tests.mailgateway.test_security import game_of, replies

ANN, BOB, EVE = "ann@example.com", "bob@example.com", "eve@evil.example"


# -- a declared charset is read only when it is a text encoding mail uses ----------------------
def test_a_mail_declaring_punycode_is_read_as_text_and_answered(gw, smtp, transport):
    """256 KiB declaring charset=punycode cost 12-15 s of CPU (its decoder is quadratic) and
    was then dropped without an answer."""
    # one long line once decoded; punycode spent 12 s on it and then raised UnicodeError
    body = base64.encodebytes(b"abc-" + b"9" * 180_000).decode()
    raw = (
        f"From: {ANN}\r\nTo: {SERVICE}\r\nSubject: x\r\nMessage-ID: <puny@client.example>\r\n"
        "Content-Type: text/plain; charset=punycode\r\nContent-Transfer-Encoding: base64\r\n\r\n" + body
    ).encode()
    assert smtp(raw, ANN, SERVICE) == 250
    gw.work()
    (reply,) = replies(transport, ANN)
    assert "longer than 1000 characters" in text_of(reply)


@pytest.mark.parametrize("charset", ["punycode", "idna", "unicode_escape", "raw_unicode_escape", "base64", "zlib"])
def test_python_codecs_that_are_no_mail_charset_are_not_used(charset):
    assert parse.text_charset(charset) == "utf-8"
    raw = f"From: {ANN}\r\nContent-Type: text/plain; charset={charset}\r\n\r\nbcher-kva\r\n".encode()
    assert parse_message(raw, ANN, (SERVICE,), SERVICE).lines == ("bcher-kva",)  # punycode would say "bücher"


@pytest.mark.parametrize("charset", ["iso-8859-2", "windows-1250", "utf-8", "koi8-r", "gb18030", "utf-7"])
def test_positive_control_real_charsets_are_read(charset):
    text = "příliš" if charset not in ("koi8-r", "gb18030") else "ход"
    raw = f"From: {ANN}\r\nContent-Type: text/plain; charset={charset}\r\n\r\n".encode() + text.encode(charset)
    assert parse_message(raw, ANN, (SERVICE,), SERVICE).lines == (text,)


def test_an_encoded_word_in_a_python_codec_is_not_decoded_with_it():
    raw = f"From: {ANN}\r\nSubject: =?punycode?q?bcher-kva?=\r\n\r\n".encode()
    assert parse_message(raw, ANN, (SERVICE,), SERVICE).subject != "bücher"


# -- automatic mail: the markers mail systems set ----------------------------------------------
MARKERS = [
    {"X-Mailer": "vacation"},
    {"X-Precedence": "auto_reply"},
    {"Preference": "auto_reply"},
    {"Feedback-ID": "1:campaign:sender"},
    {"X-AutoReply-From": ANN},
    {"X-Mail-Autoreply": "yes"},
    {"X-FC-MachineGenerated": "true"},
    {"X-POST-MessageClass": "9; Autoresponder"},
    {"Delivered-To": "Autoresponder"},
    {"Return-Path": "<MAILER-DAEMON>"},
    {"X-Auto-Response-Suppress": "DR, RN"},
    {"List-Help": "<mailto:list-help@lists.example>"},
    {"X-Failed-Recipients": "ann@example.com"},
    {"X-MS-Exchange-Inbox-Rules-Loop": ANN},
]


@pytest.mark.parametrize("headers", MARKERS, ids=lambda h: next(iter(h)))
def test_every_automatic_mail_marker_is_not_answered(gw, smtp, transport, headers):
    assert smtp(make_mail(ANN, SERVICE, "help", headers=headers), ANN, SERVICE) == 250
    gw.work()
    assert transport.sent == []


@pytest.mark.parametrize(
    "subject", ["Out of Office: moves", "Automatic reply: [pbem] game", "Automatická odpověď: tah"]
)
def test_out_of_office_subjects_are_not_answered(gw, smtp, transport, subject):
    smtp(make_mail(ANN, SERVICE, "I am away until Monday.", subject=subject), ANN, SERVICE)
    gw.work()
    assert transport.sent == []


@pytest.mark.parametrize(
    "headers", [{"X-Auto-Response-Suppress": "OOF"}, {"X-Mailer": "Thunderbird 115"}, {"Precedence": "first-class"}]
)
def test_positive_control_ordinary_mail_with_such_headers_is_answered(gw, smtp, transport, headers):
    smtp(make_mail(ANN, SERVICE, "help", subject="Re: out of ideas", headers=headers), ANN, SERVICE)
    gw.work()
    assert len(transport.to(ANN)) == 1


# -- reply headers are bounded in bytes -------------------------------------------------------
def test_a_long_non_ascii_message_id_does_not_swell_the_reply(gw, smtp, transport):
    """A 60 KB non-ASCII Message-ID made a reply of 625 KB (In-Reply-To and References)."""
    text = ("<" + "é" * 20_000 + "@x>").encode()
    words = [base64.b64encode(text[n : n + 45]).decode() for n in range(0, len(text), 45)]
    long_id = "\r\n ".join(f"=?utf-8?b?{word}?=" for word in words)  # folded encoded words, joined when read
    raw = make_mail(ANN, SERVICE, "help", message_id=None).replace(
        b"Subject:", f"Message-ID: {long_id}\r\nReferences: {long_id} {long_id}\r\nSubject:".encode(), 1
    )
    assert smtp(raw, ANN, SERVICE) == 250
    gw.work()
    (reply,) = replies(transport, ANN) or transport.to(ANN)
    head = reply.as_bytes().split(b"\n\n", 1)[0]
    assert len(head) < 4_000 and len(reply.as_bytes()) < 70_000


def test_positive_control_a_well_formed_message_id_is_threaded(gw, smtp, transport):
    smtp(make_mail(ANN, SERVICE, "help", message_id="<thread-me@client.example>"), ANN, SERVICE)
    gw.work()
    (reply,) = replies(transport, ANN)
    assert reply["In-Reply-To"] == "<thread-me@client.example>"


# -- duplicates are the same mail, not the same Message-ID ------------------------------------
def test_a_message_id_learned_in_advance_cannot_make_a_move_a_duplicate(gw, smtp, transport):
    """Somebody who knows the Message-ID a player's client will use sends a mail with it first:
    the player's real move used to be taken for a duplicate and silently dropped."""
    game = game_of(gw)
    player = gw.service.game(game).emails[
        gw.service.game(game).spec.to_move(gw.service.state(gw.service.game(game)))[0]
    ]
    stolen = "<next-move@client.example>"
    smtp(make_mail(EVE, SERVICE, "help", message_id=stolen), EVE, SERVICE)
    before = gw.service.game(game).version
    address = address_of(gw, game, player)
    assert smtp(make_mail(player, address, "roll", message_id=stolen), player, address) == 250
    assert gw.service.game(game).version == before + 1
    gw.work()
    assert any("applied" in text_of(m) for m in replies(transport, player))


def test_positive_control_the_same_mail_delivered_twice_is_one_move(gw, smtp, transport):
    game = game_of(gw)
    player = gw.service.game(game).emails[
        gw.service.game(game).spec.to_move(gw.service.state(gw.service.game(game)))[0]
    ]
    address = address_of(gw, game, player)
    raw = make_mail(player, address, "roll", message_id="<once@client.example>")
    before = gw.service.game(game).version
    smtp(raw, player, address)
    smtp(b"Received: from relay2 by mx; Mon, 5 Jan 2026 12:00:00 +0000\r\n" + raw, player, address)
    assert gw.service.game(game).version == before + 1
    gw.work()
    assert len(replies(transport, player)) == 1
