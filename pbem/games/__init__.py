"""The registry of games: every subpackage of ``pbem.games`` that exports ``SPEC``.

Discovery keeps games independent: adding a game is adding its folder, nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from pbem.games.base import ErrorCode, GameError, GameSpec

__all__ = ["catalog", "get_spec", "register", "GameSpec"]

_extra: dict[str, GameSpec] = {}


@cache
def _discovered() -> dict[str, GameSpec]:
    specs: dict[str, GameSpec] = {}
    for module in pkgutil.iter_modules(__path__):
        if not module.ispkg:
            continue
        package = importlib.import_module(f"{__name__}.{module.name}")
        spec = getattr(package, "SPEC", None)
        if isinstance(spec, GameSpec):
            specs[spec.name] = spec
    return specs


def register(spec: GameSpec) -> None:
    """Add a game that does not live in this package (the tests' small game)."""
    _extra[spec.name] = spec


def catalog() -> dict[str, GameSpec]:
    """Every known game by name, sorted."""
    specs = {**_discovered(), **_extra}
    return dict(sorted(specs.items()))


def get_spec(name: str) -> GameSpec:
    specs = catalog()
    if name not in specs:
        known = ", ".join(specs) or "none"
        raise GameError(ErrorCode.UNKNOWN_GAME, f"There is no game called {name!r}; games are: {known}.")
    return specs[name]
