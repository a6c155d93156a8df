"""The gateway's settings: every variable it reads is documented, bad values are refused."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import pbem.mailroom.settings as module
from pbem.config import ENVIRONMENT
from pbem.mailroom.settings import MailSettings


def test_every_variable_is_documented():
    read = set(re.findall(r'"(PBEM_[A-Z_]+)"', Path(module.__file__).read_text()))
    assert read and read <= set(ENVIRONMENT)
    docs = (Path(__file__).resolve().parents[2] / "docs" / "mail.md").read_text()
    assert all(name in docs for name in read)


def test_from_env(tmp_path):
    settings = MailSettings.from_env(
        tmp_path,
        {"PBEM_MAIL_ADDRESS": "Games@Example.org", "PBEM_SMTP_RELAY": "mx.example.org:2525", "PBEM_DKIM": "require"},
    )
    assert settings.address == "games@example.org" and settings.relay == ("mx.example.org", 2525)
    assert settings.maildir == tmp_path / "maildir" and settings.dkim == "require"
    for bad in (
        {"PBEM_SMTP_RELAY": "nohost"},
        {"PBEM_DKIM": "maybe"},
        {"PBEM_MAIL_ADDRESS": "a+b@x.org"},
        {"PBEM_MISSED_TURN_POLICY": "never"},
    ):
        with pytest.raises(ValueError):
            MailSettings.from_env(tmp_path, bad)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PBEM_MAIL_TICK_SECONDS", "abc"),
        ("PBEM_SMTP_ATTEMPTS", "1e9"),
        ("PBEM_MAIL_MAX_BYTES", "-5"),
        ("PBEM_DEADLINE_HOURS", "99999999"),
        ("PBEM_MAIL_IDLE_SECONDS", "nan"),
        ("PBEM_SMTP_RELAY", "mx.example.org:99999"),
        ("PBEM_SNAPSHOT_INTERVAL", "lots"),
    ],
)
def test_a_bad_setting_makes_mail_work_exit_3_naming_the_variable(tmp_path, name, value):
    """Issue 28: a bad numeric setting crashed ``pbem mail-work`` with a traceback."""
    import os
    import subprocess
    import sys

    env = os.environ | {"PBEM_HOME": str(tmp_path / "home"), name: value}
    env.pop("PBEM_DATABASE_URL", None)
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "tests.faults.gateway_proc", "mail-work"],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 3, done.stderr
    assert name in done.stderr and "Traceback" not in done.stderr


def test_cipher_key_is_read_from_the_settings_mapping(tmp_path):
    """Issue 28: ``Settings.from_env(mapping)`` took CIPHER_KEY from the process instead."""
    from pbem.config import Settings

    key = "Fz0n3Rk1lGzKQ8zJ1n2QpWm0Vd3Hc5tYs7uXa9bCdEe="
    assert Settings.from_env({"PBEM_HOME": str(tmp_path), "CIPHER_KEY": key}).store_env()["CIPHER_KEY"] == key
    assert "CIPHER_KEY" not in Settings.from_env({"PBEM_HOME": str(tmp_path)}).store_env()
