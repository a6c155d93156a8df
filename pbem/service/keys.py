"""The server's signing key on disk: created on first use (mode 0600), rotated on demand.

``keys/signing.pem`` holds the current private key; ``keys/verifiers.txt`` lists every public
verifier key this server ever used, one per line, so old checkpoints stay verifiable;
``keys/revoked.txt`` lists revoked keys, each with the time from which it is not trusted.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import tempfile
from pathlib import Path

from pbem.ledger.entries import instant
from pbem.ledger.notes import Revocation, SignerKey, VerifierKey


def create_once(path: Path, content: bytes) -> bool:
    """Make ``path`` (mode 0600) holding ``content`` unless it exists; True when this call made
    it. Several processes starting at once on one home (gateways, the web) each try, and exactly
    one wins, so all of them read the same key: the content goes to a file of this call's own,
    which is linked into place, and a link fails where another process linked first (a rename
    would replace the other's key after that process had read it)."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temporary, path)
        except FileExistsError:
            return False
        return True
    finally:
        os.unlink(temporary)


class KeyRing:
    def __init__(self, home: Path, name: str):
        self.folder = home / "keys"
        self.name = name
        self._signer: SignerKey | None = None
        self._signed_with: tuple[int, int] | None = None
        self._token_secret: bytes | None = None
        self._verifiers: tuple[tuple[int, int, int], list[VerifierKey]] | None = None
        self._private_file = os.fspath(self._private_path)  # stat'ed at every signature: made once

    @property
    def _private_path(self) -> Path:
        return self.folder / "signing.pem"

    @property
    def _verifiers_path(self) -> Path:
        return self.folder / "verifiers.txt"

    def signer(self) -> SignerKey:
        # A key rotated or revoked by another process (``pbem key rotate``) is picked up at the
        # next signature: one stat of the key file, so a running server never signs with a
        # key the operator has replaced.
        stamp = self._stamp()
        if self._signer is None or stamp != self._signed_with:
            if stamp is not None:
                self._signer = SignerKey.from_pem(self.name, self._private_path.read_bytes())
            else:
                self._signer = self._create()
            self._signed_with = self._stamp()
        return self._signer

    def _stamp(self) -> tuple[int, int] | None:
        try:
            status = os.stat(self._private_file)
        except FileNotFoundError:
            return None
        return status.st_ino, status.st_mtime_ns

    def _create(self) -> SignerKey:
        signer = SignerKey.generate(self.name)
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not create_once(self._private_path, signer.to_pem()):  # another process made one first
            return SignerKey.from_pem(self.name, self._private_path.read_bytes())
        with self._verifiers_path.open("a", encoding="utf-8") as handle:
            handle.write(f"{signer.verifier}\n")
        return signer

    def rotate(self) -> SignerKey:
        """A new signing key; the old public key stays in the list of verifiers."""
        self.signer()
        self._private_path.unlink()
        self._signer = self._create()
        self._signed_with = self._stamp()
        return self._signer

    @property
    def _revoked_path(self) -> Path:
        return self.folder / "revoked.txt"

    def revoke(self, since: str, key: VerifierKey | None = None) -> Revocation:
        """Distrust ``key`` (default: the current one) for everything signed from ``since`` on.
        Revoking the current key first rotates, so the server keeps signing with a good key."""
        instant(since)  # refuse a time that is not ISO 8601 before writing anything
        current = self.signer().verifier
        key = key or current
        if key not in self.verifiers():
            raise ValueError(f"{key} is not a key of this server")
        if key == current:
            self.rotate()
        revocation = Revocation(key, since)
        with self._revoked_path.open("a", encoding="utf-8") as handle:
            handle.write(f"{revocation}\n")
        return revocation

    def revocations(self) -> list[Revocation]:
        if not self._revoked_path.exists():
            return []
        lines = self._revoked_path.read_text(encoding="utf-8").splitlines()
        return [Revocation.parse(line) for line in lines if line.strip()]

    def token_secret(self) -> bytes:
        """The secret behind seat tokens (private mail addresses and private web links)."""
        if self._token_secret is not None:  # it never changes once made: read it once
            return self._token_secret
        path = self.folder / "seat-tokens.key"
        if not path.exists():
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            create_once(path, secrets.token_bytes(32))
        self._token_secret = path.read_bytes()
        return self._token_secret

    def load(self) -> None:
        """Read the keys a server already has (a server reads them as it starts, so that its
        first request does not); a new server makes its key at the first signature."""
        if self._verifiers_path.exists():
            self.verifiers()
            self.token_secret()

    def state_key(self) -> bytes:
        """The key that seals kept game states (``pbem.service.states``): derived from the seat
        token secret, which lives beside the signing key and never in the database."""
        return hmac.new(self.token_secret(), b"pbem/kept-states", hashlib.sha256).digest()

    def verifiers(self) -> list[VerifierKey]:
        """Every public key of this server (and adopted ones); read again when the list changed."""
        try:
            status = self._verifiers_path.stat()
        except FileNotFoundError:  # a new server: its first key is made (a reader needs no private key)
            self.signer()
            status = self._verifiers_path.stat()
        stamp = (status.st_ino, status.st_mtime_ns, status.st_size)
        if self._verifiers is None or self._verifiers[0] != stamp:
            lines = self._verifiers_path.read_text(encoding="utf-8").split()
            self._verifiers = (stamp, [VerifierKey.parse(line) for line in lines])
        return list(self._verifiers[1])
