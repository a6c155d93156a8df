"""Loading a game's rules data: the JSON tables shipped inside its package.

Read through ``importlib.resources``, so the tables are found the same way from a checkout,
an installed wheel or a zip; they are package data, never paths of the machine.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def load_table(package: str | None, name: str) -> Any:
    """The parsed JSON file ``name`` (a path relative to ``package``, e.g. ``data/rules.json``).
    ``package`` is the calling module's ``__package__``."""
    if not package:
        raise ValueError(f"{name}: rules data is read from a game's package, and there is none")
    resource = resources.files(package)
    for part in name.split("/"):
        resource = resource.joinpath(part)
    return json.loads(resource.read_text(encoding="utf-8"))
