"""Issue 28, item 4: budgets no forger can move. Every mail goes through a real SMTP
conversation with the gateway. "Has written" means the address showed it was itself (a seat's
token, an answered confirmation, a DKIM signature of its own domain): a mail that only claims a
From never lifts a limit meant for strangers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

from mailgateway.gateway import Gateway
from mailgateway.smtp import controller
from pbem.mailroom.records import VerifiedAddress
from tests.mailgateway.conftest import SERVICE, address_of, confirmed, free_port, make_mail, started_pig, text_of

ANN, BOB, TARGET = "ann@example.com", "bob@example.com", "target@victim.example"


def send(smtp: Callable[[bytes, str, str], int], sender: str, to: str, body: str) -> int:
    return smtp(make_mail(sender, to, body), sender, to)


def invitations(transport, to: str) -> list:
    return [m for m in transport.to(to) if not m["In-Reply-To"]]


def test_a_forged_help_does_not_lift_the_invitation_limit(gw, smtp, transport):
    assert send(smtp, TARGET, SERVICE, "help") == 250  # anybody can send this in the target's name
    for n in range(8):
        inviter = f"p{n}@example.org"
        send(smtp, inviter, SERVICE, f"new hidden-pig {inviter} {TARGET}")
    gw.work()
    assert len(invitations(transport, TARGET)) == 5
    assert gw.mailroom.clocks.find(VerifiedAddress.create_id(TARGET)) is None


def test_positive_control_an_address_that_wrote_with_its_token_gets_every_invitation(gw, smtp, transport):
    game_id = started_pig(gw, transport, [TARGET, BOB])
    assert send(smtp, TARGET, address_of(gw, game_id, TARGET), "status") == 250
    for n in range(8):
        inviter = f"p{n}@example.org"
        send(smtp, inviter, SERVICE, f"new hidden-pig {inviter} {TARGET}")
    gw.work()
    assert len(invitations(transport, TARGET)) == 8
    assert gw.mailroom.clocks.find(VerifiedAddress.create_id(TARGET)).how == "token"


def test_junk_invitations_do_not_use_up_a_real_inviters(gw, smtp, transport):
    for n in range(6):  # invented inviters: their From is all they show
        inviter = f"junk{n}@example.net"
        send(smtp, inviter, SERVICE, f"new hidden-pig {inviter} {TARGET}")
    confirmed(gw, transport, ANN, "pictures off")  # ann answered a confirmation: she is herself
    send(smtp, ANN, SERVICE, f"new hidden-pig {ANN} {TARGET}")
    gw.work()
    got = invitations(transport, TARGET)
    assert len(got) == 6  # five of the junk, and ann's
    assert f"{ANN} created this game by mail" in text_of(got[-1])


def test_one_inviter_sends_one_stranger_at_most_three_invitations_a_day(gw, smtp, transport, clock):
    confirmed(gw, transport, ANN, "pictures off")
    send(smtp, ANN, SERVICE, "\n".join(f"new hidden-pig {ANN} {TARGET}" for _ in range(6)))
    gw.work()
    assert len(gw.service.game_ids()) == 6  # the games are made; only the invitations are held back
    assert len(invitations(transport, TARGET)) == 3
    clock.advance(days=1, minutes=1)
    send(smtp, ANN, SERVICE, f"new hidden-pig {ANN} {TARGET}")
    gw.work()
    assert len(invitations(transport, TARGET)) == 4  # a day later, one more


@contextmanager
def smtp_of(gw: Gateway) -> Iterator[Callable[[bytes, str, str], int]]:
    """The gateway's own SMTP server on loopback, and a function that sends it one mail."""
    import smtplib

    port = free_port()
    server = controller(gw, "127.0.0.1", port)
    server.start()

    def post(raw: bytes, sender: str, to: str) -> int:
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
            client.sendmail(sender, [to], raw.replace(b"\n", b"\r\n"))
        return 250

    try:
        yield post
    finally:
        server.stop()
        server.handler.close()


