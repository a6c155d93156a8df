"""A witness: it remembers the newest checkpoint it saw of each log, accepts a new one only
when an RFC 9162 consistency proof shows the old tree is a prefix of the new, and then co-signs
it. Two trees of one size, or a proof that fails, are a split view: the two signed checkpoints
are the evidence. Pure functions; the command line (``pbem witness``) does the fetching.

Cosignatures follow C2SP tlog-cosignature (``cosignature/v1``): the witness signs
``"cosignature/v1\\ntime <seconds>\\n" + checkpoint text`` with Ed25519, and adds to the note the
line ``— <witness name> base64(key id || time as 8 bytes big-endian || signature)``, with key
id ``SHA-256(name || 0x0A || 0x04 || public key)[:4]``. Its verifier key is written
``<name>+<key id hex>+base64(0x04 || public key)``.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from pbem.ledger.canonical import sha256
from pbem.ledger.merkle import ProofError, verify_consistency
from pbem.ledger.notes import (
    SIGNATURE_PREFIX,
    Checkpoint,
    NoteError,
    SignerKey,
    VerifierKey,
    b64decode_strict,
    open_note,
    split_key,
)

ALGORITHM_COSIGNATURE = b"\x04"
COSIGNATURE_LABEL = "cosignature/v1"

ConsistencyFetcher = Callable[[str, int, int], list[bytes]]  # (origin, old, new) -> proof


@dataclass(frozen=True)
class WitnessKey:
    """The public half of a witness's key, in the cosignature key format."""

    name: str
    public: bytes

    @property
    def id(self) -> bytes:
        return sha256(self.name.encode() + b"\n" + ALGORITHM_COSIGNATURE + self.public)[:4]

    def __str__(self) -> str:
        return f"{self.name}+{self.id.hex()}+{base64.b64encode(ALGORITHM_COSIGNATURE + self.public).decode()}"

    @classmethod
    def parse(cls, text: str) -> WitnessKey:
        name, hex_id, public = split_key(text, ALGORITHM_COSIGNATURE, "witness key", "a cosignature/v1 key")
        key = cls(name, public)
        if key.id.hex() != hex_id:
            raise NoteError(f"witness key {name!r} has a wrong key id {hex_id}")
        return key

    @classmethod
    def of(cls, signer: SignerKey) -> WitnessKey:
        return cls(signer.name, signer.verifier.public)


def _signed_message(text: str, timestamp: int) -> bytes:
    return f"{COSIGNATURE_LABEL}\ntime {timestamp}\n{text}".encode()


def cosign(note: str, signer: SignerKey, timestamp: int) -> str:
    """``note`` with the witness's cosignature line added."""
    text, _, _ = note.rpartition("\n\n")
    text += "\n"
    key = WitnessKey.of(signer)
    signature = signer.private.sign(_signed_message(text, timestamp))
    blob = base64.b64encode(key.id + timestamp.to_bytes(8, "big") + signature).decode()
    return f"{note}{SIGNATURE_PREFIX}{signer.name} {blob}\n"


def cosignature_time(note: str, witness: WitnessKey) -> int | None:
    """The time at which ``witness`` cosigned ``note``, or None when it did not (validly)."""
    text, sep, lines = note.rpartition("\n\n")
    if not sep:
        return None
    message_text = text + "\n"
    for line in lines.splitlines():
        if not line.startswith(f"{SIGNATURE_PREFIX}{witness.name} "):
            continue
        try:
            raw = b64decode_strict(line.rpartition(" ")[2])
        except binascii.Error:
            continue
        if len(raw) != 4 + 8 + 64 or raw[:4] != witness.id:
            continue
        timestamp = int.from_bytes(raw[4:12], "big")
        try:
            key = Ed25519PublicKey.from_public_bytes(witness.public)
            key.verify(raw[12:], _signed_message(message_text, timestamp))
        except InvalidSignature:
            continue
        return timestamp
    return None


def note_text(note: str) -> str:
    return note.rpartition("\n\n")[0] + "\n"


def with_cosignatures(note: str, cosigned: Sequence[str]) -> str:
    """The server's note with the cosignature lines of every cosigned copy of the same text."""
    extra = []
    for other in cosigned:
        if note_text(other) == note_text(note):
            extra += [
                line + "\n"
                for line in other.rpartition("\n\n")[2].splitlines()
                if (line + "\n") not in note and (line + "\n") not in extra
            ]
    return note + "".join(extra)


@dataclass(frozen=True)
class Seen:
    note: str
    checkpoint: Checkpoint


@dataclass
class Observation:
    origin: str
    status: str  # "new" (first seen), "grew", "same", "stale", "split view"
    seen: Seen | None = None  # what the witness now holds for this log
    evidence: list[str] = field(default_factory=list)  # the two conflicting signed notes
    proof: list[str] = field(default_factory=list)  # hex, when a consistency proof failed
    explanation: str = ""

    @property
    def alarm(self) -> bool:
        return self.status == "split view"

    def report(self) -> str:
        if not self.alarm:
            size = self.seen.checkpoint.size if self.seen else "?"
            return f"{self.status}: {self.origin} at size {size}"
        proof = "".join(f"  {p}\n" for p in self.proof)
        notes = "".join(f"--- signed checkpoint {n + 1}:\n{note}" for n, note in enumerate(self.evidence))
        return f"SPLIT VIEW: {self.origin}: {self.explanation}\n{notes}" + (
            f"--- consistency proof served for them, which fails:\n{proof}" if proof else ""
        )


def observe(held: Seen | None, note: str, keys: Sequence[VerifierKey], consistency: ConsistencyFetcher) -> Observation:
    """What a newly fetched signed checkpoint means, given the one the witness holds."""
    text, _ = open_note(note, keys)  # raises NoteError: not signed by the log's key
    new = Seen(note, Checkpoint.parse(text))
    origin = new.checkpoint.origin
    if held is None:
        return Observation(origin, "new", new)
    old = held.checkpoint
    size = new.checkpoint.size
    if size == old.size:
        if new.checkpoint.root == old.root:
            return Observation(origin, "same", held)
        return Observation(
            origin, "split view", held, [held.note, note], explanation=f"two different trees of size {size} were signed"
        )
    small, large = (new, held) if size < old.size else (held, new)
    try:
        proof = consistency(origin, small.checkpoint.size, large.checkpoint.size)
    except (OSError, ValueError, KeyError) as error:
        # No proof: the witness keeps what it had and neither co-signs nor accuses.
        return Observation(origin, "stale", held, explanation=f"no consistency proof ({error})")
    try:
        verify_consistency(
            small.checkpoint.size, large.checkpoint.size, small.checkpoint.root, large.checkpoint.root, proof
        )
    except ProofError:
        return Observation(
            origin,
            "split view",
            held,
            [small.note, large.note],
            [p.hex() for p in proof],
            f"the tree of size {small.checkpoint.size} is not a prefix of the tree of size {large.checkpoint.size}",
        )
    return Observation(origin, "grew", new) if size > old.size else Observation(origin, "stale", held)


def state_to_json(state: dict[str, Seen]) -> dict[str, Any]:
    return {origin: {"note": seen.note} for origin, seen in sorted(state.items())}


def state_from_json(document: dict[str, Any], keys_by_origin: dict[str, list[VerifierKey]]) -> dict[str, Seen]:
    state = {}
    for origin, item in document.items():
        text, _ = open_note(item["note"], keys_by_origin.get(origin, []))
        state[origin] = Seen(item["note"], Checkpoint.parse(text))
    return state
