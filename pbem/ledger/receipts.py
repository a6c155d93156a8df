"""A move's receipt: everything needed to prove, offline and without the server, that one entry
is in a game's signed log.

A receipt holds the public entry (exactly the bytes that were hashed into the log), its index,
the inclusion proof of its leaf (RFC 9162 2.1.3), the signed checkpoint the proof leads to and
the server's verifier keys. Optionally it holds ``opened``: the openings of the entry's secret
parts that its holder may see (their own hidden cards, their own secret command), so that the
holder can check that what they were shown is what the log commits to. For a private message
(a ``said`` entry, ``pbem.ledger.press``) ``opened`` holds its text and salt, given only to its
sender and recipients: the receipt then proves what was said, by whom, to whom and when.

``check_receipt`` recomputes the leaf from the entry, so a receipt proves the move itself, not
only a hash the server chose.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from pbem.games.base import SECRET, can_see
from pbem.ledger import press
from pbem.ledger.canonical import NotCanonical, canonical_bytes
from pbem.ledger.commitments import commit
from pbem.ledger.merkle import ProofError, leaf_hash, verify_inclusion
from pbem.ledger.notes import Checkpoint, NoteError, VerifierKey, verify_checkpoint

RECEIPT_FORMAT = "pbem-receipt/1"


class ReceiptError(ValueError):
    """A receipt that does not prove what it claims; the message names the failing part."""


@dataclass(frozen=True)
class CheckedReceipt:
    entry: dict[str, Any]
    index: int
    checkpoint: Checkpoint
    note: str
    opened: int  # how many secret parts the holder's openings matched
    text: str | None = None  # a message's text, when the entry or the holder's opening shows it

    def summary(self) -> str:
        entry = self.entry
        who = f", seat {entry['seat']}" if "seat" in entry else ""
        what = f": {entry['command']!r}" if entry.get("kind") == "moved" else ""
        said = f"{self.text!r}" if self.text is not None else "closed"
        if entry.get("kind") == press.SAID:
            to = "the whole table" if entry.get("to") == press.TABLE else f"seats {entry.get('to')}"
            what = f" to {to}: {said if self.text is not None else 'a closed message'}"
        elif entry.get("kind") == press.NOTED:
            what = f", {'sealed' if entry.get('sealed') else 'private'} note: {said}"
        opened = f"; {self.opened} opened secret part(s) match their commitments" if self.opened else ""
        return (
            f"entry {self.index} ({entry.get('kind')}{who}{what}, {entry.get('time')}) is in "
            f"{self.checkpoint.origin} at size {self.checkpoint.size}, signed{opened}"
        )


def opened_for(entry: dict[str, Any], private: dict[str, Any], viewer: int | None, everything: bool) -> dict[str, Any]:
    """The openings of ``entry`` that ``viewer`` may see (all of them once the game ended)."""
    facts = entry.get("facts") or []
    fulls, salts = private.get("facts") or [], private.get("salts") or []
    shown_facts: list[Any] = []
    shown_salts: list[Any] = []
    for fact, full, salt in zip(facts, fulls, salts, strict=False):
        visible = SECRET in fact and (everything or can_see(fact, viewer))
        shown_facts.append(full[SECRET]["data"] if visible else None)
        shown_salts.append(salt if visible else None)
    opened: dict[str, Any] = {}
    if any(salt is not None for salt in shown_salts):
        opened["facts"], opened["salts"] = shown_facts, shown_salts
    if "command_commitment" in entry and (everything or viewer == entry.get("seat")):
        opened["command"], opened["command_salt"] = private["command"], private["command_salt"]
    return opened | press.opening_for(entry, private, viewer, everything)


def make_receipt(
    origin: str,
    entry: dict[str, Any],
    path: list[bytes],
    size: int,
    note: str,
    keys: list[str],
    opened: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A receipt of its own: the entry and the openings are copied, so whoever holds the
    receipt (a mail being composed, a test) can change it without changing the log it came from."""
    receipt = {
        "format": RECEIPT_FORMAT,
        "origin": origin,
        "index": entry["index"],
        "size": size,
        "entry": copy.deepcopy(entry),
        "leaf_hash": leaf_hash(canonical_bytes(entry)).hex(),
        "path": [p.hex() for p in path],
        "checkpoint": note,
        "keys": list(keys),
    }
    if opened:
        receipt["opened"] = copy.deepcopy(opened)
    return receipt


