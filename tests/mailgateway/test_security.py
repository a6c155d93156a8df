"""Issue "no single mail may stop, flood or impersonate": one regression test per attack, each
through a real SMTP conversation with the gateway (aiosmtpd on loopback, smtplib as the
attacker's MTA). Each asserts what an attack must not achieve and, where it helps, a positive
control showing the same path works for the real player."""

from __future__ import annotations

import email
import smtplib
import stat
from dataclasses import replace
from datetime import UTC, timedelta
from email.message import EmailMessage

import pytest

from mailgateway.smtp import controller
from pbem.mailroom.deadlines import deadline_at
from pbem.mailroom.records import Correspondent, GameClock
from tests.mailgateway.conftest import SERVICE, address_of, confirmed, free_port, hold_mails, make_mail, text_of
from tests.mailgateway.playbook import state_of

ANN, BOB, EVE = "ann@example.com", "bob@example.com", "eve@evil.example"


def game_of(gw, players=(ANN, BOB)) -> str:
    game_id = gw.service.create("hidden-pig", list(players), {}, seed=b"\x07" * 32)
    for player in players:
        gw.service.join(game_id, player)
    gw.work()
    return game_id


def replies(transport, to):
    return [m for m in transport.to(to) if m["In-Reply-To"]]


# -- 1: values that overflow the scheduler ------------------------------------------------------
@pytest.mark.parametrize("option", ["deadline=99999999", "reminder=99999999999", "robot-after=999", "deadline=0"])
def test_out_of_range_mail_options_are_refused_and_create_nothing(gw, smtp, transport, option):
    before = len(gw.service.game_ids())
    assert smtp(make_mail(ANN, SERVICE, f"new hidden-pig {ANN} {BOB} {option}"), ANN, SERVICE) == 250
    gw.work()
    assert len(gw.service.game_ids()) == before
    assert "refused" in text_of(replies(transport, ANN)[0])


def test_far_absence_dates_are_refused(gw, smtp, transport):
    smtp(make_mail(ANN, SERVICE, "absence 9999-12-31 9999-12-31"), ANN, SERVICE)
    gw.work()
    assert "within two years" in text_of(replies(transport, ANN)[0])
    assert gw.mailroom.clocks.find(Correspondent.create_id(ANN)) is None


def test_a_stored_value_that_overflows_stops_only_its_own_game(gw, smtp, transport, clock, caplog):
    bad, good = game_of(gw), game_of(gw, (EVE, "carol@example.com"))
    poisoned = Correspondent(ANN)
    poisoned.add_absence("9999-12-30", "9999-12-31")  # stored before the limits existed
    clock_record = GameClock(bad, {"deadline": 99_999_999})
    gw.service.store.save(poisoned, clock_record)
    smtp(make_mail(ANN, address_of(gw, bad, ANN), "hold"), ANN, address_of(gw, bad, ANN))
    gw.work()
    clock.advance(hours=80)  # past the good game's 48 h deadline
    gw.work()
    gw.work()
    assert gw.service.game(good).entries[-1]["source"] == "deadline"  # its deadline still ran
    assert replies(transport, ANN)  # and mail still leaves
    alarms = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert any(bad in a or ANN in a for a in alarms)  # the bad game's failure is an alarm in the log
    assert not any(good in a for a in alarms)


# -- 2: flooding strangers -----------------------------------------------------------------------
def test_new_games_only_for_the_sender_and_at_most_ten_a_day(gw, smtp, transport):
    strangers = " ".join(f"s{n}@victim.example" for n in range(4))
    smtp(make_mail(EVE, SERVICE, f"new hidden-pig {strangers}"), EVE, SERVICE)
    lines = "\n".join(f"new hidden-pig {EVE} v{n}@victim.example" for n in range(40))
    smtp(make_mail(EVE, SERVICE, lines), EVE, SERVICE)
    gw.work()
    invited = [m for m in transport.sent if m[1].endswith("@victim.example")]
    assert len(gw.service.game_ids()) == 10 and len(invited) == 10
    assert "one of its players" in text_of(replies(transport, EVE)[0])
    assert "at most 10 new games a day" in text_of(replies(transport, EVE)[1])


