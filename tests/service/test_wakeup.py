"""Commits wake what follows the store: in the same process at once, in other processes by
PostgreSQL LISTEN/NOTIFY or by the SQLite writer's doorbells (pbem.service.wakeup)."""

from __future__ import annotations

import threading
import time

import pytest

from pbem.config import Settings
from pbem.service.service import GameService
from pbem.service.wakeup import Doorbells, Wakeup, doorbell_folder
from tests.service.helpers import ANN, BOB, started_pig

WAIT = 10.0  # seconds a wake-up may take on a loaded machine before the test gives up


def _heard(wakeup: Wakeup, before: int) -> bool:
    deadline = time.monotonic() + WAIT
    while wakeup.heard <= before and time.monotonic() < deadline:
        wakeup.wait(wakeup.count(), 0.1)
    return wakeup.heard > before


def test_a_save_wakes_a_waiter_of_the_same_process_at_once(settings):
    service = GameService(settings)
    try:
        commits = service.commits()
        seen = commits.count()
        woken: list[int] = []
        waiter = threading.Thread(target=lambda: woken.append(commits.wait(seen, WAIT)))
        waiter.start()
        started = time.monotonic()
        service.create("hidden-pig", [ANN, BOB], {"rounds": "2"}, b"\x01" * 32)
        waiter.join()
        assert woken and woken[0] > seen
        assert time.monotonic() - started < WAIT
    finally:
        service.close()


def test_a_wait_returns_at_once_when_a_commit_came_while_the_waiter_worked():
    wakeup = Wakeup()
    seen = wakeup.count()
    wakeup.ring()  # while the waiter was busy
    started = time.monotonic()
    assert wakeup.wait(seen, 30) == seen + 1
    assert time.monotonic() - started < 1


def test_a_wait_without_commits_ends_at_its_timeout():
    wakeup = Wakeup()
    assert wakeup.wait(wakeup.count(), 0.05) == 0


def test_another_process_commit_wakes_the_listener(settings):
    """Two services on one database stand for two processes (they share no object): the
    writer's commit reaches the listener through the database (NOTIFY) or the doorbell."""
    listener, writer = GameService(settings), GameService(settings)
    try:
        commits = listener.commits()
        assert _heard(commits, -1)  # LISTEN is in place (PostgreSQL says so by waking once)
        before = commits.heard
        started_pig(writer)
        assert _heard(commits, before)
    finally:
        writer.close()
        listener.close()


def test_an_idle_listener_is_not_woken_by_nothing(settings):
    listener = GameService(settings)
    try:
        commits = listener.commits()
        _heard(commits, -1)
        time.sleep(0.3)
        before = commits.heard
        time.sleep(0.5)
        assert commits.heard == before
    finally:
        listener.close()


def test_the_doorbell_of_a_process_that_is_gone_is_removed_by_the_next_writer(sqlite_settings):
    writer = GameService(sqlite_settings)
    try:
        folder = doorbell_folder(str(sqlite_settings.home / "pbem.sqlite"))
        gone, path = Doorbells(folder).bind()
        gone.close()  # its file stays, as after a crash
        assert path.exists()
        started_pig(writer)
        assert not path.exists()
    finally:
        writer.close()


def test_doorbells_are_private_and_removed_when_the_listener_closes(sqlite_settings):
    listener = GameService(sqlite_settings)
    listener.commits()
    folder = doorbell_folder(str(sqlite_settings.home / "pbem.sqlite"))
    (bell,) = list(folder.iterdir())
    assert folder.stat().st_mode & 0o777 == 0o700
    assert bell.stat().st_mode & 0o777 == 0o600
    listener.close()
    assert list(folder.iterdir()) == []


def test_a_data_folder_with_a_long_path_still_rings(tmp_path):
    """Socket addresses are limited to about 107 bytes; longer paths go through /proc."""
    deep = tmp_path / ("x" * 60) / ("y" * 60)
    settings = Settings(home=deep)
    listener, writer = GameService(settings), GameService(settings)
    try:
        commits = listener.commits()
        before = commits.heard
        started_pig(writer)
        assert _heard(commits, before)
    finally:
        writer.close()
        listener.close()


def test_a_full_doorbell_does_not_stop_a_writer(tmp_path):
    """A listener that does not read (stuck, or flooded) must never make a save fail."""
    folder = tmp_path / "db.wake"
    stuck, _ = Doorbells(folder).bind()
    try:
        bells = Doorbells(folder)
        for _ in range(10_000):  # far beyond a socket's buffer
            bells.ring()
        bells.close()
    finally:
        stuck.close()


def test_listening_survives_a_postgres_restart_of_its_connection(postgres_url, tmp_path):
    """The LISTEN connection dropped (a server restart, a killed backend): it listens again and
    wakes the waiters once, since what was committed meanwhile went unheard."""
    import psycopg

    settings = Settings(home=tmp_path / "home", database_url=postgres_url)
    listener, writer = GameService(settings), GameService(settings)
    try:
        commits = listener.commits()
        assert _heard(commits, -1)
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND query LIKE 'LISTEN%%'"
            )
        before = commits.heard
        assert _heard(commits, before)  # listening again
        before = commits.heard
        started_pig(writer)
        assert _heard(commits, before)
    finally:
        writer.close()
        listener.close()


@pytest.mark.parametrize("count", [3])
def test_many_waiters_all_wake(count):
    wakeup = Wakeup()
    seen = wakeup.count()
    woken: list[int] = []
    threads = [threading.Thread(target=lambda: woken.append(wakeup.wait(seen, WAIT))) for _ in range(count)]
    for thread in threads:
        thread.start()
    time.sleep(0.05)
    wakeup.ring()
    for thread in threads:
        thread.join()
    assert woken == [seen + 1] * count


def test_one_follower_round_at_a_time_among_postgres_processes(postgres_url, tmp_path):
    """The baton: while one store holds it, another (another process's, on the same database)
    is told to skip its round; once given back, the other may take it. SQLite has none."""
    settings = Settings(home=tmp_path / "home", database_url=postgres_url)
    first, second = GameService(settings), GameService(settings)
    try:
        one, two = first.store.baton("mailroom"), second.store.baton("mailroom")
        assert one is not None and two is not None
        with one.held() as mine:
            assert mine
            with two.held() as theirs:
                assert not theirs
        with two.held() as theirs:
            assert theirs
    finally:
        first.close()
        second.close()
    assert GameService(Settings(home=tmp_path / "lite")).store.baton("mailroom") is None
