"""Parsing literal messages as common clients send them."""

from __future__ import annotations

from pathlib import Path

import pytest

from mailgateway.parse import command_lines, html_to_text, message_key, parse_message

MESSAGES = Path(__file__).parent / "messages"
OWN = "pbem@example.org"


def parse(name: str, **kwargs):
    return parse_message((MESSAGES / name).read_bytes(), own_address=OWN, **kwargs)


def test_top_posted_reply_keeps_only_the_new_lines():
    inbound = parse("thunderbird_top_posted.eml")
    assert inbound.lines == ("roll", "hold")
    assert inbound.key == "3f2a9c1e-top@example.net"
    assert inbound.message_id == "<3f2a9c1e-top@example.net>"
    assert inbound.references == ("<aaa111@example.org>",)
    assert inbound.sender == "ann@example.net"
    assert inbound.auto is None


def test_bottom_posted_reply_drops_quotes_and_signature():
    inbound = parse("bottom_posted.eml")
    assert inbound.lines == ("roll", "hold")


def test_html_only_mail_becomes_text_without_quote():
    inbound = parse("outlook_html_only.eml")
    # the closing and the name stay for the port's reader, which forgives them (pbem.mailroom.reading)
    assert inbound.lines == ("stav", "jazyk cs", "S pozdravem", "Karolína")
    assert inbound.recipients == ("pbem@example.org",)


def test_iso_8859_2_with_czech_and_polish_diacritics():
    inbound = parse("iso_8859_2.eml")
    assert inbound.lines == ("nová hra", "žluťoučký kůň úpěl ďábelské ódy", "Zażółć gęślą jaźń")
    assert inbound.subject == "Připojit"


def test_turn_file_attachment_is_found_and_other_attachments_kept_aside():
    inbound = parse("turn_file_attachment.eml")
    assert inbound.lines == ("Here is my turn file.",)
    assert [a.filename for a in inbound.attachments] == ["turn.txt", "board.png"]
    assert inbound.turn_file.startswith("game: hidden-pig-0a1b2c3d\nplayer: ann@example.net")
    assert inbound.attachments[1].text is None


def test_turn_file_in_the_body():
    raw = (
        b"From: a@x.org\r\nTo: pbem@example.org\r\nMessage-ID: <t@x>\r\n\r\n"
        b"# my orders\r\ngame: g-1\r\nplayer: a@x.org\r\nroll\r\n"
    )
    assert parse_message(raw).turn_file == "# my orders\ngame: g-1\nplayer: a@x.org\nroll"


def test_no_message_id_gives_a_content_hash_key():
    raw = (MESSAGES / "no_message_id.eml").read_bytes()
    inbound = parse_message(raw)
    assert inbound.message_id is None
    assert inbound.key == message_key(None, inbound.fingerprint) == "sha256:" + inbound.fingerprint
    assert parse_message(raw).key == inbound.key
    assert parse_message(raw + b"more\n").key != inbound.key
    relayed = b"Received: from mx by mx2\n  with SMTP; Mon, 5 Jan 2026\nDelivered-To: pbem@example.org\n" + raw
    assert parse_message(relayed.replace(b"\n", b"\r\n")).key == inbound.key


@pytest.mark.parametrize(
    "name, reason",
    [
        ("vacation_auto_reply.eml", "Auto-Submitted"),
        ("list_mail.eml", "Precedence"),
        ("bounce.eml", "report"),
    ],
)
def test_automatic_mail_is_recognised(name, reason):
    assert reason in (parse(name).auto or "")


def test_bounce_by_null_return_path_and_mailer_daemon():
    raw = b"From: someone@example.net\r\nTo: pbem@example.org\r\n\r\nhelp\r\n"
    assert parse_message(raw, envelope_from="<>").auto == "null return path (a bounce)"
    raw = b"From: MAILER-DAEMON@example.net\r\nTo: pbem@example.org\r\n\r\nhelp\r\n"
    assert "mailer-daemon" in parse_message(raw).auto


def test_our_own_mail_and_loops_are_not_answered():
    raw = b"From: pbem+g-1.tok@example.org\r\nTo: pbem@example.org\r\n\r\nhelp\r\n"
    assert parse_message(raw, own_address=OWN).auto == "our own address"
    raw = b"From: a@x.org\r\nTo: pbem@example.org\r\nX-Loop: pbem@example.org\r\n\r\nhelp\r\n"
    assert "X-Loop" in parse_message(raw, own_address=OWN).auto


def test_size_limit():
    raw = b"From: a@x.org\r\nTo: pbem@example.org\r\nMessage-ID: <big@x>\r\n\r\n" + b"roll\r\n" * 1000
    inbound = parse_message(raw, max_bytes=1000)
    assert inbound.too_large and inbound.lines == () and inbound.key == "big@x"


def test_command_lines_rules():
    text = "roll\n\n> quoted\nhold\n-- \nAnn\n"
    assert command_lines(text) == ["roll", "hold"]
    assert command_lines("hod\n-----Original Message-----\nFrom: x\nroll") == ["hod"]
    assert command_lines("Dne 5. 1. 2026 v 10:00 pbem napsal(a):\n> roll") == []
    assert command_lines("hold\npo 5. 1. 2026 v 12:00 odesílatel pbem <pbem@example.org> napsal:\nroll") == ["hold"]
    assert command_lines("hold\nW dniu 5.01.2026 o 12:00 pbem napisał:\nroll") == ["hold"]


def test_html_to_text_drops_scripts_and_quotes():
    text = html_to_text("<p>roll</p><script>hold()</script><blockquote>hold</blockquote><p>a&amp;b</p>")
    assert command_lines(text) == ["roll", "a&b"]


