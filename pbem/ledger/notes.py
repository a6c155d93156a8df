"""Ed25519 keys and signed notes in the C2SP signed-note format, and tlog checkpoints.

A note is its text (ending in a newline), a blank line, and one line per signature:
``— <key name> <base64(key id || signature)>``. For Ed25519 the key id is the first four
bytes of ``SHA-256(name || 0x0A || 0x01 || public key)``. A verifier key is written
``<name>+<key id hex>+<base64(0x01 || public key)>``. A checkpoint's text is
``<origin>\\n<tree size>\\n<base64 root hash>\\n``.
"""

from __future__ import annotations

import base64
import binascii
import functools
from collections.abc import Iterable
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from pbem.ledger.canonical import sha256

ALGORITHM_ED25519 = b"\x01"
SIGNATURE_PREFIX = "\u2014 "  # an em dash and a space


class NoteError(ValueError):
    """A note or key that is malformed or whose signature does not verify."""


def b64decode_strict(text: str) -> bytes:
    """Base64 that has exactly one spelling: unused padding bits must be zero, so that no
    two texts decode to the same bytes (a changed character is always a changed value)."""
    raw = base64.b64decode(text, validate=True)
    if base64.b64encode(raw).decode() != text:
        raise binascii.Error("non-canonical base64")
    return raw


def _check_name(name: str) -> None:
    if not name or any(c.isspace() or c == "+" for c in name):
        raise NoteError(f"key name {name!r} must be non-empty, without spaces or '+'")


def split_key(text: str, algorithm: bytes, what: str, kind: str) -> tuple[str, str, bytes]:
    """NAME+HEXID+BASE64(ALGORITHM || 32-byte public key) -> (name, hex id, public key); the
    one text form of C2SP note verifier keys and of witness keys."""
    try:
        name, hex_id, encoded = text.strip().split("+", 2)
        raw = b64decode_strict(encoded)
    except (ValueError, binascii.Error) as error:
        raise NoteError(f"not a {what}: {text.strip()!r}") from error
    if len(raw) != 33 or raw[:1] != algorithm:
        raise NoteError(f"{what} {name!r} is not {kind}")
    return name, hex_id, raw[1:]


def key_id(name: str, public: bytes) -> bytes:
    return sha256(name.encode() + b"\n" + ALGORITHM_ED25519 + public)[:4]


@functools.lru_cache(maxsize=64)
def _public_key(raw: bytes) -> Ed25519PublicKey:
    """Parsed once per key: a verifier checks hundreds of signatures by the same key."""
    return Ed25519PublicKey.from_public_bytes(raw)


@dataclass(frozen=True)
class VerifierKey:
    name: str
    public: bytes  # 32 raw bytes

    @functools.cached_property
    def id(self) -> bytes:  # cached: every note checked looks keys up by id
        return key_id(self.name, self.public)

    def __str__(self) -> str:
        encoded = base64.b64encode(ALGORITHM_ED25519 + self.public).decode()
        return f"{self.name}+{self.id.hex()}+{encoded}"

    @classmethod
    def parse(cls, text: str) -> VerifierKey:
        name, hex_id, public = split_key(text, ALGORITHM_ED25519, "verifier key", "an Ed25519 key")
        key = cls(name, public)
        if key.id.hex() != hex_id:
            raise NoteError(f"verifier key {name!r} has a wrong key id {hex_id}")
        _public_key(public)  # parsed (and kept) now: the first signature checked costs no more
        return key

    def verify(self, message: bytes, signature: bytes) -> bool:
        try:
            _public_key(self.public).verify(signature, message)
        except InvalidSignature:
            return False
        return True


