"""Waking what follows the store when a commit gives it work, instead of a timer.

``Wakeup`` counts the commits a process has heard of and lets any number of threads wait for
the next one: a waiter remembers the count it last worked at, so a commit that comes while it
works is not missed (its ``wait`` returns at once). The store rings it after each commit of its
own (``PbemStore.save``), and, once something waits (``listen``), commits of other processes
ring it too:

* on PostgreSQL by ``LISTEN`` on the events table's channel, which every save ``NOTIFY``s
  (the library's insert and ``es_postgres``'s function both do, in the committing
  transaction, so the notice arrives after the commit); one connection per process, opened
  for it alone (the store's pool is kept small, see ``pbem.config``);
* on SQLite by the writer's own signal: each listening process binds a datagram socket in a
  folder beside the database (``pbem.sqlite.wake/``, as private as the data folder), and a
  writer sends one byte to each socket there after its commit. A socket whose process is gone
  refuses the byte and is removed by the writer that found it.

A wake-up only says "look": the followers still read the notification log from their tracked
position, so a lost or doubled signal costs one round at the next tick (``PBEM_MAIL_TICK_SECONDS``,
the safety net), never a lost or doubled mail.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger("pbem")
MAX_SOCKET_PATH = 100  # AF_UNIX paths are at most 107 bytes on Linux; longer ones go through /proc
RECONNECT_SECONDS = (0.5, 30.0)  # first and longest pause before listening again after an error


class Wakeup:
    """A counter of commits heard of, and a condition to wait for the next one."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._count = 0
        self._listening = False
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.others: Callable[[], None] = _nothing  # tells other processes (set by ``listen_*``)
        self.heard = 0  # wake-ups that came from other processes (tests count them)

    def count(self) -> int:
        with self._condition:
            return self._count

    def ring(self) -> None:
        """Something new is stored: every waiter wakes."""
        with self._condition:
            self._count += 1
            self._condition.notify_all()

    def committed(self) -> None:
        """This process committed: wake its own waiters now, and the other processes."""
        self.ring()
        try:
            self.others()
        except OSError:  # a wake-up is a hint; the tick is the safety net
            log.debug("could not wake the other processes", exc_info=True)

    def wait(self, seen: int, timeout: float) -> int:
        """Wait until the count is no longer ``seen`` or ``timeout`` seconds have passed;
        returns the count now (pass it as ``seen`` next time)."""
        with self._condition:
            if self._count == seen and timeout > 0:
                self._condition.wait_for(lambda: self._count != seen, timeout)
            return self._count

    # -- other processes ------------------------------------------------------------------------
    def listening(self) -> bool:
        return self._listening

    def start(self, name: str, target: Callable[[threading.Event], None]) -> None:
        """Run a listener in a daemon thread until ``close``."""
        self._listening = True
        thread = threading.Thread(target=target, args=(self._stop,), name=name, daemon=True)
        self._threads.append(thread)
        thread.start()

    def heard_from_others(self) -> None:
        self.heard += 1
        self.ring()

    def close(self) -> None:
        self._stop.set()
        self.ring()
        for thread in self._threads:
            thread.join(timeout=5)
        self._threads.clear()
        self._listening = False


def _nothing() -> None:
    return None


# -- PostgreSQL: LISTEN/NOTIFY -----------------------------------------------------------------
def listen_postgres(wakeup: Wakeup, connect: Callable[[], Any], channel: str) -> None:
    """Ring ``wakeup`` at every ``NOTIFY`` on ``channel`` (the events table's), from a thread
    holding a connection of its own (``connect()``, autocommit). A lost connection is opened
    again, with a pause that grows, and the waiters are woken once it listens again (what was
    committed meanwhile went unheard)."""

    def run(stop: threading.Event) -> None:
        pause = RECONNECT_SECONDS[0]
        while not stop.is_set():
            try:
                with contextlib.closing(connect()) as conn:
                    conn.execute(f'LISTEN "{channel}"')
                    wakeup.heard_from_others()
                    pause = RECONNECT_SECONDS[0]
                    while not stop.is_set():
                        for _ in conn.notifies(timeout=1.0, stop_after=1):
                            wakeup.heard_from_others()
            except Exception as error:  # the database is down or restarting: listen again later
                log.warning("listening for commits failed (%s); trying again in %.1f s", error, pause)
                stop.wait(pause)
                pause = min(pause * 2, RECONNECT_SECONDS[1])

    wakeup.start("pbem-listen", run)


