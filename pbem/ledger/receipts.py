"""A move's receipt: everything needed to prove, offline and without the server, that one entry
is in a game's signed log.

A receipt holds the public entry (exactly the bytes that were hashed into the log), its index,
the inclusion proof of its leaf (RFC 9162 2.1.3), the signed checkpoint the proof leads to and
the server's verifier keys. Optionally it holds ``opened``: the openings of the entry's secret
parts that its holder may see (their own hidden cards, their own secret command), so that the
holder can check that what they were shown is what the log commits to. For a private message
(a ``said`` entry, ``pbem.ledger.press``) ``opened`` holds its text and salt, given only to its
sender and recipients: the receipt then proves what was said, by whom, to whom and when.

A receipt of a mail covers every entry the mail made (``pbem-receipt/2``): the first entry as
above, and in ``more`` each further entry with its own index, leaf hash, inclusion proof and
openings, all proved against the one signed checkpoint. A receipt of one entry keeps the
format ``pbem-receipt/1``.

``check_receipt`` recomputes each leaf from its entry, so a receipt proves the moves
themselves, not only hashes the server chose.
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
RECEIPT_FORMATS = (RECEIPT_FORMAT, "pbem-receipt/2")  # /2: more than one entry (``more``)
MAX_ENTRIES = 512  # entries one receipt may prove: a mail's commands are bounded far below


class ReceiptError(ValueError):
    """A receipt that does not prove what it claims; the message names the failing part."""


@dataclass(frozen=True)
class CheckedEntry:
    """One further entry a receipt proves (``more``)."""

    entry: dict[str, Any]
    index: int
    opened: int
    text: str | None = None

    def said(self) -> str:
        return _said(self.entry, self.index, self.text) + _openings(self.opened, " (", ")")


@dataclass(frozen=True)
class CheckedReceipt:
    entry: dict[str, Any]
    index: int
    checkpoint: Checkpoint
    note: str
    opened: int  # how many secret parts the holder's openings matched
    text: str | None = None  # a message's text, when the entry or the holder's opening shows it
    more: tuple[CheckedEntry, ...] = ()  # the receipt's further entries (a mail that made several)

    @property
    def indexes(self) -> list[int]:
        """Every entry's index the receipt proves, the first one first."""
        return [self.index] + [part.index for part in self.more]

    def summary(self) -> str:
        where = f"{self.checkpoint.origin} at size {self.checkpoint.size}, signed"
        first = _said(self.entry, self.index, self.text)
        if not self.more:
            return f"{first} is in {where}{_openings(self.opened, '; ', '')}"
        parts = [first + _openings(self.opened, " (", ")")] + [part.said() for part in self.more]
        return f"{len(parts)} entries are in {where}:\n" + "\n".join(f"  {part}" for part in parts)


def _openings(count: int, before: str, after: str) -> str:
    return f"{before}{count} opened secret part(s) match their commitments{after}" if count else ""


def _said(entry: dict[str, Any], index: int, text: str | None) -> str:
    """One proved entry in words: "entry 4 (moved, seat 0: 'roll', TIME)"."""
    who = f", seat {entry['seat']}" if "seat" in entry else ""
    what = f": {entry['command']!r}" if entry.get("kind") == "moved" else ""
    said = f"{text!r}" if text is not None else "closed"
    if entry.get("kind") == press.SAID:
        to = "the whole table" if entry.get("to") == press.TABLE else f"seats {entry.get('to')}"
        what = f" to {to}: {said if text is not None else 'a closed message'}"
    elif entry.get("kind") == press.NOTED:
        what = f", {'sealed' if entry.get('sealed') else 'private'} note: {said}"
    return f"entry {index} ({entry.get('kind')}{who}{what}, {entry.get('time')})"


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


@dataclass(frozen=True)
class Proved:
    """One entry a receipt proves: the entry as hashed, its inclusion proof, the openings."""

    entry: dict[str, Any]
    path: list[bytes]
    opened: dict[str, Any] | None = None

    def part(self) -> dict[str, Any]:
        """The receipt's fields of this entry (copied: the holder may change them)."""
        part = {
            "index": self.entry["index"],
            "entry": copy.deepcopy(self.entry),
            "leaf_hash": leaf_hash(canonical_bytes(self.entry)).hex(),
            "path": [p.hex() for p in self.path],
        }
        if self.opened:
            part["opened"] = copy.deepcopy(self.opened)
        return part


