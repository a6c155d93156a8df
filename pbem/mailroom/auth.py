"""Who may move: the seat's token in the address, bound to the seat's registered address,
and, when required, a DKIM signature aligned with the From domain (checked by the gateway).
Pure."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Verdict:
    ok: bool
    reason: str  # "ok", "no-token", "bad-token", "forged", "dkim"
    seat: int | None = None
    owner: str | None = None  # the registered address of the seat the token names


def authenticate(
    emails: list[str], token_seat: int | None, token_given: bool, sender: str, dkim_ok: bool | None
) -> Verdict:
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
