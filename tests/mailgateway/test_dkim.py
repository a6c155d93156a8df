"""Optional DKIM: with PBEM_DKIM=require a move needs a valid signature aligned with the From
domain. DNS is replaced by an offline lookup."""

from __future__ import annotations

import base64
from dataclasses import replace

import dkim
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from mailgateway.auth import dkim_aligned
from mailgateway.gateway import Gateway
from tests.mailgateway.conftest import address_of, make_mail

ANN, BOB = "ann@example.net", "bob@example.com"


@pytest.fixture(scope="module")
def key():
    private = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
    )
    public = private.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    record = b"v=DKIM1; k=rsa; p=" + base64.b64encode(public)

    def dns(name, timeout=5):
        return record if name == b"sel._domainkey.example.net." else None

    return pem, dns


def sign(raw: bytes, pem: bytes, domain: bytes = b"example.net") -> bytes:
    return dkim.sign(raw, b"sel", domain, pem, include_headers=[b"from", b"to", b"subject", b"message-id"]) + raw


def test_aligned_signature(key):
    pem, dns = key
    raw = make_mail(ANN, "pbem@example.org", "roll")
    assert dkim_aligned(sign(raw, pem), ANN, dns)
    assert not dkim_aligned(raw, ANN, dns)
    assert not dkim_aligned(sign(raw, pem).replace(b"roll", b"hold"), ANN, dns)
    assert not dkim_aligned(sign(raw, pem), "ann@other.example", dns)


def test_required_dkim_refuses_unsigned_moves_and_accepts_signed_ones(service, mail_settings, clock, transport, key):
    pem, dns = key
    gw = Gateway(service, replace(mail_settings, dkim="require"), clock=clock, dnsfunc=dns, transport=transport)
    game_id = service.create("hidden-pig", [ANN, BOB], {}, seed=b"\x04" * 32)
    service.join(game_id, ANN)
    service.join(game_id, BOB)
    version = service.game(game_id).version
    gw.receive(make_mail(ANN, address_of(gw, game_id, ANN), "hold"))
    assert service.game(game_id).version == version
    gw.receive(sign(make_mail(ANN, address_of(gw, game_id, ANN), "hold"), pem))
    assert service.game(game_id).version == version + 1
    gw.work()
    assert any("DKIM" in m.get_body(("plain",)).get_content() for m in transport.to(ANN))


def test_a_signed_move_replayed_with_a_new_message_id_changes_nothing_over_smtp(
    service, mail_settings, clock, transport, key
):
    """Issue row 8: DKIM checks the Message-ID it signed while the gateway keyed on another one
    put on top; and a signature that leaves out Message-ID lets any copy pass as new mail."""
    import smtplib

    from mailgateway.smtp import controller
    from tests.mailgateway.conftest import free_port

    pem, dns = key
    gw = Gateway(service, replace(mail_settings, dkim="require"), clock=clock, dnsfunc=dns, transport=transport)
    game_id = service.create("hidden-pig", [ANN, BOB], {}, seed=b"\x04" * 32)
    service.join(game_id, ANN)
    service.join(game_id, BOB)
    address, version = address_of(gw, game_id, ANN), service.game(game_id).version
    signed = sign(make_mail(ANN, address, "hold"), pem)
    unsigned_id = dkim.sign(
        make_mail(ANN, address, "hold"), b"sel", b"example.net", pem, include_headers=[b"from", b"to", b"subject"]
    )
    port = free_port()
    server = controller(gw, "127.0.0.1", port)
    server.start()
    try:
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
            for raw in (b"Message-ID: <replay@evil.example>\n" + signed, unsigned_id + make_mail(ANN, address, "hold")):
                client.sendmail(ANN, [address], raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
            assert service.game(game_id).version == version  # neither moved
            client.sendmail(ANN, [address], signed.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    finally:
        server.stop()
        server.handler.close()
    assert service.game(game_id).version == version + 1  # positive control: the signed original moves


def test_a_signed_move_without_message_id_replayed_with_a_header_added_changes_nothing_over_smtp(
    service, mail_settings, clock, transport, key
):
    """Issue 28: with DKIM required, a signed mail without Message-ID was keyed by a hash of its
    whole header block, so one unsigned header added made the replay a new mail (moved again).
    It is keyed by its fingerprint (sender, subject, body) now."""
    import smtplib

    from mailgateway.smtp import controller
    from tests.mailgateway.conftest import free_port

    pem, dns = key
    gw = Gateway(service, replace(mail_settings, dkim="require"), clock=clock, dnsfunc=dns, transport=transport)
    game_id = service.create("hidden-pig", [ANN, BOB], {}, seed=b"\x04" * 32)
    service.join(game_id, ANN)
    service.join(game_id, BOB)
    address, version = address_of(gw, game_id, ANN), service.game(game_id).version
    signed = sign(make_mail(ANN, address, "roll", message_id=None), pem)
    port = free_port()
    server = controller(gw, "127.0.0.1", port)
    server.start()
    try:
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
            client.sendmail(ANN, [address], signed.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
            assert service.game(game_id).version == version + 1  # the original moves
            replayed = b"X-Replayed: 1\n" + signed
            assert dkim_aligned(replayed, ANN, dns)  # the signature still holds
            client.sendmail(ANN, [address], replayed.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    finally:
        server.stop()
        server.handler.close()
    assert service.game(game_id).version == version + 1  # the replay moved nothing


def test_a_signed_mail_to_the_service_address_verifies_its_sender_and_an_unsigned_one_does_not(
    service, mail_settings, clock, transport, key
):
    """Issue 28: "has written" means authenticated; with PBEM_DKIM=check a signature of the
    From's own domain is one way, at the service address too."""
    from pbem.mailroom.records import VerifiedAddress

    pem, dns = key
    gw = Gateway(service, replace(mail_settings, dkim="check"), clock=clock, dnsfunc=dns, transport=transport)
    gw.receive(make_mail(ANN, "pbem@example.org", "help\nThanks"))  # anybody could send this
    gw.work()
    assert service.record(VerifiedAddress.create_id(ANN)) is None
    (unsigned,) = transport.to(ANN)
    gw.receive(sign(make_mail(ANN, "pbem@example.org", "help\nThanks"), pem))
    gw.work()
    assert service.record(VerifiedAddress.create_id(ANN)).how == "dkim"
    signed = transport.to(ANN)[-1]
    assert "Thanks" in signed.get_body(("plain",)).get_content()  # it showed its sender: its lines are quoted
    assert "Thanks" not in unsigned.get_body(("plain",)).get_content()
