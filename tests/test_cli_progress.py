"""The progress bar of the long commands: drawn on a terminal when the work is long, and
nothing at all in a pipe."""

import io

import pytest
from click.testing import CliRunner

from pbem.cli import main, progress
from pbem.cli.progress import TerminalProgress


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_terminal_gets_a_bar_that_ends_full():
    screen = Terminal()
    with TerminalProgress("exporting", screen, long=10) as report:
        for done in range(1, 41):
            report(done, 40)
    drawn = screen.getvalue()
    assert "exporting" in drawn and "100%" in drawn
    assert drawn.endswith("\n")  # the next line of output starts on a line of its own


def test_a_bar_that_stopped_early_by_an_error_is_not_shown_full():
    screen = Terminal()
    with pytest.raises(RuntimeError), TerminalProgress("replaying", screen, long=10) as report:
        report(20, 100)
        raise RuntimeError("refused")
    assert "20%" in screen.getvalue() and "100%" not in screen.getvalue()


def test_short_work_draws_nothing_even_on_a_terminal():
    screen = Terminal()
    with TerminalProgress("exporting", screen, long=10) as report:
        for done in range(1, 10):
            report(done, 9)
    assert screen.getvalue() == ""


def test_work_of_unknown_length_gets_a_bar_once_it_is_long():
    screen = Terminal()
    with TerminalProgress("playing", screen, long=10) as report:
        for done in range(1, 10):
            report(done, None)
        assert screen.getvalue() == ""
        for done in range(10, 30):
            report(done, None)
    assert "playing" in screen.getvalue() and "29" in screen.getvalue()


def test_a_pipe_gets_nothing_however_long_the_work():
    pipe = io.StringIO()
    with TerminalProgress("exporting", pipe, long=1) as report:
        for done in range(1, 1001):
            report(done, 1000)
    assert pipe.getvalue() == ""


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(progress, "LONG", 1)  # every run counts as long work
    runner = CliRunner()

    def invoke(*args):
        result = runner.invoke(main, list(args), catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    return invoke


def _played_and_exported(run, tmp_path):
    game_id = run(
        "new", "hidden-pig", "--player", "ann@example.org", "--player", "bob@example.org", "--seed", "00" * 32
    ).strip()
    played = run("autoplay", game_id, "--seed", "4")
    exported = run("export-all", str(tmp_path / "backup"))
    return game_id, played, exported


def test_the_long_commands_print_only_their_results_in_a_pipe(run, tmp_path):
    game_id, played, exported = _played_and_exported(run, tmp_path)
    assert played.startswith(f"moves; game {game_id} is over", played.index(" ") + 1)
    assert exported == f"1 game exported to {tmp_path / 'backup'}\n"
    export = tmp_path / "backup" / f"{game_id}.json"
    verified = run("verify", str(export))
    assert verified.startswith("valid: game")
    imported = run("import", str(export))
    assert imported.startswith(f"was already here: game {game_id}") and imported.count("\n") == 1
    labels = {"playing", "exporting", "replaying", "verifying"}
    for text in (played, exported, verified, imported):
        # click's own bar, in a pipe, would still print its label on a line of its own
        assert "\r" not in text and "%" not in text and not labels & set(text.splitlines())


def test_the_same_commands_on_a_terminal_draw_their_bars(run, tmp_path, monkeypatch):
    """The counterpart of the pipe test: the same runs with standard error taken for a terminal
    do draw, so the test above would see a bar that leaked into a pipe."""
    monkeypatch.setattr(progress, "is_terminal", lambda stream: True)
    game_id, played, exported = _played_and_exported(run, tmp_path)
    assert "playing" in played and "exporting" in exported
    export = tmp_path / "backup" / f"{game_id}.json"
    assert "replaying" in run("verify", str(export))
    assert "verifying" in run("import", str(export))
