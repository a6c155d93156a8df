"""Several processes on one PostgreSQL database. Two mail gateways hit with the same game at once:
each mail (delivered to both gateways at the same moment) is applied once, moves are never
lost or doubled, and both gateways' outbox workers together send each reply once (sends are
idempotent: a reply's file is named by its key)."""

from __future__ import annotations

import email
import threading
from email import policy
from email.message import EmailMessage

from benchmarks.longgame import register_games
from pbem.ledger.verify import export_bytes, verify_bytes
from pbem.mailroom.addresses import seat_address
from tests.faults.test_delivery import SERVICE, GatewayProcess, _free_port, _send_with_retries, _wait_for_port
from tests.ops.helpers import PLAYERS, service_at

MAILS = 16


def _mail(svc, game_id: str, seat: int, number: int, body: str) -> tuple[str, str, bytes]:
    msg = EmailMessage()
    msg["From"] = PLAYERS[seat]
    msg["To"] = seat_address(SERVICE, game_id, svc.seat_token(game_id, seat))
    msg["Subject"] = f"move {number}"
    msg["Message-ID"] = f"<pg-{number}@client.example>"
    msg.set_content(body)
    return PLAYERS[seat], msg["To"], bytes(msg)


def test_two_gateways_one_database_one_game(tmp_path, postgres_url):
    register_games()
    home = tmp_path / "home"
    svc = service_at(home, database_url=postgres_url)
    svc.keys.signer()  # the key exists before two processes start
    game_id = svc.create("long-pig", PLAYERS[:2], {"rounds": "100000"}, seed=b"\x0d" * 32)
    for player in PLAYERS[:2]:
        svc.join(game_id, player)
    start = svc.game(game_id).version
    ports = [_free_port(), _free_port()]
    stop = threading.Event()
    with (tmp_path / "gateways.log").open("wb") as log:
        gateways = [GatewayProcess(home, port, log) for port in ports]
        try:
            for gateway in gateways:  # both at once: the store retries its racing table set-up
                gateway.env["PBEM_DATABASE_URL"] = postgres_url
                gateway.start()
            for gateway in gateways:
                assert _wait_for_port(gateway.port, stop, 60), "a gateway did not start"
            for number in range(MAILS):
                game = svc.game(game_id)
                seat = game.spec.to_move(svc.state(game))[0]
                sender, to, raw = _mail(svc, game_id, seat, number, "roll" if number % 2 else "hold")
                # the same mail to both gateways at the same moment (a retried delivery, two MX hosts)
                threads = [threading.Thread(target=_send_with_retries, args=(port, sender, to, raw)) for port in ports]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join(timeout=120)
            threading.Event().wait(2.0)  # both workers feed the outbox and send, concurrently
        finally:
            for gateway in gateways:
                gateway.stop()

    game = svc.game(game_id)
    moved = [e for e in game.entries if e["kind"] == "moved"]
    assert len(moved) == MAILS and game.version == start + MAILS
    assert [e["index"] for e in game.entries] == list(range(game.version))
    for number in range(MAILS):
        assert svc.store.receipt(f"mail:pg-{number}@client.example") is not None
    verify_bytes(export_bytes(svc.export(game_id)))

    replies = [
        email.message_from_bytes(path.read_bytes(), policy=policy.default)
        for path in (home / "maildir" / "new").glob("*")
    ]
    answered = [m["In-Reply-To"] for m in replies if m["In-Reply-To"]]
    assert sorted(answered) == sorted(f"<pg-{number}@client.example>" for number in range(MAILS))


def test_two_web_processes_serve_the_same_latest_game(tmp_path, postgres_url):
    """Two web processes on one database, each with its own state cache, both show every new
    move as soon as it is stored."""
    import os
    import subprocess
    import sys
    import urllib.request
    from pathlib import Path

    register_games()
    home = tmp_path / "home"
    svc = service_at(home, database_url=postgres_url)
    svc.keys.signer()
    game_id = svc.create("long-pig", PLAYERS[:2], {"rounds": "100000"}, seed=b"\x0e" * 32)
    for player in PLAYERS[:2]:
        svc.join(game_id, player)
    env = os.environ | {"PBEM_HOME": str(home), "PBEM_DATABASE_URL": postgres_url}
    ports = [_free_port(), _free_port()]
    stop = threading.Event()
    procs = []
    root = Path(__file__).resolve().parents[2]
    with (tmp_path / "web.log").open("wb") as log:
        try:
            for port in ports:
                procs.append(
                    subprocess.Popen(
                        [
                            sys.executable,
                            "-m",
                            "tests.faults.gateway_proc",
                            "serve-web",
                            "--host",
                            "127.0.0.1",
                            "--port",
                            str(port),
                        ],
                        cwd=root,
                        env=env,
                        stdout=log,
                        stderr=log,
                    )
                )
                assert _wait_for_port(port, stop, 60), "a web process did not start"
            for _ in range(6):
                game = svc.game(game_id)
                seat = game.spec.to_move(svc.state(game))[0]
                assert svc.submit(game_id, game.emails[seat], "hold").ok
                expected = export_bytes(svc.export(game_id))
                for port in ports:
                    with urllib.request.urlopen(
                        f"http://127.0.0.1:{port}/games/{game_id}/export.json", timeout=30
                    ) as response:
                        assert response.read().strip() == expected.strip()
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=30) as response:
                        assert response.status == 200
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(timeout=30)
