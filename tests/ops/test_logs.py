"""The structured log helper: one JSON line per event, private-free and parseable."""

from __future__ import annotations

import io
import json
import logging

import pytest

from pbem import logs


@pytest.fixture
def captured():
    stream = io.StringIO()
    handler = logs.configure(stream)
    yield stream
    logs.LOGGER.removeHandler(handler)
    logs.LOGGER.setLevel(logging.NOTSET)
    logs.LOGGER.propagate = True


def _lines(stream):
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_one_json_line_per_move(captured):
    logs.log_move("kingsburg-1", 1, 15, "email", message_id="<a@b>")
    logs.log_move("kingsburg-1", 0, 16, "robot")
    first, second = _lines(captured)
    assert {k: first[k] for k in ("event", "game", "seat", "version", "source", "message_id", "level")} == {
        "event": "move",
        "game": "kingsburg-1",
        "seat": 1,
        "version": 15,
        "source": "email",
        "message_id": "<a@b>",
        "level": "info",
    }
    assert "message_id" not in second and second["source"] == "robot"
    assert first["time"].endswith("Z")


def test_mail_lines_and_plain_messages(captured):
    logs.log_mail("<m@x>", "duplicate", "pig-1", attempt=2)
    logging.getLogger("pbem.something").warning("plain %s", "text")
    mail, plain = _lines(captured)
    assert (mail["event"], mail["status"], mail["game"], mail["attempt"]) == ("mail", "duplicate", "pig-1", 2)
    assert (plain["event"], plain["message"], plain["level"]) == ("message", "plain text", "warning")


def test_configure_twice_keeps_one_handler(captured):
    second = io.StringIO()
    handler = logs.configure(second)
    try:
        logs.log_event("ping")
        assert captured.getvalue() == "" and len(_lines(second)) == 1
    finally:
        logs.LOGGER.removeHandler(handler)


def test_below_level_costs_nothing(captured):
    logs.LOGGER.setLevel(logging.WARNING)
    logs.log_move("g", 0, 1, "cli")
    assert captured.getvalue() == ""


def test_the_service_logs_one_line_per_stored_entry(captured, tmp_path):
    from pbem.cli.core import play_to_end
    from tests.ops.helpers import PLAYERS, service_at

    svc = service_at(tmp_path)
    game_id = svc.create("hidden-pig", PLAYERS[:2], {"rounds": "1"}, seed=b"\x01" * 32)
    play_to_end(svc, game_id, 0)
    entries = svc.game(game_id).entries
    lines = _lines(captured)
    assert len(lines) == len(entries)
    assert [line["version"] for line in lines] == list(range(1, len(entries) + 1))
    moves = [line for line in lines if line["event"] == "move"]
    assert len(moves) == sum(e["kind"] == "moved" for e in entries) > 0
    assert all(m["source"] == "autoplay" and m["game"] == game_id and "seat" in m for m in moves)
    assert [line["event"] for line in lines][:4] == ["created", "joined", "joined", "started"]
    assert lines[-1]["event"] == "ended"
    assert all("@example.org" not in json.dumps(line) for line in lines)  # no addresses in logs
