"""Checking a move's receipt offline: the signed checkpoint, and the inclusion proof of the
move's entry in the game's Merkle log (RFC 9162)."""

from __future__ import annotations

from typing import Any

from pbem.ledger.merkle import verify_inclusion
from pbem.ledger.notes import VerifierKey, verify_checkpoint


class ReceiptError(Exception):
    pass


def check_receipt(receipt: dict[str, Any], trusted: list[str] | None = None) -> str:
    """Raise ``ReceiptError`` naming what failed; return a one-line summary when valid.
    ``trusted`` are verifier keys (``pbem key``); without them the keys in the receipt are
    used, which proves consistency but not who signed."""
    try:
        keys = [VerifierKey.parse(k) for k in (trusted or receipt["keys"])]
        checkpoint = verify_checkpoint(receipt["checkpoint"], keys)
    except Exception as error:  # the ledger raises its own error types; all mean "bad signature"
        raise ReceiptError(f"the checkpoint's signature does not verify: {error}") from error
    if checkpoint.size != receipt["size"]:
        raise ReceiptError(f"the checkpoint is for {checkpoint.size} entries, the proof for {receipt['size']}")
    if checkpoint.root.hex() != receipt["root"]:
        raise ReceiptError("the checkpoint's root hash differs from the receipt's root")
    try:
        verify_inclusion(receipt["index"], receipt["size"], bytes.fromhex(receipt["leaf_hash"]),
                         [bytes.fromhex(p) for p in receipt["path"]], checkpoint.root)
    except Exception as error:
        raise ReceiptError(f"the inclusion proof fails: {error}") from error
    return f"entry {receipt['index']} is in {checkpoint.origin} at size {checkpoint.size}, signed"
