"""No mail, record or reply may stall the others (issue 28): real ``serve-mail`` processes over
SMTP. A mail whose content the store refuses (a NUL byte on PostgreSQL), an address a relay
cannot take or a timer that cannot fire is answered or becomes a dead letter; every other
game's mail keeps flowing."""

from __future__ import annotations

import email
import time
from email import policy
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.mailroom.addresses import seat_address
from tests.faults.test_delivery import SERVICE, GatewayProcess, _free_port, _send_with_retries, _wait_for_port
from tests.ops.helpers import PLAYERS, service_at

ANN, BOB, CY, DEE = PLAYERS[:4]


def _mail(sender: str, to: str, body: str, message_id: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = "moves"
    msg["Message-ID"] = f"<{message_id}@client.example>"
    msg.set_content(body)
    return bytes(msg)


def _replies(maildir: Path) -> list[email.message.EmailMessage]:
    return [
        email.message_from_bytes(path.read_bytes(), policy=policy.default)  # type: ignore[misc]
        for path in sorted((maildir / "new").glob("*"))
    ]


def _answered(maildir: Path, message_id: str, seconds: float = 20.0) -> email.message.EmailMessage | None:
    """The reply to ``message_id`` once it is in the maildir (None: none came in time)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for reply in _replies(maildir):
            if reply["In-Reply-To"] == f"<{message_id}@client.example>":
                return reply
        time.sleep(0.1)
    return None


def _pig(svc) -> str:
    game_id = svc.create("hidden-pig", [ANN, BOB], {"rounds": "5"}, seed=b"\x21" * 32)
    for player in (ANN, BOB):
        svc.join(game_id, player)
    return game_id


def test_a_nul_invitee_on_postgresql_stops_no_mail(tmp_path, postgres_url):
    """One ``new`` line naming an invitee with a NUL byte used to stop every mail and deadline
    on PostgreSQL (the follower could not store the invitation and retried it for ever). Now
    the NUL is taken out of the text at the door, the line is refused with an answer, and the
    next move in another game is answered."""
    home = tmp_path / "home"
    svc = service_at(home, database_url=postgres_url)
    svc.keys.signer()
    game_id = _pig(svc)
    port = _free_port()
    stop_waiting = __import__("threading").Event()
    with (tmp_path / "gateway.log").open("wb") as log:
        gateway = GatewayProcess(home, port, log)
        gateway.env["PBEM_DATABASE_URL"] = postgres_url
        gateway.start()
        try:
            assert _wait_for_port(port, stop_waiting, 60), "the gateway did not start"
            bad = _mail(ANN, SERVICE, f"new hidden-pig {ANN} x\x00y@example.org", "nul")
            _send_with_retries(port, ANN, SERVICE, bad)
            refusal = _answered(home / "maildir", "nul")
            seat = seat_address(SERVICE, game_id, svc.seat_token(game_id, 0))
            _send_with_retries(port, ANN, seat, _mail(ANN, seat, "roll", "after-nul"))
            after = _answered(home / "maildir", "after-nul")
        finally:
            gateway.stop()
    assert refusal is not None, "the mail naming a NUL invitee is answered"
    assert "is neither a mail address" in refusal.get_body(("plain",)).get_content()
    assert after is not None, "a move after the NUL invitee is answered"
    assert svc.game(game_id).version > 0 and [e for e in svc.game(game_id).entries if e["kind"] == "moved"]


class _Relay:
    """The relay the gateway sends through (aiosmtpd; SMTPUTF8 only when asked)."""

    def __init__(self) -> None:
        self.envelopes: list = []

    async def handle_DATA(self, server, session, envelope) -> str:
        self.envelopes.append(envelope)
        return "250 2.0.0 OK"


def _dead_letters(home: Path) -> list[dict]:
    import json
    import os

    from click.testing import CliRunner

    from pbem.cli import main

    env = {"PBEM_HOME": str(home), "PBEM_MAIL_ADDRESS": SERVICE}
    old = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    try:
        result = CliRunner().invoke(main, ["mail-dead", "--json"])
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def _wait(predicate, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("smtputf8", [False, True], ids=["relay-without-smtputf8", "relay-with-smtputf8"])
def test_an_international_invitee_with_a_relay_set(tmp_path, smtputf8):
    """``new … ä@ü.example`` used to break the sender whenever a relay was set (smtplib's
    UnicodeEncodeError, uncaught): every round failed and mails claimed with it stayed stuck.
    Now the domain travels in IDNA, the non-ASCII local part with SMTPUTF8 where the relay offers
    it, else that one mail is a dead letter (``pbem mail-dead`` names why) and the rest go out."""
    from aiosmtpd.controller import Controller

    home = tmp_path / "home"
    svc = service_at(home)
    svc.keys.signer()
    game_id = _pig(svc)
    relay = _Relay()
    server = Controller(relay, hostname="127.0.0.1", port=_free_port(), enable_SMTPUTF8=smtputf8)
    server.start()
    port = _free_port()
    with (tmp_path / "gateway.log").open("wb") as log:
        gateway = GatewayProcess(home, port, log)
        gateway.env["PBEM_SMTP_RELAY"] = f"127.0.0.1:{server.port}"
        gateway.start()
        try:
            assert _wait_for_port(port, __import__("threading").Event(), 60), "the gateway did not start"
            new = _mail(ANN, SERVICE, f"new hidden-pig {ANN} ä@ü.example cy@ü.example", "intl")
            _send_with_retries(port, ANN, SERVICE, new)
            seat = seat_address(SERVICE, game_id, svc.seat_token(game_id, 0))
            _send_with_retries(port, ANN, seat, _mail(ANN, seat, "roll", "after-intl"))

            def delivered() -> set[str]:
                replies = [email.message_from_bytes(e.original_content, policy=policy.default) for e in relay.envelopes]
                return {to for e in relay.envelopes for to in e.rcpt_tos} | {str(m["In-Reply-To"]) for m in replies}

            expected = {"<intl@client.example>", "<after-intl@client.example>", ANN, "cy@xn--tda.example"}
            expected |= {"ä@xn--tda.example"} if smtputf8 else set()
            assert _wait(lambda: expected <= delivered()), f"missing: {expected - delivered()}"
        finally:
            gateway.stop()
            server.stop()
    dead = _dead_letters(home)
    if smtputf8:
        assert dead == []
    else:
        assert [(d["to"], "SMTPUTF8" in d["error"]) for d in dead] == [("ä@ü.example", True)]


def test_a_timer_that_cannot_fire_stops_no_other_timer(tmp_path):
    """A real ``serve-mail``: one game's reminder cannot fire (its clock record holds a rule an
    older door let in, ``reminder=soon``); it becomes a dead letter that ``pbem mail-dead`` shows
    with its error, and the other game's reminder, due in the same round, still goes out."""
    from datetime import UTC, datetime, timedelta

    from mailgateway.gateway import Gateway
    from pbem.config import Settings
    from pbem.mailroom.records import GameClock
    from pbem.mailroom.settings import MailSettings
    from pbem.service.service import GameService

    home = tmp_path / "home"
    then = datetime.now(UTC) - timedelta(hours=60)  # both games' reminders (48 h after the start) are due
    svc = GameService(Settings(home=home), clock=lambda: then.isoformat(timespec="seconds"))
    svc.keys.signer()
    gw = Gateway(svc, MailSettings(address=SERVICE, maildir=home / "maildir"), clock=lambda: then)
    broken, good = (
        svc.create("hidden-pig", players, {"rounds": "5"}, seed=bytes([seed]) * 32)
        for players, seed in (([ANN, BOB], 0x31), ([CY, DEE], 0x32))
    )
    for game_id, players in ((broken, (ANN, BOB)), (good, (CY, DEE))):
        for player in players:
            svc.join(game_id, player)
    gw.work()  # the start mails, and the timers of both games
    svc.store.save(GameClock(broken, {"reminder": "soon"}))
    svc.close()
    outbox = home / "maildir" / "new"
    started = {path.name for path in outbox.glob("*")}
    port = _free_port()
    with (tmp_path / "gateway.log").open("wb") as log:
        gateway = GatewayProcess(home, port, log)
        gateway.start()
        try:
            assert _wait_for_port(port, __import__("threading").Event(), 60), "the gateway did not start"

            def reminded() -> list[str]:  # the mails since the start: only reminders were due
                new = [path for path in outbox.glob("*") if path.name not in started]
                return [str(email.message_from_bytes(path.read_bytes(), policy=policy.default)["To"]) for path in new]

            assert _wait(lambda: CY in reminded()), "the other game's reminder went out"
            assert _wait(lambda: bool(_dead_letters(home))), "the timer that cannot fire is a dead letter"
        finally:
            gateway.stop()
    (dead,) = _dead_letters(home)
    assert f"{broken}/" in dead["key"] and "reminder" in dead["key"] and "ValueError" in dead["error"]
    assert reminded() == [CY], "only the good game's reminder, once"
