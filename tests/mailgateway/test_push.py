"""Replies leave when the commit gives the worker work, not at its next tick: the tick is set to
a minute here, and every reply must arrive at the relay (a real SMTP sink) long before it."""

from __future__ import annotations

import smtplib
import time
from dataclasses import replace
from email import message_from_bytes, policy

import pytest

from mailgateway.worker import Worker
from pbem.service.service import GameService
from tests.mailgateway.conftest import SERVICE, address_of, make_mail

ANN, BOB = "ann@example.net", "bob@example.net"
TICK = 60.0
PATIENCE = 15.0  # seconds a loaded machine may take; far below the tick


@pytest.fixture
def mail_settings(mail_settings):
    return replace(mail_settings, tick_seconds=TICK)


@pytest.fixture
def worker(relay_gw):
    assert relay_gw.settings.tick_seconds == TICK
    running = Worker(relay_gw)
    running.start()
    deadline = time.monotonic() + PATIENCE
    while running.rounds == 0 and time.monotonic() < deadline:  # its first round, at start, is over
        time.sleep(0.01)
    yield running
    running.stop()


def _arrived(sink, count: int) -> float | None:
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        if len(sink.envelopes) >= count:
            return time.monotonic()
        time.sleep(0.005)
    return None


def test_a_reply_leaves_without_waiting_for_the_tick(relay_gw, smtp_server, sink, worker):
    sent = time.monotonic()
    with smtplib.SMTP("127.0.0.1", smtp_server, timeout=10) as client:
        assert client.sendmail(ANN, [SERVICE], make_mail(ANN, SERVICE, "help")) == {}
    arrived = _arrived(sink, 1)
    assert arrived is not None, "no reply within 15 s, with the tick at 60 s"
    assert arrived - sent < PATIENCE < TICK
    reply = message_from_bytes(sink.envelopes[0].original_content, policy=policy.default)
    assert sink.envelopes[0].rcpt_tos == [ANN] and reply["In-Reply-To"]


def test_a_move_made_by_another_process_wakes_the_worker(relay_gw, smtp_server, sink, worker, sqlite_settings):
    """``pbem move`` in a shell is another process with its own store: its commit rings the
    gateway's doorbell, and the turn notice goes out at once."""
    other = GameService(sqlite_settings)
    try:
        game_id = other.create("hidden-pig", [ANN, BOB], {"rounds": "2"}, seed=b"\x01" * 32)
        arrived = _arrived(sink, 2)  # the two invitations
        assert arrived is not None, "the invitations did not leave before the tick"
        assert sorted(e.rcpt_tos[0] for e in sink.envelopes) == [ANN, BOB]
    finally:
        other.close()
    assert address_of(relay_gw, game_id, ANN)
