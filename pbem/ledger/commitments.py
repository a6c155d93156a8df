"""Salted commitments to hidden data, and the public form of facts.

``commit(salt, value) = SHA-256(salt || canonical_bytes(value))``, hex. A fact's secret part
``{"to": seats, "data": ...}`` is published as ``{"to": seats, "commitment": ...}``; the salt
and data (the opening) are given to the seats in ``to`` and to everyone at the end.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from pbem.games.base import SECRET, Fact
from pbem.ledger.canonical import canonical_bytes


def new_salt() -> str:
    return secrets.token_hex(16)


def commit(salt: str, value: Any) -> str:
    return hashlib.sha256(bytes.fromhex(salt) + canonical_bytes(value)).hexdigest()


def public_fact(fact: Fact, salt: str | None) -> Fact:
    """The fact as the public sees it: its secret data replaced by a commitment."""
    if SECRET not in fact:
        return fact
    assert salt is not None, "a secret fact needs a salt"
    part = fact[SECRET]
    return {**fact, SECRET: {"to": part["to"], "commitment": commit(salt, part["data"])}}


def opened_fact(public: Fact, data: Any) -> Fact:
    """A public fact with its secret part opened (for a seat allowed to see it)."""
    if SECRET not in public:
        return public
    return {**public, SECRET: {"to": public[SECRET]["to"], "data": data}}
