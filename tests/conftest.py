import os
import uuid

import pytest

from pbem.config import Settings
from pbem.games import register
from tests.support import hiddenpig

register(hiddenpig.SPEC)

POSTGRES_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


@pytest.fixture
def pig():
    return hiddenpig.SPEC


def _postgres_reachable() -> str | None:
    try:
        import psycopg

        with psycopg.connect(POSTGRES_ADMIN, connect_timeout=3):
            return None
    except Exception as error:  # any failure means: no server we can use
        return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


@pytest.fixture
def postgres_url():
    """A fresh PostgreSQL database for one test, dropped afterwards. Skips when no server is
    reachable, unless PBEM_REQUIRE_POSTGRES=1 (CI), where that is a failure."""
    problem = _postgres_reachable()
    if problem:
        if os.environ.get("PBEM_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"PostgreSQL is required (PBEM_REQUIRE_POSTGRES=1) but unreachable: {problem}")
        pytest.skip(f"PostgreSQL unreachable: {problem}")
    import psycopg

    name = f"pbem_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    yield f"postgresql://postgres@127.0.0.1:5432/{name}"
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request, tmp_path):
    """Settings for a fresh store: SQLite under tmp_path, and PostgreSQL when reachable."""
    if request.param == "sqlite":
        return Settings(home=tmp_path / "home")
    return Settings(home=tmp_path / "home", database_url=request.getfixturevalue("postgres_url"))


@pytest.fixture
def sqlite_settings(tmp_path):
    return Settings(home=tmp_path / "home")
