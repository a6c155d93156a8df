import contextlib
import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from pbem.config import Settings
from pbem.games import register
from tests.support import hiddenpig

register(hiddenpig.SPEC)
# the CLI speaks the locale's language (pbem/i18n.py); the tests expect English whatever the
# developer's locale is, and set PBEM_LANG themselves where they test another language
os.environ["PBEM_LANG"] = "en"

# Hypothesis: a small profile for `make test` and a large one for `make test-long`
# (--hypothesis-profile=long). No deadline: on a shared 2-core machine timing is noise, and speed
# is measured by the benchmarks, not by tests.
hypothesis_settings.register_profile("default", max_examples=30, deadline=None)
hypothesis_settings.register_profile(
    "long", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
hypothesis_settings.load_profile("default")

# Random-game suites play a few games by default; their full counts are the `long` variant.
DEFAULT_RANDOM_GAMES = 8


@pytest.fixture(params=[pytest.param("default"), pytest.param("long", marks=pytest.mark.long)])
def random_games(request):
    """``random_games(full)``: how many games of a random suite to play in this run: ``full``
    in the long run (`make test-long`), at most DEFAULT_RANDOM_GAMES in the default one."""

    def count(full: int, default: int = DEFAULT_RANDOM_GAMES) -> int:
        return full if request.param == "long" else min(full, default)

    return count


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


def _require_postgres() -> None:
    """Skips the test when no PostgreSQL server is reachable, unless PBEM_REQUIRE_POSTGRES=1
    (CI), where that is a failure."""
    problem = _postgres_reachable()
    if problem:
        if os.environ.get("PBEM_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"PostgreSQL is required (PBEM_REQUIRE_POSTGRES=1) but unreachable: {problem}")
        pytest.skip(f"PostgreSQL unreachable: {problem}")


@contextlib.contextmanager
def _database() -> Iterator[str]:
    """A fresh PostgreSQL database's URL, the database dropped afterwards."""
    import psycopg

    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")  # each pytest-xdist worker its own names
    name = f"pbem_test_{worker}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql://postgres@127.0.0.1:5432/{name}"
    finally:
        with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def postgres_url():
    """A fresh PostgreSQL database for one test, dropped afterwards. Skips when no server is
    reachable, unless PBEM_REQUIRE_POSTGRES=1 (CI), where that is a failure."""
    _require_postgres()
    with _database() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request, tmp_path):
    """Settings for a fresh store: SQLite under tmp_path, and PostgreSQL when reachable."""
    if request.param == "sqlite":
        return Settings(home=tmp_path / "home")
    return Settings(home=tmp_path / "home", database_url=request.getfixturevalue("postgres_url"))


@pytest.fixture(params=["sqlite", "postgres"])
def fresh_stores(request, tmp_path):
    """For property tests whose every example needs a store of its own: ``with
    fresh_stores() as settings`` gives settings for a fresh, empty store (SQLite in a new folder
    under tmp_path, or a new PostgreSQL database, dropped when the block ends)."""
    if request.param == "postgres":
        _require_postgres()

    @contextlib.contextmanager
    def fresh() -> Iterator[Settings]:
        home = Path(tempfile.mkdtemp(dir=tmp_path))
        if request.param == "sqlite":
            yield Settings(home=home)
            return
        with _database() as url:
            yield Settings(home=home, database_url=url)

    return fresh


@pytest.fixture
def sqlite_settings(tmp_path):
    return Settings(home=tmp_path / "home")
