"""Checking a move's receipt offline. The receipt format and its checks live in
``pbem.ledger.receipts``; this keeps the gateway's one-line-summary interface."""

from __future__ import annotations

from typing import Any

from pbem.ledger.receipts import ReceiptError
from pbem.ledger.receipts import check_receipt as _check

__all__ = ["ReceiptError", "check_receipt"]


def check_receipt(receipt: dict[str, Any], trusted: list[str] | None = None) -> str:
    """Raise ``ReceiptError`` naming what failed; return a one-line summary when valid."""
    return _check(receipt, trusted).summary()
