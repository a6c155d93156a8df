"""The SMTP server of mailgateway.server: one thread and event loop per conversation, a bounded
number of conversations, and a stop that ends idle ones. Real sockets, smtplib as the client."""

from __future__ import annotations

import smtplib
import socket
import threading
import time

import pytest

from mailgateway import gateway as gateway_module
from mailgateway.server import BUSY, ThreadedServer
from mailgateway.smtp import controller
from tests.mailgateway.conftest import SERVICE, Sink, free_port, hold_mails, make_mail

ANN, BOB = "ann@example.com", "bob@example.com"


@pytest.fixture
def started():
    servers: list[ThreadedServer] = []

    def start(handler, **options) -> int:
        port = free_port()
        server = ThreadedServer(handler, "127.0.0.1", port, **options)
        server.start()
        servers.append(server)
        return port

    yield start
    for server in servers:
        server.stop()


def test_a_mail_read_slowly_does_not_hold_another_conversations_mail(gw, monkeypatch):
    """Reading a mail (its parsing, its DKIM look-ups) runs in its conversation's own thread, so a
    second client's whole mail is stored and answered 250 while the first is still being read."""
    reading, release = hold_mails(monkeypatch, gateway_module, "parse_message", b"slow-mail")
    port = free_port()
    server = controller(gw, "127.0.0.1", port)
    server.start()
    codes: list[int] = []

    def send_slow() -> None:
        with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
            client.sendmail(
                ANN, [SERVICE], make_mail(ANN, SERVICE, "help", subject="slow-mail", message_id="<slow@client.example>")
            )
            codes.append(250)

    first = threading.Thread(target=send_slow)
    first.start()
    try:
        assert reading.wait(30)
        with smtplib.SMTP("127.0.0.1", port, timeout=10) as other:
            fast = make_mail(BOB, SERVICE, "help", message_id="<fast@client.example>")
            assert other.sendmail(BOB, [SERVICE], fast) == {}
        assert codes == []  # the first mail is still being read
        assert gw.desk.seen("fast@client.example") and not gw.desk.seen("slow@client.example")
    finally:
        release.set()
        first.join(60)
        server.stop()
        server.handler.close()
    assert codes == [250] and gw.desk.seen("slow@client.example")


def test_one_conversation_more_than_the_limit_is_answered_421(started):
    handler = Sink()
    port = started(handler, max_connections=2)
    first, second = smtplib.SMTP("127.0.0.1", port, timeout=10), smtplib.SMTP("127.0.0.1", port, timeout=10)
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as third:
            assert third.recv(200) == BUSY
            assert third.recv(200) == b""  # and closed
        assert first.noop()[0] == 250 and second.noop()[0] == 250
    finally:
        first.quit()
        second.quit()
    deadline = time.monotonic() + 10
    while True:  # the two threads end once their clients quit; then a new client is served
        try:
            with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
                assert client.sendmail(ANN, [BOB], b"Subject: x\r\n\r\nhello\r\n") == {}
            break
        except smtplib.SMTPConnectError:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    assert len(handler.envelopes) == 1


def test_one_address_cannot_take_every_place(started):
    handler = Sink()
    port = started(handler, max_connections=10, max_per_peer=2)
    held = [smtplib.SMTP("127.0.0.1", port, timeout=10) for _ in range(2)]
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as third:
            assert third.recv(200) == BUSY
        # a client from another (loopback) address is another peer (positive control)
        with socket.create_connection(("127.0.0.1", port), timeout=10, source_address=("127.0.0.2", 0)) as other:
            assert other.recv(200).startswith(b"220 ")
    finally:
        for client in held:
            client.quit()


def test_conversations_are_served_side_by_side(started):
    """Positive control of the limit: under it, every client is greeted and served."""
    handler = Sink()
    port = started(handler, max_connections=5)
    clients = [smtplib.SMTP("127.0.0.1", port, timeout=10) for _ in range(5)]
    try:
        for number, client in enumerate(clients):
            assert client.sendmail(ANN, [BOB], f"Subject: {number}\r\n\r\nhello\r\n".encode()) == {}
    finally:
        for client in clients:
            client.quit()
    assert len(handler.envelopes) == 5


def test_stop_ends_idle_conversations_and_closes_the_listener():
    handler = Sink()
    port = free_port()
    server = ThreadedServer(handler, "127.0.0.1", port)
    server.start()
    idle = smtplib.SMTP("127.0.0.1", port, timeout=10)
    assert idle.noop()[0] == 250
    begun = time.monotonic()
    server.stop()
    assert time.monotonic() - begun < 5  # not the 300 s of an idle conversation's time-out
    with pytest.raises((smtplib.SMTPServerDisconnected, ConnectionError)):
        idle.noop()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5)


def test_port_zero_listens_on_the_port_the_system_chose():
    server = ThreadedServer(Sink(), "127.0.0.1", 0)
    server.start()
    try:
        assert server.port > 0
        with smtplib.SMTP("127.0.0.1", server.port, timeout=10) as client:
            assert client.noop()[0] == 250
    finally:
        server.stop()


def test_a_failing_handler_answers_its_own_conversation_only(started):
    class Failing(Sink):
        async def handle_DATA(self, server, session, envelope) -> str:
            if b"boom" in envelope.original_content:
                raise RuntimeError("boom")
            return await super().handle_DATA(server, session, envelope)

    handler = Failing()
    port = started(handler)
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client, pytest.raises(smtplib.SMTPDataError):
        client.sendmail(ANN, [BOB], b"Subject: x\r\n\r\nboom\r\n")
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        assert client.sendmail(ANN, [BOB], b"Subject: x\r\n\r\nfine\r\n") == {}
    assert len(handler.envelopes) == 1