def test_mail_to_addresses_that_never_wrote_is_capped_per_hour_in_all(service, mail_settings, clock, transport):
    gw = Gateway(service, replace(mail_settings, strangers_per_hour=10), clock=clock, transport=transport)
    game_id = started_pig(gw, transport, [ANN, BOB])
    with smtp_of(gw) as post:
        for n in range(15):  # forged mails, each in another invented name
            send(post, f"v{n}@victim.example", SERVICE, "help")
        send(post, ANN, address_of(gw, game_id, ANN), "status")  # a player who showed her token
        send(post, ANN, SERVICE, "help")
        gw.work()
        answered = [to for _, to, _ in transport.sent]
        assert len([to for to in answered if to.endswith("@victim.example")]) == 10
        assert answered.count(ANN) == 2  # her replies are not a stranger's mail
        clock.advance(hours=1, minutes=1)
        send(post, "late@victim.example", SERVICE, "help")
        gw.work()
    assert [to for _, to, _ in transport.sent].count("late@victim.example") == 1  # the next hour's budget


SPAM_TEST = "XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X"  # providers refuse mail holding it


def test_a_reply_to_a_mail_that_only_claims_its_from_quotes_nothing_of_it(gw, smtp, transport):
    junk = "\n".join(f"junk {n} {SPAM_TEST}" for n in range(90))
    body = f"Hello {SPAM_TEST},\n\nhelp\nnew hidden-pig {SPAM_TEST}\n{junk}\n\nRegards, {SPAM_TEST}\n"
    raw = make_mail(ANN, SERVICE, body, subject=SPAM_TEST)
    assert smtp(raw, ANN, SERVICE) == 250  # anybody can send this with ann's address in From
    gw.work()
    (reply,) = transport.to(ANN)
    assert "GTUBE" not in reply.as_string()
    text = text_of(reply)
    assert "Commands for" in text and "> new" in text  # the answer is all there, the commands by name
    assert "not repeated here" in text and "refused: '...' is neither a mail address" in text


def test_positive_control_a_reply_to_a_player_at_her_private_address_quotes_her_lines(gw, smtp, transport):
    game_id = started_pig(gw, transport, [ANN, BOB])
    address = address_of(gw, game_id, ANN)
    assert send(smtp, ANN, address, f"status\nThanks! {SPAM_TEST}") == 250
    gw.work()
    (reply,) = transport.to(ANN)
    assert SPAM_TEST in text_of(reply)


def test_on_postgresql_the_budgets_and_the_bounce_count_hold(tmp_path, postgres_url, mail_settings, clock, transport):
    """The same SQL on PostgreSQL: the invitations' per-inviter budgets (a LIKE on the budget),
    the hourly count of mail to strangers, and bounces counted per mail (an upsert)."""
    from pbem.config import Settings
    from pbem.mailroom.addresses import return_path
    from pbem.service.service import GameService
    from tests.mailgateway.test_security import dsn

    service = GameService(Settings(home=tmp_path / "home", database_url=postgres_url))
    try:
        gw = Gateway(service, replace(mail_settings, strangers_per_hour=12), clock=clock, transport=transport)
        for n in range(8):
            inviter = f"p{n}@example.org"
            gw.receive(make_mail(inviter, SERVICE, f"new hidden-pig {inviter} {TARGET}"))
        gw.work()
        assert len(invitations(transport, TARGET)) == 5  # from inviters who never wrote, 5 in all
        replies = [m for n in range(8) for m in transport.to(f"p{n}@example.org") if m["In-Reply-To"]]
        assert len(replies) == 12 - 5  # the hour's 12 mails to strangers
        for _ in range(3):
            gw.receive(make_mail(ANN, SERVICE, "help"))
        clock.advance(hours=1, minutes=1)
        gw.work()
        tags = [gw.mailroom.views.get(key).return_tag for key, to, _ in transport.sent if to == ANN]
        assert len(tags) == 3
        for n, tag in enumerate(tags):
            path = return_path(SERVICE, tag)
            gw.receive(dsn(path, "4.4.1", 10 + n), "", [path])
            assert not gw.mailroom.views.undeliverable(ANN)
            gw.receive(dsn(path, "5.1.1", 20 + n), "", [path])
        assert gw.mailroom.views.undeliverable(ANN)
    finally:
        service.close()
