"""Who may move: the seat's token in the address, bound to the seat's registered address,
and optionally a DKIM signature aligned with the From domain. Pure apart from the DNS
lookup, which is passed in (tests use an offline one)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import dkim


@dataclass(frozen=True)
class Verdict:
    ok: bool
    reason: str  # "ok", "no-token", "bad-token", "forged", "dkim"
    seat: int | None = None
    owner: str | None = None  # the registered address of the seat the token names


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


def authenticate(emails: list[str], token_seat: int | None, token_given: bool, sender: str,
                 dkim_ok: bool | None) -> Verdict:
    """``token_seat`` is the seat the address's token names (None if it names none);
    ``dkim_ok`` is None when DKIM is not required."""
    if not token_given:
        return Verdict(False, "no-token")
    if token_seat is None:
        return Verdict(False, "bad-token")
    owner = emails[token_seat]
    if sender != owner:
        return Verdict(False, "forged", token_seat, owner)
    if dkim_ok is False:
        return Verdict(False, "dkim", token_seat, owner)
    return Verdict(True, "ok", token_seat, owner)
