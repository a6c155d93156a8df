"""Three ``pbem serve-mail`` processes on one PostgreSQL database, every mail delivered to all
three at once, replies sent through a real SMTP relay (a sink in this process): every move is
applied once and every reply arrives exactly once, counted at the sink by Message-ID and by
content."""

from __future__ import annotations

import email
import threading
import time
from collections import Counter
from email import policy

from aiosmtpd.controller import Controller

from benchmarks.longgame import register_games
from tests.faults.test_delivery import GatewayProcess, _free_port, _send_with_retries, _wait_for_port
from tests.ops.helpers import PLAYERS, service_at
from tests.ops.test_postgres_gateways import _mail


class Sink:
    def __init__(self) -> None:
        self.messages: list[bytes] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope) -> str:
        with self.lock:
            self.messages.append(envelope.original_content)
        return "250 2.0.0 OK"


def _send_and_count(sent: list[int], port: int, sender: str, to: str, raw: bytes) -> None:
    sent.append(_send_with_retries(port, sender, to, raw))


def _wait_for_replies(sink: Sink, count: int, stop: threading.Event, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with sink.lock:
            replies = sum(1 for raw in sink.messages if b"\nIn-Reply-To:" in raw)
        if replies >= count:
            return
        stop.wait(0.2)


def test_three_gateways_send_every_reply_exactly_once(tmp_path, postgres_url):
    register_games()
    count = 300
    home = tmp_path / "home"
    svc = service_at(home, database_url=postgres_url)
    svc.keys.signer()
    game_id = svc.create("long-pig", PLAYERS[:2], {"rounds": "100000"}, seed=b"\x0e" * 32)
    for player in PLAYERS[:2]:
        svc.join(game_id, player)
    start = svc.game(game_id).version
    sink = Sink()
    relay = Controller(sink, hostname="127.0.0.1", port=_free_port())
    relay.start()
    ports = [_free_port() for _ in range(3)]
    stop = threading.Event()
    try:
        with (tmp_path / "gateways.log").open("wb") as log:
            gateways = [GatewayProcess(home, port, log) for port in ports]
            try:
                for gateway in gateways:
                    gateway.env["PBEM_DATABASE_URL"] = postgres_url
                    gateway.env["PBEM_SMTP_RELAY"] = f"127.0.0.1:{relay.port}"
                    gateway.start()
                for gateway in gateways:
                    assert _wait_for_port(gateway.port, stop, 60), "a gateway did not start"
                for number in range(count):
                    game = svc.game(game_id)
                    seat = game.spec.to_move(svc.state(game))[0]
                    sender, to, raw = _mail(svc, game_id, seat, number, "hold")
                    sent: list[int] = []
                    threads = [
                        threading.Thread(target=_send_and_count, args=(sent, port, sender, to, raw)) for port in ports
                    ]
                    for thread in threads:
                        thread.start()
                    for thread in threads:
                        # every copy is accepted before the next mail is written (its seat follows
                        # from this one's move); a busy machine may take long, so wait long
                        thread.join(timeout=600)
                    assert len(sent) == len(ports), f"mail {number} was not accepted by every gateway"
                # the three workers follow and send, concurrently: wait for every reply (a busy
                # machine may take a while), then a little longer, for any double to show
                _wait_for_replies(sink, count, stop, 180)
                stop.wait(2.0)
            finally:
                for gateway in gateways:
                    gateway.stop()
    finally:
        relay.stop()

    game = svc.game(game_id)
    assert game.version == start + count  # every move once
    mails = [email.message_from_bytes(raw, policy=policy.default) for raw in sink.messages]
    replies = [m for m in mails if m["In-Reply-To"]]
    by_id = Counter(m["Message-ID"] for m in mails)
    assert [mid for mid, n in by_id.items() if n > 1] == []  # nothing doubled, by Message-ID
    by_content = Counter(m.get_body(("plain",)).get_content() for m in mails)
    assert [n for n in by_content.values() if n > 1] == []  # nor by content
    assert sorted(m["In-Reply-To"] for m in replies) == sorted(
        f"<pg-{number}@client.example>" for number in range(count)
    )  # every reply, once
