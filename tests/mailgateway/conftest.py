"""Fixtures for the mail gateway: a store under tmp_path, a clock the test moves, and a
transport that keeps what was sent."""

from __future__ import annotations

import email
import itertools
import smtplib
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage

import pytest
from aiosmtpd.controller import Controller

from mailgateway.gateway import Gateway
from mailgateway.sender import RelayTransport
from mailgateway.smtp import controller
from pbem.mailroom.addresses import seat_address
from pbem.mailroom.settings import MailSettings
from pbem.service.service import GameService

SERVICE = "pbem@example.org"
_ids = itertools.count(1)


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


class Memory:
    """A transport that keeps the mail; ``failures`` makes the next sends fail."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str, bytes]] = []
        self.failures: list[Exception] = []

    def send(self, key: str, to: str, message: bytes) -> None:
        if self.failures:
            raise self.failures.pop(0)
        self.sent.append((key, to, message))

    def to(self, address: str) -> list[EmailMessage]:
        return [email.message_from_bytes(m, policy=policy.default) for _, t, m in self.sent if t == address]

    def clear(self) -> None:
        self.sent.clear()


def text_of(msg: EmailMessage) -> str:
    return msg.get_body(("plain",)).get_content()


def make_mail(
    sender: str,
    to: str,
    body: str = "",
    subject: str = "moves",
    message_id: str | None = "auto",
    headers: dict[str, str] | None = None,
) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    if message_id == "auto":
        message_id = f"<m{next(_ids)}.{datetime.now().timestamp()}@client.example>"
    if message_id:
        msg["Message-ID"] = message_id
    for key, value in (headers or {}).items():
        msg[key] = value
    msg.set_content(body)
    return bytes(msg)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def service(sqlite_settings, clock):
    svc = GameService(sqlite_settings, clock=lambda: clock().isoformat(timespec="seconds"))
    yield svc
    svc.close()


@pytest.fixture
def transport() -> Memory:
    return Memory()


@pytest.fixture
def mail_settings(tmp_path) -> MailSettings:
    return MailSettings(
        address=SERVICE,
        maildir=tmp_path / "maildir",
        deadline_hours=48,
        reminder_hours=12,
        robot_after=2,
        retry_seconds=10,
    )


@pytest.fixture
def gw(service, mail_settings, clock, transport) -> Gateway:
    return Gateway(service, mail_settings, clock=clock, transport=transport)


def started_pig(
    gw: Gateway, transport: Memory, players: list[str], rounds: str = "2", seed: bytes = b"\x01" * 32
) -> str:
    """A started Hidden Pig game (the first player moves first), its start mails sent and cleared."""
    game_id = gw.service.create("hidden-pig", players, {"rounds": rounds}, seed=seed)
    for player in players:
        gw.service.join(game_id, player)
    gw.work()
    transport.clear()
    return game_id


def joined_by_mail(gw: Gateway, game_id: str, players: list[str]) -> str:
    """Each of ``players`` joins ``game_id`` by a mail to their private address, then the
    gateway works off what that set going; returns the game's id."""
    for player in players:
        gw.receive(make_mail(player, address_of(gw, game_id, player), "join"))
    gw.work()
    return game_id


def address_of(gw: Gateway, game_id: str, player: str) -> str:
    game = gw.service.game(game_id)
    return seat_address(SERVICE, game_id, gw.service.seat_token(game_id, game.emails.index(player)))


def confirmed(gw: Gateway, transport: Memory, sender: str, body: str) -> None:
    """Send standing commands to the service address and answer every confirmation they ask
    for, as their real owner would (docs/mail.md, "Confirmations")."""
    import re

    gw.receive(make_mail(sender, SERVICE, body))
    gw.work()
    asked = [m for m in transport.to(sender) if m["In-Reply-To"]][-1]
    tokens = re.findall(
        r"^ +(?:confirm|potvrdit) ([0-9a-f]{12})\s*$", asked.get_body(("plain",)).get_content(), re.MULTILINE
    )
    assert tokens, "the reply asks for a confirmation"
    gw.receive(make_mail(sender, SERVICE, "\n".join(f"confirm {token}" for token in tokens)))
    gw.work()


def hold_mails(monkeypatch, owner, name: str, marker: bytes) -> tuple[threading.Event, threading.Event]:
    """Replace ``owner.name`` (a function taking the raw mail first) by one that, for a mail
    holding ``marker``, sets the first event and waits for the second before going on."""
    reached, release = threading.Event(), threading.Event()
    original = getattr(owner, name)

    def held(raw, *args):
        if marker in raw:
            reached.set()
            release.wait(30)
        return original(raw, *args)

    monkeypatch.setattr(owner, name, held)
    return reached, release


# -- a real SMTP relay (a sink) and the gateway's own SMTP server on loopback ----------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Sink:
    """The relay: keeps every envelope; ``refuse`` answers RCPT with a status instead."""

    def __init__(self) -> None:
        self.envelopes: list = []
        self.refuse: list[str] = []

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.refuse:
            return self.refuse.pop(0)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.envelopes.append(envelope)
        return "250 OK"


@pytest.fixture
def sink():
    handler = Sink()
    port = free_port()
    server = Controller(handler, hostname="127.0.0.1", port=port)
    server.start()
    handler.port = port
    yield handler
    server.stop()


@contextmanager
def serving(gateway: Gateway) -> Iterator[int]:
    """The gateway's SMTP server on a free loopback port, for the block: yields the port."""
    port = free_port()
    server = controller(gateway, "127.0.0.1", port)
    server.start()
    try:
        yield port
    finally:
        server.stop()
        server.handler.close()


def send_smtp(port: int, raw: bytes, sender: str, to: str, timeout: float = 30) -> int:
    """Send raw mail over SMTP to the server at ``port``; its final status code (250: accepted)."""
    raw = raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")  # as an MTA sends it (smtplib leaves bytes)
    with smtplib.SMTP("127.0.0.1", port, timeout=timeout) as client:
        try:
            client.sendmail(sender, [to], raw)
        except smtplib.SMTPDataError as error:
            return error.smtp_code
    return 250


@pytest.fixture
def smtp(gw):
    """Send raw mail to the gateway over SMTP; returns the server's final status code."""
    with serving(gw) as port:

        def send(raw: bytes, sender: str, to: str) -> int:
            return send_smtp(port, raw, sender, to)

        send.port = port  # type: ignore[attr-defined]  # for tests that speak SMTP themselves
        yield send


@pytest.fixture
def relay_gw(service, mail_settings, clock, sink):
    return Gateway(service, mail_settings, clock=clock, transport=RelayTransport("127.0.0.1", sink.port, timeout=5))


@pytest.fixture
def smtp_server(relay_gw):
    with serving(relay_gw) as port:
        yield port
