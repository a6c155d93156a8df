"""What a non-editable install needs: every package listed, package data found through
importlib.resources, the version, and a clear word when the PostgreSQL extra is missing.
(.ci/smoke.py installs the built wheel for real.)"""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

import pbem
from pbem import config
from pbem.cli import main

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _found() -> set[str]:
    """The packages setuptools finds with the project's own configuration."""
    from setuptools import find_namespace_packages

    find = PROJECT["tool"]["setuptools"]["packages"]["find"]
    return set(find_namespace_packages(where=str(ROOT), include=find["include"]))


def test_setuptools_finds_every_package_and_data_folder_of_the_checkout():
    """No hand-written list to forget a package in, and no folder of data files outside the
    packages (setuptools warns about each such folder when it builds)."""
    found = _found()
    for top in ("pbem", "mailgateway"):
        for folder in [ROOT / top, *(p for p in (ROOT / top).rglob("*") if p.is_dir())]:
            if folder.name == "__pycache__" or not any(f.is_file() for f in folder.iterdir()):
                continue
            assert ".".join(folder.relative_to(ROOT).parts) in found, folder
    assert {"pbem.templates", "pbem.templates.web", "pbem.templates.mail", "pbem.web.static"} <= found
    assert not any(name.split(".")[0] not in ("pbem", "mailgateway") for name in found)  # no tests, no benchmarks


def test_templates_stay_top_level_and_ship_as_the_package_pbem_templates():
    link = ROOT / "pbem" / "templates"
    assert link.is_symlink() and link.resolve() == ROOT / "templates"  # the files live in templates/ only
    from mailgateway.compose import TEMPLATES as MAIL
    from pbem.web import STATIC, TEMPLATES

    assert TEMPLATES.resolve() == MAIL.resolve() == ROOT / "templates"  # an editable install uses the checkout
    assert (TEMPLATES / "web" / "game.html").is_file() and (TEMPLATES / "mail" / "body.txt").is_file()
    assert (STATIC / "style.css").is_file()


def test_every_data_file_of_the_packages_is_package_data():
    """Every file beside the code that the installed package reads matches a package-data
    pattern (the translators' .po and .pot sources stay out)."""
    patterns = PROJECT["tool"]["setuptools"]["package-data"]["*"]
    for top in ("pbem", "templates", "mailgateway"):
        for path in (ROOT / top).rglob("*"):
            if path.is_file() and path.suffix not in (".py", ".pyc", ".po", ".pot"):
                assert any(path.match(pattern) for pattern in patterns), path


def test_the_compiled_catalogs_ship_in_the_package():
    from pbem import i18n

    assert i18n.LOCALE_DIR == ROOT / "pbem" / "locale"
    for lang in ("cs", "pl"):
        assert (i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "messages.mo").is_file()
    assert "*.mo" in PROJECT["tool"]["setuptools"]["package-data"]["*"]


def test_license_is_an_spdx_expression():
    assert PROJECT["project"]["license"] == "MIT"


def test_postgres_is_an_extra_not_a_dependency():
    assert not any("psycopg" in dep or "postgres" in dep for dep in PROJECT["project"]["dependencies"])
    assert any(dep.startswith("psycopg") for dep in PROJECT["project"]["optional-dependencies"]["postgres"])


def test_version_option_prints_the_package_version():
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0 and result.output == f"pbem {pbem.__version__}\n"


def test_a_postgres_url_without_the_extra_names_the_extra(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "psycopg" else real(name, *a))
    with pytest.raises(config.ConfigError, match=r"pip install 'pbem\[postgres\]'"):
        config.postgres_env("postgresql://postgres@127.0.0.1/pbem")


def test_a_postgres_url_with_the_extra_gives_the_store_settings():
    assert config.postgres_env("postgresql://ann:pw@db:5433/games")["POSTGRES_PORT"] == "5433"


def _imported_top_level_names() -> set[str]:
    """The top-level modules the shipped code imports (pbem/ and mailgateway/, tests left out)."""
    import ast
    import sys

    names: set[str] = set()
    for top in ("pbem", "mailgateway"):
        for path in (ROOT / top).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names.add(node.module.split(".")[0])
    # _typeshed exists for type checkers only (imported under TYPE_CHECKING)
    return names - set(sys.stdlib_module_names) - {"pbem", "mailgateway", "__future__", "_typeshed"}


def _requirement_name(requirement: str) -> str:
    from packaging.requirements import Requirement

    return Requirement(requirement).name.lower().replace("_", "-")


def test_every_imported_library_is_a_declared_dependency_by_name():
    """A clean install gets only what pyproject.toml declares: a module the code imports that
    came into the checkout's venv through a test tool (idna did, through the test extra's
    requests) fails the wheel's smoke test on a fresh machine. So each imported library is
    declared itself (main dependencies, or the postgres and deploy extras, whose imports are guarded), or is
    a library that a declared one requires (markupsafe for jinja2, werkzeug for flask)."""
    from importlib.metadata import packages_distributions, requires

    declared = {_requirement_name(r) for r in PROJECT["project"]["dependencies"]}
    for extra in ("postgres", "deploy"):  # imported only where the extra is installed (guarded)
        declared |= {_requirement_name(r) for r in PROJECT["project"]["optional-dependencies"][extra]}
    required_by_declared = {
        _requirement_name(r.split(";")[0]) for name in declared for r in (requires(name) or []) if "extra ==" not in r
    }
    distributions = packages_distributions()
    imported = _imported_top_level_names()
    assert "idna" in imported and "flask" in imported  # positive control: the scan sees the imports
    for module in sorted(imported):
        names = {d.lower().replace("_", "-") for d in distributions.get(module, [module])}
        assert names & (declared | required_by_declared), f"{module} is imported but not declared"
    assert "idna" in declared  # the one that was missing
