"""Downloads for checking a game without trusting this site: the export, the signed
checkpoints, inclusion and consistency proofs (RFC 9162), and the server's public keys."""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from flask import Blueprint, abort, current_app, make_response, request
from flask_babel import gettext as _

from pbem.ledger.verify import export_bytes
from pbem.service.game import LoadedGame
from pbem.service.witnesses import received_cosignatures
from pbem.web.helpers import game_or_404, int_arg, public_cache, service, size_or_404

bp = Blueprint("downloads", __name__)


def _json(document: Any, game: LoadedGame | None = None, filename: str | None = None, raw: bytes | None = None,
          immutable: bool = False, etag: str | None = None):
    body = raw if raw is not None else json.dumps(document, indent=2, ensure_ascii=False).encode() + b"\n"
    response = make_response(body)
    response.mimetype = "application/json"
    if filename:
        response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    if etag:
        response.set_etag(etag)
    return public_cache(response, game, immutable=immutable)


class ExportCache:
    """Export bytes and their ETag per (game, version): built once per version, since a
    version's export never changes. Bounded; the oldest built is dropped first."""

    def __init__(self, size: int = 16):
        self.size = size
        self._built: OrderedDict[tuple[str, int], tuple[bytes, str]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game: LoadedGame, build: Callable[[], bytes]) -> tuple[bytes, str]:
        key = (game.id, game.version)
        with self._lock:
            if key in self._built:
                self._built.move_to_end(key)
                return self._built[key]
        body = build()
        made = (body, hashlib.sha256(body).hexdigest()[:32])
        with self._lock:
            self._built[key] = made
            while len(self._built) > self.size:
                self._built.popitem(last=False)
        return made


def _exports() -> ExportCache:
    return current_app.extensions.setdefault("pbem.exports", ExportCache())


def _text(text: str, game: LoadedGame | None = None):
    response = make_response(text)
    response.mimetype = "text/plain"
    return public_cache(response, game)


@bp.get("/games/<game_id>/export.json")
def export(game_id: str):
    """Exactly the bytes of ``pbem export`` (the verifier checks they are canonical)."""
    game = game_or_404(game_id)
    body, etag = _exports().get(game, lambda: export_bytes(service().export(game.id)))
    return _json(None, game, f"{game.id}.json", body, immutable=game.ended, etag=etag)


@bp.get("/games/<game_id>/checkpoints.json")
def checkpoints(game_id: str):
    game = game_or_404(game_id)
    document = {"game": game.id, "origin": service().origin(game.id),
                "checkpoints": [{"size": size, "note": note} for size, note in game.checkpoints]}
    return _json(document, game, immutable=game.ended)


@bp.get("/games/<game_id>/checkpoint.txt")
@bp.get("/games/<game_id>/checkpoint")
def checkpoint(game_id: str):
    """The latest signed checkpoint as a C2SP signed note (``/checkpoint`` is the tlog
    convention witnesses fetch; ``.txt`` is the same note for browsers)."""
    game = game_or_404(game_id)
    return _text(received_cosignatures(service().settings.home, game.id, game.checkpoint_at()), game)


def _note_at(game: LoadedGame, size: int) -> str | None:
    return next((note for at, note in game.checkpoints if at == size), None)


@bp.get("/games/<game_id>/proofs/inclusion/<int:index>.json")
def inclusion(game_id: str, index: int):
    """Entry ``index`` is in the tree of the first ``size`` entries (default: all)."""
    game = game_or_404(game_id)
    size = int_arg("size", game.version)
    if not 0 <= index < game.version:
        abort(404)
    size_or_404(game, size)
    if index >= size:
        abort(400, description=_("entry %(index)s is not among the first %(size)s entries", index=index, size=size))
    fixed = game.ended or request.args.get("size") is not None  # the tree of a given size never changes
    return _json(service().inclusion(game.id, index, size), game, immutable=fixed)


@bp.get("/games/<game_id>/proofs/consistency/<int:old>/<int:new>.json")
def consistency(game_id: str, old: int, new: int):
    """The tree of the first ``old`` entries is a prefix of the tree of the first ``new``."""
    game = game_or_404(game_id)
    size_or_404(game, old)
    size_or_404(game, new)
    if old > new:
        abort(400, description=_("the old size must not be larger than the new size"))
    proof = service().consistency(game.id, old, new)
    proof["old_checkpoint"] = _note_at(game, old)
    proof["new_checkpoint"] = _note_at(game, new)
    return _json(proof, game, immutable=True)  # both trees are prefixes of an append-only log


@bp.get("/keys.txt")
def keys_text():
    """Every verifier key of this server, one per line (old ones too)."""
    return _text("".join(f"{key}\n" for key in service().keys.verifiers()))


@bp.get("/keys.json")
def keys_json():
    keys = service().keys
    return _json({"current": str(keys.signer().verifier), "keys": [str(key) for key in keys.verifiers()],
                  "revoked": [r.to_dict() for r in keys.revocations()]})


@bp.get("/keys/revoked.txt")
def keys_revoked():
    """Revoked keys, one ``<verifier key> <since>`` per line (``pbem verify --revoked``)."""
    return _text("".join(f"{revocation}\n" for revocation in service().keys.revocations()))
