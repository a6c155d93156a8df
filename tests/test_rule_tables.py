"""Each game's documentation has a rule table (docs/games/<game>.md, "## Rule table") whose
every row names at least one test, and every test named there exists in tests/."""

import ast
import re
from pathlib import Path

import pytest

from pbem.games import catalog

ROOT = Path(__file__).resolve().parent.parent
DOCS = {
    "kingsburg": "kingsburg.md",
    "kingdom-builder": "kingdom-builder.md",
    "warriors-traders": "warriors-traders.md",
    "ruse-and-bruise": "ruse-and-bruise.md",
}


def _test_names() -> set[str]:
    names = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                names.add(node.name)
    return names


def _rows(markdown: str) -> list[dict[str, str]]:
    """The rows of the table under "## Rule table", as {column header: cell}."""
    section = markdown.split("## Rule table", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]
    return [dict(zip(header, cells, strict=False)) for cells in rows]


def test_every_game_has_a_rule_table():
    shipped = {name for name, spec in catalog().items() if type(spec).__module__.startswith("pbem.games.")}
    assert set(DOCS) == shipped  # test games registered by other tests do not count
    for doc in DOCS.values():
        assert "## Rule table" in (ROOT / "docs" / "games" / doc).read_text(encoding="utf-8")


@pytest.mark.parametrize("doc", sorted(DOCS.values()))
def test_every_row_of_the_rule_table_names_tests_that_exist(doc):
    rows = _rows((ROOT / "docs" / "games" / doc).read_text(encoding="utf-8"))
    assert len(rows) >= 25
    existing = _test_names()
    for row in rows:
        named = re.findall(r"`(test_\w+)`", row["test"])
        assert named, f"{doc}: the rule {row['rule']!r} names no test"
        missing = [name for name in named if name not in existing]
        assert not missing, f"{doc}: {row['rule']!r} names tests that do not exist: {missing}"
        assert row["code"], f"{doc}: the rule {row['rule']!r} names no code"
