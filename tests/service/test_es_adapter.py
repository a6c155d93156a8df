"""The contract of the eventsourcing adapter (pbem/service/es_adapter.py) with the pinned
library: what it touches is there in the installed version, and a library whose touched
internals changed is noticed (a patched copy of the library, imported in a process of its own)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import eventsourcing
import pytest
from eventsourcing.persistence import Mapper
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteConnectionPool

from pbem.service import es_adapter
from pbem.service.store import GameRecord, PbemStore


def test_the_pinned_library_keeps_every_internal_the_adapter_touches():
    assert es_adapter.contract_problems() == []


def test_a_changed_internal_is_named(monkeypatch):
    def renamed(self, cursor, events, **kwargs):  # the cursor's parameter renamed
        return None

    monkeypatch.setattr(SQLiteApplicationRecorder, "_insert_events", renamed)
    monkeypatch.setattr(SQLiteConnectionPool, "_create_connection", None)
    monkeypatch.setattr(Mapper, "to_domain_event", None)
    problems = es_adapter.contract_problems()
    assert any("SQLiteApplicationRecorder._insert_events now takes" in p for p in problems)
    assert "SQLiteConnectionPool._create_connection is gone" in problems
    assert "Mapper.to_domain_event is gone" in problems


def _patched_library(tmp_path: Path, module: str, old: str, new: str) -> Path:
    copy = tmp_path / "site"
    shutil.copytree(Path(eventsourcing.__file__).parent, copy / "eventsourcing")
    source = copy / "eventsourcing" / module
    text = source.read_text()
    assert old in text
    source.write_text(text.replace(old, new))
    return copy


def _problems_with(library: Path) -> str:
    env = os.environ | {"PYTHONPATH": f"{library}{os.pathsep}{Path.cwd()}"}
    script = "from pbem.service import es_adapter; print(es_adapter.contract_problems())"
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_patched_copy_of_the_library_fails_the_contract(tmp_path):
    """The pinned version, copied and changed where the adapter reaches in (the SQLite
    recorder's insert no longer hands its keywords to ``_insert_events``): the contract says so.
    The unchanged copy passes, so it is the change that is noticed."""
    untouched = _patched_library(tmp_path / "a", "sqlite.py", "", "")
    assert _problems_with(untouched).strip() == "[]"
    changed = _patched_library(
        tmp_path / "b", "sqlite.py", "return self._insert_events(c, stored_events, **kwargs)", "return None"
    )
    assert "no longer hands its keywords to _insert_events" in _problems_with(changed)


def test_a_renamed_attribute_of_the_library_fails_the_contract(tmp_path):
    """The SQLite connection's wrapped connection (``tune_sqlite`` runs its PRAGMA on it),
    renamed in a copy of the library: the contract names it."""
    changed = _patched_library(tmp_path, "sqlite.py", "self._sqlite_conn = sqlite_conn", "self._raw = sqlite_conn")
    assert "SQLiteConnection no longer sets _sqlite_conn" in _problems_with(changed)


def test_a_copied_record_shares_no_pending_events(tmp_path):
    store = PbemStore({"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": ":memory:"})
    try:
        record = GameRecord("g-1", [{"index": 0}], [{}], "note")
        copy = es_adapter.copy_aggregate(record)
        assert copy.collect_events() == [] and len(record.collect_events()) == 1
        assert copy.game_id == record.game_id and copy is not record
    finally:
        store.close()


def test_the_store_reads_the_notification_log_as_positions_and_events(tmp_path):
    store = PbemStore({"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": ":memory:"})
    try:
        store.save(GameRecord("g-1", [{"index": 0}], [{}], "note"))
        (notice,) = es_adapter.notifications(store, 0, 10)
        assert notice.id == es_adapter.head(store) == store.head() == 1
        assert isinstance(notice.event(), GameRecord.Created)
        assert es_adapter.notifications(store, 1, 10) == []
        assert store.game_ids() == ["g-1"]
    finally:
        store.close()


@pytest.mark.parametrize(("setting", "pragma"), [("normal", 1), ("full", 2)])
def test_the_sqlite_connections_sync_as_configured(tmp_path, setting, pragma):
    env = {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(tmp_path / "events.sqlite"),
        "PBEM_SQLITE_SYNCHRONOUS": setting,
    }
    store = PbemStore(env)
    try:
        with store.factory.datastore.transaction(commit=False) as cursor:  # type: ignore[attr-defined]
            cursor.execute("PRAGMA synchronous")
            assert cursor.fetchone()[0] == pragma
    finally:
        store.close()


def test_the_notifications_port_reads_after_a_position_and_at_one(tmp_path):
    """What the followers are given instead of the store (``GameRepository.notifications``,
    ``notification``): notices after a position, of the topics asked, and one by its position."""
    from pbem.config import Settings
    from pbem.service.service import GameService

    service = GameService(Settings(home=tmp_path))
    try:
        service.store.save(GameRecord("g-1", [{"index": 0}], [{}], "note"))
        service.store.save(GameRecord("g-2", [{"index": 0}], [{}], "note"))
        created = f"{GameRecord.Created.__module__}:{GameRecord.Created.__qualname__}"
        assert [n.id for n in service.notifications(0, 10, [created])] == [1, 2]
        assert [n.id for n in service.notifications(1, 10)] == [2] and service.position() == 2
        assert service.notifications(0, 10, ["no.such:Topic"]) == []
        found = service.notification(2)
        assert found is not None and found.event().game_id == "g-2"
        assert service.notification(3) is None
    finally:
        service.close()
