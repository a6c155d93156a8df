"""PostgreSQL as the scale path: several OS processes, each with its own GameService, on one
fresh database, moving in one game at the same time."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.longgame import register_games
from pbem.ledger.verify import export_bytes, verify_bytes
from pbem.service.importer import import_game
from tests.ops.helpers import PLAYERS, finished_game, service_at

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 2
MOVES_EACH = 40


def _run_workers(tmp_path: Path, url: str, game_id: str, extra: list[str]) -> list[dict]:
    go = tmp_path / "go"
    go.unlink(missing_ok=True)
    procs = []
    for number in range(WORKERS):
        out = tmp_path / f"out-{number}-{len(extra)}.json"
        procs.append(
            (
                out,
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "tests.ops.worker",
                        str(tmp_path / "home"),
                        url,
                        game_id,
                        f"w{number}{''.join(extra)}",
                        str(MOVES_EACH),
                        str(go),
                        str(out),
                        *extra,
                    ],
                    cwd=ROOT,
                ),
            )
        )
    go.touch()
    outcomes = []
    for out, proc in procs:
        assert proc.wait(timeout=240) == 0
        outcomes.extend(json.loads(out.read_text()))
    return outcomes


@pytest.mark.parametrize("guarded", [True, False], ids=["version-guarded", "retried-on-conflict"])
def test_two_processes_one_game_no_move_lost_or_doubled(tmp_path, postgres_url, guarded):
    register_games()
    svc = service_at(tmp_path / "home", database_url=postgres_url)
    game_id = svc.create("long-pig", PLAYERS[:2], {"rounds": "100000"}, seed=b"\x05" * 32)
    svc.join(game_id, PLAYERS[0])
    svc.join(game_id, PLAYERS[1])
    start = svc.game(game_id).version

    outcomes = _run_workers(tmp_path, postgres_url, game_id, [] if guarded else ["--unguarded"])

    applied = [o for o in outcomes if o["ok"] and not o["duplicate"]]
    refused = [o for o in outcomes if not o["ok"]]
    assert len(applied) + len(refused) == WORKERS * MOVES_EACH
    if guarded:
        assert all(o["error"]["code"] == "stale" for o in refused)
    else:
        assert all(o["lines"][0]["error"]["code"] == "not-your-turn" for o in refused)
    # every applied submission made exactly one entry, at its own version; none was lost or doubled
    assert sorted(o["version_before"] for o in applied) == list(range(start, start + len(applied)))
    assert all(o["version"] == o["version_before"] + 1 for o in applied)
    game = svc.game(game_id)
    assert game.version == start + len(applied)
    assert [e["index"] for e in game.entries] == list(range(game.version))
    assert sum(e["kind"] == "moved" for e in game.entries) == len(applied)
    for outcome in outcomes:  # the receipt stored with each effect says what the worker was told
        assert svc.store.receipt(outcome["key"]).outcome["version"] == outcome["version"]
    verify_bytes(export_bytes(svc.export(game_id)))

    # the same keys again, from both processes: nothing new
    again = _run_workers(tmp_path, postgres_url, game_id, [] if guarded else ["--unguarded"])
    assert all(o["duplicate"] for o in again)
    assert svc.game(game_id).version == game.version


def test_import_round_trip_on_postgres(tmp_path, postgres_url):
    original = service_at(tmp_path / "a")
    game_id = finished_game(original, options={"rounds": "2"})
    data = export_bytes(original.export(game_id))
    import shutil

    shutil.copytree(tmp_path / "a" / "keys", tmp_path / "b" / "keys")
    restored = service_at(tmp_path / "b", database_url=postgres_url)
    assert import_game(restored, json.loads(data)).identical
    assert export_bytes(restored.export(game_id)) == data
    restored.close()


def test_a_save_on_postgres_is_one_statement_under_the_table_lock_all_or_nothing(postgres_url, monkeypatch):
    """The store's saves on PostgreSQL go through one server-side call (one round trip) that
    still locks the events table, so notification ids stay in commit order; a save with a
    conflicting event stores none of its events."""
    import psycopg
    from eventsourcing.persistence import RecordConflictError
    from eventsourcing.postgres import PostgresApplicationRecorder

    from pbem.config import postgres_env
    from pbem.service.es_postgres import PbemPostgresRecorder
    from pbem.service.store import PbemStore, Receipt

    def pipelined(*args, **kwargs):
        raise AssertionError("saved with the library's pipeline of statements")

    monkeypatch.setattr(PostgresApplicationRecorder, "insert_events", pipelined)
    store = PbemStore(postgres_env(postgres_url))
    try:
        assert isinstance(store.recorder, PbemPostgresRecorder)
        first = store.save(Receipt("one", None, {}), Receipt("two", None, {}))
        assert first is not None and list(first) == [1, 2]
        with pytest.raises(RecordConflictError):
            store.save(Receipt("three", None, {}), Receipt("one", None, {"again": True}))
        assert store.receipt("three") is None and store.receipt("one").outcome == {}
        assert (store.save(Receipt("four", None, {})) or [0])[0] > 2  # (a rolled-back save uses up ids)
    finally:
        store.close()
    with psycopg.connect(postgres_url) as connection:
        body = connection.execute(
            "SELECT prosrc FROM pg_proc WHERE proname = %s", (store.recorder.insert_function_name,)
        ).fetchone()
    assert body is not None and "LOCK TABLE" in body[0] and "IN EXCLUSIVE MODE" in body[0]
