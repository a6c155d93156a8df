"""Delivery faults: duplicates, several processes at once, and kill -9 of the gateway while a
client streams mail with retries."""

from __future__ import annotations

import email
import json
import os
import random
import signal
import smtplib
import socket
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from pathlib import Path

from benchmarks.longgame import register_games
from mailgateway.gateway import Gateway
from mailgateway.sender import LEASE_SECONDS
from pbem.mailroom.addresses import seat_address
from pbem.mailroom.settings import MailSettings
from tests.faults.conftest import scale
from tests.ops.helpers import PLAYERS, service_at

ROOT = Path(__file__).resolve().parents[2]
SERVICE = "pbem@example.org"


def _long_game(svc, players: int = 2) -> str:
    register_games()
    game_id = svc.create("long-pig", PLAYERS[:players], {"rounds": "100000"}, seed=b"\x0b" * 32)
    for player in PLAYERS[:players]:
        svc.join(game_id, player)
    return game_id


def _seat_mail(svc, game_id: str, number: int, body: str | None = None) -> tuple[str, str, bytes]:
    game = svc.game(game_id)
    seat = game.spec.to_move(svc.state(game))[0]
    player = game.emails[seat]
    msg = EmailMessage()
    msg["From"] = player
    msg["To"] = seat_address(SERVICE, game_id, svc.seat_token(game_id, seat))
    msg["Subject"] = f"move {number}"
    msg["Message-ID"] = f"<fault-{number}@client.example>"
    msg.set_content(body or ("roll" if number % 3 else "hold"))
    return player, msg["To"], bytes(msg)


def test_a_thousand_duplicate_submissions_have_one_effect(tmp_path):
    svc = service_at(tmp_path)
    game_id = _long_game(svc)
    game = svc.game(game_id)
    player = game.emails[game.spec.to_move(svc.state(game))[0]]
    outcomes = [svc.submit(game_id, player, "roll", "email", idempotency_key="<same@client>") for _ in range(1000)]
    assert outcomes[0].ok and not outcomes[0].duplicate
    assert all(o.duplicate and o.version == outcomes[0].version for o in outcomes[1:])
    assert svc.game(game_id).version == game.version + 1


def test_a_thousand_duplicate_mails_make_one_move_and_one_reply(tmp_path):
    svc = service_at(tmp_path)
    game_id = _long_game(svc)
    sent = []

    class Memory:
        def send(self, key, to, message):
            sent.append((key, to, message))

    gw = Gateway(svc, MailSettings(address=SERVICE, maildir=tmp_path / "maildir"), transport=Memory())
    version = svc.game(game_id).version
    player, to, raw = _seat_mail(svc, game_id, 1)
    results = [gw.receive(raw, player, (to,)) for _ in range(1000)]
    assert results[0] == "processed" and set(results[1:]) == {"duplicate"}
    gw.work()
    gw.work()
    assert svc.game(game_id).version == version + 1
    replies = [m for _, _, m in sent if email.message_from_bytes(m, policy=policy.default)["In-Reply-To"]]
    assert len(replies) == 1


def test_concurrent_moves_from_several_processes_on_sqlite(tmp_path):
    svc = service_at(tmp_path / "home")
    game_id = _long_game(svc)
    start = svc.game(game_id).version
    go = tmp_path / "go"
    procs = []
    for number in range(3):
        out = tmp_path / f"out-{number}.json"
        procs.append(
            (
                out,
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "tests.ops.worker",
                        str(tmp_path / "home"),
                        "",
                        game_id,
                        f"s{number}",
                        str(scale(20, 200)),
                        str(go),
                        str(out),
                        "--unguarded",
                    ],
                    cwd=ROOT,
                ),
            )
        )
    go.touch()
    outcomes = []
    for out, proc in procs:
        assert proc.wait(timeout=300) == 0
        outcomes += json.loads(out.read_text())
    applied = sorted(o["version_before"] for o in outcomes if o["ok"])
    assert applied == list(range(start, start + len(applied))) and applied
    game = svc.game(game_id)
    assert game.version == start + len(applied)
    assert sum(e["kind"] == "moved" for e in game.entries) == len(applied)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class GatewayProcess:
    """``pbem serve-mail`` in its own process, restartable after a kill -9."""

    def __init__(self, home: Path, port: int, log):
        self.port = port
        self.log = log
        self.env = os.environ | {
            "PBEM_HOME": str(home),
            "PBEM_MAIL_ADDRESS": SERVICE,
            "PBEM_MAIL_TICK_SECONDS": "0.2",
            "PBEM_MAIL_REPLIES_PER_HOUR": "1000000",
        }
        self.env.pop("PBEM_DATABASE_URL", None)
        self.proc: subprocess.Popen | None = None
        self.kills = 0

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.faults.gateway_proc",
                "serve-mail",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
            ],
            cwd=ROOT,
            env=self.env,
            stdout=self.log,
            stderr=self.log,
        )

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)
            self.kills += 1

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