def test_one_address_gets_at_most_five_invitations_a_day(gw, smtp, transport):
    for n in range(8):
        sender = f"p{n}@example.org"
        smtp(make_mail(sender, SERVICE, f"new hidden-pig {sender} target@victim.example"), sender, SERVICE)
    gw.work()
    assert len(transport.to("target@victim.example")) == 5


def test_invitations_to_known_players_and_from_the_operator_are_not_limited(gw, smtp, transport):
    confirmed(gw, transport, "target@example.org", "pictures off")  # it wrote to us and showed it was itself
    for n in range(7):
        sender = f"p{n}@example.org"
        smtp(make_mail(sender, SERVICE, f"new hidden-pig {sender} target@example.org"), sender, SERVICE)
    for _ in range(7):  # the operator's own games (pbem new) are not strangers' mail
        gw.service.create("hidden-pig", ["op1@example.org", "op2@example.org"])
    gw.work()
    assert len([m for m in transport.to("target@example.org") if not m["In-Reply-To"]]) == 7
    assert len(transport.to("op1@example.org")) == 7


def test_many_lines_are_refused_whole_and_a_reply_is_bounded(gw, smtp, transport):
    smtp(make_mail(EVE, SERVICE, "catalog\n" * 6000), EVE, SERVICE)
    gw.work()
    (reply,) = replies(transport, EVE)
    assert "at most 100 command lines" in text_of(reply) and len(reply.as_bytes()) < 70_000


def test_a_forged_subscribe_needs_the_owners_confirmation(gw, smtp, transport):
    game = game_of(gw)
    smtp(make_mail(ANN, SERVICE, f"subscribe {game}"), EVE, SERVICE)  # eve forges ann's From
    gw.work()
    transport.clear()
    for _ in range(3):
        player = gw.service.game(game).emails[
            gw.service.game(game).spec.to_move(gw.service.state(gw.service.game(game)))[0]
        ]
        smtp(make_mail(player, address_of(gw, game, player), "hold"), player, address_of(gw, game, player))
    gw.work()
    assert not any("update" in state_of(m) for m in transport.to(ANN))  # no observer mail without consent


# -- 3: internal keys ----------------------------------------------------------------------------
def test_a_message_id_cannot_take_a_deadlines_key(gw, smtp, transport, clock):
    game = game_of(gw)
    version = gw.service.game(game).version
    seat = gw.service.game(game).spec.to_move(gw.service.state(gw.service.game(game)))[0]
    for key in (f"deadline/{game}/{version}/{seat}", f"deadline:{game}/{version}/{seat}"):
        smtp(make_mail(EVE, SERVICE, "help", message_id=f"<{key}>"), EVE, SERVICE)
    clock.advance(hours=49)
    gw.work()
    assert gw.service.game(game).entries[-1]["source"] == "deadline"  # the deadline still fired


# -- 4: forged standing commands -----------------------------------------------------------------
@pytest.mark.parametrize("command", ["absence 2026-01-06 2026-01-20", "absence off", "language cs", "unsubscribe GAME"])
def test_forged_standing_commands_change_nothing(gw, smtp, transport, command):
    game = game_of(gw)
    confirmed(gw, transport, ANN, f"subscribe {game}\nabsence 2026-02-01 2026-02-02")
    before = gw.mailroom.clocks.find(Correspondent.create_id(ANN))
    smtp(make_mail(ANN, SERVICE, command.replace("GAME", game)), EVE, SERVICE)  # From: ann, sent by eve
    gw.work()
    after = gw.mailroom.clocks.find(Correspondent.create_id(ANN))
    assert (after.language, after.absences) == (before.language, before.absences)
    assert (
        ANN
        in gw.mailroom.clocks.find(
            __import__("pbem.mailroom.records", fromlist=["Watchers"]).Watchers.create_id(game)
        ).emails
    )


@pytest.mark.parametrize("command", ["resign GAME", "rotate GAME"])
def test_forged_seat_commands_on_the_service_address_change_nothing(gw, smtp, transport, command):
    """Resigning (the robot takes the seat) and a new private address need the seat's address."""
    game = game_of(gw)
    version, address = gw.service.game(game).version, address_of(gw, game, ANN)
    smtp(make_mail(ANN, SERVICE, command.replace("GAME", game)), EVE, SERVICE)  # From: ann, sent by eve
    gw.work()
    assert gw.service.game(game).version == version and not gw.service.game(game).robots
    assert address_of(gw, game, ANN) == address
    assert "private address" in text_of(replies(transport, ANN)[0])  # ann is told where it works


