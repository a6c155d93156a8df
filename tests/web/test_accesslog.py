"""Seat tokens never reach an access log: werkzeug's (the app's own servers), gunicorn's and
nginx's as configured in deploy/."""

from __future__ import annotations

import logging
import re
import shlex
import threading
import urllib.request
from pathlib import Path

import pytest
import yaml
from werkzeug.serving import make_server

from pbem.web.accesslog import RedactingRequestHandler, redact

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
TOKEN = "abcdefghijklmnop"


def test_redact_replaces_every_seat_token_and_nothing_else():
    assert (
        redact(f"GET /games/kb-1/seat/{TOKEN}/turn/3?lang=cs HTTP/1.1")
        == "GET /games/kb-1/seat/[token]/turn/3?lang=cs HTTP/1.1"
    )
    assert redact(f"/games/kb-1/seat/{TOKEN}") == "/games/kb-1/seat/[token]"
    assert redact("GET /games/kb-1/turn/3 HTTP/1.1") == "GET /games/kb-1/turn/3 HTTP/1.1"


def test_the_apps_werkzeug_server_logs_seat_urls_without_the_token(app, games, caplog):
    token = games.service.seat_token(games.running["kingsburg"], 0)
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=RedactingRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with caplog.at_level(logging.INFO, logger="werkzeug"):
            url = f"http://127.0.0.1:{server.server_port}/games/{games.running['kingsburg']}/seat/{token}"
            with urllib.request.urlopen(url, timeout=10) as response:
                assert response.status == 200
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "/seat/[token]" in logged and token not in logged


def test_gunicorn_logger_redacts_every_atom():
    pytest.importorskip("gunicorn")
    from datetime import timedelta
    from types import SimpleNamespace

    from gunicorn.config import Config

    from pbem.web.accesslog import GunicornLogger

    path = f"/games/kb-1/seat/{TOKEN}"
    response = SimpleNamespace(status="200 OK", headers=[], response_length=10, sent=10)
    request = SimpleNamespace(
        headers=[("REFERER", f"https://x{path}")], method="GET", path=path, query="", version=(1, 1), uri=path
    )
    environ = {
        "REMOTE_ADDR": "192.0.2.1",
        "RAW_URI": path,
        "REQUEST_METHOD": "GET",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "QUERY_STRING": "",
        "PATH_INFO": path,
        "HTTP_REFERER": f"https://x{path}",
    }
    atoms = GunicornLogger(Config()).atoms(response, request, environ, timedelta(seconds=0.01))
    assert atoms["r"] == "GET /games/kb-1/seat/[token] HTTP/1.1"
    assert TOKEN not in repr(atoms)


def _gunicorn_commands() -> list[list[str]]:
    unit = (DEPLOY / "systemd" / "pbem-web.service").read_text().splitlines()
    commands = [shlex.split(line.split("=", 1)[1]) for line in unit if line.startswith("ExecStart=")]
    container = re.search(r"^CMD (\[.*\])$", (DEPLOY / "Containerfile").read_text(), re.M)
    commands.append(yaml.safe_load(container.group(1)))
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    commands += [
        service["command"]
        for service in compose["services"].values()
        if isinstance(service.get("command"), list) and "gunicorn" in service["command"][0]
    ]
    return commands


def test_every_deployed_gunicorn_uses_the_redacting_logger():
    commands = _gunicorn_commands()
    assert len(commands) == 3
    for command in commands:
        assert command[command.index("--logger-class") + 1] == "pbem.web.accesslog.GunicornLogger", command


def test_nginx_logs_with_the_token_replaced():
    conf = (DEPLOY / "nginx" / "pbem.conf").read_text()
    servers = conf.count("server {")
    assert conf.count("access_log /var/log/nginx/pbem.access.log pbem;") == servers  # every server block
    assert "$request_uri" not in conf.split("log_format pbem", 1)[1].split(";", 1)[0]
    pattern, replacement = re.search(r'"~(\^.*\$)" "(.*)";', conf).groups()
    pcre = re.compile(pattern.replace("(?<", "(?P<"))
    uri = f"/games/kb-1/seat/{TOKEN}/history?page=2"
    logged = pcre.sub(lambda m: replacement.replace("${before}", m["before"]).replace("${after}", m["after"]), uri)
    assert logged == "/games/kb-1/seat/[token]/history?page=2"
