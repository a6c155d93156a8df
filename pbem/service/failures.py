"""Which failures are temporary: only a store that is down or busy.

Everything else a mail, a record or a timer can cause is permanent for that item: it is
answered, or it becomes a dead letter, and the loop moves on. Asking an MTA to deliver the
same mail again (451, exit 75) or a follower to read the same notification again only helps
when the store itself was unreachable or locked, so that is the one case that says "later".

``translated()`` is put around a piece of work at an edge (the gateway, a worker round): a
store failure of the connection kind leaves it as ``StoreUnavailable``; anything else passes
unchanged, for the caller to answer or to keep as a dead letter.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from eventsourcing.persistence import InterfaceError, OperationalError

# eventsourcing's wrappers of the drivers' "could not reach, locked, disk full" errors, and the
# drivers' own (a few of our queries run on the raw connection)
_DOWN = (InterfaceError, OperationalError, sqlite3.OperationalError, sqlite3.InterfaceError)
_DOWN_DRIVER_NAMES = {("psycopg", "OperationalError"), ("psycopg", "InterfaceError")}


class StoreUnavailable(Exception):
    """The store is down or busy, after the retries: the one temporary failure."""


def store_down(error: BaseException) -> bool:
    """Whether ``error`` says the store could not be reached or was busy (not: it refused data)."""
    if isinstance(error, (StoreUnavailable, *_DOWN)):
        return True
    return any((kind.__module__.split(".", 1)[0], kind.__name__) in _DOWN_DRIVER_NAMES for kind in type(error).__mro__)


@contextmanager
def translated() -> Iterator[None]:
    """Raise a store-down failure inside as ``StoreUnavailable``; others pass unchanged."""
    try:
        yield
    except StoreUnavailable:
        raise
    except Exception as error:
        if store_down(error):
            raise StoreUnavailable(f"{type(error).__name__}: {error}") from error
        raise
