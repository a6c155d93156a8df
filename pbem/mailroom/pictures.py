"""The board picture of a mail, as the queue keeps it: which mails carry one, and the picture's
SVG packed into the mail's model.

A mail that hands a player the turn (the mail shows their decision) or tells them the game is
over carries the board as that player sees it: the SVG the game draws from the seat's view,
the same view the web's seat page shows, so hidden information stays hidden. The SVG is drawn
when the mail is queued (in the player's language, like the text board beside it) and kept in
the model compressed; the gateway's composer turns it into a PNG when it sends the mail
(``mailgateway/picture.py``), so a picture that cannot be drawn makes a dead letter that can be
sent again, never a lost mail. A player who sent ``pictures off`` gets none.
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

MAX_SVG_BYTES = 2_000_000  # a board's SVG is 2 to 100 KB; more is not a board


def carries_picture(block: Mapping[str, Any]) -> bool:
    """A mail about this game block shows the board as a picture: it is a player's, and it
    hands them the turn or the game is over."""
    return block.get("seat") is not None and bool(block.get("decision") or block.get("over"))


def board_svg(spec: Any, view: Mapping[str, Any] | None, names: Sequence[str]) -> str | None:
    """The board for a mail: the game's picture for mail (its picture for narrow screens less
    the words the mail's text says), else its picture; None when the game draws none (or
    nothing is to be seen yet)."""
    if view is None:
        return None
    picture: str | None = spec.render_mail_svg(view, names) or spec.render_svg(view, names)
    return picture


def packed(svg: str) -> str:
    """The SVG as the model keeps it: compressed (a Kingdom Builder map is 100 KB of text and
    compresses tenfold), in base64 so the model stays JSON text."""
    return base64.b64encode(zlib.compress(svg.encode("utf-8"), 6)).decode("ascii")


def unpacked(data: str) -> str:
    """The SVG of ``packed``; ValueError for anything else, or for more than ``MAX_SVG_BYTES``."""
    try:
        raw = base64.b64decode(data.encode("ascii"), validate=True)
        inflater = zlib.decompressobj()
        svg = inflater.decompress(raw, MAX_SVG_BYTES + 1)
    except (UnicodeEncodeError, ValueError, zlib.error) as error:
        raise ValueError(f"not a packed picture: {error}") from error
    if len(svg) > MAX_SVG_BYTES or inflater.unconsumed_tail:
        raise ValueError(f"the picture is larger than {MAX_SVG_BYTES} bytes")
    return svg.decode("utf-8")
