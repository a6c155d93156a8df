"""Issue 28: hostile SMTP clients against a real ``pbem serve-mail`` process."""

from __future__ import annotations

import smtplib
import socket
import threading
import time

from tests.faults.test_delivery import SERVICE, GatewayProcess, _free_port, _wait_for_port
from tests.mailgateway.conftest import make_mail

HOLDER = "127.0.0.2"  # loopback has every 127/8 address: another "client" on the same machine


def _hold(port: int, stop: threading.Event, closed: list[bytes]) -> None:
    """A client that greets and then only sends NOOP, twice a second, until it is closed."""
    with socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(HOLDER, 0)) as conn:
        reader = conn.makefile("rb")
        if not reader.readline().startswith(b"220"):
            closed.append(b"no greeting")
            return
        conn.sendall(b"EHLO holder.example\r\n")
        while not stop.is_set():
            line = reader.readline()
            if not line:  # the server closed the conversation
                return
            if line.startswith(b"421"):
                closed.append(line)
                return
            if line[3:4] == b" ":  # the last line of a reply: send the next NOOP
                time.sleep(0.5)
                try:
                    conn.sendall(b"NOOP\r\n")
                except OSError:
                    return


def test_conversations_that_send_only_noop_are_closed_and_their_places_freed(tmp_path):
    """One address held all its 32 places (8 addresses all 256) with a NOOP every few minutes;
    such conversations are now closed after PBEM_MAIL_IDLE_SECONDS without a mail."""
    port = _free_port()
    with (tmp_path / "gateway.log").open("wb") as log:
        gateway = GatewayProcess(tmp_path / "home", port, log)
        gateway.env["PBEM_MAIL_IDLE_SECONDS"] = "2"
        gateway.start()
        stop = threading.Event()
        closed: list[bytes] = []
        holders = [threading.Thread(target=_hold, args=(port, stop, closed)) for _ in range(32)]
        try:
            assert _wait_for_port(port, stop)
            for holder in holders:
                holder.start()
            time.sleep(1.0)
            with socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(HOLDER, 0)) as conn:
                assert conn.makefile("rb").readline().startswith(b"421")  # all 32 places are held
            time.sleep(3.0)  # past the idle limit, NOOPs and all
            with socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(HOLDER, 0)) as conn:
                assert conn.makefile("rb").readline().startswith(b"220")  # served again
        finally:
            stop.set()
            for holder in holders:
                holder.join(timeout=30)
            gateway.stop()
    assert len(closed) == 32 and all(b"Idle" in line for line in closed)


def test_positive_control_a_client_that_sends_mail_keeps_its_conversation(tmp_path):
    port = _free_port()
    with (tmp_path / "gateway.log").open("wb") as log:
        gateway = GatewayProcess(tmp_path / "home", port, log)
        gateway.env["PBEM_MAIL_IDLE_SECONDS"] = "2"
        gateway.start()
        try:
            assert _wait_for_port(port, threading.Event())
            with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
                for _ in range(4):  # 4 mails 1.5 s apart: each mail starts the idle time again
                    client.sendmail("ann@example.org", [SERVICE], make_mail("ann@example.org", SERVICE, "help"))
                    time.sleep(1.5)
                assert client.noop()[0] == 250
        finally:
            gateway.stop()
