"""The ``replies`` section: how soon a move's answer reaches the player, and whether the outbox
keeps the intake's pace. The gateways run as the deployment runs them (``pbem serve-mail`` in
processes of their own, the tick at a minute so that only a commit can wake them), their relay
is a real SMTP sink in this process, and every figure is taken from the sink's clock:

* reply latency: 8 players in 4 games, each game's seat to move sending its move when the last
  one's reply has come, the 4 games at once; from the move's 250 to its reply at the sink, beside
  the same mails' intake latency (from the start of the SMTP transaction to its 250);
* end to end: a stream of move mails, 4 connections at once (one a game), as fast as the gateways
  take them; replies out per second (all replies at the sink) against mails in per second.

SQLite with one gateway, PostgreSQL (when reachable on 127.0.0.1:5432) with three."""

from __future__ import annotations

import contextlib
import os
import smtplib
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

from aiosmtpd.controller import Controller

from benchmarks.longgame import register_games
from benchmarks.measure import ROOT, SERVICE, Row, _free_port, _percentile, _postgres_database, ms
from pbem.config import Settings
from pbem.mailroom.addresses import seat_address
from pbem.service.service import GameService

GAMES = 4
PLAYERS = [f"player{n}@bench.example" for n in range(2 * GAMES)]
TICK = "60"  # seconds: the safety net only; a reply that waited for it would show
PATIENCE = 120.0  # seconds to wait for the last reply before the run counts as failed

Mail = tuple[str, str, bytes, str]  # sender, recipient, bytes, Message-ID


class Sink:
    """The relay: notes when each reply arrives, by the Message-ID it answers."""

    def __init__(self) -> None:
        self.arrived: dict[str, float] = {}
        self.total = 0
        self.changed = threading.Condition()

    async def handle_DATA(self, server, session, envelope) -> str:
        now = time.perf_counter()
        message = message_from_bytes(envelope.original_content, policy=policy.compat32)
        with self.changed:
            self.total += 1
            answered = message["In-Reply-To"]
            if answered:
                self.arrived.setdefault(str(answered).strip(), now)
            self.changed.notify_all()
        return "250 OK"

    def wait_for(self, message_ids: list[str], seconds: float = PATIENCE) -> list[float]:
        """The arrival times of the replies to ``message_ids`` (RuntimeError when one is late);
        the sink's clock took them, so how often this looks changes nothing."""
        deadline = time.perf_counter() + seconds
        missing = list(message_ids)
        while True:
            with self.changed:
                missing = [m for m in missing if m not in self.arrived]
                if not missing:
                    return [self.arrived[m] for m in message_ids]
                left = deadline - time.perf_counter()
                if left <= 0:
                    raise RuntimeError(f"replies benchmark: {len(missing)} replies missing after {seconds:.0f} s")
                self.changed.wait(min(left, 0.05))

    def wait_total(self, count: int, seconds: float = PATIENCE) -> None:
        deadline = time.perf_counter() + seconds
        with self.changed:
            while self.total < count and self.changed.wait(max(0.0, deadline - time.perf_counter())):
                pass


class Games:
    """4 long games of 2 players in a fresh store, and their move mails in order."""

    def __init__(self, home: Path, database_url: str | None) -> None:
        register_games()
        svc = GameService(Settings(home=home, database_url=database_url))
        svc.keys.signer()  # the key exists before the gateways start
        self.ids: list[str] = []
        self.tokens: list[list[str]] = []
        self.next_seat: list[int] = []
        self.sent = [0] * GAMES
        for number in range(GAMES):
            pair = PLAYERS[2 * number : 2 * number + 2]
            game_id = svc.create("long-pig", pair, {"rounds": "1000000"}, seed=bytes([number + 1]) * 32)
            for player in pair:
                svc.join(game_id, player)
            game = svc.game(game_id)
            self.ids.append(game_id)
            self.tokens.append([svc.seat_token(game_id, seat) for seat in range(2)])
            self.next_seat.append(game.spec.to_move(svc.state(game))[0])
        svc.close()

    def move(self, game: int) -> Mail:
        """The next ``hold`` of ``game`` (the seats alternate)."""
        seat, number = self.next_seat[game], self.sent[game]
        self.next_seat[game], self.sent[game] = 1 - seat, number + 1
        msg = EmailMessage()
        msg["From"] = PLAYERS[2 * game + seat]
        msg["To"] = seat_address(SERVICE, self.ids[game], self.tokens[game][seat])
        msg["Subject"] = f"turn {number}"
        msg["Message-ID"] = f"<reply-{game}-{number}@client.example>"
        msg.set_content("hold\n")
        return msg["From"], msg["To"], bytes(msg), msg["Message-ID"]