def test_standing_commands_from_the_private_address_apply_at_once(gw, smtp, transport):
    game = game_of(gw)
    address = address_of(gw, game, ANN)
    smtp(make_mail(ANN, address, "absence 2026-01-06 2026-01-08"), ANN, address)
    assert gw.mailroom.clocks.find(Correspondent.create_id(ANN)).absences == [["2026-01-06", "2026-01-08"]]


def test_many_absences_are_refused(gw, smtp, transport):
    game = game_of(gw)
    address = address_of(gw, game, ANN)
    lines = "\n".join(
        f"absence 2026-0{1 + n // 28}-{1 + n % 28:02d} 2026-0{1 + n // 28}-{1 + n % 28:02d}" for n in range(25)
    )
    rows = lines.split("\n")
    for first in range(0, 25, 5):  # five changes a mail, the most one mail may make (issue 28)
        smtp(make_mail(ANN, address, "\n".join(rows[first : first + 5])), ANN, address)
    assert len(gw.mailroom.clocks.find(Correspondent.create_id(ANN)).absences) == 20


# -- 5: absences longer than the deadline ----------------------------------------------------------
def test_an_absence_longer_than_the_deadline_moves_it_past_the_absence():
    from datetime import datetime

    since = datetime(2026, 6, 30, 12, tzinfo=UTC)
    due = deadline_at(since, 72, [["2026-07-01", "2026-07-14"]])
    assert due == datetime(2026, 7, 17, 12, tzinfo=UTC)  # 12 h before, 60 h after the holiday
    assert deadline_at(since, 72, []) == since + timedelta(hours=72)  # positive control: no absence


# -- 6: junk ---------------------------------------------------------------------------------------
def test_a_big_mail_of_junk_lines_is_refused_without_reading_each_line(gw, smtp, transport):
    game = game_of(gw)
    address = address_of(gw, game, ANN)
    version = gw.service.game(game).version
    smtp(make_mail(ANN, address, "xyzzy plugh\n" * 20_000), ANN, address)
    gw.work()
    assert gw.service.game(game).version == version
    assert "at most 100 command lines" in text_of(replies(transport, ANN)[0])


def _raw(head: str, body: bytes, sender: str = ANN) -> bytes:
    return (
        f"From: {sender}\r\nTo: {SERVICE}\r\nSubject: x\r\nMessage-ID: <{len(body)}.{len(head)}@x>\r\n{head}\r\n"
    ).encode() + body


def test_smtp_takes_mail_up_to_128_kib_over_the_limit_and_answers_it_short(gw, smtp, transport):
    """Row 6's class in SMTP itself: aiosmtpd reads DATA line by line on the loop that every
    conversation shares; 2 MiB of short lines (the former cap) held the next mail 2 s."""
    assert smtp(_raw("", b"x\r\n" * 100_000), ANN, SERVICE) == 250  # 300 KB: over the limit, answered
    gw.work()
    (reply,) = replies(transport, ANN)
    assert "the limit is 262144" in text_of(reply)
    client = smtplib.SMTP("127.0.0.1", smtp.port, timeout=30)
    with client, pytest.raises(smtplib.SMTPSenderRefused) as refused:  # 400 KB: refused at once (SIZE)
        client.sendmail(ANN, [SERVICE], _raw("", b"x\r\n" * 135_000))
    assert refused.value.smtp_code == 552


def test_a_header_block_over_64_kib_is_refused_from_its_start(gw, smtp, transport):
    """Row 6's class in the headers: a Cc of encoded-word addresses cost 0.4 s per 200 KB (9 s at
    the 2 MiB SMTP limit); only the first 64 KiB of a header block is read now, and the mail is
    refused with the reason (benchmarks: the next mail's 250 is not held up)."""
    cc = ",\r\n ".join(f"=?utf-8?q?a=40b?= <a{n}@x.example>" for n in range(5_500))  # folded, as MTAs send
    raw = _raw(f"Cc: {cc}\r\n", b"help\r\n")
    assert 65_536 < len(raw) < 262_144 and smtp(raw, ANN, SERVICE) == 250
    gw.work()
    (reply,) = replies(transport, ANN)
    assert "headers are longer than 64 KiB" in text_of(reply) and "Commands for" not in text_of(reply)