def _wait_for_port(port: int, stop: threading.Event, seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            time.sleep(0.02)
    return False


def _send_with_retries(port: int, sender: str, to: str, raw: bytes, attempts: int = 600) -> int:
    """Send until the server says 250; returns the number of tries."""
    for attempt in range(1, attempts + 1):
        try:
            with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
                client.sendmail(sender, [to], raw)
            return attempt
        except (OSError, smtplib.SMTPException):
            time.sleep(0.05)
    raise AssertionError(f"mail not accepted after {attempts} tries")


class _Sink:
    """The relay the gateway sends through: every delivery counted, repeats included."""

    def __init__(self) -> None:
        self.messages: list[bytes] = []

    async def handle_DATA(self, server, session, envelope) -> str:
        self.messages.append(envelope.original_content)
        return "250 2.0.0 OK"


def test_kill_9_of_the_gateway_loses_and_doubles_nothing(tmp_path):
    """kill -9 at random moments while mail streams in and replies stream out: no move lost or
    doubled, every reply sent, and at most one repeated reply per kill (counted at the relay)."""
    from aiosmtpd.controller import Controller

    home = tmp_path / "home"
    svc = service_at(home)
    game_id = _long_game(svc)
    start = svc.game(game_id).version
    port = _free_port()
    count = scale(300, 1000)
    chooser = random.Random(7)
    sink = _Sink()
    relay = Controller(sink, hostname="127.0.0.1", port=_free_port())
    relay.start()
    with (tmp_path / "gateway.log").open("wb") as log:
        gateway = GatewayProcess(home, port, log)
        gateway.env["PBEM_SMTP_RELAY"] = f"127.0.0.1:{relay.port}"
        gateway.start()
        kills = set(chooser.sample(range(1, count), scale(10, 60)))

        def kill_and_restart() -> None:
            gateway.kill()
            gateway.start()

        tries = 0
        for number in range(count):
            sender, to, raw = _seat_mail(svc, game_id, number)
            if number in kills:  # kill -9 at a random moment of this mail's delivery (or just before)
                killer = threading.Timer(chooser.uniform(0.0, 0.03), kill_and_restart)
                killer.start()
                tries += _send_with_retries(port, sender, to, raw)
                killer.join(timeout=30)
            else:
                tries += _send_with_retries(port, sender, to, raw)
        time.sleep(1.0)  # let the surviving gateway's worker send what is queued
        gateway.stop()
    print(f"{count} mails, {tries} tries, {gateway.kills} kills")
    assert gateway.kills == scale(10, 60), "the gateway should have been killed while mail was streaming"
    assert tries > count, "some mail should have needed a retry"

    # every accepted mail is stored once, with exactly one move each, at contiguous versions
    game = svc.game(game_id)
    assert game.version == start + count
    assert [e["index"] for e in game.entries] == list(range(game.version))
    moved = [e for e in game.entries if e["kind"] == "moved"]
    assert len(moved) == count and all(e["source"] == "email" for e in moved)
    for number in range(count):
        assert svc.store.receipt(f"mail:fault-{number}@client.example") is not None

    # every reply is sent: a killed process's claims run out after the lease, then another
    # sender (here, in-process) sends them through the same relay
    later = datetime.now(UTC) + timedelta(seconds=LEASE_SECONDS + 1)
    drain = Gateway(
        svc,
        MailSettings(address=SERVICE, relay=("127.0.0.1", relay.port), replies_per_hour=1_000_000),
        clock=lambda: later,
    )
    drain.work()
    relay.stop()
    mails = [email.message_from_bytes(m, policy=policy.default) for m in sink.messages]
    replies = [m["In-Reply-To"] for m in mails if m["In-Reply-To"]]
    assert set(replies) == {f"<fault-{number}@client.example>" for number in range(count)}
    repeats = len(mails) - len({m["Message-ID"] for m in mails})
    print(f"{len(mails)} mails at the relay, {repeats} repeated")
    assert repeats <= gateway.kills  # at most one repeated mail per kill, with the same Message-ID