@contextlib.contextmanager
def gateways(home: Path, database_url: str | None, count: int, relay: int) -> Iterator[list[int]]:
    """``count`` gateway processes on one store, relaying to ``relay``; yields their ports."""
    env = os.environ | {
        "PBEM_HOME": str(home),
        "PBEM_MAIL_ADDRESS": SERVICE,
        "PBEM_MAIL_TICK_SECONDS": TICK,
        "PBEM_MAIL_REPLIES_PER_HOUR": "10000000",
        # the full stream is some 700 moves a player in under an hour: over the default flood guard
        "PBEM_MAIL_FLOOD_PER_HOUR": "10000000",
        "PBEM_SMTP_RELAY": f"127.0.0.1:{relay}",
    }
    env.pop("PBEM_DATABASE_URL", None)
    if database_url:
        env["PBEM_DATABASE_URL"] = database_url
    ports = [_free_port() for _ in range(count)]
    procs = []
    with (home.parent / "gateways.log").open("ab") as log:
        try:
            for port in ports:
                argv = [sys.executable, "-m", "tests.faults.gateway_proc", "serve-mail", "--host", "127.0.0.1"]
                procs.append(subprocess.Popen([*argv, "--port", str(port)], cwd=ROOT, env=env, stdout=log, stderr=log))
            for port in ports:
                _wait_for_port(port)
            yield ports
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                try:
                    proc.wait(timeout=40)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=10)


def _wait_for_port(port: int, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.05)
    raise RuntimeError(f"a gateway did not start on port {port}")


def _play(games: Games, game: int, port: int, moves: int, sink: Sink, out: list[tuple[float, float]]) -> None:
    """One game's moves, each sent when the last one's reply arrived: (intake, reply) seconds."""
    with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
        for _ in range(moves):
            sender, to, raw, message_id = games.move(game)
            start = time.perf_counter()
            client.sendmail(sender, [to], raw)
            accepted = time.perf_counter()
            (arrived,) = sink.wait_for([message_id])
            out.append((accepted - start, arrived - accepted))


def _stream(mails: list[Mail], port: int, done: list[float]) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
        for sender, to, raw, _ in mails:
            client.sendmail(sender, [to], raw)
    done.append(time.perf_counter())


def _in_threads(targets: list[tuple]) -> None:
    threads = [threading.Thread(target=target, args=args) for target, *args in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _measure(work: Path, database_url: str | None, count: int, moves: int, stream: int) -> dict[str, float]:
    games = Games(work / "home", database_url)
    sink = Sink()
    relay = Controller(sink, hostname="127.0.0.1", port=_free_port())
    relay.start()
    try:
        with gateways(work / "home", database_url, count, relay.port) as ports:
            sink.wait_total(4 * GAMES)  # the games' first notices (2 a player) went out
            timings: list[tuple[float, float]] = []
            _in_threads([(_play, games, g, ports[g % count], moves // GAMES, sink, timings) for g in range(GAMES)])
            per_game = [[games.move(g) for _ in range(stream // GAMES)] for g in range(GAMES)]
            done: list[float] = []
            start = time.perf_counter()
            _in_threads([(_stream, per_game[g], ports[g % count], done) for g in range(GAMES)])
            late = PATIENCE + 5 * (max(done) - start)  # an outbox at a fifth of the intake's pace still ends
            arrived = sink.wait_for([mail[3] for mails in per_game for mail in mails], late)
    finally:
        relay.stop()
    intake, reply = sorted(t[0] for t in timings), sorted(t[1] for t in timings)
    taken = GAMES * (stream // GAMES)
    return {
        "intake50": _percentile(intake, 0.5),
        "intake99": _percentile(intake, 0.99),
        "reply50": _percentile(reply, 0.5),
        "reply99": _percentile(reply, 0.99),
        "in": taken / (max(done) - start),
        "out": taken / (max(arrived) - start),
        "stream": taken,
    }


def replies(work: Path, quick: bool) -> list[Row]:
    moves, stream = (80, 400) if quick else (1_000, 5_000)
    targets: list[tuple[str, str | None, int]] = [("SQLite, 1 gateway", None, 1)]
    database = _postgres_database()
    if database:
        targets.append(("PostgreSQL, 3 gateways", database[0], 3))
    rows = []
    try:
        for number, (label, url, count) in enumerate(targets):
            got = _measure(work / str(number), url, count, moves, stream)
            rows.append(
                Row(
                    "replies",
                    f"reply latency: move's 250 -> its reply at the relay ({label}) vs intake (DATA -> 250)",
                    f"{moves} move mails, 8 players in 4 games at once, tick {TICK} s",
                    f"p50 {ms(got['reply50'])}, p99 {ms(got['reply99'])}",
                    f"p50 {ms(got['intake50'])}, p99 {ms(got['intake99'])}",
                    got["reply50"] / got["intake50"],
                    "reply p50 / intake p50 (bar: reply p50 <= 100 ms, p99 <= 1 s)",
                )
            )
            rows.append(
                Row(
                    "replies",
                    f"end to end: replies out at the relay vs move mails in ({label})",
                    f"{got['stream']:.0f} move mails, 4 connections at once",
                    f"{got['out']:,.0f} replies/s",
                    f"{got['in']:,.0f} mails/s",
                    got["out"] / got["in"],
                    "out / in (bar: >= 0.9)",
                )
            )
    finally:
        if database:
            database[1]()
    if not database:
        missing = "PostgreSQL: not reachable on 127.0.0.1:5432, not measured"
        rows.append(Row("replies", missing, "-", "-", "-", 0.0, "-"))
    return rows