def check_receipt(receipt: dict[str, Any], trusted: list[str] | None = None) -> CheckedReceipt:
    """Raise ``ReceiptError`` naming what failed. ``trusted`` are verifier keys (``pbem key``);
    without them the keys inside the receipt are used, which proves consistency but not who
    signed."""
    if not isinstance(receipt, dict):
        raise ReceiptError("a receipt is a JSON object")
    entry = receipt.get("entry")
    if not isinstance(entry, dict):
        raise ReceiptError(
            "the receipt does not hold its entry (it predates pbem-receipt/1), "
            "so it cannot prove which move is in the log"
        )
    try:
        keys = [VerifierKey.parse(k) for k in (trusted or receipt["keys"])]
        note = receipt["checkpoint"]
        checkpoint = verify_checkpoint(note, keys)
    except (NoteError, KeyError, TypeError, AttributeError) as error:
        raise ReceiptError(f"the checkpoint's signature does not verify: {error}") from error
    try:
        leaf = leaf_hash(canonical_bytes(entry))
    except NotCanonical as error:
        raise ReceiptError(f"the entry cannot be hashed: {error}") from error
    index = receipt.get("index")
    if entry.get("index") != index or not isinstance(index, int):
        raise ReceiptError(f"the entry says it is entry {entry.get('index')!r}, the receipt says {index!r}")
    if not checkpoint.origin.endswith(f"/game/{entry.get('game')}"):
        raise ReceiptError(f"the checkpoint is for {checkpoint.origin!r}, the entry for game {entry.get('game')!r}")
    if receipt.get("size", checkpoint.size) != checkpoint.size:
        raise ReceiptError(f"the checkpoint is for {checkpoint.size} entries, the proof for {receipt.get('size')}")
    if receipt.get("leaf_hash", leaf.hex()) != leaf.hex():
        raise ReceiptError("the entry does not hash to the receipt's leaf hash: the entry was changed")
    try:
        verify_inclusion(index, checkpoint.size, leaf, [bytes.fromhex(p) for p in receipt["path"]], checkpoint.root)
    except (ProofError, KeyError, TypeError, ValueError) as error:
        raise ReceiptError(f"the inclusion proof fails: {error}") from error
    count, text = _checked_openings(entry, receipt.get("opened") or {})
    return CheckedReceipt(entry, index, checkpoint, note, count, text)


def _checked_openings(entry: dict[str, Any], opened: dict[str, Any]) -> tuple[int, str | None]:
    """How many of the holder's openings match the entry, and a message's text."""
    count = _check_opened(entry, opened)
    if entry.get("kind") not in press.TALK_KINDS:
        return count, None
    return count + ("text" in opened), _check_said(entry, opened)


def _check_said(entry: dict[str, Any], opened: dict[str, Any]) -> str | None:
    """A message's text, in the entry (a table message) or in the holder's opening (a private
    one), must open the entry's commitment; returns the text (None: closed to the holder)."""
    if "text" in entry and not press.opens(entry.get("text_salt"), entry["text"], entry.get("text_commitment")):
        raise ReceiptError("the table message does not match the log's commitment")
    if "text" not in opened:
        return str(entry["text"]) if "text" in entry else None
    if not press.opens(opened.get("text_salt"), opened["text"], entry.get("text_commitment")):
        raise ReceiptError("the text you hold does not match the log's commitment")
    return str(opened["text"])


def _matches(salt: Any, value: Any, expected: object) -> bool:
    try:
        return commit(salt, value) == expected
    except (TypeError, ValueError, NotCanonical):
        return False


def _check_opened(entry: dict[str, Any], opened: dict[str, Any]) -> int:
    """Each opening the holder was given must match the entry's commitment."""
    count = 0
    facts = entry.get("facts") or []
    for number, (data, salt) in enumerate(zip(opened.get("facts") or [], opened.get("salts") or [], strict=False)):
        if salt is None:
            continue
        fact = facts[number] if number < len(facts) else {}
        expected = (fact.get(SECRET) or {}).get("commitment")
        if not _matches(salt, data, expected):
            raise ReceiptError(f"fact {number}: what you were shown does not match the log's commitment")
        count += 1
    if "command" in opened:
        if not _matches(opened.get("command_salt"), opened["command"], entry.get("command_commitment")):
            raise ReceiptError("your command does not match the log's commitment")
        count += 1
    return count