def test_a_mail_being_read_does_not_stop_other_smtp_conversations(gw, monkeypatch):
    """Row 6: reading runs off the receive loop. While one mail is held inside the gateway, a
    second client still gets its greeting, MAIL and RCPT answered."""
    import threading

    reading, release = hold_mails(monkeypatch, gw, "receive", b"held-mail")
    port = free_port()
    server = controller(gw, "127.0.0.1", port)
    server.start()

    def send_held() -> None:
        raw = make_mail(ANN, SERVICE, "help", subject="held-mail").replace(b"\n", b"\r\n")
        with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
            client.sendmail(ANN, [SERVICE], raw)

    first = threading.Thread(target=send_held)
    first.start()
    try:
        assert reading.wait(30)
        with smtplib.SMTP("127.0.0.1", port, timeout=10) as other:
            assert other.ehlo()[0] == 250 and other.mail(BOB)[0] == 250 and other.rcpt(SERVICE)[0] == 250
    finally:
        release.set()
        first.join(60)
        server.stop()
        server.handler.close()


def test_parts_nested_thousands_deep_are_answered(gw, smtp, transport):
    """Row 6's class in MIME: reading 4,000 nested parts took 1.4 s and then failed unanswered."""
    nested = b"".join(b"--b%d\r\nContent-Type: multipart/mixed; boundary=b%d\r\n\r\n" % (n, n + 1) for n in range(4000))
    raw = _raw("MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b0\r\n", nested)
    assert smtp(raw, ANN, SERVICE) == 250
    gw.work()
    (reply,) = replies(transport, ANN)
    assert "more MIME parts than pbem reads" in text_of(reply)


def test_a_long_html_only_mail_is_answered_without_reading_it(gw, smtp, transport):
    """Row 6's class in HTML: the HTML parser read 250 KB of tags in up to 0.7 s."""
    raw = _raw("MIME-Version: 1.0\r\nContent-Type: text/html\r\n", b"<p>help</p>\r\n" * 6_000)
    assert smtp(raw, ANN, SERVICE) == 250
    gw.work()
    (reply,) = replies(transport, ANN)
    assert "HTML is longer than 64 KiB" in " ".join(text_of(reply).split()) and "Commands for" not in text_of(reply)


def test_a_mail_of_thousands_of_parts_is_answered_without_reading_them(gw, smtp, transport):
    """Row 6's class in MIME: 25,000 empty parts in 250 KB took 0.75 s to read."""
    raw = _raw("MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n", b"--b\r\n\r\nhelp\r\n" * 20_000)
    assert smtp(raw, ANN, SERVICE) == 250
    gw.work()
    (reply,) = replies(transport, ANN)
    assert "more MIME parts than pbem reads" in text_of(reply) and "Commands for" not in text_of(reply)


# -- 7, 8: From and header differentials ------------------------------------------------------------
FORMS = [
    "bob@example.com <eve@evil.example>",
    '"bob@example.com" <eve@evil.example>',
    "=?utf-8?q?bob=40example=2Ecom?= <eve@evil.example>",
    "bob@example.com, eve@evil.example",
    "<bob@example.com> <eve@evil.example>",
    "bob@example.com (eve@evil.example)",
    "eve@evil.example <bob@example.com",
]


@pytest.mark.parametrize("sender", FORMS)
def test_from_forms_that_could_name_two_senders_are_refused(gw, smtp, transport, sender):
    game = game_of(gw)
    address = address_of(gw, game, BOB)
    version = gw.service.game(game).version
    raw = make_mail(BOB, address, "hold").replace(b"From: bob@example.com", f"From: {sender}".encode())
    assert smtp(raw, EVE, address) == 250
    gw.work()
    assert gw.service.game(game).version == version
    assert replies(transport, BOB) == []  # nothing goes to the address read from a bad header
    assert "From header" in text_of(replies(transport, EVE)[0])  # the envelope sender learns why


