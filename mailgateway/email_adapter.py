"""The one place that touches the email package beyond its public API: ``ReadMessage``, the
parsed message that ``mailgateway.parse`` reads, keeps an index of its headers made once and
checks it against the stdlib's own list of headers (``Message._headers``, to which the parser
and every change append). ``contract_problems()`` checks that list against the running Python
(tests/mailgateway/test_email_contract.py), so a Python whose email package keeps its headers
otherwise fails there, not in a mail read wrongly."""

from __future__ import annotations

from email import message_from_bytes, policy
from email.message import Message
from typing import Any

MAX_KEPT_CHARSETS = 256
MAX_KEPT_CHARSET_TEXT = 256


class ReadMessage(Message):
    """A parsed message that is only read, never changed: its headers are looked up in an index
    made once, where the stdlib's ``get`` scans (and lower-cases) every header on each call,
    and reading one mail asks for headers about thirty times."""

    _headers: list[tuple[str, Any]]  # the stdlib's own list (a class annotation only, for mypy)
    _index: dict[str, list[Any]] | None = None
    _indexed = -1  # how many headers the index holds (the parser adds them before reading any)
    _content_type: tuple[tuple[int, str], str] | None = None  # (headers, default type), content type

    def _lookup(self, name: str) -> list[Any] | None:
        index = self._index
        if index is None or self._indexed != len(self._headers):  # the list itself: len(self) is a Python call
            index = self._reindex()
        return index.get(name.lower())

    def _reindex(self) -> dict[str, list[Any]]:
        index: dict[str, list[Any]] = {}
        for key, value in self.raw_items():
            index.setdefault(key.lower(), []).append(self.policy.header_fetch_parse(key, value))
        self._index, self._indexed = index, len(self._headers)
        return index

    def get(self, name: str, failobj: Any = None) -> Any:
        index = self._index  # _lookup written out: asked for about thirty times per mail
        if index is None or self._indexed != len(self._headers):
            index = self._reindex()
        values = index.get(name.lower())
        return values[0] if values else failobj

    def names(self) -> set[str]:
        """The names of its headers, lower case: the index's keys (``get(name)`` is None for others)."""
        index = self._index
        if index is None or self._indexed != len(self._headers):
            index = self._reindex()
        return set(index)

    def get_all(self, name: str, failobj: Any = None) -> Any:
        values = self._lookup(name)
        return list(values) if values else failobj

    def __contains__(self, name: str) -> bool:
        return self._lookup(name) is not None

    def get_content_type(self) -> str:
        """The stdlib's answer, worked out once (reading one mail asks for it about six times)."""
        key = (len(self._headers), self.get_default_type())
        if self._content_type is None or self._content_type[0] != key:
            self._content_type = (key, super().get_content_type())
        return self._content_type[1]

    def get_content_charset(self, failobj: Any = None) -> Any:
        """The stdlib's answer, which depends only on the text of the first Content-Type header:
        remembered per text, as most mail comes with one of a few (the stdlib parses its
        parameters on every call, a third of the cost of reading a short mail's headers)."""
        value = self.get("content-type")
        if type(value) is not str or len(value) > MAX_KEPT_CHARSET_TEXT:  # a Header object: not kept
            return super().get_content_charset(failobj)
        # one look-up, never "in" then "[]": conversations read mails side by side, and another
        # thread may clear the table in between
        charset = _CHARSETS.get(value, _UNKNOWN)
        if charset is _UNKNOWN:
            charset = super().get_content_charset(None)
            if len(_CHARSETS) >= MAX_KEPT_CHARSETS:
                _CHARSETS.clear()
            _CHARSETS[value] = charset
        return failobj if charset is None else charset


# The charsets of Content-Type header texts seen last (``ReadMessage.get_content_charset``).
_CHARSETS: dict[str, str | None] = {}
_UNKNOWN = "\0unknown"  # no charset's name


def contract_problems() -> list[str]:
    """What no longer holds of the email package's internal this module relies on (empty: all):
    a message keeps its headers in the list ``_headers``, one item per header, in order, and
    setting or deleting a header changes that list."""
    msg = message_from_bytes(b"Subject: one\r\nX-Two: two\r\n\r\nbody\r\n", Message, policy=policy.compat32)
    headers = getattr(msg, "_headers", None)
    if not isinstance(headers, list) or [key for key, _ in headers] != ["Subject", "X-Two"]:
        return ["email.message.Message keeps its headers no longer in the list _headers"]
    msg["X-Three"] = "three"
    del msg["Subject"]
    if [key for key, _ in getattr(msg, "_headers", ())] != ["X-Two", "X-Three"]:
        return ["email.message.Message changes its headers no longer in the list _headers"]
    return []
