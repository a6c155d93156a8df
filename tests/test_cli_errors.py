"""Failures outside the rules get one sentence and the exit code docs/cli.md documents, never a
traceback: deeply nested JSON, odd turn files, a full disk, an unwritable data directory, a
setting that cannot work."""

from __future__ import annotations

import errno
import re
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

import pbem.cli
from pbem.cli import main
from pbem.cli.errors import EXIT_CONFIG, EXIT_INVALID, EXIT_REFUSED, EXIT_STORAGE, describe
from pbem.config import ConfigError

DEEP = "[" * 100_000 + "]" * 100_000
ANN, BOB = "ann@example.org", "bob@example.org"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "cli.md"


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("PBEM_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PBEM_DATABASE_URL", raising=False)
    return tmp_path / "home"


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def one_sentence(result, exit_code: int) -> str:
    """The command ended with ``exit_code`` and one line of error, not an exception."""
    assert isinstance(result.exception, SystemExit) and result.exit_code == exit_code, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    return lines[0]


def started_game(home) -> str:
    game_id = run("new", "ruse-and-bruise", "--player", ANN, "--player", BOB).output.strip()
    for player in (ANN, BOB):
        assert run("join", game_id, "--as", player).exit_code == 0
    return game_id


# -- deeply nested JSON ------------------------------------------------------------------------
@pytest.mark.parametrize("command", [["verify"], ["import"], ["check-receipt"]])
def test_deeply_nested_json_is_invalid_not_a_recursion_error(command, home, tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP)
    line = one_sentence(run(*command, str(deep)), EXIT_INVALID)
    assert "nests deeper than Python can read" in line


# -- turn files --------------------------------------------------------------------------------
@pytest.mark.parametrize("version", ["²", "٣", "1e3", "-1"])
def test_a_turn_file_with_an_odd_version_is_refused(version, home, tmp_path):
    game_id = started_game(home)
    turn = tmp_path / "turn.txt"
    turn.write_text(f"game: {game_id}\nplayer: {ANN}\nversion: {version}\nplay king 1\n", encoding="utf-8")
    line = one_sentence(run("turn", str(turn), "--as", ANN), EXIT_REFUSED)
    assert line == f"error (syntax): The turn file's header is wrong: version must be a number, not {version!r}."


def test_a_turn_file_that_is_not_utf8_is_refused(home, tmp_path):
    game_id = started_game(home)
    turn = tmp_path / "turn.txt"
    turn.write_bytes(f"game: {game_id}\nplayer: {ANN}\n".encode() + b"hraj kr\xe1l 1\n")  # Latin-2
    line = one_sentence(run("turn", str(turn), "--as", ANN), EXIT_REFUSED)
    assert line.startswith("error (syntax): The turn file is not UTF-8 text (byte 0xe1 at position")


# -- storage -----------------------------------------------------------------------------------
@pytest.fixture
def sqlite_fails(monkeypatch):
    """Every SQLite connection fails the way SQLite reports the problem."""

    def failing(message: str) -> None:
        def connect(*args, **kwargs):
            raise sqlite3.OperationalError(message)

        monkeypatch.setattr(sqlite3, "connect", connect)

    return failing


@pytest.mark.parametrize("command", [["show", "GAME"], ["move", "GAME", "--as", ANN, "play king 1"], ["games"]])
def test_a_full_disk_is_one_sentence(command, home, sqlite_fails, monkeypatch):
    game_id = started_game(home)
    sqlite_fails("disk I/O error")  # what SQLite says when it cannot write its journal
    monkeypatch.setattr(pbem.cli, "free_bytes", lambda folder: 0)
    line = one_sentence(run(*[game_id if part == "GAME" else part for part in command]), EXIT_STORAGE)
    assert line == (
        f"error (storage): The disk holding {home} is full, so nothing could be saved; "
        "free some space and run the command again."
    )


