"""What the games' SVG pictures share: escaping text taken from data or from players.

One escape for every picture: ``html.escape`` quotes ``&``, ``<``, ``>`` and both quote marks,
so the same call is safe in element text and inside attribute values.
"""

from __future__ import annotations

import html


def escape(text: object) -> str:
    """``text`` made safe to put into SVG (element text or a quoted attribute)."""
    return html.escape(str(text), quote=True)