def test_two_from_or_two_message_id_headers_are_refused_with_a_reason(gw, smtp, transport):
    game = game_of(gw)
    address = address_of(gw, game, BOB)
    version = gw.service.game(game).version
    raw = make_mail(BOB, address, "hold")
    smtp(b"From: eve@evil.example\r\n" + raw, EVE, address)
    smtp(b"Message-ID: <new-id@evil.example>\r\n" + raw, EVE, address)
    gw.work()
    assert gw.service.game(game).version == version
    texts = [text_of(m) for m in replies(transport, EVE)]
    assert any("more than one From" in t for t in texts) and any("more than one Message-ID" in t for t in texts)


def test_the_positive_control_a_plain_from_moves(gw, smtp, transport):
    game = game_of(gw)
    seat = gw.service.game(game).spec.to_move(gw.service.state(gw.service.game(game)))[0]
    player = gw.service.game(game).emails[seat]
    version = gw.service.game(game).version
    raw = make_mail(player, address_of(gw, game, player), "hold")
    raw = raw.replace(f"From: {player}".encode(), f"From: Ann Smith <{player}>".encode())
    smtp(raw, player, address_of(gw, game, player))
    assert gw.service.game(game).version == version + 1


# -- 9, 10: content errors are answers, never 4xx ---------------------------------------------------
def test_a_non_ascii_token_is_an_answer_not_a_temporary_failure(gw, smtp, transport):
    game = game_of(gw)
    raw = (
        f"From: {ANN}\r\nTo: pbem+{game}.tokenž@example.org\r\nSubject: x\r\nMessage-ID: <utf@x>\r\n"
        f"Content-Type: text/plain; charset=utf-8\r\n\r\nhold\r\n"
    ).encode()
    assert smtp(raw, ANN, SERVICE) == 250  # the envelope names the service, the header the game


@pytest.mark.parametrize("version", ["²", "9" * 4300, "-3"])
def test_a_turn_file_with_an_odd_version_is_answered(gw, smtp, transport, version):
    game = game_of(gw)
    address = address_of(gw, game, ANN)
    before = gw.service.game(game).version
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = ANN, address, "turn", f"<v{len(version)}@x>"
    msg.set_content("my turn file")
    msg.add_attachment(f"game: {game}\nplayer: {ANN}\nversion: {version}\n\nhold\n", filename="turn.txt")
    assert smtp(bytes(msg), ANN, address) == 250
    gw.work()
    assert gw.service.game(game).version == before
    assert "nothing was applied" in text_of(replies(transport, ANN)[0]).lower()


def test_a_refused_new_creates_nothing(gw, smtp, transport):
    before = len(gw.service.game_ids())
    smtp(make_mail(ANN, SERVICE, f"new hidden-pig {ANN} {BOB} deadline=²"), ANN, SERVICE)
    gw.work()
    assert len(gw.service.game_ids()) == before and transport.to(BOB) == []


def test_a_bug_hit_by_a_mail_is_answered_not_retried(gw, smtp, transport, monkeypatch):
    monkeypatch.setattr(gw.desk, "_global", lambda *a: (_ for _ in ()).throw(KeyError("bug")))
    assert smtp(make_mail(ANN, SERVICE, "help"), ANN, SERVICE) == 250
    gw.work()
    assert "could not be processed" in text_of(replies(transport, ANN)[0])


# -- 11: automatic mail ------------------------------------------------------------------------
AUTOMATIC = [
    ({"X-Autoreply": "yes"}, ANN),
    ({"X-Autorespond": "vacation"}, ANN),
    ({"X-Autogenerated": "Reply"}, ANN),
    ({"X-Vacation": "on"}, ANN),
    ({}, "no_reply@example.com"),
    ({}, "do-not-reply@example.com"),
    ({}, "bounces+ann=example.com@lists.example"),
    ({"Return-Path": "<>"}, ANN),
]


@pytest.mark.parametrize(("headers", "sender"), AUTOMATIC)
def test_automatic_mail_is_not_answered(gw, smtp, transport, headers, sender):
    smtp(make_mail(sender, SERVICE, "help", headers=headers), sender, SERVICE)
    gw.work()
    assert transport.sent == []


