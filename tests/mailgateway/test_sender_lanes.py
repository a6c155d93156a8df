"""The sender's lanes: a round's mails go to the relay over several SMTP conversations at once
(``PBEM_SMTP_CONNECTIONS``), the mails to one address one after another (in one lane), in the
order they were queued, and what became of a claimed batch is recorded in one transaction. On PostgreSQL,
mail queued by one gateway process wakes the senders of the others."""

from __future__ import annotations

import asyncio
import time
from email import message_from_bytes

import pytest
from aiosmtpd.controller import Controller

from mailgateway.gateway import Gateway
from mailgateway.sender import BATCH, SHARED_BATCH, RelayTransport
from pbem.config import Settings
from pbem.service.service import GameService
from tests.mailgateway.conftest import SERVICE, Memory, free_port, make_mail

PLAYERS = [f"p{n}@example.net" for n in range(6)]
MAILS = 3  # each player's


class SlowSink:
    """A relay that takes a while for each mail, noting which conversation brought it."""

    def __init__(self) -> None:
        self.arrived: list[tuple[tuple[str, int], str, str]] = []  # (peer, recipient, In-Reply-To)

    async def handle_DATA(self, server, session, envelope) -> str:
        await asyncio.sleep(0.02)
        answered = str(message_from_bytes(envelope.original_content)["In-Reply-To"])
        self.arrived.append((session.peer, envelope.rcpt_tos[0], answered))
        return "250 OK"


@pytest.fixture
def slow_sink():
    handler = SlowSink()
    server = Controller(handler, hostname="127.0.0.1", port=free_port())
    server.start()
    handler.port = server.port
    yield handler
    server.stop()


def queued(service, mail_settings, clock, port: int, connections: int) -> Gateway:
    transport = RelayTransport("127.0.0.1", port, timeout=10, connections=connections)
    gw = Gateway(service, mail_settings, clock=clock, transport=transport)
    for number in range(MAILS):
        for player in PLAYERS:
            gw.receive(
                make_mail(player, SERVICE, "help", message_id=f"<{player.split('@')[0]}.{number}@client.example>")
            )
    gw.queue_round()
    return gw


@pytest.mark.parametrize("connections", [1, 4])
def test_a_round_goes_out_over_several_conversations_and_a_players_mails_keep_their_order(
    service, mail_settings, clock, slow_sink, connections
):
    gw = queued(service, mail_settings, clock, slow_sink.port, connections)
    assert gw.send_round() == MAILS * len(PLAYERS)
    peers = {peer for peer, _, _ in slow_sink.arrived}
    assert len(peers) == 1 if connections == 1 else 1 < len(peers) <= connections  # 1: the control
    for player in PLAYERS:
        theirs = [answered for _, to, answered in slow_sink.arrived if to == player]
        assert theirs == [f"<{player.split('@')[0]}.{n}@client.example>" for n in range(MAILS)]
    assert not gw.mailroom.views.waiting()


def test_a_claimed_batch_is_settled_in_one_transaction(service, mail_settings, clock, slow_sink, monkeypatch):
    gw = queued(service, mail_settings, clock, slow_sink.port, 4)
    views = gw.mailroom.views
    batches: list[int] = []
    real = views.settle_all

    def counted(settled, owner, now):
        batches.append(len(settled))
        return real(settled, owner, now)

    monkeypatch.setattr(views, "settle_all", counted)
    assert gw.send_round() == MAILS * len(PLAYERS)
    assert batches == [MAILS * len(PLAYERS)] and not views.waiting()


def _heard(wakeup, count: int, seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while wakeup.heard < count and time.monotonic() < deadline:
        time.sleep(0.01)
    return wakeup.heard >= count


def test_mail_queued_by_one_gateway_wakes_the_sender_of_another_on_postgresql(
    postgres_url, tmp_path, mail_settings, clock, transport
):
    settings = Settings(home=tmp_path / "home", database_url=postgres_url)
    stamp = lambda: clock().isoformat(timespec="seconds")  # noqa: E731
    one, other = GameService(settings, clock=stamp), GameService(settings, clock=stamp)
    try:
        queuing = Gateway(one, mail_settings, clock=clock, transport=Memory())
        sending = Gateway(other, mail_settings, clock=clock, transport=transport)
        sending.listen_outbox()
        assert sending.sender.batch == SHARED_BATCH and _heard(sending.outbox, 1)  # listening
        queuing.receive(make_mail(PLAYERS[0], SERVICE, "help"))
        assert _heard(sending.outbox, 1) and sending.outbox.heard == 1  # a mail stored, none queued: quiet
        queuing.queue_round()
        assert _heard(sending.outbox, 2)
        assert sending.send_round() == 1 and [to for _, to, _ in transport.sent] == [PLAYERS[0]]
    finally:
        sending.outbox.close()
        one.close()
        other.close()


def test_on_sqlite_the_sender_listens_to_nobody_else(gw):
    gw.listen_outbox()
    assert not gw.outbox.listening() and gw.sender.batch == BATCH
