"""The contract of the aiosmtpd adapter (mailgateway/server.py) with the pinned library: the
internal it touches (a conversation's table of command handlers) is there in the installed
version, and a library that changed it is noticed."""

from __future__ import annotations

from aiosmtpd.smtp import SMTP

from mailgateway import server


def test_the_pinned_library_keeps_the_command_table_the_server_wraps():
    assert server.contract_problems() == []


def test_a_library_that_no_longer_keeps_the_table_is_named(monkeypatch):
    original = SMTP.__init__

    def without_table(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self._commands = self.__dict__.pop("_smtp_methods")  # renamed, as an upgrade might

    monkeypatch.setattr(SMTP, "__init__", without_table)
    problems = server.contract_problems()
    assert "SMTP keeps no _smtp_methods table of its commands" in problems
    assert "LMTP keeps no _smtp_methods table of its commands" in problems


def test_a_library_that_looks_commands_up_elsewhere_is_named(monkeypatch):
    async def handle_client(self):  # a _handle_client that never reads _smtp_methods
        return None

    monkeypatch.setattr(SMTP, "_handle_client", handle_client)
    assert server.contract_problems() == ["SMTP._handle_client no longer looks its commands up in _smtp_methods"]
