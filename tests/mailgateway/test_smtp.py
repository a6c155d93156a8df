"""A real aiosmtpd gateway on loopback, smtplib as the client, and another aiosmtpd
instance as the relay (the sink). Also the crash cases of the exactly-once promise."""

from __future__ import annotations

import smtplib
from email import message_from_bytes, policy

import pytest
from aiosmtpd.controller import Controller
from eventsourcing.persistence import OperationalError

from mailgateway.gateway import Gateway
from mailgateway.sender import MaildirTransport, RelayTransport
from mailgateway.smtp import controller
from pbem.service.failures import StoreUnavailable
from pbem.service.store import Receipt
from tests.mailgateway.conftest import SERVICE, Sink, free_port, make_mail

ANN = "ann@example.net"


def test_smtp_in_relay_out(relay_gw, smtp_server, sink):
    with smtplib.SMTP("127.0.0.1", smtp_server, timeout=10) as client:
        refused = client.sendmail(ANN, [SERVICE], make_mail(ANN, SERVICE, "help"))
        assert refused == {}
        with pytest.raises(smtplib.SMTPRecipientsRefused) as error:
            client.sendmail(ANN, ["someone@example.org"], make_mail(ANN, "someone@example.org", "help"))
        assert error.value.recipients["someone@example.org"][0] == 550
    relay_gw.work()
    (envelope,) = sink.envelopes
    assert envelope.mail_from == "<>" and envelope.rcpt_tos == [ANN]
    reply = message_from_bytes(envelope.original_content, policy=policy.default)
    assert reply["Auto-Submitted"] == "auto-replied" and "Commands for" in reply.get_body(("plain",)).get_content()


def test_lmtp_option(relay_gw, sink):
    port = free_port()
    server = controller(relay_gw, "127.0.0.1", port, lmtp=True)
    server.start()
    try:
        with smtplib.LMTP("127.0.0.1", port, timeout=10) as client:
            assert client.sendmail(ANN, [SERVICE], make_mail(ANN, SERVICE, "catalog")) == {}
    finally:
        server.stop()
        server.handler.close()
    relay_gw.work()
    assert len(sink.envelopes) == 1


def test_451_until_the_result_is_stored_then_250(relay_gw, smtp_server, sink, monkeypatch):
    raw = make_mail(ANN, SERVICE, "help", message_id="<retry-me@example.net>")
    real_save = relay_gw.service.store.save

    def failing_save(*aggregates, **options):
        if any(isinstance(a, Receipt) for a in aggregates):
            raise OperationalError("database or disk is full")  # the store, as eventsourcing reports it
        return real_save(*aggregates, **options)

    monkeypatch.setattr(relay_gw.service.store, "save", failing_save)
    with smtplib.SMTP("127.0.0.1", smtp_server, timeout=10) as client:
        with pytest.raises(smtplib.SMTPDataError) as error:
            client.sendmail(ANN, [SERVICE], raw)
        assert error.value.smtp_code == 451
    assert relay_gw.service.store.receipt("mail:retry-me@example.net") is None
    monkeypatch.setattr(relay_gw.service.store, "save", real_save)
    with smtplib.SMTP("127.0.0.1", smtp_server, timeout=10) as client:
        assert client.sendmail(ANN, [SERVICE], raw) == {}
        assert client.sendmail(ANN, [SERVICE], raw) == {}  # the MTA's duplicate delivery
    assert relay_gw.service.store.receipt("mail:retry-me@example.net") is not None
    relay_gw.work()
    relay_gw.work()
    assert len(sink.envelopes) == 1


def test_crash_after_storing_before_sending_sends_every_reply_once(service, mail_settings, clock, sink):
    first = Gateway(service, mail_settings, clock=clock, transport=RelayTransport("127.0.0.1", sink.port))
    for n in range(3):
        first.receive(make_mail(ANN, SERVICE, "help", message_id=f"<c{n}@example.net>"))
    del first  # the process dies before its outbox ran
    restarted = Gateway(service, mail_settings, clock=clock, transport=RelayTransport("127.0.0.1", sink.port))
    restarted.work()
    restarted.work()
    again = Gateway(service, mail_settings, clock=clock, transport=RelayTransport("127.0.0.1", sink.port))
    again.work()
    assert sorted(message_from_bytes(e.original_content)["In-Reply-To"] for e in sink.envelopes) == [
        "<c0@example.net>",
        "<c1@example.net>",
        "<c2@example.net>",
    ]


