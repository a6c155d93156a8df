"""The docs name only what exists: every setting (``PBEM_*``), every ``pbem`` subcommand and
option, and every mail command named in README.md and docs/*.md is one the code has.

A setting exists when ``pbem.config.ENVIRONMENT`` lists it or code reads it by name (the web
site's configuration keys such as ``PBEM_TEMPLATES``, the test suite's switches such as
``PBEM_LONG_GAMES``). A ``pbem`` command is looked up in the click group, with its options; a
mail command (the first word of each command in docs/mail.md's tables) in the mail keywords.
Each check has a positive control: a planted stale name is reported."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

import click
import pytest

from pbem.cli import main as pbem_group
from pbem.config import ENVIRONMENT
from pbem.mailroom.commands import LOOKUP, parse_command, plain

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs").glob("*/*.md"))]
# where a setting may be read: the code, the tools, the tests (not this file, which names stale ones)
CODE = ["pbem", "mailgateway", "benchmarks", "tests", "deploy", ".ci"]
SETTING = re.compile(r"\bPBEM_[A-Z0-9_]*[A-Z0-9]")
SPAN = re.compile(r"``?([^`\n]+)``?")
SHELL_BLOCK = re.compile(r"^```(?:sh|bash|console)\n(.*?)^```", re.S | re.M)
# "pbem SUBCOMMAND rest" where a command starts (a span or line, after "bin/", "$(", "; ",
# "&& ", "| "): not "sudo -u pbem", "radon cc pbem mailgateway", "pbem.localhost" or "pbem+game"
INVOCATION = re.compile(r"(?:^|(?<=bin/)|(?<=\$\()|(?<=[;&|] ))pbem ([a-z][a-z-]*)([^`]*)")
OPTION = re.compile(r"(?<![\w-])(--?[a-zA-Z][\w-]*)")


def doc_texts() -> Iterator[tuple[str, str]]:
    for path in DOCS:
        yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def names_in_code() -> frozenset[str]:
    found: set[str] = set()
    for top in CODE:
        for path in (ROOT / top).rglob("*"):
            if (
                path.is_file()
                and path.suffix in {".py", ".sh", ".example", ".service", ".cfg", ""}
                and path != Path(__file__)
            ):
                found |= set(SETTING.findall(path.read_text(encoding="utf-8", errors="replace")))
    for extra in ("Makefile", "pyproject.toml"):
        found |= set(SETTING.findall((ROOT / extra).read_text(encoding="utf-8")))
    return frozenset(found)


def stale_settings(text: str) -> list[str]:
    return sorted({name for name in SETTING.findall(text) if name not in ENVIRONMENT and name not in names_in_code()})


# -- the pbem command --------------------------------------------------------------------------------
def invocations(text: str) -> Iterator[str]:
    """Every "pbem ..." written as code: inline spans and the lines of shell blocks (comments cut)."""
    for block in SHELL_BLOCK.findall(text):
        for line in block.splitlines():
            yield from (m.group(0) for m in INVOCATION.finditer(line.split(" #", 1)[0].strip()))
    for span in SPAN.findall(SHELL_BLOCK.sub("", text)):
        yield from (m.group(0) for m in INVOCATION.finditer(span.strip()))


def _options(command: click.Command) -> set[str]:
    return {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)} | {"--help", "-h"}


def command_problems(invocation: str) -> list[str]:
    """What in ``invocation`` pbem does not have: an unknown subcommand, or an option the
    command does not take."""
    words = invocation.split()
    command: click.Command = pbem_group
    used = ["pbem"]
    for word in words[1:]:
        if not isinstance(command, click.Group) or word.startswith("-"):
            break
        sub = command.commands.get(word)
        if sub is None:
            if command is pbem_group:
                return [f"no command 'pbem {word}'"]
            break
        command, used = sub, [*used, word]
    # a pipe or a command list ends this invocation ("... | jq", "...; pbem ...")
    rest = re.split(r"(?<!\\)\|(?!\s*-)|;|&&|\$\(", invocation, maxsplit=1)[0]
    known = _options(command) | ({"--version"} if command is pbem_group else set())
    return [f"'{' '.join(used)}' has no option {opt}" for opt in OPTION.findall(rest) if opt not in known]


def all_command_problems() -> list[str]:
    return [
        f"{name}: {problem}"
        for name, text in doc_texts()
        for call in invocations(text)
        for problem in command_problems(call)
    ]


# -- mail commands --------------------------------------------------------------------------------------
def mail_table_commands(text: str) -> list[str]:
    """The first word of each command in the tables of docs/mail.md's command sections (the
    English, Czech and Polish columns), "..." continuations left out."""
    section = text.split("### Global commands", 1)[1].split("\n## ", 1)[0]
    words = []
    for row in section.splitlines():
        if not row.startswith("| `"):
            continue
        cells = row.split(" | ")[:3]
        for cell in cells:
            for span in re.findall(r"`([^`]+)`", cell):
                first = span.split()[0]
                command = parse_command(span)
                if command is not None and command.name != LOOKUP.get(plain(first)):
                    first = "".join(span.split()[:2])  # a command of two words (časové pásmo)
                if not first.startswith("..."):
                    words.append(first)
    return words


def unknown_mail_commands(words: list[str]) -> list[str]:
    return [word for word in words if plain(word).rstrip(":") not in LOOKUP]


# -- the tests -------------------------------------------------------------------------------------------
def test_every_setting_the_docs_name_exists():
    named = {name for _, text in doc_texts() for name in SETTING.findall(text)}
    assert len(named) > 20  # the docs were read
    assert [(path, stale_settings(text)) for path, text in doc_texts() if stale_settings(text)] == []


@pytest.mark.parametrize("stale", ["PBEM_MAIL_REPLY_LIMIT", "PBEM_TEMPLATE_DIR"])
def test_the_settings_check_reports_a_planted_stale_name(stale):
    assert stale_settings(f"Set `{stale}=5` and `PBEM_HOME`.") == [stale]


def test_every_pbem_command_and_option_the_docs_name_exists():
    calls = [call for _, text in doc_texts() for call in invocations(text)]
    assert len(calls) > 50  # the docs were read
    assert all_command_problems() == []


@pytest.mark.parametrize(
    ("written", "problem"),
    [
        ("pbem verfiy game.json", "no command 'pbem verfiy'"),
        ("pbem export GAME --out game.json", "'pbem export' has no option --out"),
        ("pbem key revoke --until TIME", "'pbem key revoke' has no option --until"),
    ],
)
def test_the_command_check_reports_a_planted_stale_command(written, problem):
    text = f"Run `{written}` and then\n\n```sh\npbem games   # a comment --not-an-option\n```\n"
    assert [p for call in invocations(text) for p in command_problems(call)] == [problem]


def test_every_mail_command_in_docs_mail_exists():
    words = mail_table_commands((ROOT / "docs" / "mail.md").read_text(encoding="utf-8"))
    assert len(words) > 20 and "subscribe" in words
    assert unknown_mail_commands(words) == []


def test_the_mail_command_check_reports_a_planted_stale_command():
    assert unknown_mail_commands(["subscribe", "odebírat", "digest", "přezdívka"]) == ["digest", "přezdívka"]
