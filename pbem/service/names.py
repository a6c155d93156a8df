"""People's names for seats: the name a player goes by (the display name of their mail's From,
"Jan Novák"), cleaned and bounded, or the local part of their address when none is known.

A name is public (every page, mail and export shows it), so it never holds an address, a
control character or more than ``MAX_NAME`` characters, and two seats of one game never share
one: the second "Jan" is "Jan (2)".
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pbem.games.speech import N_

MAX_NAME = 40  # characters of a name; a longer one is cut at a space
UNSAFE = frozenset('<>@"\\')  # what would make a name look like (or hide) an address


def clean_name(text: str | None) -> str | None:
    """``text`` as a name, or None when nothing of it is left: no control or format characters
    (no bidirectional tricks), none of ``<>@"\\``, spaces collapsed, at most ``MAX_NAME``
    characters, cut at a space (a single long word is cut)."""
    if not text:
        return None
    kept = "".join(
        " " if char.isspace() else char
        for char in text[: MAX_NAME * 4]
        if char not in UNSAFE and (char.isspace() or not unicodedata.category(char).startswith("C"))
    )
    name = " ".join(kept.split()).strip(" '.,;:-")
    if len(name) > MAX_NAME:
        cut = name.rfind(" ", 0, MAX_NAME + 1)
        name = name[: cut if cut > MAX_NAME // 2 else MAX_NAME].rstrip(" '.,;:-")
    return name or None


def seat_names(emails: Sequence[str], chosen: Sequence[str | None] = ()) -> list[str]:
    """Public names for seats: each player's chosen name (cleaned) where there is one, else the
    local part of their address; a name already taken in the game gets the seat's number."""
    names: list[str] = []
    for seat, email in enumerate(emails):
        given = clean_name(chosen[seat]) if seat < len(chosen) else None
        if given is None:
            local = email.split("@", 1)[0]
            taken = local.casefold() in {n.casefold() for n in names} or emails[:seat].count(email)
            names.append(f"{local}-{seat + 1}" if taken else local)
            continue
        taken_names = {n.casefold() for n in names}
        names.append(f"{given} ({seat + 1})" if given.casefold() in taken_names else given)
    return names


def renamed_line(first_names: Sequence[str], entry: Mapping[str, Any], gettext: Callable[[str], str]) -> str:
    """A ``named`` entry as every history says it (the page, the mail, the CLI): the seat's
    first name, so that a reader knows whom the new one names, then the new name. Everywhere
    else a seat is shown by its newest name, at any turn (``LoadedGame.names``)."""
    said = gettext(N_("%(player)s is now called %(name)s."))
    return said % {"player": first_names[entry["seat"]], "name": entry["name"]}
