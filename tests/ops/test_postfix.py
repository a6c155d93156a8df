"""A real Postfix in front of the gateway, as deploy/postfix/main.cf.lmtp sets it up: mail sent
to Postfix on port 25 is handed to the gateway over LMTP and answered; the From-differential
forms are refused without moving anything; and Postfix never meets a temporary failure for a
mail's content (its queue ends empty and its log has no "deferred").

The test configures the machine's own Postfix instance (``postconf -e``), so it runs only where
Postfix is installed and the test may do that: CI installs it and sets PBEM_REQUIRE_POSTFIX=1.
"""

from __future__ import annotations

import os
import shutil
import smtplib
import subprocess
import time
from pathlib import Path

import pytest

from mailgateway.gateway import Gateway
from mailgateway.smtp import controller
from pbem.mailroom.addresses import seat_address
from pbem.mailroom.settings import MailSettings
from tests.mailgateway.conftest import Memory, free_port, make_mail, text_of
from tests.mailgateway.test_security import FORMS
from tests.ops.helpers import service_at

DOMAIN = "play.example.org"
SERVICE = f"pbem@{DOMAIN}"
ANN, BOB, EVE = "ann@example.com", "bob@example.com", "eve@evil.example"
LOG = Path("/var/log/pbem-test-postfix.log")


def _postfix_available() -> bool:
    return shutil.which("postfix") is not None and shutil.which("postconf") is not None and os.geteuid() == 0


pytestmark = pytest.mark.skipif(
    not _postfix_available() and os.environ.get("PBEM_REQUIRE_POSTFIX") != "1",
    reason="needs Postfix installed and root (CI installs it)",
)


def _run(*command: str) -> str:
    return subprocess.run(command, check=True, capture_output=True, text=True, timeout=60).stdout


@pytest.fixture
def postfix(tmp_path):
    """The machine's Postfix, relaying the game domain to an LMTP port chosen here."""
    lmtp_port = free_port()
    transport = tmp_path / "transport"
    transport.write_text(f"{DOMAIN} lmtp:inet:127.0.0.1:{lmtp_port}\n", encoding="utf-8")
    _run("postmap", str(transport))
    _run(
        "postconf",
        "-e",
        "myhostname=mx.pbem-test.localhost",
        "mydestination=",
        f"relay_domains={DOMAIN}",
        f"transport_maps=hash:{transport}",
        "recipient_delimiter=+",
        "inet_interfaces=loopback-only",
        "inet_protocols=ipv4",
        "mynetworks=127.0.0.0/8",
        "smtpd_relay_restrictions=permit_mynetworks,reject",
        "message_size_limit=327680",
        "lmtp_destination_recipient_limit=50",
        f"maillog_file={LOG}",
        "compatibility_level=3.6",
        "smtputf8_enable=no",
    )
    LOG.write_text("", encoding="utf-8")
    status = subprocess.run(["postfix", "status"], capture_output=True, timeout=30)
    _run("postfix", "reload" if status.returncode == 0 else "start")
    yield lmtp_port
    subprocess.run(["postsuper", "-d", "ALL"], capture_output=True, timeout=30)
    subprocess.run(["postfix", "stop"], capture_output=True, timeout=60)


def _wait(condition, seconds: float = 90) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.25)
    return False


def _queue_empty() -> bool:
    return _run("postqueue", "-j").strip() == ""


def test_mail_through_postfix_is_answered_and_forged_forms_are_refused(tmp_path, postfix):
    svc = service_at(tmp_path / "home")
    sent = Memory()
    gw = Gateway(svc, MailSettings(address=SERVICE, maildir=tmp_path / "maildir"), transport=sent)
    server = controller(gw, "127.0.0.1", postfix, lmtp=True)
    server.start()
    try:
        game = svc.create("hidden-pig", [ANN, BOB], {}, seed=b"\x09" * 32)
        svc.join(game, ANN)
        svc.join(game, BOB)
        bob = seat_address(SERVICE, game, svc.seat_token(game, 1))
        version = svc.game(game).version
        with smtplib.SMTP("127.0.0.1", 25, timeout=30) as client:
            client.sendmail(ANN, [SERVICE], _crlf(make_mail(ANN, SERVICE, "help")))
            for form in FORMS:
                raw = make_mail(BOB, bob, "hold").replace(b"From: bob@example.com", f"From: {form}".encode())
                client.sendmail(EVE, [bob], _crlf(raw))
            for raw in _content_errors():  # answered, never deferred
                client.sendmail(ANN, [SERVICE], _crlf(raw))
        expected = 1 + len(FORMS) + len(_content_errors())
        assert _wait(lambda: _queue_empty() and len(svc.game_ids()) == 1 and _receipts(svc) == expected), LOG.read_text(
            encoding="utf-8"
        )[-3000:]
        gw.work()
    finally:
        server.stop()
        server.handler.close()
    answered = [text_of(m) for m in sent.to(ANN) if m["In-Reply-To"]]
    assert len([t for t in answered if "Commands for" in t]) == 1  # "help" answered through Postfix
    assert svc.game(game).version == version  # no form moved bob's seat
    assert len(sent.to(EVE)) == len(FORMS)  # each refusal told the envelope sender
    assert [m for m in sent.to(BOB) if m["In-Reply-To"]] == []  # and nothing went to the forged name
    log = LOG.read_text(encoding="utf-8")
    assert "status=sent" in log and "deferred" not in log  # never a temporary failure
    assert len(answered) == 1 + len(_content_errors()) and all(
        "nothing was applied" in " ".join(t.lower().split()) for t in answered if "Commands for" not in t
    )


def _content_errors() -> list[bytes]:
    """Mails whose content is refused (issue rows 2, 6, 9): each must be answered, not retried."""
    head = f"From: {ANN}\nTo: {SERVICE}\nSubject: x\n"
    nested = "".join(f"--b{n}\nContent-Type: multipart/mixed; boundary=b{n + 1}\n\n" for n in range(3000))
    notes = "".join(f"X-Note-{n}: {'x' * 60}\n" for n in range(1200))  # a header block over 64 KiB
    return [
        make_mail(ANN, SERVICE, "catalog\n" * 6000),
        (
            f"{head}Message-ID: <deep@x>\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b0\n\n{nested}"
        ).encode(),
        f"{head}Message-ID: <wide@x>\n{notes}\nhelp\n".encode(),
    ]


def _crlf(raw: bytes) -> bytes:
    return raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def _receipts(svc) -> int:
    topic = "pbem.service.store:Receipt.Recorded"
    return len(svc.store.notification_log.select(1, 500, topics=[topic]))