def test_crash_while_queueing_replies_queues_them_once(service, mail_settings, clock, transport, monkeypatch):
    gw = Gateway(service, mail_settings, clock=clock, transport=transport)
    gw.receive(make_mail(ANN, SERVICE, "help"))

    def crash(*args, **kwargs):
        raise OperationalError("server closed the connection unexpectedly")  # the store went away

    monkeypatch.setattr(gw.mailroom.views, "record", crash)
    with pytest.raises(StoreUnavailable):
        gw.work()
    monkeypatch.undo()
    Gateway(service, mail_settings, clock=clock, transport=transport).work()
    gw.work()
    assert len(transport.to(ANN)) == 1


def test_a_move_and_its_mail_receipt_are_stored_in_one_transaction(gw, transport, monkeypatch):
    game_id = gw.service.create("hidden-pig", [ANN, "bob@example.com"], {}, seed=b"\x02" * 32)
    gw.service.join(game_id, ANN)
    gw.service.join(game_id, "bob@example.com")
    from tests.mailgateway.conftest import address_of

    raw = make_mail(ANN, address_of(gw, game_id, ANN), "hold", message_id="<half@example.net>")
    before = gw.service.game(game_id).version
    real_save = gw.service.store.save
    monkeypatch.setattr(
        gw.service.store, "save", lambda *a, **k: (_ for _ in ()).throw(OperationalError("database or disk is full"))
    )
    with pytest.raises(StoreUnavailable):
        gw.receive(raw)
    monkeypatch.setattr(gw.service.store, "save", real_save)
    assert gw.service.game(game_id).version == before  # neither the move nor the receipt was stored
    assert gw.receive(raw) == "processed"  # the MTA retries: the move is applied once
    assert gw.receive(raw) == "duplicate"
    assert gw.service.game(game_id).version == before + 1
    gw.work()
    reply = [m for m in transport.to(ANN) if m["In-Reply-To"] == "<half@example.net>"]
    assert len(reply) == 1 and "applied: hold" in reply[0].get_body(("plain",)).get_content()


def test_relay_retries_with_backoff_and_gives_up_on_5xx(relay_gw, sink, clock):
    relay_gw.receive(make_mail(ANN, SERVICE, "help"))
    relay_gw.receive(make_mail("bob@example.com", SERVICE, "help"))
    sink.refuse = ["451 4.3.0 busy", "550 5.1.1 no such user"]
    relay_gw.work()
    assert sink.envelopes == []
    relay_gw.work()  # not due yet: nothing is tried
    assert sink.envelopes == []
    clock.advance(seconds=mail_backoff(relay_gw) + 1)
    relay_gw.work()
    assert [e.rcpt_tos for e in sink.envelopes] == [[ANN]]
    assert relay_gw.mailroom.views.waiting() == []  # ann's was delivered, bob's given up after the 550
    (dead,) = relay_gw.mailroom.dead_letters()
    assert dead.to == "bob@example.com" and "550" in (dead.error or "")


def mail_backoff(gw) -> float:
    return gw.sender.backoff(0).total_seconds()


def test_relay_down_is_a_temporary_failure(service, mail_settings, clock):
    gw = Gateway(service, mail_settings, clock=clock, transport=RelayTransport("127.0.0.1", free_port(), timeout=2))
    gw.receive(make_mail(ANN, SERVICE, "help"))
    gw.work()
    (pending,) = gw.mailroom.views.waiting()
    assert pending.status == "queued" and pending.attempts == 1 and pending.error


