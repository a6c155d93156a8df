"""The ``pbem`` command's exit codes, and the one-sentence errors for failures outside the
game rules (settings, storage). docs/cli.md lists the codes; keep the two in step.

``describe`` is pure: it maps an exception (or one in its cause chain) to a sentence and an
exit code, or to None for a failure it does not know, which then keeps its traceback (a bug
should be seen, not hidden behind a vague sentence).
"""

from __future__ import annotations

import errno
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

from pbem.config import ConfigError

EXIT_OK = 0
EXIT_INVALID = 1  # verify, import, check-receipt: the file is not a valid export or receipt
EXIT_REFUSED = 2  # a refused command or turn file (and click's usage errors)
EXIT_CONFIG = 3  # a setting or the installation cannot work
EXIT_STORAGE = 4  # the data directory or the database cannot be written or reached
EX_TEMPFAIL = 75  # mail-in only: a temporary failure, the MTA delivers again later
EX_SOFTWARE = 70  # mail-in only: the mail could not even be answered, the MTA returns it (sysexits.h)

FULL = {errno.ENOSPC, errno.EDQUOT}
ALMOST_FULL = 1 << 20  # bytes: less free space than this and a disk I/O error means a full disk
NOT_WRITABLE = {errno.EROFS, errno.EACCES, errno.EPERM}
TOO_DEEP = "the JSON nests deeper than Python can read, so it is not a pbem {what}"


@dataclass(frozen=True)
class Failure:
    code: str
    sentence: str
    exit_code: int

    def line(self) -> str:
        return f"error ({self.code}): {self.sentence}"


def describe(error: BaseException, home: str, free_bytes: int | None = None) -> Failure | None:
    """The failure ``error`` stands for; ``home`` is PBEM_HOME, named when the error names no
    file; ``free_bytes`` is the free space on its disk (None: unknown)."""
    for cause in _causes(error):
        failure = _failure_of(cause, home, free_bytes)
        if failure is not None:
            return failure
    return None


def _failure_of(cause: BaseException, home: str, free_bytes: int | None) -> Failure | None:
    if isinstance(cause, ConfigError):
        return Failure("config", str(cause), EXIT_CONFIG)
    if isinstance(cause, OSError):
        return _os_failure(cause, home)
    if isinstance(cause, sqlite3.DatabaseError):
        return _sqlite_failure(cause, home, free_bytes)
    if type(cause).__module__.startswith("psycopg") and type(cause).__name__ == "OperationalError":
        first = (str(cause).strip().splitlines() or [type(cause).__name__])[0]
        return Failure(
            "storage", f"The PostgreSQL database of PBEM_DATABASE_URL cannot be used ({first}).", EXIT_STORAGE
        )
    return None


def _os_failure(cause: OSError, home: str) -> Failure | None:
    if cause.errno in FULL:
        return _disk_full(cause.filename or home)
    if cause.errno in NOT_WRITABLE:
        return _not_writable(cause.filename or home)
    if cause.errno == errno.ENOTDIR:
        return Failure(
            "storage",
            f"PBEM_HOME {home} is not a folder (it or a folder above it is a file); point PBEM_HOME at a folder.",
            EXIT_STORAGE,
        )
    return None


def _sqlite_failure(cause: sqlite3.DatabaseError, home: str, free_bytes: int | None) -> Failure | None:
    text = str(cause).lower()
    if "disk is full" in text:
        return _disk_full(home)
    if "readonly" in text or "read-only" in text or "unable to open database" in text:
        return _not_writable(home)
    if "disk i/o error" not in text:
        return None
    # SQLite's word for a failed write, a full disk among others
    if free_bytes is not None and free_bytes < ALMOST_FULL:
        return _disk_full(home)
    return Failure(
        "storage",
        f"The database under {home} cannot be read or written (SQLite reports a "
        "disk I/O error); check the disk and the permissions of its files.",
        EXIT_STORAGE,
    )


def _disk_full(where: object) -> Failure:
    return Failure(
        "storage",
        f"The disk holding {where} is full, so nothing could be saved; free some space and run the command again.",
        EXIT_STORAGE,
    )


def _not_writable(where: object) -> Failure:
    return Failure(
        "storage",
        f"{where} cannot be opened for writing (a read-only disk or missing permission); "
        "make it writable for pbem or point PBEM_HOME elsewhere.",
        EXIT_STORAGE,
    )


def _causes(error: BaseException) -> Iterator[BaseException]:
    """``error``, then what it was raised from or while handling (the store wraps driver errors)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__
