"""Canonical bytes: the one encoding that is hashed and signed.

JSON with keys sorted, no insignificant white space, UTF-8 (non-ASCII kept as is), and only
str, int, bool, None, list and dict. Floats are refused: their text form is not stable across
languages, and no fact needs one. Documented in docs/verification.md.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


class NotCanonical(ValueError):
    """A value that has no canonical encoding (a float, a tuple key, an object)."""


def _check(value: Any, where: str) -> None:
    if value is None or isinstance(value, (bool, str)):
        return
    if isinstance(value, int):
        return
    if isinstance(value, list):
        for index, item in enumerate(value):
            _check(item, f"{where}[{index}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise NotCanonical(f"{where}: key {key!r} is not a string")
            _check(item, f"{where}.{key}")
        return
    raise NotCanonical(f"{where}: {type(value).__name__} has no canonical encoding")


def _plain(value: Any) -> bool:
    """Whether ``value`` has a canonical encoding: what ``_check`` decides, without building
    the path of every nested value (needed only to word a refusal, which walks again)."""
    if value is None or isinstance(value, (str, int)):  # bool is an int
        return True
    if isinstance(value, list):
        for item in value:  # noqa: SIM110 - a loop: all() over a generator costs more here
            if not _plain(item):
                return False
        return True
    if isinstance(value, dict):
        for key, item in value.items():  # noqa: SIM110 - as above
            if not isinstance(key, str) or not _plain(item):
                return False
        return True
    return False


def check_canonical(value: Any) -> None:
    """Raise NotCanonical unless ``value`` has a canonical encoding."""
    if not _plain(value):
        _check(value, "$")
        raise AssertionError("_plain and _check disagree")  # unreachable: they decide alike


def encode_checked(value: Any) -> bytes:
    """The canonical bytes of a value already known to be plain (checked once, or decoded
    from JSON with floats refused): walking every nested value again would cost more than
    the encoding itself (the verifier encodes each entry after checking the whole file)."""
    return _ENCODER.encode(value).encode("utf-8")


# What ``json.dumps`` with these arguments makes anew on every call.
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_bytes(value: Any) -> bytes:
    check_canonical(value)
    return encode_checked(value)


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()
