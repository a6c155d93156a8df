"""The server checks its own database: an edited entry or a deleted newest event is caught at the
next load; the game is frozen (readable, not changeable), an alarm is logged, and `pbem fsck`
lists it. Positive controls: sound games load and move as before."""

from __future__ import annotations

import json
import logging
import sqlite3

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.config import Settings
from pbem.games.base import ErrorCode, GameError
from pbem.mailroom.followers import Mailroom
from pbem.mailroom.settings import MailSettings
from pbem.service.service import GameService
from tests.ops.helpers import PLAYERS

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


def played(home, moves: int = 4, **settings) -> tuple[GameService, str]:
    """A Hidden Pig game of two players after ``moves`` holds."""
    svc = GameService(Settings(home=home, **settings))
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
        db.execute(
            "UPDATE stored_events SET state = ? WHERE rowid = ?", (bytes(state).replace(b'"hold"', b'"roll"', 1), rowid)
        )
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
        (newest,) = db.execute(
            "SELECT MAX(rowid) FROM stored_events WHERE topic LIKE '%GameRecord.Appended'"
        ).fetchone()
        db.execute("DELETE FROM stored_events WHERE rowid = ?", (newest,))
    again = fresh(tmp_path)
    game = again.game(game_id)
    assert game.version < version and game.frozen and "rolled back" in game.frozen


def test_a_command_line_move_on_a_rolled_back_game_is_refused_and_fsck_reports_it(tmp_path, monkeypatch):
    """Issue 28: the rollback check ran only in the gateway, so after the newest event was
    deleted one ``pbem move`` signed a fork at the old size, and ``pbem fsck`` passed it."""
    monkeypatch.setenv("PBEM_HOME", str(tmp_path))
    svc, game_id = played(tmp_path)
    Mailroom(svc, MailSettings(address="pbem@example.org")).follow()  # the follower saw the newest size
    version = svc.game(game_id).version
    svc.close()
    with sqlite3.connect(tmp_path / "pbem.sqlite") as db:
        (newest,) = db.execute(
            "SELECT MAX(rowid) FROM stored_events WHERE topic LIKE '%GameRecord.Appended'"
        ).fetchone()
        db.execute("DELETE FROM stored_events WHERE rowid = ?", (newest,))
    game = GameService(Settings(home=tmp_path)).game(game_id)  # no witness: looks sound
    player = game.emails[game.spec.to_move(GameService(Settings(home=tmp_path)).state(game))[0]]
    moved = CliRunner().invoke(main, ["move", game_id, "--as", player, "hold"])
    assert moved.exit_code != 0 and "frozen" in moved.output.lower()
    assert GameService(Settings(home=tmp_path)).game(game_id).version == version - 1  # nothing signed
    checked = CliRunner().invoke(main, ["fsck", game_id])
    assert checked.exit_code == 1 and "rolled back" in checked.output


def test_pbem_fsck_lists_the_frozen_games(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_HOME", str(tmp_path))
    svc, good = played(tmp_path)
    _, bad = played(tmp_path)
    svc.close()
    with sqlite3.connect(tmp_path / "pbem.sqlite") as db:
        rows = db.execute(
            "SELECT rowid, state FROM stored_events WHERE instr(state, ?) > 0 AND instr(state, ?) > 0",
            (bad.encode(), b'"hold"'),
        ).fetchall()
        rowid, state = rows[-1]
        db.execute(
            "UPDATE stored_events SET state = ? WHERE rowid = ?", (bytes(state).replace(b'"hold"', b'"roll"', 1), rowid)
        )
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


def snapshotted(home, moves: int = 6, interval: int = 2) -> tuple[GameService, str]:
    """A game with a record snapshot every 2 events (so a load reads only the newest events)."""
    return played(home, moves, snapshot_interval=interval)


def as_written_by_class_version_2(home) -> None:
    """Every record snapshot in the store as class version 2 wrote it (no frontier)."""
    with sqlite3.connect(home / "pbem.sqlite") as db:
        for originator_version, state in db.execute(
            "SELECT originator_version, state FROM stored_snapshots WHERE instr(state, ?) > 0", (b"GameRecord",)
        ).fetchall():
            document = json.loads(state)
            del document["state"]["frontier"]
            document["state"]["class_version"] = 2
            db.execute(
                "UPDATE stored_snapshots SET state = ? WHERE originator_version = ? AND instr(state, ?) > 0",
                (json.dumps(document).encode(), originator_version, b"GameRecord"),
            )


def edit_event(home, needle: bytes, old: bytes, new: bytes, newest: bool) -> None:
    with sqlite3.connect(home / "pbem.sqlite") as db:
        rows = db.execute(
            "SELECT rowid, state FROM stored_events WHERE instr(state, ?) > 0 ORDER BY rowid", (needle,)
        ).fetchall()
        rowid, state = rows[-1 if newest else 0]
        assert old in bytes(state)
        db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (bytes(state).replace(old, new, 1), rowid))


