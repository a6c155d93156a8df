"""The mail commands: mail-in's exit codes, check-receipt, and `pbem serve` as a process."""

from __future__ import annotations

import json
import os
import smtplib
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from click.testing import CliRunner

from pbem.cli import main
from pbem.config import Settings
from pbem.service.service import GameService
from tests.mailgateway.conftest import make_mail

ANN = "ann@example.net"


def test_mail_in_processes_one_message_and_mail_work_delivers_to_the_maildir(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PBEM_MAIL_ADDRESS", "games@example.org")
    runner = CliRunner()
    raw = make_mail(ANN, "games@example.org", "catalog")
    result = runner.invoke(main, ["mail-in", "--sender", ANN, "--recipient", "games@example.org"], input=raw)
    assert result.exit_code == 0 and "processed" in result.output
    result = runner.invoke(main, ["mail-in"], input=raw)
    assert result.exit_code == 0 and "duplicate" in result.output
    result = runner.invoke(main, ["mail-work"])
    assert result.exit_code == 0
    (delivered,) = list((tmp_path / "home" / "maildir" / "new").iterdir())
    assert b"hidden-pig" in delivered.read_bytes() and b"To: ann@example.net" in delivered.read_bytes()


def test_mail_in_temporary_failure_is_exit_75(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("x")
    monkeypatch.setenv("PBEM_HOME", str(blocker))
    result = CliRunner().invoke(main, ["mail-in"], input=make_mail(ANN, "pbem@localhost", "help"))
    assert result.exit_code == 75


def test_check_receipt(tmp_path, monkeypatch):
    service = GameService(Settings(home=tmp_path / "home"))
    game_id = service.create("hidden-pig", [ANN, "bob@example.com"], {}, seed=b"\x05" * 32)
    service.join(game_id, ANN)
    service.join(game_id, "bob@example.com")
    service.submit(game_id, ANN, ["hold"])
    receipt = service.receipt(game_id, 3, 4)
    key = str(service.keys.signer().verifier)
    service.close()
    good = tmp_path / "receipt.json"
    good.write_text(json.dumps(receipt))
    result = CliRunner().invoke(main, ["check-receipt", str(good), "--key", key])
    assert result.exit_code == 0 and "entry 3" in result.output
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(receipt | {"path": receipt["path"][1:]}))
    result = CliRunner().invoke(main, ["check-receipt", str(bad)])
    assert result.exit_code == 1 and "inclusion proof" in result.output


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_pbem_serve_receives_and_answers(tmp_path):
    web, mail = free_port(), free_port()
    seeded = GameService(Settings(home=tmp_path / "home"), clock=lambda: "2030-01-01T00:00:00+00:00")
    game_id = seeded.create("kingdom-builder", [ANN, "bob@example.com"], {})
    seeded.join(game_id, ANN)
    seeded.join(game_id, "bob@example.com")
    seeded.close()
    env = dict(os.environ, PBEM_HOME=str(tmp_path / "home"), PBEM_MAIL_TICK_SECONDS="0.2")
    command = [
        sys.executable,
        "-c",
        "from pbem.cli import main; main()",
        "serve",
        "--web-port",
        str(web),
        "--mail-port",
        str(mail),
    ]
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=Path(__file__).resolve().parents[2]
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                client = smtplib.SMTP("127.0.0.1", mail, timeout=5)
                break
            except OSError:
                assert time.monotonic() < deadline and process.poll() is None, "pbem serve did not start"
                time.sleep(0.2)
        web_status, page = _get_when_up(f"http://127.0.0.1:{web}/games/{game_id}", deadline, process)
        with client:
            client.sendmail(ANN, ["pbem@localhost"], make_mail(ANN, "pbem@localhost", "help"))
        box = tmp_path / "home" / "maildir" / "new"
        while not (box.exists() and any(box.iterdir())):
            assert time.monotonic() < deadline, "no reply in the maildir"
            time.sleep(0.2)
    finally:
        process.terminate()
        output = process.communicate(timeout=30)[0].decode()
    assert process.returncode == 0, output
    assert "mail gateway: SMTP on 127.0.0.1" in output
    assert web_status == 200, output  # the web site must start too, not only the gateway
    assert "2030-01-04" in page  # the gateway's deadline (72 hours after the start) on the game page


def _get_when_up(url: str, deadline: float, process: subprocess.Popen) -> tuple[int, str]:
    """GET ``url`` once the web site answers (it may start a moment after the gateway)."""
    while True:
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:  # it answers, with an error: no point waiting
            return error.code, ""
        except OSError:
            assert time.monotonic() < deadline and process.poll() is None, "the web site did not start"
            time.sleep(0.2)
