"""The registry of games: every subpackage of ``pbem.games`` that exports ``SPEC``.

Discovery keeps games independent: adding a game is adding its folder, nothing else.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
from functools import cache

from pbem.games.base import AnySpec, ErrorCode, GameError, GameSpec
from pbem.games.speech import _

__all__ = ["AnySpec", "GameSpec", "catalog", "get_spec", "register"]

_extra: dict[str, AnySpec] = {}
_broken: dict[str, str] = {}
log = logging.getLogger(__name__)


@cache
def _discovered() -> dict[str, AnySpec]:
    # A game that fails to import is left out (and logged) rather than taking every other
    # game down with it; tests/test_registry.py fails the build when any game is broken.
    specs: dict[str, AnySpec] = {}
    for module in pkgutil.iter_modules(__path__):
        if not module.ispkg:
            continue
        try:
            package = importlib.import_module(f"{__name__}.{module.name}")
        except Exception as error:
            _broken[module.name] = f"{type(error).__name__}: {error}"
            log.error("game package %s does not import: %s", module.name, _broken[module.name])
            continue
        spec = getattr(package, "SPEC", None)
        if isinstance(spec, GameSpec):
            specs[spec.name] = spec
    return specs


def broken() -> dict[str, str]:
    """Game packages that failed to import, with the error."""
    _discovered()
    return dict(_broken)


def register(spec: AnySpec) -> None:
    """Add a game that does not live in this package (the tests' small game)."""
    _extra[spec.name] = spec


def catalog() -> dict[str, AnySpec]:
    """Every known game by name, sorted."""
    specs = {**_discovered(), **_extra}
    return dict(sorted(specs.items()))


def get_spec(name: str) -> AnySpec:
    # looked up where ``catalog`` would find it (a registered game before a discovered one of
    # the same name), without building the sorted catalog: every load of a game asks
    spec = _extra.get(name)
    if spec is None:
        spec = _discovered().get(name)
    if spec is None:
        known = ", ".join(catalog()) or "none"
        raise GameError(
            ErrorCode.UNKNOWN_GAME,
            _("There is no game called {name}; games are: {known}.", name=repr(name), known=known),
        )
    return spec
