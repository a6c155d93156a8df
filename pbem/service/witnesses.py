"""Both sides of witnessing that touch files.

The witness keeps a small folder (``pbem witness --dir``): ``witness.pem`` (its own Ed25519
key, mode 0600), ``witness.pub`` (its cosignature verifier key), ``state.json`` (the newest
checkpoint it accepted per log, the log's keys, where it fetches from), ``cosigned/<game>.note``
(the checkpoints it co-signed, to publish) and ``alarms/`` (the evidence of each split view).

The site is read-only, so a witness never posts to it: the operator copies (rsync, cron) the
``witness.pub`` and ``cosigned/`` of each witness they accept into
``<PBEM_HOME>/witnesses/<name>/``, and the site adds the valid cosignatures of those witnesses to
the checkpoint it serves.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem.ledger.notes import NoteError, SignerKey, VerifierKey
from pbem.ledger.witness import Seen, WitnessKey, cosignature_time, state_from_json, state_to_json, with_cosignatures

# A file name the witness may write: the game id of a pbem origin ("SITE/game/ID") has this form.
SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,119}$")


def game_of(origin: str) -> str:
    """The file name of a log's files in the witness folder: the game id of a pbem origin when
    it is a plain name, else a hash of the whole origin. The origin is the first line of a
    note a site sends, and a hostile site puts "../" or "/" in it: no part of it that could
    name another folder is ever used as a path."""
    name = origin.rpartition("/game/")[2]
    if SAFE_NAME.match(name) and ".." not in name:
        return name
    return "origin-" + hashlib.sha256(origin.encode("utf-8", "replace")).hexdigest()[:32]


@dataclass
class WitnessFolder:
    folder: Path

    def signer(self, name: str) -> SignerKey:
        pem = self.folder / "witness.pem"
        if pem.exists():
            stored = (self.folder / "witness.name").read_text(encoding="utf-8").strip()
            return SignerKey.from_pem(stored, pem.read_bytes())
        signer = SignerKey.generate(name)
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(pem, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(signer.to_pem())
        (self.folder / "witness.name").write_text(name + "\n", encoding="utf-8")
        (self.folder / "witness.pub").write_text(f"{WitnessKey.of(signer)}\n", encoding="utf-8")
        return signer

    def _document(self) -> dict[str, Any]:
        path = self.folder / "state.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"logs": {}, "keys": {}, "urls": {}}

    def load(self) -> tuple[dict[str, Seen], dict[str, list[VerifierKey]], dict[str, str]]:
        document = self._document()
        keys = {origin: [VerifierKey.parse(k) for k in texts] for origin, texts in document["keys"].items()}
        return state_from_json(document["logs"], keys), keys, dict(document["urls"])

    def save(self, state: dict[str, Seen], keys: dict[str, list[VerifierKey]], urls: dict[str, str]) -> None:
        document = {
            "logs": state_to_json(state),
            "keys": {o: [str(k) for k in ks] for o, ks in sorted(keys.items())},
            "urls": dict(sorted(urls.items())),
        }
        temporary = self.folder / "state.json.tmp"
        temporary.write_text(json.dumps(document, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(temporary, self.folder / "state.json")

    def publish(self, origin: str, cosigned: str) -> Path:
        return self._write("cosigned", f"{game_of(origin)}.note", cosigned)

    def alarm(self, origin: str, report: str, stamp: int) -> Path:
        return self._write("alarms", f"{game_of(origin)}-{int(stamp)}.txt", report)

    def _write(self, part: str, name: str, text: str) -> Path:
        """Write ``text`` to ``DIR/part/name``, which must lie in that folder (checked again
        after the names are resolved, so not even a link placed there leads out)."""
        folder = self.folder / part
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        if path.resolve().parent != folder.resolve():
            raise ValueError(f"refused to write {name!r} outside {folder}")
        path.write_text(text, encoding="utf-8")
        return path


def published(folder: Path) -> list[str]:
    """The cosigned checkpoints a witness folder publishes."""
    return [path.read_text(encoding="utf-8") for path in sorted((folder / "cosigned").glob("*.note"))]


def received_cosignatures(home: Path, game_id: str, note: str) -> str:
    """``note`` with the valid cosignatures, over exactly its text, of the witnesses the
    operator placed in ``<home>/witnesses/``."""
    cosigned = []
    for folder in sorted((home / "witnesses").glob("*/")):
        try:
            witness = WitnessKey.parse((folder / "witness.pub").read_text(encoding="utf-8"))
            copy = (folder / "cosigned" / f"{game_id}.note").read_text(encoding="utf-8")
        except (OSError, NoteError):
            continue
        if cosignature_time(copy, witness) is not None:
            cosigned.append(copy)
    return with_cosignatures(note, cosigned)