def test_positive_control_a_person_is_answered(gw, smtp, transport):
    smtp(make_mail(ANN, SERVICE, "help"), ANN, SERVICE)
    gw.work()
    assert len(transport.to(ANN)) == 1


# -- 12: files ----------------------------------------------------------------------------------
def test_data_files_are_private(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from pbem.cli import main

    monkeypatch.setenv("PBEM_HOME", str(tmp_path / "home"))
    import os

    old = os.umask(0o022)
    try:
        assert CliRunner().invoke(main, ["mail-in"], input=make_mail(ANN, "pbem@localhost", "help")).exit_code == 0
        assert CliRunner().invoke(main, ["mail-work"]).exit_code == 0
    finally:
        os.umask(old)
    home = tmp_path / "home"
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    files = [p for p in home.rglob("*") if p.is_file()]
    assert any(p.name == "pbem.sqlite" for p in files) and any(p.suffix == ".eml" for p in files)
    assert {stat.S_IMODE(p.stat().st_mode) for p in files} == {0o600}


# -- 13: a leaked seat token --------------------------------------------------------------------
def test_rotate_by_mail_stops_the_old_address_at_once(gw, smtp, transport):
    game = game_of(gw)
    old = address_of(gw, game, ANN)
    smtp(make_mail(ANN, old, "rotate"), ANN, old)
    new = address_of(gw, game, ANN)
    assert new != old
    gw.work()
    (reply,) = replies(transport, ANN)
    assert new in text_of(reply) and reply["Reply-To"] == new
    version = gw.service.game(game).version
    seat = gw.service.game(game).seat_of(ANN)
    to_move = gw.service.game(game).spec.to_move(gw.service.state(gw.service.game(game)))
    smtp(make_mail(ANN, old, "hold"), ANN, old)  # the leaked address does nothing any more
    assert gw.service.game(game).version == version
    if seat in to_move:
        smtp(make_mail(ANN, new, "hold"), ANN, new)  # positive control: the new one works
        assert gw.service.game(game).version == version + 1


def test_a_token_rotated_by_another_process_stops_the_old_address_at_once(settings, mail_settings, clock, transport):
    """A gateway keeps the seat keys it has read, so a first attempt at a mail reads nothing;
    a token changed meanwhile by another process (``pbem rotate-token``) must still stop the
    old address for the very next mail: the save then fails, and the mail is read again afresh."""
    from mailgateway.gateway import Gateway
    from pbem.service.service import GameService

    here = GameService(settings, clock=lambda: clock().isoformat(timespec="seconds"))
    elsewhere = GameService(settings)
    try:
        gw = Gateway(here, mail_settings, clock=clock, transport=transport)
        game = game_of(gw)
        loaded = here.game(game)
        mover = loaded.emails[loaded.spec.to_move(here.state(loaded))[0]]
        old = address_of(gw, game, mover)
        assert gw.receive(make_mail(mover, old, "status"), mover, [old]) == "processed"  # keys kept here now
        version = here.game(game).version
        elsewhere.rotate_token(game, mover)
        assert gw.receive(make_mail(mover, old, "hold"), mover, [old]) == "processed"  # answered: refused
        assert here.game(game).version == version
        new = address_of(gw, game, mover)
        assert new != old
        assert gw.receive(make_mail(mover, new, "hold"), mover, [new]) == "processed"  # positive control
        assert here.game(game).version == version + 1
    finally:
        elsewhere.close()
        here.close()


def test_rotate_token_on_the_command_line(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from pbem.cli import main
    from pbem.service.service import GameService

    monkeypatch.setenv("PBEM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PBEM_MAIL_ADDRESS", SERVICE)
    svc = GameService()
    game = svc.create("hidden-pig", [ANN, BOB], {}, seed=b"\x08" * 32)
    old = svc.seat_token(game, 0)
    svc.close()
    result = CliRunner().invoke(main, ["rotate-token", game, "--as", ANN])
    assert result.exit_code == 0, result.output
    assert old not in result.output and f"pbem+{game}." in result.output
    assert CliRunner().invoke(main, ["rotate-token", game, "--as", EVE]).exit_code == 2
    assert CliRunner().invoke(main, ["mail-work"]).exit_code == 0  # the player is told, from the new address
    new_address = result.output.splitlines()[0]
    to_ann = [m for m in map(email.message_from_bytes, _outgoing(tmp_path / "home")) if m["To"] == ANN]
    told = [m for m in to_ann if "address for this game has changed" in " ".join(_text(m).split())]
    assert [m["Reply-To"] for m in told] == [new_address] and new_address in _text(told[0])
    assert not any(old in m.as_string() for m in to_ann)  # the leaked token is in no mail sent after


def _outgoing(home) -> list[bytes]:
    return [p.read_bytes() for p in sorted(home.rglob("*.eml"))]


def _text(msg) -> str:
    part = next(p for p in msg.walk() if p.get_content_type() == "text/plain")
    return part.get_payload(decode=True).decode()


# -- 11: bounces to the VERP return path -----------------------------------------------------------
def dsn(return_path: str, status: str, n: int) -> bytes:
    """A delivery status notification (RFC 3464) as an MTA sends it back to a return path."""
    return (
        f"From: MAILER-DAEMON@mx.example.com\nTo: {return_path}\nSubject: Undelivered Mail\n"
        f"Message-ID: <dsn{n}.{status}@mx.example.com>\nAuto-Submitted: auto-replied\nMIME-Version: 1.0\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b"\n\n'
        "--b\nContent-Type: text/plain\n\nDelivery failed.\n"
        "--b\nContent-Type: message/delivery-status\n\nReporting-MTA: dns; mx.example.com\n\n"
        f"Final-Recipient: rfc822; {ANN}\nAction: failed\nStatus: {status}\n\n--b--\n"
    ).encode()


def test_a_bounce_marks_the_address_undeliverable_until_it_writes_again(service, mail_settings, clock):
    """Outgoing mail through a real SMTP relay; the bounces come back to the gateway's own SMTP
    server with a null envelope sender, as an MTA sends a DSN. Issue 28: an address is marked
    only after permanent failures of three different mails we sent within a day (a forged
    mail can provoke one genuine bounce), and every other player's mail then says so."""
    from aiosmtpd.controller import Controller

    from mailgateway.gateway import Gateway
    from tests.mailgateway.conftest import Sink

    sink = Sink()
    port, inbound = free_port(), free_port()
    relay = Controller(sink, hostname="127.0.0.1", port=port)
    relay.start()
    gw = Gateway(service, replace(mail_settings, relay=("127.0.0.1", port)), clock=clock)
    server = controller(gw, "127.0.0.1", inbound)
    server.start()

    def bounce(raw: bytes, to: str) -> None:
        with smtplib.SMTP("127.0.0.1", inbound, timeout=30) as client:
            client.sendmail("", [to], raw.replace(b"\n", b"\r\n"))  # MAIL FROM:<>

    try:
        for _ in range(3):
            gw.receive(make_mail(ANN, SERVICE, "help"))
        gw.work()
        paths = [envelope.mail_from for envelope in sink.envelopes]
        assert len(set(paths)) == 3 and all(p.startswith("pbem+bounce=") and p.endswith("@example.org") for p in paths)
        forged = paths[0].replace("bounce=", "bounce=0")  # a guessed tag marks nobody
        bounce(make_mail("MAILER-DAEMON@x.example", forged, "x"), forged)
        bounce(dsn(paths[0], "4.4.1", 1), paths[0])  # a delay says nothing about the address
        bounce(dsn(paths[0], "5.7.1", 2), paths[0])
        bounce(dsn(paths[0], "5.7.1", 3), paths[0])  # the same mail's bounce again counts once
        bounce(dsn(paths[1], "5.1.1", 4), paths[1])
        assert not gw.mailroom.views.undeliverable(ANN)  # two mails bounced: not yet
        bounce(make_mail("MAILER-DAEMON@mx.example.com", paths[2], "Delivery failed"), paths[2])  # no report: permanent
        assert gw.mailroom.views.undeliverable(ANN)
        game_id = game_of(gw)  # mail to ann now stops: only bob gets his invitation and "started" ...
        assert {tuple(e.rcpt_tos) for e in sink.envelopes[3:]} == {(BOB,)}
        started = email.message_from_bytes(sink.envelopes[-1].content)
        assert "Mail to ann keeps coming back undelivered" in _text(started)  # ... and hears why ann is silent
        gw.receive(make_mail(ANN, SERVICE, "help"))  # ... a mail in her name that anybody could forge
        gw.work()
        assert gw.mailroom.views.undeliverable(ANN) and {tuple(e.rcpt_tos) for e in sink.envelopes[3:]} == {(BOB,)}
        gw.receive(make_mail(ANN, address_of(gw, game_id, ANN), "help"))  # ... until ann herself writes again
        gw.work()
        assert not gw.mailroom.views.undeliverable(ANN) and sink.envelopes[-1].rcpt_tos == [ANN]
    finally:
        server.stop()
        server.handler.close()
        relay.stop()


def test_an_invitation_names_who_sent_it(gw, smtp, transport):
    smtp(make_mail(ANN, SERVICE, f"new hidden-pig {ANN} {BOB}"), ANN, SERVICE)
    gw.work()
    (invitation,) = [m for m in transport.to(BOB) if not m["In-Reply-To"]]
    assert f"{ANN} created this game by mail and invited you" in text_of(invitation)
    (own,) = [m for m in transport.to(ANN) if not m["In-Reply-To"]]
    assert "invited you" not in text_of(own)  # positive control: not to the creator


def test_an_absence_sent_by_mail_moves_the_deadline_past_it(gw, smtp, transport, clock):
    """Row 5 through SMTP: the docs' example, a 72-hour turn from noon on 30 June and a holiday
    from 1 to 14 July: 12 hours before it, 60 after it."""
    from datetime import datetime

    from pbem.mailroom.records import GameClock

    clock.now = datetime(2026, 6, 30, 12, tzinfo=UTC)
    game = gw.service.create("hidden-pig", [ANN, BOB], {}, seed=b"\x07" * 32)
    gw.service.store.save(GameClock(game, {"deadline": 72}))
    for player in (ANN, BOB):
        gw.service.join(game, player)
    gw.work()
    seat = gw.service.game(game).spec.to_move(gw.service.state(gw.service.game(game)))[0]
    player = gw.service.game(game).emails[seat]
    assert gw.mailroom.views.timer(game, seat, "deadline").due == datetime(2026, 7, 3, 12, tzinfo=UTC)
    address = address_of(gw, game, player)
    smtp(make_mail(player, address, "absence 2026-07-01 2026-07-14"), player, address)
    gw.work()
    assert gw.mailroom.views.timer(game, seat, "deadline").due == datetime(2026, 7, 17, 12, tzinfo=UTC)


def test_files_written_while_mail_flows_are_private(service, mail_settings, clock, tmp_path):
    """Row 12 through SMTP: the database and the outgoing maildir are the owner's only."""
    import os

    from mailgateway.gateway import Gateway

    old = os.umask(0o022)  # a careless caller's umask
    try:
        gw = Gateway(service, replace(mail_settings, maildir=service.settings.home / "maildir"), clock=clock)
        port = free_port()
        server = controller(gw, "127.0.0.1", port)
        server.start()
        try:
            with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
                client.sendmail(ANN, [SERVICE], make_mail(ANN, SERVICE, "help").replace(b"\n", b"\r\n"))
        finally:
            server.stop()
            server.handler.close()
        gw.work()
    finally:
        os.umask(old)
    home = service.settings.home
    mails = list((home / "maildir" / "new").iterdir())
    assert mails and {stat.S_IMODE(p.stat().st_mode) for p in mails} == {0o600}
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE((home / "pbem.sqlite").stat().st_mode) == 0o600


def test_join_after_the_start_is_answered_as_already_joined(gw, smtp, transport):
    """Found by the long fuzz run: a second 'join' once the game had started hit a KeyError."""
    game = game_of(gw)
    address = address_of(gw, game, ANN)
    assert smtp(make_mail(ANN, address, "join"), ANN, address) == 250
    gw.work()
    text = text_of(replies(transport, ANN)[-1])
    assert "already joined" in text and "could not be processed" not in text
