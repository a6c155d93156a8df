"""The contract of the email package adapter (mailgateway/email_adapter.py) with the running
Python: the internal it touches (a message's list of headers) is there, and a package that keeps
its headers otherwise is noticed."""

from __future__ import annotations

from email.message import Message

from mailgateway import email_adapter


def test_the_running_python_keeps_the_header_list_the_index_checks():
    assert email_adapter.contract_problems() == []


def test_a_message_that_keeps_its_headers_elsewhere_is_named(monkeypatch):
    original = Message.__init__

    def elsewhere(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self._headers = ()  # no longer the list the parser appends to

    monkeypatch.setattr(Message, "__init__", elsewhere)
    monkeypatch.setattr(Message, "set_raw", lambda self, name, value: None)
    assert email_adapter.contract_problems() == [
        "email.message.Message keeps its headers no longer in the list _headers"
    ]


def test_a_message_whose_changes_miss_the_list_is_named(monkeypatch):
    monkeypatch.setattr(Message, "__setitem__", lambda self, name, value: None)
    assert email_adapter.contract_problems() == [
        "email.message.Message changes its headers no longer in the list _headers"
    ]


def test_a_read_message_names_its_headers_as_the_stdlib_lists_them():
    from email import message_from_bytes, policy

    raw = b"From: a@example.net\r\nTO: b@example.net\r\nX-Two: 2\r\nx-two: 3\r\n\r\nbody\r\n"
    msg = message_from_bytes(raw, email_adapter.ReadMessage, policy=policy.compat32)
    assert msg.names() == {name.lower() for name in msg} == {"from", "to", "x-two"}
    msg["List-Id"] = "<games.example.net>"  # a change after reading is seen too
    assert "list-id" in msg.names()
