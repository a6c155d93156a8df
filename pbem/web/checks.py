"""The one page that takes a body: ``POST /verify`` checks an uploaded receipt (``receipt.json``
from a reply mail, or ``pbem receipt``) against this server's published keys and says what it
proves. It reads the keys, and the receipt's game to number its turns as the mails do, and
writes nothing: the store stays as it was, as for every other page. The upload is bounded
(``RECEIPT_MAX_BYTES``), and whatever it holds gets an answer, never an error page."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, make_response, render_template, request
from flask_babel import gettext as _

from pbem.games.base import GameError
from pbem.ledger.receipts import ReceiptError, check_receipt
from pbem.web.helpers import private_cache, service

bp = Blueprint("checks", __name__)

RECEIPT_MAX_BYTES = 262_144  # a receipt is a few KiB; a long game's proof path stays far below this
FORM_OVERHEAD = 16_384  # the multipart envelope around the file


@dataclass(frozen=True)
class Checked:
    ok: bool
    sentence: str
    detail: str = ""


def _upload() -> bytes | None:
    """The uploaded file's bytes (at most one more than the limit), or None when none was sent."""
    try:
        upload = request.files.get("receipt")
        if upload is None or not upload.filename:
            return None
        return upload.stream.read(RECEIPT_MAX_BYTES + 1)
    finally:
        request.close()  # the parsed form's spooled files, now rather than when collected


def _turns(origin: str, indexes: list[int]) -> list[int]:
    """The turns of the entries ``indexes`` of the game of ``origin`` as the mails and pages
    number them (``LoadedGame.turn_of``: talk advances no turn); an entry's place in the log
    plus one for a game this server does not have (its checkpoint is signed by our key, so it
    was ours once)."""
    game_id = origin.rsplit("/game/", 1)[-1]
    try:
        game = service().game(game_id)
    except GameError:
        return [index + 1 for index in indexes]
    return [game.turn_of(index) if 0 <= index < game.version else index + 1 for index in indexes]


def check_upload(data: bytes | None, trusted: list[str]) -> Checked:
    """What the uploaded bytes prove, in one sentence of the reader's language."""
    if data is None:
        return Checked(False, _("Choose a receipt file (receipt.json) to check."))
    if len(data) > RECEIPT_MAX_BYTES:
        return Checked(
            False, _("This file is larger than any receipt (%(limit)s bytes at most).", limit=RECEIPT_MAX_BYTES)
        )
    try:
        receipt: Any = json.loads(data.decode("utf-8"))
        checked = check_receipt(receipt, trusted)
    except (ReceiptError, ValueError, RecursionError, TypeError, KeyError, AttributeError) as error:
        return Checked(False, _("This is not a valid receipt of this server."), str(error)[:500])
    turns = _turns(checked.checkpoint.origin, checked.indexes)
    if checked.more:
        sentence = _(
            "Valid: this receipt proves turns %(turns)s of game %(origin)s, "
            "in the log of %(size)s entries that this server signed.",
            turns=", ".join(str(turn) for turn in turns),
            origin=checked.checkpoint.origin,
            size=checked.checkpoint.size,
        )
    else:
        sentence = _(
            "Valid: this receipt proves turn %(turn)s of game %(origin)s, "
            "in the log of %(size)s entries that this server signed.",
            turn=turns[0],
            origin=checked.checkpoint.origin,
            size=checked.checkpoint.size,
        )
    return Checked(True, sentence, checked.summary())


@bp.post("/verify")
def check_uploaded_receipt() -> Response:
    request.max_content_length = RECEIPT_MAX_BYTES + FORM_OVERHEAD  # larger bodies get 413 unread
    trusted = [str(key) for key in service().keys.verifiers()]
    checked = check_upload(_upload(), trusted)
    return private_cache(make_response(render_template("web/verify.html", checked=checked)))