def make_receipt(
    origin: str,
    entry: dict[str, Any],
    path: list[bytes],
    size: int,
    note: str,
    keys: list[str],
    opened: dict[str, Any] | None = None,
    more: list[Proved] | None = None,
) -> dict[str, Any]:
    """A receipt of its own: the entry and the openings are copied, so whoever holds the
    receipt (a mail being composed, a test) can change it without changing the log it came from.
    ``more``: the further entries it proves, each against the same checkpoint."""
    receipt = {
        "format": RECEIPT_FORMATS[1] if more else RECEIPT_FORMAT,
        "origin": origin,
        "size": size,
        "checkpoint": note,
        "keys": list(keys),
    } | Proved(entry, path, opened).part()
    if more:
        receipt["more"] = [item.part() for item in more]
    return receipt


def check_receipt(receipt: dict[str, Any], trusted: list[str] | None = None) -> CheckedReceipt:
    """Raise ``ReceiptError`` naming what failed. ``trusted`` are verifier keys (``pbem key``);
    without them the keys inside the receipt are used, which proves consistency but not who
    signed."""
    if not isinstance(receipt, dict):
        raise ReceiptError("a receipt is a JSON object")
    if not isinstance(receipt.get("entry"), dict):
        raise ReceiptError(
            "the receipt does not hold its entry (it predates pbem-receipt/1), "
            "so it cannot prove which move is in the log"
        )
    if receipt.get("format", RECEIPT_FORMAT) not in RECEIPT_FORMATS:
        raise ReceiptError(f"unknown receipt format {str(receipt.get('format'))[:40]!r}")
    try:
        keys = [VerifierKey.parse(k) for k in (trusted or receipt["keys"])]
        note = receipt["checkpoint"]
        checkpoint = verify_checkpoint(note, keys)
    except (NoteError, KeyError, TypeError, AttributeError) as error:
        raise ReceiptError(f"the checkpoint's signature does not verify: {error}") from error
    if receipt.get("size", checkpoint.size) != checkpoint.size:
        raise ReceiptError(f"the checkpoint is for {checkpoint.size} entries, the proof for {receipt.get('size')}")
    first = _check_entry(receipt, checkpoint)
    more = receipt.get("more") or []
    if not isinstance(more, list) or len(more) >= MAX_ENTRIES:
        raise ReceiptError(f"'more' is a list of at most {MAX_ENTRIES - 1} entries")
    further = tuple(_check_entry(part, checkpoint, number) for number, part in enumerate(more, 1))
    return CheckedReceipt(first.entry, first.index, checkpoint, note, first.opened, first.text, further)


def _check_entry(part: Any, checkpoint: Checkpoint, number: int = 0) -> CheckedEntry:
    """One entry of a receipt against its checkpoint: its leaf, index, game, inclusion proof
    and openings. ``number`` counts the entries of ``more`` from 1, for the error message."""
    which = f"entry {number + 1} of the receipt: " if number else ""
    entry = part.get("entry") if isinstance(part, dict) else None
    if not isinstance(entry, dict):
        raise ReceiptError(f"{which}no entry")
    try:
        leaf = leaf_hash(canonical_bytes(entry))
    except NotCanonical as error:
        raise ReceiptError(f"{which}the entry cannot be hashed: {error}") from error
    index = part.get("index")
    if entry.get("index") != index or not isinstance(index, int):
        raise ReceiptError(f"{which}the entry says it is entry {entry.get('index')!r}, the receipt says {index!r}")
    if not checkpoint.origin.endswith(f"/game/{entry.get('game')}"):
        raise ReceiptError(
            f"{which}the checkpoint is for {checkpoint.origin!r}, the entry for game {entry.get('game')!r}"
        )
    if part.get("leaf_hash", leaf.hex()) != leaf.hex():
        raise ReceiptError(f"{which}the entry does not hash to the receipt's leaf hash: the entry was changed")
    try:
        verify_inclusion(index, checkpoint.size, leaf, [bytes.fromhex(p) for p in part["path"]], checkpoint.root)
    except (ProofError, KeyError, TypeError, ValueError) as error:
        raise ReceiptError(f"{which}the inclusion proof fails: {error}") from error
    count, text = _checked_openings(entry, part.get("opened") or {})
    return CheckedEntry(entry, index, count, text)


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
