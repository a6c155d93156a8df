"""Downloads for checking a game without trusting this site: the export, the signed
checkpoints, inclusion and consistency proofs (RFC 9162), and the server's public keys."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, abort, make_response, request
from flask_babel import gettext as _

from pbem.ledger.verify import export_bytes
from pbem.service.game import LoadedGame
from pbem.service.witnesses import received_cosignatures
from pbem.web.helpers import game_or_404, int_arg, public_cache, service, size_or_404
from pbem.web.pagecache import exports
from pbem.web.shortcut import keep

bp = Blueprint("downloads", __name__)


def _json(
    document: Any,
    game: LoadedGame | None = None,
    filename: str | None = None,
    raw: bytes | None = None,
    immutable: bool = False,
    etag: str | None = None,
) -> Response:
    body = raw if raw is not None else json.dumps(document, indent=2, ensure_ascii=False).encode() + b"\n"
    response = make_response(body)
    response.mimetype = "application/json"
    if filename:
        response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    if etag:
        response.set_etag(etag)
    return public_cache(response, game, immutable=immutable)


def _text(text: str, game: LoadedGame | None = None) -> Response:
    response = make_response(text)
    response.mimetype = "text/plain"
    return public_cache(response, game)


@bp.get("/games/<game_id>/export.json")
def export(game_id: str) -> Response:
    """Exactly the bytes of ``pbem export`` (the verifier checks they are canonical)."""
    game = game_or_404(game_id)
    body, etag = exports().get((game.id, game.version), lambda: export_bytes(service().export(game.id)))
    keep()
    return _json(None, game, f"{game.id}.json", body, immutable=game.ended, etag=etag)


@bp.get("/games/<game_id>/checkpoints.json")
def checkpoints(game_id: str) -> Response:
    game = game_or_404(game_id)
    document = {
        "game": game.id,
        "origin": service().origin(game.id),
        "checkpoints": [{"size": size, "note": note} for size, note in game.checkpoints],
    }
    return _json(document, game, immutable=game.ended)


@bp.get("/games/<game_id>/checkpoint.txt")
@bp.get("/games/<game_id>/checkpoint")
def checkpoint(game_id: str) -> Response:
    """The latest signed checkpoint as a C2SP signed note (``/checkpoint`` is the tlog
    convention witnesses fetch; ``.txt`` is the same note for browsers)."""
    game = game_or_404(game_id)
    return _text(received_cosignatures(service().settings.home, game.id, game.checkpoint_at()), game)


def _note_at(game: LoadedGame, size: int) -> str | None:
    return next((note for at, note in game.checkpoints if at == size), None)


@bp.get("/games/<game_id>/proofs/inclusion/<int:index>.json")
def inclusion(game_id: str, index: int) -> Response:
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
def consistency(game_id: str, old: int, new: int) -> Response:
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
def keys_text() -> Response:
    """Every verifier key of this server, one per line (old ones too)."""
    return _text("".join(f"{key}\n" for key in service().keys.verifiers()))


@bp.get("/keys.json")
def keys_json() -> Response:
    keys = service().keys
    return _json(
        {
            "current": str(keys.signer().verifier),
            "keys": [str(key) for key in keys.verifiers()],
            "revoked": [r.to_dict() for r in keys.revocations()],
        }
    )


@bp.get("/keys/revoked.txt")
def keys_revoked() -> Response:
    """Revoked keys, one ``<verifier key> <since>`` per line (``pbem verify --revoked``)."""
    return _text("".join(f"{revocation}\n" for revocation in service().keys.revocations()))
