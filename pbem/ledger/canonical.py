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


def check_canonical(value: Any) -> None:
    """Raise NotCanonical unless ``value`` has a canonical encoding."""
    _check(value, "$")


def encode_checked(value: Any) -> bytes:
    """The canonical bytes of a value already known to be plain (checked once, or decoded
    from JSON with floats refused): walking every nested value again would cost more than
    the encoding itself (the verifier encodes each entry after checking the whole file)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def canonical_bytes(value: Any) -> bytes:
    _check(value, "$")
    return encode_checked(value)


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()