@pytest.mark.parametrize("raw", [b"From:<", b"From: <\r\n\r\nroll", b'Subject: x\r\nTo: "a" <\r\n\r\n', b"From::;\x00"])
def test_malformed_address_headers_do_not_crash_the_parser(raw):
    inbound = parse_message(raw, None, ("pbem@example.org",), OWN)
    assert inbound.sender == "" and inbound.auto == "sender missing"


def test_a_broken_to_header_does_not_hide_a_good_from():
    raw = b'From: Ann <ann@example.net>\r\nTo: "pbem" <\r\nMessage-ID: <b@x>\r\n\r\nhelp\r\n'
    inbound = parse_message(raw, None, ("pbem@example.org",), OWN)
    assert inbound.sender == "ann@example.net" and inbound.lines == ("help",) and inbound.auto is None
    assert inbound.recipients == ("pbem@example.org",)


@pytest.mark.parametrize(
    "header",
    [
        "ann@example.net",
        "Ann.Smith+pig-1a2b@mail.example.co.uk",
        "o'brien@example.ie",
        "a.b.c@x-y.example",
        "Ann <ann@example.net>",
        "ann@example.net, bob@example.net",
        '"Smith, Ann" <ann@example.net>',
        "a..b@example.net",
        ".ann@example.net",
        "ann@example",
        "ann@-example.net",
        "ann@example.net (Ann)",
        "undisclosed-recipients:;",
        "<ann@example.net>",
        "ann @example.net",
    ],
)
def test_plain_addresses_are_read_as_the_stdlib_address_parser_reads_them(header):
    from email.utils import getaddresses

    from mailgateway.parse import _addresses

    expected = [addr.strip().lower() for _, addr in getaddresses([header]) if "@" in addr]
    assert _addresses(header) == expected


def test_indexed_headers_answer_as_the_stdlib_message_does():
    from email import message_from_bytes, policy

    from mailgateway.email_adapter import ReadMessage

    raw = (
        b"Received: one\r\nreceived: two\r\nFrom: ann@example.net\r\nTO: a@example.net\r\nCc: b@example.net\r\n"
        b"Cc: c@example.net\r\nSubject: =?utf-8?q?hi?=\r\nX-Odd: \xff\r\n\r\nhold\r\n"
    )
    plain = message_from_bytes(raw, policy=policy.compat32)
    indexed = message_from_bytes(raw, ReadMessage, policy=policy.compat32)
    for name in ("Received", "from", "To", "CC", "subject", "X-Odd", "Missing"):
        assert str(indexed.get(name)) == str(plain.get(name))
        assert [str(v) for v in indexed.get_all(name, [])] == [str(v) for v in plain.get_all(name, [])]
    assert indexed.get("Missing", "none") == "none"
    for name in ("Received", "from", "X-Odd", "Missing"):
        assert (name in indexed) == (name in plain)


@pytest.mark.parametrize(
    "content_type",
    [
        None,
        "text/plain",
        'text/plain; charset="utf-8"',
        "text/plain; charset=UTF-8; format=flowed",
        "text/plain; CHARSET=ISO-8859-2",
        "text/plain; charset*=us-ascii'en'windows-1250",
        "text/plain; charset*=x-unknown''utf-8",
        'text/plain; charset="\xc4\x8desky"',
        "text/plain; charset=",
        "text/plain; name=x; charset=koi8-r",
    ],
)
def test_the_charset_is_the_stdlib_answer_also_when_remembered(content_type):
    """``ReadMessage`` remembers the charset per Content-Type text: the first and the second
    mail with the same text get what the stdlib answers, whatever the caller's default."""
    from email import message_from_bytes, policy

    from mailgateway.email_adapter import ReadMessage

    head = f"Content-Type: {content_type}\r\n".encode("latin-1") if content_type else b""
    raw = b"From: ann@example.net\r\n" + head + b"\r\nhold\r\n"
    plain = message_from_bytes(raw, policy=policy.compat32)
    for _ in range(2):
        indexed = message_from_bytes(raw, ReadMessage, policy=policy.compat32)
        for default in (None, "utf-8"):
            assert indexed.get_content_charset(default) == plain.get_content_charset(default)


@pytest.mark.parametrize(
    ("content_type", "lines"),
    [
        ("text/plain; format=flowed", ("build J1",)),
        ('text/plain; Format="Flowed"', ("build J1",)),
        ("text/plain; format*0=flo; format*1=wed", ("build J1",)),  # RFC 2231 continuations
        ("text/plain; charset=utf-8", ("build", "J1")),  # not flowed: the lines stay apart
    ],
)
def test_a_flowed_part_is_joined_in_every_spelling_of_its_format_parameter(content_type, lines):
    raw = (
        "From: ann@example.net\r\nTo: pbem@example.org\r\nSubject: s\r\nMessage-ID: <f@example.net>\r\n"
        f"Content-Type: {content_type}\r\n\r\nbuild \r\nJ1\r\n"
    ).encode()
    assert parse_message(raw).lines == lines


def test_headers_a_mail_does_not_carry_do_not_mark_it_automatic_and_one_it_carries_does():
    plain = (
        b"From: ann@example.net\r\nTo: pbem@example.org\r\nSubject: s\r\nMessage-ID: <g@example.net>\r\n\r\nhold\r\n"
    )
    assert parse_message(plain).auto is None
    listed = plain.replace(b"Subject: s", b"Subject: s\r\nlist-ID: <games.example.net>")
    assert parse_message(listed).auto == "List-Id header (mailing list)"
    bulk = plain.replace(b"Subject: s", b"Subject: s\r\nPRECEDENCE: Bulk")
    assert parse_message(bulk).auto == "Precedence: bulk"
