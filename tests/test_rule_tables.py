"""Each game's documentation has a rule table (docs/games/<game>.md, "## Rule table") whose
every row names at least one test, and every test named there exists in tests/ and mentions the
rule's key words (the "key words" column), so a row cannot name a test about something else."""

import ast
import re
import unicodedata
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
    return set(_test_texts())


def fold(text: str) -> str:
    """Lower case, no accents, ``_`` and ``-`` read as spaces: how a test's text and a key word
    are compared (``Doppelgänger`` is ``doppelganger``, ``end_of_the_turn`` is ``end of the turn``)."""
    plain = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in plain if not unicodedata.combining(ch)).replace("_", " ").replace("-", " ")


def _test_texts() -> dict[str, str]:
    """Every test function's name, docstring and body, folded, by name (a name defined twice
    keeps both texts)."""
    texts: dict[str, str] = {}
    for path in (ROOT / "tests").rglob("test_*.py"):
        source = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                texts[node.name] = texts.get(node.name, "") + fold(ast.get_source_segment(source, node) or "")
    return texts


def key_words(row: dict[str, str]) -> list[str]:
    return [fold(word.strip()) for word in row.get("key words", "").split(",") if word.strip()]


def unmentioned(row: dict[str, str], texts: dict[str, str]) -> list[tuple[str, str]]:
    """(test, key word) for every key word of the row that a test named in it never mentions."""
    named = re.findall(r"`(test_\w+)`", row["test"])
    return [(name, word) for name in named for word in key_words(row) if word not in texts.get(name, "")]


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


@pytest.mark.parametrize("doc", sorted(DOCS.values()))
def test_every_test_named_for_a_rule_mentions_the_rules_key_words(doc):
    """A row's tests must talk about what the rule is about: each of the row's key words appears
    in the name, docstring or body of every test the row names."""
    texts = _test_texts()
    for row in _rows((ROOT / "docs" / "games" / doc).read_text(encoding="utf-8")):
        assert key_words(row), f"{doc}: the rule {row['rule']!r} has no key words"
        missing = unmentioned(row, texts)
        assert not missing, f"{doc}: {row['rule']!r}: tests that do not mention a key word: {missing}"


def test_the_key_word_check_catches_a_test_about_something_else():
    """Positive control: a row that names a test about the secrecy of the enemy deck for the rule
    "one enemy card per year" is caught; the test that plays that rule passes; accents, case
    and underscores do not matter."""
    texts = {
        "test_public_view_never_shows_the_enemy_deck": fold("def test_public_view_never_shows_the_enemy_deck(): ..."),
        "test_one_enemy_card_per_year": fold('def test_one_enemy_card_per_year():\n    """Rok I nahoře."""'),
    }
    row = {"rule": "one enemy card per year", "key words": "enemy, Year", "test": ""}
    wrong = {**row, "test": "`test_public_view_never_shows_the_enemy_deck`"}
    right = {**row, "test": "`test_one_enemy_card_per_year`"}
    assert unmentioned(wrong, texts) == [("test_public_view_never_shows_the_enemy_deck", "year")]
    assert unmentioned(right, texts) == []
    assert unmentioned({**right, "key words": "nahoře"}, texts) == []  # the docstring counts, accents folded
    assert key_words({"key words": " Doppelgänger , end_of_turn "}) == ["doppelganger", "end of turn"]
