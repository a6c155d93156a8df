"""DKIM: a signature aligned with the From domain (the DNS lookup is passed in; tests use an
offline one). Who may move is decided by ``pbem.mailroom.auth``."""

from __future__ import annotations

import re
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
    aligned = bool(signed) and (domain == signed or domain.endswith("." + signed))
    return bool(valid) and aligned and _covers(raw, ("from", "message-id"))


def _covers(raw: bytes, names: tuple[str, ...]) -> bool:
    """Whether the first DKIM signature (the one dkimpy checks) signs these headers: a
    signature that leaves out Message-ID lets a replay with a new Message-ID pass as new mail."""
    head = raw.replace(b"\r\n", b"\n").split(b"\n\n", 1)[0].decode("ascii", "replace")
    unfolded = re.sub(r"\n[ \t]+", " ", head)
    for line in unfolded.split("\n"):
        name, _, value = line.partition(":")
        if name.strip().lower() == "dkim-signature":
            tags = dict(part.strip().partition("=")[::2] for part in value.split(";") if "=" in part)
            signed = {h.strip().lower() for h in tags.get("h", "").replace(" ", "").split(":")}
            return all(n in signed for n in names)
    return False
