"""Temporary means the store (issue 28): over real SMTP, 451 only when the store is down or
busy; a failure a mail's content causes (RecursionError, NotImplementedError, any RuntimeError)
is answered with the internal-error text and never asked for again, and a crash in the parser
is answered to the envelope sender."""

from __future__ import annotations

from email import message_from_bytes, policy

import pytest
from click.testing import CliRunner
from eventsourcing.persistence import OperationalError

import mailgateway.gateway as gateway_module
from mailgateway.gateway import INTERNAL_ERROR
from pbem.cli import main
from pbem.mailroom.desk import MailDesk
from pbem.service.failures import StoreUnavailable, store_down
from tests.mailgateway.conftest import SERVICE, make_mail, send_smtp

ANN = "ann@example.net"
CONTENT_FAILURES = [RecursionError("maximum recursion depth exceeded"), NotImplementedError(), RuntimeError("bug")]


def _send(port: int, raw: bytes, sender: str = ANN) -> int:
    """The server's answer to DATA (250 when accepted)."""
    return send_smtp(port, raw, sender, SERVICE, timeout=10)


def _replies(sink, message_id: str) -> list:
    messages = [message_from_bytes(e.original_content, policy=policy.default) for e in sink.envelopes]
    return [m for m in messages if m["In-Reply-To"] == message_id]


def _plain(message) -> str:
    return " ".join(message.get_body(("plain",)).get_content().split())


@pytest.mark.parametrize("failure", CONTENT_FAILURES, ids=lambda e: type(e).__name__)
def test_a_content_failure_is_answered_once_never_451(relay_gw, smtp_server, sink, monkeypatch, failure):
    real = MailDesk.handle

    def failing(desk, letter, trusted=False):
        if letter.lines:  # the mail's own commands hit the bug; the answer has none
            raise failure
        return real(desk, letter, trusted)

    monkeypatch.setattr(MailDesk, "handle", failing)
    raw = make_mail(ANN, SERVICE, "help", message_id="<bug@example.net>")
    assert _send(smtp_server, raw) == 250
    assert _send(smtp_server, raw) == 250  # the MTA's repeat is a duplicate, not a second answer
    relay_gw.work()
    (reply,) = _replies(sink, "<bug@example.net>")
    assert " ".join(INTERNAL_ERROR.split()) in _plain(reply)


def test_a_store_that_is_down_is_451_then_250(relay_gw, smtp_server, sink, monkeypatch):
    real = relay_gw.service.store.save
    monkeypatch.setattr(
        relay_gw.service.store, "save", lambda *a, **k: (_ for _ in ()).throw(OperationalError("connection refused"))
    )
    raw = make_mail(ANN, SERVICE, "help", message_id="<down@example.net>")
    assert _send(smtp_server, raw) == 451
    monkeypatch.setattr(relay_gw.service.store, "save", real)
    assert _send(smtp_server, raw) == 250
    relay_gw.work()
    (reply,) = _replies(sink, "<down@example.net>")
    assert INTERNAL_ERROR.split()[0:6] != _plain(reply).split()[0:6]  # the real answer, not the error text


def test_a_busy_store_after_the_retries_is_451(relay_gw, smtp_server, monkeypatch):
    """Every save losing to a concurrent change: the desk gives up as ``StoreUnavailable``."""
    from eventsourcing.persistence import RecordConflictError

    monkeypatch.setattr(
        relay_gw.service.store, "save", lambda *a, **k: (_ for _ in ()).throw(RecordConflictError("raced"))
    )
    monkeypatch.setattr(MailDesk, "stored_as", lambda self, letter, key: None)
    assert _send(smtp_server, make_mail(ANN, SERVICE, "help")) == 451


def test_a_parser_crash_is_answered_to_the_envelope_sender(relay_gw, smtp_server, sink, monkeypatch):
    def crash(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(gateway_module, "parse_message", crash)
    raw = make_mail("from-header@example.org", SERVICE, "help", message_id="<crash@example.net>")
    assert _send(smtp_server, raw, sender="envelope@example.net") == 250
    assert _send(smtp_server, raw, sender="envelope@example.net") == 250  # a repeat is a duplicate
    relay_gw.work()
    (envelope,) = sink.envelopes
    assert envelope.rcpt_tos == ["envelope@example.net"]
    reply = message_from_bytes(envelope.original_content, policy=policy.default)
    assert " ".join(INTERNAL_ERROR.split()) in _plain(reply)


def test_a_parser_crash_with_a_null_envelope_sender_is_not_answered(relay_gw, smtp_server, sink, monkeypatch):
    monkeypatch.setattr(gateway_module, "parse_message", lambda *a, **k: 1 / 0)
    assert _send(smtp_server, make_mail(ANN, SERVICE, "help"), sender="") == 250
    relay_gw.work()
    assert sink.envelopes == []


def test_an_answer_that_cannot_be_stored_is_554(relay_gw, smtp_server, sink, monkeypatch):
    """Not even the internal-error answer could be stored (a bug in the answer's own path):
    a permanent SMTP error, so the sending MTA tells its sender, rather than 451 for ever."""
    monkeypatch.setattr(MailDesk, "handle", lambda *a, **k: 1 / 0)
    assert _send(smtp_server, make_mail(ANN, SERVICE, "help")) == 554


def test_store_down_is_told_apart_from_refused_data():
    from eventsourcing.persistence import DataError, IntegrityError, InterfaceError

    assert store_down(OperationalError("locked")) and store_down(InterfaceError("gone"))
    assert store_down(StoreUnavailable("busy"))
    assert not store_down(DataError("NUL in text")) and not store_down(IntegrityError("duplicate"))
    assert not store_down(RecursionError()) and not store_down(OSError("file name too long"))


@pytest.mark.parametrize(
    ("failure", "code"), [(RecursionError("deep"), 0), (OperationalError("database is locked"), 75)]
)
def test_mail_in_retries_only_a_store_that_is_down(tmp_path, monkeypatch, failure, code):
    monkeypatch.setenv("PBEM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PBEM_MAIL_ADDRESS", SERVICE)
    real = MailDesk.handle

    def failing(desk, letter, trusted=False):
        if letter.lines:
            raise failure
        return real(desk, letter, trusted)

    monkeypatch.setattr(MailDesk, "handle", failing)
    result = CliRunner().invoke(main, ["mail-in", "--sender", ANN], input=make_mail(ANN, SERVICE, "help"))
    assert result.exit_code == code, result.output
