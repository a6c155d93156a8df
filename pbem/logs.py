"""Structured logs: one JSON object per line, one line per move and per mail.

Everything goes through the standard ``logging`` module under the ``pbem`` logger, so a library
user keeps full control; a program (the gateway, the web site, the CLI) calls ``configure()``
once to print the lines to standard error, where systemd's journal or a container runtime picks
them up. A line looks like::

    {"event":"move","game":"kingsburg-3f9a0c12","level":"info","seat":1,"source":"email",
     "time":"2026-11-22T05:20:00.123Z","version":15}

Fields with the value None are left out. Keys are sorted, values are JSON; nothing private (no
mail address, no command text of a secret move) belongs in a log line.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import IO, Any

LOGGER = logging.getLogger("pbem")
_FIELDS = "pbem_fields"


class JsonLines(logging.Formatter):
    """Formats a record as one JSON line: time, level, event and the record's fields."""

    def format(self, record: logging.LogRecord) -> str:
        when = datetime.fromtimestamp(record.created, UTC)
        line: dict[str, Any] = {
            "time": when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z",
            "level": record.levelname.lower(),
        }
        fields = getattr(record, _FIELDS, None)
        if fields is None:
            line["event"] = "message"
            line["message"] = record.getMessage()
            line["logger"] = record.name
        else:
            line.update(fields)
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


class _JsonHandler(logging.StreamHandler[IO[str]]):
    """The handler ``configure`` installs (and replaces when called again)."""


def configure(stream: IO[str] | None = None, level: int = logging.INFO) -> logging.Handler:
    """Print the ``pbem`` logger's records as JSON lines to ``stream`` (standard error by
    default). Calling it again replaces the handler it installed before."""
    for handler in list(LOGGER.handlers):
        if isinstance(handler, _JsonHandler):
            LOGGER.removeHandler(handler)
    handler = _JsonHandler(stream or sys.stderr)
    handler.setFormatter(JsonLines())
    LOGGER.addHandler(handler)
    LOGGER.setLevel(level)
    LOGGER.propagate = False  # the JSON line is the record; a root handler would print it again
    return handler


def log_event(event: str, level: int = logging.INFO, **fields: Any) -> None:
    """One structured line: ``event`` names what happened, ``fields`` say about what."""
    if not LOGGER.isEnabledFor(level):
        return
    data = {"event": event} | {key: value for key, value in fields.items() if value is not None}
    LOGGER.log(level, event, extra={_FIELDS: data})


def log_move(
    game_id: str, seat: int | None, version: int, source: str, message_id: str | None = None, **fields: Any
) -> None:
    """A stored move (or join, resignation, robot move): the game, the seat, the version the
    game is at after it, where it came from (cli, email, turnfile, web, robot ...) and, for
    mail, the Message-ID it answered."""
    log_event("move", game=game_id, seat=seat, version=version, source=source, message_id=message_id, **fields)


def log_mail(message_id: str | None, status: str, game_id: str | None = None, **fields: Any) -> None:
    """A mail handled by the gateway: its Message-ID, what became of it (accepted, rejected,
    duplicate, reply-queued, reply-sent, ...) and the game it was about."""
    log_event("mail", message_id=message_id, status=status, game=game_id, **fields)


def log_entries(game_id: str, entries: list[dict[str, Any]], message_id: str | None = None) -> None:
    """One line per log entry just stored: ``move`` for a move (seat, version after it,
    source), and the entry's kind (created, joined, started, resigned, ended) otherwise. The
    service calls this once after each successful save, with the batch's entries."""
    if not LOGGER.isEnabledFor(logging.INFO):
        return
    for entry in entries:
        version = entry["index"] + 1
        if entry["kind"] == "moved":
            log_move(game_id, entry["seat"], version, entry.get("source", "?"), message_id)
        else:
            log_event(entry["kind"], game=game_id, seat=entry.get("seat"), version=version, message_id=message_id)