@dataclass(frozen=True)
class SignerKey:
    name: str
    private: Ed25519PrivateKey

    @classmethod
    def generate(cls, name: str) -> SignerKey:
        _check_name(name)
        return cls(name, Ed25519PrivateKey.generate())

    @functools.cached_property
    def verifier(self) -> VerifierKey:  # cached: every signature names its key by id
        raw = self.private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return VerifierKey(self.name, raw)

    def to_pem(self) -> bytes:
        return self.private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )

    @classmethod
    def from_pem(cls, name: str, pem: bytes) -> SignerKey:
        private = serialization.load_pem_private_key(pem, password=None)
        if not isinstance(private, Ed25519PrivateKey):
            raise NoteError("the signing key file does not hold an Ed25519 key")
        return cls(name, private)


def sign_note(text: str, signer: SignerKey) -> str:
    if not text.endswith("\n") or "\n\n" in text:
        raise NoteError("note text must end in a newline and contain no blank line")
    signature = signer.private.sign(text.encode("utf-8"))
    blob = base64.b64encode(signer.verifier.id + signature).decode()
    return f"{text}\n{SIGNATURE_PREFIX}{signer.name} {blob}\n"


def open_note(note: str, keys: Iterable[VerifierKey]) -> tuple[str, list[VerifierKey]]:
    """The note's text and the known keys whose signatures on it verify. Raises NoteError
    when the note is malformed or no known key signed it."""
    text, sep, signatures = note.rpartition("\n\n")
    if not sep:
        raise NoteError("a note needs a blank line between its text and its signatures")
    text += "\n"
    known = {(k.name, k.id): k for k in keys}
    good: list[VerifierKey] = []
    for line in signatures.splitlines():
        if not line.startswith(SIGNATURE_PREFIX):
            raise NoteError(f"malformed signature line {line!r}")
        name, _, blob = line[len(SIGNATURE_PREFIX) :].rpartition(" ")
        try:
            raw = b64decode_strict(blob)
        except binascii.Error as error:
            raise NoteError(f"signature of {name!r} is not base64") from error
        key = known.get((name, raw[:4]))
        if key and key.verify(text.encode("utf-8"), raw[4:]):
            good.append(key)
    if not good:
        raise NoteError("no known key has a valid signature on this note")
    return text, good


@dataclass(frozen=True)
class Checkpoint:
    origin: str
    size: int
    root: bytes

    def text(self) -> str:
        return f"{self.origin}\n{self.size}\n{base64.b64encode(self.root).decode()}\n"

    @classmethod
    def parse(cls, text: str) -> Checkpoint:
        lines = text.split("\n")
        try:
            origin, size, encoded = lines[0], int(lines[1]), lines[2]
            digest = b64decode_strict(encoded)
        except (IndexError, ValueError, binascii.Error) as error:
            raise NoteError("malformed checkpoint text") from error
        if len(digest) != 32 or size < 0 or not origin:
            raise NoteError("malformed checkpoint text")
        return cls(origin, size, digest)


def sign_checkpoint(checkpoint: Checkpoint, signer: SignerKey) -> str:
    return sign_note(checkpoint.text(), signer)


def verify_checkpoint(note: str, keys: Iterable[VerifierKey]) -> Checkpoint:
    text, _ = open_note(note, keys)
    return Checkpoint.parse(text)


@dataclass(frozen=True)
class Revocation:
    """A verifier key that must not be trusted for anything signed at or after ``since`` (an
    ISO 8601 time): the moment its private key may have leaked."""

    key: VerifierKey
    since: str

    def to_dict(self) -> dict[str, str]:
        return {"key": str(self.key), "since": self.since}

    @classmethod
    def from_dict(cls, item: dict[str, str]) -> Revocation:
        return cls(VerifierKey.parse(item["key"]), item["since"])

    def __str__(self) -> str:
        return f"{self.key} {self.since}"

    @classmethod
    def parse(cls, line: str) -> Revocation:
        key, _, since = line.strip().partition(" ")
        if not since:
            raise NoteError(f"not a revocation (key and time): {line.strip()!r}")
        return cls(VerifierKey.parse(key), since.strip())
