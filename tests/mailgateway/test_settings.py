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
