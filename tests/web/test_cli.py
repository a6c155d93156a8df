"""``pbem serve-web`` starts the site from a fresh data directory, as ``make run`` does."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

from click.testing import CliRunner

from pbem.cli import main


def test_serve_web_is_a_command():
    result = CliRunner().invoke(main, ["serve-web", "--help"])
    assert result.exit_code == 0
    assert "--host" in result.output and "--port" in result.output


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_serve_web_serves_a_fresh_installation(tmp_path):
    home = tmp_path / "pbem-data"
    env = {**os.environ, "PBEM_HOME": str(home)}
    created = subprocess.run(
        [
            sys.executable,
            "-c",
            "from pbem.cli import main; main()",
            "new",
            "kingdom-builder",
            "--player",
            "ann@example.org",
            "--player",
            "bob@example.org",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert created.returncode == 0, created.stderr
    game_id = created.stdout.strip()
    port = _free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from pbem.cli import main; main()",
            "serve-web",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--server",
            "werkzeug",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        health = None
        for _ in range(100):  # up to about 20 seconds
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as response:
                    health = json.loads(response.read())
                if health["games"] == 1:  # the games list's follower has caught up
                    break
                time.sleep(0.2)
            except OSError:
                if server.poll() is not None:
                    break
                time.sleep(0.2)
        assert health == {"status": "ok", "games": 1}, server.stderr.read() if server.poll() is not None else health
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/games/{game_id}", timeout=5) as response:
            assert response.status == 200
            assert "Kingdom Builder" in response.read().decode()
        request = urllib.request.Request(f"http://127.0.0.1:{port}/games/{game_id}", method="POST", data=b"x=1")
        try:
            urllib.request.urlopen(request, timeout=5)
            raise AssertionError("a POST was accepted")
        except urllib.error.HTTPError as error:
            assert error.code == 405
            error.close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)
        server.stderr.close()
