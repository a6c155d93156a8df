"""Comparing what a player holds (receipts, signed checkpoints) with an export.

Each held checkpoint must describe a tree the export's log extends: for a held tree of ``m``
entries and an export of ``n >= m`` entries, the RFC 9162 consistency proof from ``m`` to the
export's next signed checkpoint (built from the export's leaves) must lead from the held root
to the export's signed root. When it cannot, the server signed two logs that cannot both be
true, and the two signed checkpoints are the evidence. The verdicts:

* ``truncated``: the export is shorter than a tree the holder saw signed, and nothing the
  holder kept contradicts its entries: signed entries were dropped.
* ``rolled back``: the export contradicts a held tree and is no longer than it: the log went
  back past what the holder saw and re-grew differently (the next move took the same index).
* ``forked``: the export contradicts a held tree and is longer than it, or two held
  checkpoints of the same size differ: two histories were signed and both extended.

Pure functions: the files are read by the command line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pbem.ledger.canonical import canonical_bytes
from pbem.ledger.merkle import ProofError, consistency_proof, leaf_hash, verify_consistency
from pbem.ledger.notes import Checkpoint, NoteError, VerifierKey, verify_checkpoint
from pbem.ledger.receipts import ReceiptError, check_receipt

TRUNCATED, ROLLED_BACK, FORKED = "truncated", "rolled back", "forked"


@dataclass(frozen=True)
class Held:
    """One signed checkpoint a player kept, with the entry its receipt proves (if any)."""

    source: str
    note: str
    checkpoint: Checkpoint
    entry: dict[str, Any] | None = None


@dataclass(frozen=True)
class Finding:
    verdict: str
    explanation: str
    held: Held
    other_note: str  # the conflicting signed checkpoint (the export's, or another held one)
    proof: list[str] = field(default_factory=list)  # the consistency proof that fails, hex

    def evidence(self) -> str:
        proof = "".join(f"  {p}\n" for p in self.proof)
        return (
            f"{self.verdict.upper()}: {self.explanation}\n"
            f"--- the checkpoint you hold ({self.held.source}):\n{self.held.note}"
            f"--- the conflicting signed checkpoint:\n{self.other_note}"
            + (f"--- consistency proof (RFC 9162) built from the export, which fails:\n{proof}" if proof else "")
        )


@dataclass
class HeldReading:
    held: list[Held] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # "source: reason"


def read_held(items: Sequence[tuple[str, Any]], keys: Sequence[VerifierKey]) -> HeldReading:
    """``items`` are (source, content): a receipt (dict), a checkpoints document (dict with
    ``checkpoints``) or a signed note (str). Only what a known key signed is kept."""
    reading = HeldReading()
    trusted = [str(key) for key in keys]
    for source, content in items:
        try:
            if isinstance(content, dict) and "entry" in content:
                checked = check_receipt(content, trusted)
                reading.held.append(Held(source, checked.note, checked.checkpoint, checked.entry))
            elif isinstance(content, dict) and isinstance(content.get("checkpoints"), list):
                for number, item in enumerate(content["checkpoints"]):
                    note = item["note"] if isinstance(item, dict) else item
                    reading.held.append(Held(f"{source} #{number}", note, verify_checkpoint(note, keys)))
            elif isinstance(content, str):
                reading.held.append(Held(source, content, verify_checkpoint(content, keys)))
            else:
                reading.refused.append(f"{source}: neither a receipt nor a signed checkpoint")
        except (ReceiptError, NoteError, KeyError, TypeError) as error:
            reading.refused.append(f"{source}: {error}")
    return reading


def _export_checkpoints(document: dict[str, Any], keys: Sequence[VerifierKey]) -> list[tuple[str, Checkpoint]]:
    return [(item["note"], verify_checkpoint(item["note"], keys)) for item in document["checkpoints"]]


def compare(document: dict[str, Any], held: Sequence[Held], keys: Sequence[VerifierKey]) -> list[Finding]:
    """What the held checkpoints say about a (verified) export: one finding per conflict."""
    origin = document["origin"]
    mine = [h for h in held if h.checkpoint.origin == origin]
    leaves = [leaf_hash(canonical_bytes(entry)) for entry in document["entries"]]
    signed = _export_checkpoints(document, keys)
    findings = _among_held(mine)
    for item in mine:
        finding = _against_export(item, leaves, signed)
        if finding:
            findings.append(finding)
    return findings


def _among_held(held: Sequence[Held]) -> list[Finding]:
    findings = []
    by_size: dict[int, Held] = {}
    for item in sorted(held, key=lambda h: h.checkpoint.size):
        first = by_size.setdefault(item.checkpoint.size, item)
        if first.checkpoint.root != item.checkpoint.root:
            findings.append(
                Finding(
                    FORKED,
                    f"two different trees of size {item.checkpoint.size} were signed (a split view)",
                    item,
                    first.note,
                )
            )
    return findings


def _against_export(item: Held, leaves: list[bytes], signed: list[tuple[str, Checkpoint]]) -> Finding | None:
    m, n = item.checkpoint.size, len(leaves)
    last_note, _ = signed[-1]
    if m > n:
        index = item.entry.get("index") if item.entry else None
        if isinstance(index, int) and index < n and leaf_hash(canonical_bytes(item.entry)) != leaves[index]:
            return Finding(
                ROLLED_BACK,
                f"your receipt proves entry {index} as the server signed it; the export "
                f"holds another entry {index} and stops at {n} of the {m} entries you saw signed",
                item,
                last_note,
            )
        return Finding(
            TRUNCATED,
            f"the export has {n} entries, but you hold a checkpoint the server signed over {m}",
            item,
            last_note,
        )
    note, target = next((note, cp) for note, cp in signed if cp.size >= m)
    proof = consistency_proof(m, leaves[: target.size])
    try:
        verify_consistency(m, target.size, item.checkpoint.root, target.root, proof)
    except ProofError:
        verdict = ROLLED_BACK if n <= m else FORKED
        what = (
            "the export's log went back and re-grew to the same size with other entries"
            if verdict == ROLLED_BACK
            else f"the export's log of {n} entries does not extend the tree of {m} you saw signed"
        )
        return Finding(verdict, what, item, note, [p.hex() for p in proof])
    return None