# -- SQLite: datagrams from the writer ---------------------------------------------------------
class Doorbells:
    """The sockets of the processes that listen to one SQLite database, in ``folder``."""

    def __init__(self, folder: Path):
        self.folder = folder
        # this store's own socket is woken in-process instead (another store of the same process,
        # on the same database, is rung like another process)
        self.prefix = f"{os.getpid()}-{secrets.token_hex(4)}"
        self._seen: tuple[int, list[str]] = (-1, [])  # the folder's mtime and the socket names in it
        self._sender: socket.socket | None = None
        self._lock = threading.Lock()

    def _folder_fd(self) -> int:
        return os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY)

    def address(self, name: str, folder_fd: int | None = None) -> str:
        """The path to bind or send to (through ``/proc/self/fd`` when the real one is too long
        for a socket address)."""
        path = str(self.folder / name)
        if len(path.encode()) <= MAX_SOCKET_PATH or folder_fd is None:
            return path
        return f"/proc/self/fd/{folder_fd}/{name}"

    def names(self) -> list[str]:
        """The other processes' socket names, read again only when the folder changed."""
        try:
            changed = self.folder.stat().st_mtime_ns
        except FileNotFoundError:
            return []
        if changed != self._seen[0]:
            names = [n for n in os.listdir(self.folder) if n.endswith(".sock") and not n.startswith(self.prefix)]
            self._seen = (changed, names)
        return self._seen[1]

    def ring(self) -> None:
        """One byte to every other listening process; a socket nobody holds is removed."""
        names = self.names()
        if not names:
            return
        with self._lock:
            if self._sender is None:
                self._sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                self._sender.setblocking(False)
            folder_fd = self._folder_fd()
            try:
                for name in names:
                    self._send(name, folder_fd)
            finally:
                os.close(folder_fd)

    def _send(self, name: str, folder_fd: int) -> None:
        assert self._sender is not None
        try:
            self._sender.sendto(b"!", self.address(name, folder_fd))
        except (ConnectionRefusedError, FileNotFoundError):  # its process is gone
            with contextlib.suppress(FileNotFoundError):
                (self.folder / name).unlink()
        except OSError as error:
            if error.errno not in (errno.EAGAIN, errno.ENOBUFS):  # full: it has a wake-up waiting already
                raise

    def bind(self) -> tuple[socket.socket, Path]:
        """A socket of this process in the folder, for the others to ring."""
        self.folder.mkdir(mode=0o700, exist_ok=True)
        name = f"{self.prefix}.sock"
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        folder_fd = self._folder_fd()
        try:
            sock.bind(self.address(name, folder_fd))
        finally:
            os.close(folder_fd)
        path = self.folder / name
        path.chmod(0o600)
        sock.settimeout(1.0)
        return sock, path

    def close(self) -> None:
        with self._lock:
            if self._sender is not None:
                self._sender.close()
                self._sender = None


def doorbell_folder(database: str) -> Path:
    return Path(f"{database}.wake")


def ring_sqlite(wakeup: Wakeup, database: str) -> Doorbells:
    """Let this process's commits on the SQLite ``database`` wake the other processes."""
    bells = Doorbells(doorbell_folder(database))
    wakeup.others = bells.ring
    return bells


def listen_sqlite(wakeup: Wakeup, bells: Doorbells) -> None:
    """Ring ``wakeup`` whenever another process commits to the database of ``bells``."""
    sock, path = bells.bind()

    def run(stop: threading.Event) -> None:
        try:
            while not stop.is_set():
                try:
                    sock.recv(64)
                except TimeoutError:
                    continue
                except OSError:
                    log.warning("the commit doorbell failed; the tick wakes the followers", exc_info=True)
                    time.sleep(1.0)
                    continue
                _drain(sock)
                wakeup.heard_from_others()
        finally:
            sock.close()
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

    wakeup.start("pbem-doorbell", run)


def _drain(sock: socket.socket) -> None:
    """Read the wake-ups that came together: one round answers them all."""
    sock.setblocking(False)
    try:
        while True:
            sock.recv(64)
    except (BlockingIOError, InterruptedError):
        pass
    finally:
        sock.settimeout(1.0)


# -- PostgreSQL: one follower round at a time --------------------------------------------------
class Baton:
    """Which of the processes on one PostgreSQL database runs a follower's round now: a session
    advisory lock, on a connection of its own (``connect()``, autocommit), taken for the round
    and given back after it. The others skip their round rather than build the same mails only
    to lose the race for the tracking row: every process is woken by every commit, so the one
    holding the baton runs again for a commit that came while it held it, and a process that
    dies lets go with its connection. Without a connection nobody is stopped (the tracking
    still turns each notification into mail once)."""

    def __init__(self, connect: Callable[[], Any], name: str):
        self._connect = connect
        self._key = int.from_bytes(name.encode()[:8].ljust(8, b"\0"), "big", signed=True)
        self._conn: Any = None
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def held(self) -> Any:
        """Yields True when this process may run the round."""
        with self._lock:
            mine = self._take()
            try:
                yield mine
            finally:
                if mine:
                    self._give()

    def _take(self) -> bool:
        try:
            if self._conn is None or self._conn.closed:
                self._conn = self._connect()
            return bool(self._conn.execute("SELECT pg_try_advisory_lock(%s)", (self._key,)).fetchone()[0])
        except Exception:  # a hint lost: this round runs, the tracking keeps each mail once
            log.debug("the follower's baton could not be taken", exc_info=True)
            self.close()
            return True

    def _give(self) -> None:
        try:
            if self._conn is not None:
                self._conn.execute("SELECT pg_advisory_unlock(%s)", (self._key,))
        except Exception:  # the connection is gone, and the lock with it
            log.debug("the follower's baton could not be given back", exc_info=True)
            self.close()

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()