def test_maildir_delivery_is_idempotent(tmp_path):
    box = MaildirTransport(tmp_path / "md")
    box.send("k1", ANN, b"Subject: x\r\n\r\nbody\r\n")
    box.send("k1", ANN, b"Subject: x\r\n\r\nbody\r\n")
    box.send("k2", ANN, b"Subject: y\r\n\r\nbody\r\n")
    assert len(list((tmp_path / "md" / "new").iterdir())) == 2


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS:UserWarning")
def test_relay_with_smtp_auth(service, mail_settings, clock):
    from aiosmtpd.smtp import AuthResult, LoginPassword

    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = isinstance(auth_data, LoginPassword) and (auth_data.login, auth_data.password) == (b"pbem", b"secret")
        return AuthResult(success=ok)

    handler = Sink()
    port = free_port()
    server = Controller(
        handler,
        hostname="127.0.0.1",
        port=port,
        authenticator=authenticator,
        auth_required=True,
        auth_require_tls=False,
    )
    server.start()
    try:
        good = Gateway(
            service,
            mail_settings,
            clock=clock,
            transport=RelayTransport("127.0.0.1", port, user="pbem", password="secret"),
        )
        good.receive(make_mail(ANN, SERVICE, "help"))
        good.work()
        assert len(handler.envelopes) == 1
    finally:
        server.stop()


def test_starttls_on_the_gateway(service, mail_settings, clock, transport, tmp_path):
    import datetime
    import ipaddress
    import ssl
    from dataclasses import replace

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    gw = Gateway(
        service, replace(mail_settings, tls_cert=cert_file, tls_key=key_file), clock=clock, transport=transport
    )
    port = free_port()
    server = controller(gw, "127.0.0.1", port)
    server.start()
    try:
        with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
            client.starttls(context=ssl.create_default_context(cafile=str(cert_file)))
            assert client.sendmail(ANN, [SERVICE], make_mail(ANN, SERVICE, "help")) == {}
    finally:
        server.stop()
        server.handler.close()
    gw.work()
    assert len(transport.to(ANN)) == 1


def test_two_gateway_processes_on_one_store_queue_and_send_each_reply_once(
    service, mail_settings, clock, transport, sqlite_settings
):
    from pbem.service.service import GameService

    other_service = GameService(sqlite_settings)
    try:
        one = Gateway(service, mail_settings, clock=clock, transport=transport)
        two = Gateway(other_service, mail_settings, clock=clock, transport=transport)
        for n in range(4):
            (one if n % 2 else two).receive(make_mail(ANN, SERVICE, "help", message_id=f"<two{n}@x>"))
        one.mailroom.follow()
        two.mailroom.follow()
        one.sender.send_due()
        two.sender.send_due()
        one.work()
        two.work()
    finally:
        other_service.close()
    assert sorted(m["In-Reply-To"] for m in transport.to(ANN)) == [f"<two{n}@x>" for n in range(4)]


def test_a_sender_round_sends_its_mails_over_one_relay_connection(service, mail_settings, clock):
    """Connecting and greeting once a round, not once a mail: a burst's replies leave faster;
    the conversation ends with the round (relays drop idle connections anyway)."""
    from aiosmtpd.controller import Controller

    from mailgateway.sender import RelayTransport
    from tests.mailgateway.conftest import free_port

    class Peers:
        def __init__(self) -> None:
            self.peers: list = []

        async def handle_DATA(self, server, session, envelope):
            self.peers.append(session.peer)
            return "250 OK"

    handler = Peers()
    relay = Controller(handler, hostname="127.0.0.1", port=free_port())
    relay.start()
    transport = RelayTransport("127.0.0.1", relay.port, timeout=5)
    try:
        gw = Gateway(service, mail_settings, clock=clock, transport=transport)
        for number in range(3):
            gw.receive(make_mail(ANN, SERVICE, "help", message_id=f"<one-{number}@example.net>"))
        gw.work()
        assert len(handler.peers) == 3 and len(set(handler.peers)) == 1
        assert transport._idle == []  # closed after the round
        gw.receive(make_mail(ANN, SERVICE, "help", message_id="<two@example.net>"))
        gw.work()
        assert len(handler.peers) == 4 and handler.peers[-1] != handler.peers[0]
    finally:
        relay.stop()
