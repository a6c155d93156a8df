"""Three mail gateways, real processes, on one PostgreSQL database, the tick at a minute: every
reply leaves when a commit gives a worker work (its own process's at once, the others' by
LISTEN/NOTIFY), each notification is turned into mail by exactly one gateway's follower, and
every mail reaches the relay (a real SMTP sink) exactly once, counted by its Message-ID."""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from email import message_from_bytes, policy
from email.message import EmailMessage

from aiosmtpd.controller import Controller

from benchmarks.longgame import register_games
from pbem.mailroom.addresses import seat_address
from pbem.mailroom.followers import ABSENCE_TOPICS
from pbem.mailroom.outbox import TOPICS
from tests.faults.test_delivery import SERVICE, GatewayProcess, _free_port, _send_with_retries, _wait_for_port
from tests.ops.helpers import service_at

PLAYERS = [f"p{n}@example.org" for n in range(8)]  # 8 players in 4 games
GAMES, ROUNDS, GATEWAYS = 4, 5, 3
TICK = 60.0
PATIENCE = 20.0  # seconds a loaded machine may take for one reply; far below the tick
FOLLOWED = re.compile(r"followed notifications (\d+) to (\d+)")


class Sink:
    """The relay: keeps every message it is given."""

    def __init__(self) -> None:
        self.messages: list = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope) -> str:
        message = message_from_bytes(envelope.original_content, policy=policy.default)
        with self.lock:
            self.messages.append(message)
        return "250 OK"

    def replies_to(self, message_id: str) -> int:
        with self.lock:
            return sum(1 for m in self.messages if m["In-Reply-To"] == message_id)

    def to(self, address: str) -> int:
        with self.lock:
            return sum(1 for m in self.messages if address in str(m["To"]))


def _move(svc, game_id: str, number: int) -> tuple[str, str, bytes, str]:
    game = svc.game(game_id)
    seat = game.spec.to_move(svc.state(game))[0]
    msg = EmailMessage()
    msg["From"] = game.emails[seat]
    msg["To"] = seat_address(SERVICE, game_id, svc.seat_token(game_id, seat))
    msg["Subject"] = f"move {number}"
    msg["Message-ID"] = f"<push-{game_id}-{number}@client.example>"
    msg.set_content("hold\n")
    return game.emails[seat], msg["To"], bytes(msg), msg["Message-ID"]


def _until(check, seconds: float = PATIENCE) -> float | None:
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        if check():
            return time.monotonic() - start
        time.sleep(0.01)
    return None


def _play(svc, game_id: str, ports: list[int], sink: Sink, offset: int, waits: list[float]) -> None:
    """A game's moves, each to the next gateway in turn, each sent when the last one's reply came."""
    for number in range(ROUNDS):
        sender, to, raw, message_id = _move(svc, game_id, number)
        _send_with_retries(ports[(offset + number) % len(ports)], sender, to, raw)
        waited = _until(lambda: sink.replies_to(message_id) >= 1)  # noqa: B023 (called at once)
        assert waited is not None, f"no reply to {message_id} within {PATIENCE} s (the tick is {TICK} s)"
        waits.append(waited)


def test_three_gateways_answer_at_once_and_send_each_mail_once(tmp_path, postgres_url):
    register_games()
    home = tmp_path / "home"
    svc = service_at(home, database_url=postgres_url)
    svc.keys.signer()  # the key exists before the processes start
    games = []
    for number in range(GAMES):
        pair = PLAYERS[2 * number : 2 * number + 2]
        game_id = svc.create("long-pig", pair, {"rounds": "1000"}, seed=bytes([number + 1]) * 32)
        for player in pair:
            svc.join(game_id, player)
        games.append(game_id)
    handler = Sink()
    relay = Controller(handler, hostname="127.0.0.1", port=_free_port())
    relay.start()
    ports = [_free_port() for _ in range(GATEWAYS)]
    stop = threading.Event()
    waits: list[float] = []
    log_path = tmp_path / "gateways.log"
    with log_path.open("wb") as log:
        gateways = [GatewayProcess(home, port, log) for port in ports]
        try:
            for gateway in gateways:
                gateway.env |= {
                    "PBEM_DATABASE_URL": postgres_url,
                    "PBEM_MAIL_TICK_SECONDS": str(TICK),
                    "PBEM_SMTP_RELAY": f"127.0.0.1:{relay.port}",
                    "PBEM_MAIL_PICTURES": "off",
                }
                gateway.env.pop("PBEM_MAILDIR", None)
                gateway.start()
            for gateway in gateways:
                assert _wait_for_port(gateway.port, stop, 60), "a gateway did not start"
            # the games' first notices, stored before the gateways started, go out in their first rounds
            assert _until(lambda: all(handler.to(player) >= 1 for player in PLAYERS), 60) is not None
            players = [
                threading.Thread(target=_play, args=(svc, game_id, ports, handler, offset, waits))
                for offset, game_id in enumerate(games)
            ]
            for thread in players:
                thread.start()
            for thread in players:
                thread.join(timeout=GAMES * ROUNDS * PATIENCE)
            assert len(waits) == GAMES * ROUNDS, "a game's moves were not all answered"
            # a move made by no gateway (another process: this one): LISTEN/NOTIFY wakes them
            game = svc.game(games[0])
            seat = game.spec.to_move(svc.state(game))[0]
            before = handler.to(game.emails[1 - seat])
            assert svc.submit(games[0], game.emails[seat], ["hold"]).ok
            assert _until(lambda: handler.to(game.emails[1 - seat]) > before) is not None, (
                "a commit of another process did not wake the gateways before the tick"
            )
            time.sleep(1.0)  # a doubled send would show by now
        finally:
            for gateway in gateways:
                gateway.stop()
            relay.stop()

    ids = Counter(str(message["Message-ID"]) for message in handler.messages)
    assert ids and all(count == 1 for count in ids.values()), [i for i, n in ids.items() if n > 1]
    notifications = [n.id for n in svc.store.notification_log.select(1, 500, topics=TOPICS + ABSENCE_TOPICS)]
    spans = [(int(a), int(b)) for a, b in FOLLOWED.findall(log_path.read_text(errors="replace"))]
    handled = Counter(n for n in notifications for first, last in spans if first <= n <= last)
    assert handled == Counter(notifications), "a notification was followed twice or never"
    print(f"replies after {sorted(waits)}")
    assert max(waits) < PATIENCE < TICK
    svc.close()
