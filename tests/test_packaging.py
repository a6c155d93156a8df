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


def test_every_package_of_the_checkout_is_listed_for_the_wheel():
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("pbem", "mailgateway")
        for init in (ROOT / top).rglob("__init__.py")
    }
    listed = set(PROJECT["tool"]["setuptools"]["packages"])
    assert found | {"pbem.templates"} == listed


def test_templates_stay_top_level_and_ship_as_the_package_pbem_templates():
    assert PROJECT["tool"]["setuptools"]["package-dir"] == {"pbem.templates": "templates"}
    from mailgateway.compose import TEMPLATES as MAIL
    from pbem.web import STATIC, TEMPLATES

    assert TEMPLATES == MAIL == ROOT / "templates"  # an editable install maps to the checkout
    assert (TEMPLATES / "web" / "game.html").is_file() and (TEMPLATES / "mail" / "body.txt").is_file()
    assert (STATIC / "style.css").is_file()


def test_the_compiled_catalogs_ship_in_the_package():
    from pbem import i18n

    assert i18n.LOCALE_DIR == ROOT / "pbem" / "locale"
    for lang in ("cs", "pl"):
        assert (i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "messages.mo").is_file()
    assert "locale/*/LC_MESSAGES/*.mo" in PROJECT["tool"]["setuptools"]["package-data"]["pbem"]


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
