"""The README's five-minute tour runs as written: its code block, taken from README.md, is run
by bash (stopping at the first command that fails) in an empty folder with its own PBEM_HOME.

A command the tour names that does not exist, an option it no longer takes, or a step that
fails (``verify --receipts`` of a folder the tour never filled) fails this test."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def tour_block(text: str) -> str:
    """The first ``sh`` code block after the tour's heading."""
    section = text.split("## A five-minute tour", 1)[1]
    match = re.search(r"```sh\n(.*?)```", section, re.S)
    assert match, "the tour has no sh code block"
    return match.group(1)


def run_tour(script: str, folder: Path) -> subprocess.CompletedProcess[str]:
    venv = Path(sys.executable).parent.parent
    (folder / ".venv").symlink_to(venv)  # the tour starts with '. .venv/bin/activate'
    env = {key: value for key, value in os.environ.items() if not key.startswith("PBEM_")}
    env |= {"PBEM_HOME": str(folder / "pbem-data"), "PBEM_LANG": "en"}
    return subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_readme_tour_runs_as_written(tmp_path):
    script = tour_block(README.read_text(encoding="utf-8"))
    assert "pbem verify game.json --receipts my-receipts/" in script
    done = run_tour(script, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert out.count("valid: game kingsburg-") == 2  # both verify lines
    assert "1 checkpoint you hold is consistent with the export" in out  # one receipt kept, said in the singular
    assert (tmp_path / "game.json").is_file() and (tmp_path / "my-receipts" / "ann.json").is_file()


def test_the_tour_check_fails_on_a_stale_command(tmp_path):
    """Positive control: a tour naming a command pbem does not have stops with an error."""
    script = tour_block(README.read_text(encoding="utf-8")).replace("pbem catalog", "pbem catalogue", 1)
    done = run_tour(script, tmp_path)
    assert done.returncode != 0 and "catalogue" in done.stderr


@pytest.mark.parametrize("dash", ["-", None])
def test_export_to_a_dash_or_nothing_writes_to_standard_output(tmp_path, dash):
    env = {key: value for key, value in os.environ.items() if not key.startswith("PBEM_")}
    env["PBEM_HOME"] = str(tmp_path / "home")
    pbem = [str(Path(sys.executable).parent / "pbem")]
    game = subprocess.run(
        [*pbem, "new", "kingsburg", "--player", "a@example.org", "--player", "b@example.org", "--no-mail"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    ).stdout.strip()
    args = [*pbem, "export", game] + (["-o", dash] if dash else [])
    done = subprocess.run(args, env=env, capture_output=True, check=True, cwd=tmp_path)
    assert done.stdout.startswith(b"{") and b'"format":"pbem-export/1"' in done.stdout
    assert not (tmp_path / "-").exists()