def test_an_edit_after_the_newest_snapshot_is_caught_at_the_next_load(tmp_path):
    svc, game_id = snapshotted(tmp_path, moves=6)  # 9 events: the newest snapshot is at 8
    svc.close()
    edit_event(tmp_path, b'"hold"', b'"hold"', b'"roll"', newest=True)
    game = fresh(tmp_path).game(game_id)
    assert game.frozen and "newest signed checkpoint" in game.frozen


def test_an_edited_snapshot_frontier_is_caught_at_the_next_load(tmp_path):
    svc, game_id = snapshotted(tmp_path, moves=6)
    record = svc.store.game(game_id)
    svc.close()
    with sqlite3.connect(tmp_path / "pbem.sqlite") as db:  # the newest record snapshot (not a kept state)
        (version, state) = db.execute(
            "SELECT originator_version, state FROM stored_snapshots WHERE instr(state, ?) > 0"
            " ORDER BY originator_version DESC LIMIT 1",
            (b"GameRecord",),
        ).fetchone()
        assert record.frontier[0].encode() in bytes(state)
        db.execute(
            "UPDATE stored_snapshots SET state = ? WHERE originator_version = ? AND instr(state, ?) > 0",
            (bytes(state).replace(record.frontier[0].encode(), b"0" * 64), version, b"GameRecord"),
        )
    game = fresh(tmp_path).game(game_id)
    assert game.frozen and "newest signed checkpoint" in game.frozen


def test_an_edit_behind_the_newest_snapshot_is_caught_when_the_log_is_read_and_by_fsck(tmp_path):
    svc, game_id = snapshotted(tmp_path, moves=6)
    svc.close()
    edit_event(tmp_path, b'"hold"', b'"hold"', b'"roll"', newest=False)  # the first move, long snapshotted
    again = fresh(tmp_path)
    game = again.game(game_id)
    assert game.frozen is None  # the load hashes only the entries after the newest snapshot
    again.history(game_id, game=game)  # the first read of the whole log checks all of it
    assert game.frozen and "newest signed checkpoint" in game.frozen
    assert again.submit(game_id, game.emails[0], "hold").error.code is ErrorCode.FROZEN
    problem = fresh(tmp_path).fsck(game_id)
    assert problem and "checkpoint" in problem


def test_a_snapshot_from_before_the_frontier_is_checked_whole_and_the_next_one_has_it(tmp_path):
    svc, game_id = snapshotted(tmp_path, moves=6)
    record = svc.store.game(game_id)
    svc.close()
    as_written_by_class_version_2(tmp_path)
    again = fresh(tmp_path)
    game = again.game(game_id)
    assert game.record.frontier is None and game.frozen is None
    assert again.submit(game_id, game.emails[game.spec.to_move(again.state(game))[0]], "hold").ok
    again.store.take_snapshot(record.id)
    again.store.forget(game_id)
    assert again.store.game(game_id).frontier is not None
    assert again.fsck(game_id) is None


def test_an_old_records_next_snapshot_taken_by_a_save_has_the_frontier(tmp_path):
    svc, game_id = snapshotted(tmp_path, moves=6)
    svc.close()
    as_written_by_class_version_2(tmp_path)
    again = GameService(Settings(home=tmp_path, snapshot_interval=2))
    game = again.game(game_id)
    assert game.record.frontier is None
    for _ in range(2):  # a snapshot every 2 events: the saves themselves take the next one
        game = again.game(game_id)
        assert again.submit(game_id, game.emails[game.spec.to_move(again.state(game))[0]], "hold").ok
    again.store.forget(game_id)
    assert again.store.game(game_id).frontier is not None
    assert again.fsck(game_id) is None


def test_a_deleted_event_after_the_newest_snapshot_stops_the_next_load_with_an_alarm(tmp_path, caplog):
    svc, game_id = snapshotted(tmp_path, moves=7, interval=4)  # 10 events: the newest snapshot is at 8
    assert svc.store.game(game_id).version == 10
    svc.close()
    with sqlite3.connect(tmp_path / "pbem.sqlite") as db:
        db.execute("DELETE FROM stored_events WHERE originator_version = 9 AND topic LIKE '%GameRecord.Appended'")
    again = fresh(tmp_path)
    with caplog.at_level(logging.CRITICAL, logger="pbem"), pytest.raises(GameError) as refused:
        again.game(game_id)
    assert refused.value.code is ErrorCode.FROZEN and "event 9 is missing" in refused.value.message
    assert any("ALARM" in record.message for record in caplog.records)
    with pytest.raises(GameError) as refused:  # as for a game that is not there: nothing to plan on
        again.submit(game_id, PLAYERS[0], "hold")
    assert refused.value.code is ErrorCode.FROZEN
