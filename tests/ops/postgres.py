"""A fresh PostgreSQL database per test, on the loopback server (trust auth, user postgres),
dropped afterwards. Skips with the reason when the server is not reachable, unless
PBEM_REQUIRE_POSTGRES=1 (CI), which turns that into a failure."""

from __future__ import annotations

import os
import secrets

import pytest

ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


def _connect():
    import psycopg

    try:
        return psycopg.connect(ADMIN_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as error:
        reason = f"PostgreSQL is not reachable at 127.0.0.1:5432 as user postgres ({str(error).strip()})"
        if os.environ.get("PBEM_REQUIRE_POSTGRES") == "1":
            pytest.fail(reason + "; PBEM_REQUIRE_POSTGRES=1 demands it")
        pytest.skip(reason + "; set PBEM_REQUIRE_POSTGRES=1 to fail instead of skipping")


@pytest.fixture
def pg_url():
    admin = _connect()
    name = f"pbem_test_{secrets.token_hex(6)}"
    admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql://postgres@127.0.0.1:5432/{name}"
    finally:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()
