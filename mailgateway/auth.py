"""DKIM: a signature aligned with the From domain (the DNS lookup is passed in; tests use an
offline one). Who may move is decided by ``pbem.mailroom.auth``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dkim


def dkim_aligned(raw: bytes, sender: str, dnsfunc: Callable[..., Any] | None = None) -> bool:
    """A valid DKIM signature whose d= domain is the From domain or a parent of it."""
    domain = sender.rpartition("@")[2].lower()
    try:
        checker = dkim.DKIM(raw)
        valid = checker.verify(dnsfunc=dnsfunc) if dnsfunc else checker.verify()
    except Exception:  # dkimpy raises many kinds of errors on malformed input; all mean "not valid"
        return False
    signed = (checker.domain or b"").decode("ascii", "replace").lower()
    return bool(valid) and bool(signed) and (domain == signed or domain.endswith("." + signed))