def test_a_disk_io_error_with_space_left_is_not_called_a_full_disk(home, sqlite_fails):
    sqlite_fails("disk I/O error")
    line = one_sentence(run("games"), EXIT_STORAGE)
    assert "cannot be read or written" in line and "full" not in line


def test_the_web_on_a_read_only_data_directory_stops_with_one_sentence(home, sqlite_fails, monkeypatch):
    def must_not_serve(*args, **kwargs):
        raise AssertionError("the site started on a store it cannot open")

    monkeypatch.setattr("werkzeug.serving.run_simple", must_not_serve)
    sqlite_fails("unable to open database file")
    line = one_sentence(run("serve-web", "--server", "werkzeug", "--port", "0"), EXIT_STORAGE)
    assert line.startswith(f"error (storage): {home} cannot be opened for writing (a read-only disk")


def test_a_data_directory_under_a_file_is_one_sentence(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    monkeypatch.setenv("PBEM_HOME", str(blocker / "home"))
    line = one_sentence(run("games"), EXIT_STORAGE)
    assert "is not a folder" in line


# -- settings ----------------------------------------------------------------------------------
def test_a_database_url_that_is_not_postgresql_is_a_config_error(home, monkeypatch):
    monkeypatch.setenv("PBEM_DATABASE_URL", "mysql://db/pbem")
    line = one_sentence(run("games"), EXIT_CONFIG)
    assert line == "error (config): PBEM_DATABASE_URL must start with postgresql://, not mysql://"


# -- the mapping itself ------------------------------------------------------------------------
def test_describe_follows_the_cause_chain_of_wrapped_driver_errors():
    try:
        try:
            raise sqlite3.OperationalError("attempt to write a readonly database")
        except sqlite3.OperationalError as driver:
            raise RuntimeError("the store's own wrapper") from driver
    except RuntimeError as wrapped:
        failure = describe(wrapped, "/srv/pbem")
    assert failure is not None
    assert failure.exit_code == EXIT_STORAGE and "/srv/pbem cannot be opened" in failure.sentence


def test_describe_names_the_file_of_an_os_error():
    failure = describe(OSError(errno.ENOSPC, "No space left on device", "/srv/pbem/keys/new"), "/srv/pbem")
    assert failure is not None and "/srv/pbem/keys/new" in failure.sentence


def test_describe_leaves_unknown_failures_alone():
    assert describe(KeyError("a bug"), "/srv/pbem") is None
    assert describe(ConfigError("x"), "/srv/pbem").exit_code == EXIT_CONFIG


def test_every_exit_code_is_documented():
    table = DOCS.read_text(encoding="utf-8")
    for code in (0, EXIT_INVALID, EXIT_REFUSED, EXIT_CONFIG, EXIT_STORAGE, 70, 75):
        assert re.search(rf"^\| `{code}` \|", table, re.MULTILINE), f"exit code {code} is not in docs/cli.md"


# -- the seed of a test game ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("seed", "said"),
    [
        ("feed0", "'feed0' has an odd number of hex digits (5): each byte is two digits"),
        ("feedxy", "'x' in 'feedxy' is not a hex digit"),
        ("  ", "the seed is empty"),
        ("ab" * 65, "more than 128 hex digits"),
    ],
)
def test_a_seed_that_is_not_bytes_in_hex_says_what_is_wrong(seed, said, home):
    """``--seed feed0`` is hexadecimal, so "must be hexadecimal" would be wrong: the answer names
    the actual fault, and no game is created."""
    result = run("new", "kingsburg", "--player", ANN, "--player", BOB, "--no-mail", "--seed", seed)
    assert result.exit_code == 2 and said in result.output, result.output
    assert "must be hexadecimal" not in result.output
    assert "kingsburg" not in run("games").output


def test_a_seed_of_whole_bytes_in_hex_is_taken(home):
    result = run("new", "kingsburg", "--player", ANN, "--player", BOB, "--no-mail", "--seed", " FEED00 ")
    assert result.exit_code == 0 and len(result.output.strip()) > 8, result.output
