"""The server's signing key on disk: created on first use (mode 0600), rotated on demand.

``keys/signing.pem`` holds the current private key; ``keys/verifiers.txt`` lists every public
verifier key this server ever used, one per line, so old checkpoints stay verifiable.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from pbem.ledger.notes import SignerKey, VerifierKey


class KeyRing:
    def __init__(self, home: Path, name: str):
        self.folder = home / "keys"
        self.name = name
        self._signer: SignerKey | None = None

    @property
    def _private_path(self) -> Path:
        return self.folder / "signing.pem"

    @property
    def _verifiers_path(self) -> Path:
        return self.folder / "verifiers.txt"

    def signer(self) -> SignerKey:
        if self._signer is None:
            if self._private_path.exists():
                self._signer = SignerKey.from_pem(self.name, self._private_path.read_bytes())
            else:
                self._signer = self._create()
        return self._signer

    def _create(self) -> SignerKey:
        signer = SignerKey.generate(self.name)
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary = self._private_path.with_suffix(".tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(signer.to_pem())
        with self._verifiers_path.open("a", encoding="utf-8") as handle:
            handle.write(f"{signer.verifier}\n")
        os.replace(temporary, self._private_path)
        return signer

    def rotate(self) -> SignerKey:
        """A new signing key; the old public key stays in the list of verifiers."""
        self.signer()
        self._private_path.unlink()
        self._signer = self._create()
        return self._signer

    def token_secret(self) -> bytes:
        """The secret behind seat tokens (private mail addresses and private web links)."""
        path = self.folder / "seat-tokens.key"
        if not path.exists():
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            temporary = path.with_suffix(".tmp")
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as handle:
                handle.write(secrets.token_bytes(32))
            os.replace(temporary, path)
        return path.read_bytes()

    def verifiers(self) -> list[VerifierKey]:
        self.signer()
        lines = self._verifiers_path.read_text(encoding="utf-8").split()
        return [VerifierKey.parse(line) for line in lines]
