"""The server checks its own database: an edited entry or a deleted newest event is caught at the
next load; the game is frozen (readable, not changeable), an alarm is logged, and `pbem fsck`
lists it. Positive controls: sound games load and move as before."""

from __future__ import annotations

import logging
import sqlite3

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.config import Settings
from pbem.games.base import ErrorCode
from pbem.mailroom.followers import Mailroom
from pbem.mailroom.settings import MailSettings
from pbem.service.service import GameService
from tests.ops.helpers import PLAYERS

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


def played(home, moves: int = 4) -> tuple[GameService, str]:
    svc = GameService(Settings(home=home))
    game_id = svc.create("hidden-pig", PLAYERS[:2], {"rounds": "5"}, seed=b"\x0c" * 32)
    for player in PLAYERS[:2]:
        svc.join(game_id, player)
    for _ in range(moves):
        game = svc.game(game_id)
        svc.submit(game_id, game.emails[game.spec.to_move(svc.state(game))[0]], "hold")
    return svc, game_id


def fresh(home) -> GameService:
    svc = GameService(Settings(home=home))
    Mailroom(svc, MailSettings(address="pbem@example.org"))
    return svc


def test_a_sound_game_is_not_frozen_and_still_moves(tmp_path):
    svc, game_id = played(tmp_path)
    svc.close()
    again = fresh(tmp_path)
    game = again.game(game_id)
    assert game.frozen is None
    assert again.submit(game_id, game.emails[game.spec.to_move(again.state(game))[0]], "hold").ok


def test_an_edited_entry_freezes_the_game_at_the_next_load(tmp_path, caplog):
    svc, game_id = played(tmp_path)
    svc.close()
    with sqlite3.connect(tmp_path / "pbem.sqlite") as db:
        rows = db.execute("SELECT rowid, state FROM stored_events WHERE instr(state, ?) > 0", (b'"hold"',)).fetchall()
        rowid, state = rows[-1]
        db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?",
                   (bytes(state).replace(b'"hold"', b'"roll"', 1), rowid))
    again = fresh(tmp_path)
    with caplog.at_level(logging.CRITICAL, logger="pbem"):
        game = again.game(game_id)
    assert game.frozen and "checkpoint" in game.frozen
    assert any("ALARM" in record.message for record in caplog.records)
    outcome = again.submit(game_id, game.emails[0], "hold")
    assert outcome.error is not None and outcome.error.code is ErrorCode.FROZEN
    assert again.game(game_id).version == game.version  # nothing was added, nothing signed


def test_a_deleted_newest_event_is_caught_as_a_rollback(tmp_path):
    svc, game_id = played(tmp_path)
    room = Mailroom(svc, MailSettings(address="pbem@example.org"))
    room.follow()  # the follower has seen the game at its newest size
    version = svc.game(game_id).version
    svc.close()
    with sqlite3.connect(tmp_path / "pbem.sqlite") as db:
        (newest,) = db.execute("SELECT MAX(rowid) FROM stored_events WHERE topic LIKE '%GameRecord.Appended'"
                               ).fetchone()
        db.execute("DELETE FROM stored_events WHERE rowid = ?", (newest,))
    again = fresh(tmp_path)
    game = again.game(game_id)
    assert game.version < version and game.frozen and "rolled back" in game.frozen


def test_pbem_fsck_lists_the_frozen_games(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_HOME", str(tmp_path))
    svc, good = played(tmp_path)
    _, bad = played(tmp_path)
    svc.close()
    with sqlite3.connect(tmp_path / "pbem.sqlite") as db:
        rows = db.execute("SELECT rowid, state FROM stored_events WHERE instr(state, ?) > 0 AND instr(state, ?) > 0",
                          (bad.encode(), b'"hold"')).fetchall()
        rowid, state = rows[-1]
        db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?",
                   (bytes(state).replace(b'"hold"', b'"roll"', 1), rowid))
    result = CliRunner().invoke(main, ["fsck"])
    assert result.exit_code == 1
    assert f"{good}: ok" in result.output and f"{bad}: FROZEN" in result.output
    assert CliRunner().invoke(main, ["fsck", good]).exit_code == 0


@pytest.mark.parametrize(("setting", "pragma"), [("full", 2), ("normal", 1)])
def test_the_sqlite_synchronous_setting_reaches_every_connection(tmp_path, setting, pragma):
    svc = GameService(Settings(home=tmp_path, sqlite_synchronous=setting))
    with svc.store.factory.datastore.transaction(commit=False) as cursor:
        cursor.execute("PRAGMA synchronous")
        assert cursor.fetchone()[0] == pragma
    svc.close()
