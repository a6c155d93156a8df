"""Kept game states: a game's state after every so many entries, stored so that the state at any
past turn folds only the entries since the nearest kept one (docs/architecture.md).

Game states are frozen dataclasses of plain values, tuples and frozensets (docs/game-contract.md),
so one generic encoding serves every game and the games stay as they are: each value becomes
JSON, with one-key objects naming what is not plain JSON (``{"t": [...]}`` a tuple, ``{"c":
"module:Class", "v": {...}}`` a dataclass, ...). Decoding creates only dataclasses of modules
that are already imported and belong to the games (or to the spec's own class), so a stored
state cannot name anything else.

A kept state is stored data like any other, so it is sealed: an HMAC, under a key the database
does not hold, over the game, the size, the aggregate version and the encoded state. A state that
does not unseal is not used (and the game is folded from an earlier one).
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import hashlib
import hmac
import json
import sys
import zlib
from collections.abc import Callable, Iterable
from typing import Any

from pbem.ledger.canonical import encode_checked

# module prefixes whose dataclasses a stored state may name, besides the spec class's own modules
GAME_MODULES = ("pbem.games.",)
MAX_STATE_BYTES = 16 * 1024 * 1024  # a stored state never unpacks to more than this


class NotKept(ValueError):
    """A state that cannot be encoded (a float, an object that is not a dataclass) or a stored
    one that cannot be decoded."""


def encode(value: Any) -> Any:
    """JSON-plain data for a game state (see the module's docstring)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, tuple):
        return {"t": [encode(item) for item in value]}
    if isinstance(value, list):
        return {"l": [encode(item) for item in value]}
    if isinstance(value, frozenset):
        return {"f": [encode(item) for item in value]}
    if isinstance(value, dict):
        return {"d": [[encode(key), encode(item)] for key, item in value.items()]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        kind = type(value)
        fields = {field.name: encode(getattr(value, field.name)) for field in dataclasses.fields(value)}
        return {"c": f"{kind.__module__}:{kind.__qualname__}", "v": fields}
    raise NotKept(f"a game state holds a {type(value).__name__}, which has no stored form")


# the collections ``encode`` writes as a tag and a list of their items
_SEQUENCES: tuple[tuple[str, Callable[[Iterable[Any]], Any]], ...] = (("t", tuple), ("l", list), ("f", frozenset))


def decode(data: Any, modules: tuple[str, ...] = ()) -> Any:
    """The state ``encode`` made. ``modules``: further modules whose dataclasses may appear (the
    modules of the spec's class and its bases, for games defined outside ``pbem.games``)."""
    if data is None or isinstance(data, (bool, int, str)):
        return data
    if not isinstance(data, dict) or len(data) not in (1, 2):
        raise NotKept(f"not a stored state value: {type(data).__name__}")
    for tag, sequence in _SEQUENCES:
        if tag in data:
            return sequence(decode(item, modules) for item in data[tag])
    if "d" in data:
        return {decode(key, modules): decode(item, modules) for key, item in data["d"]}
    if "c" in data and "v" in data:
        return _instance(data, modules)
    raise NotKept(f"not a stored state value: {sorted(data)}")


def _instance(data: dict[str, Any], modules: tuple[str, ...]) -> Any:
    kind = _dataclass(data["c"], modules)
    made: Any = object.__new__(kind)  # the values are set as they were, without running __init__
    for name, item in data["v"].items():
        object.__setattr__(made, name, decode(item, modules))
    return made


def _dataclass(name: Any, modules: tuple[str, ...]) -> type:
    """The dataclass a stored state names, if it is one a game state may hold."""
    module_name, _, qualname = str(name).partition(":")
    if not (module_name.startswith(GAME_MODULES) or module_name in modules):
        raise NotKept(f"a stored state names {name!r}, outside the games")
    found: Any = sys.modules.get(module_name)  # never imported on a stored name's say-so
    for part in qualname.split("."):
        found = getattr(found, part, None)
    if not (isinstance(found, type) and dataclasses.is_dataclass(found)):
        raise NotKept(f"a stored state names {name!r}, which is not a game's dataclass")
    return found


def spec_modules(spec: Any) -> tuple[str, ...]:
    """The modules of a spec's class and its bases (a test game's state lives beside its spec)."""
    return tuple(kind.__module__ for kind in type(spec).__mro__)


def pack(state: Any) -> str:
    """A game state as stored: its encoding as compact JSON, compressed (a Kingdom Builder state
    holds its whole map: 31 KB of JSON, 8 KB stored), in base64."""
    text = json.dumps(encode(state), separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return base64.b64encode(zlib.compress(text, 6)).decode("ascii")


def unpack(text: str, modules: tuple[str, ...] = ()) -> Any:
    """The state ``pack`` stored (bounded: a stored value is not trusted to be small)."""
    try:
        inflater = zlib.decompressobj()
        data = inflater.decompress(base64.b64decode(text, validate=True), MAX_STATE_BYTES)
        if inflater.unconsumed_tail or not inflater.eof:
            raise NotKept("a stored state is too large or cut short")
        return decode(json.loads(data), modules)
    except (binascii.Error, zlib.error, ValueError, RecursionError) as error:
        raise NotKept(f"a stored state does not decode ({error})") from error


def seal(key: bytes, game_id: str, size: int, version: int, body: dict[str, Any]) -> str:
    """The HMAC of a kept state: binds the encoded state (and its frontier) to its game and place."""
    message = encode_checked([game_id, size, version, body])
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def kept(key: bytes, game_id: str, size: int, version: int, state: Any, frontier: list[str]) -> dict[str, Any]:
    """What the store keeps for a state after ``size`` entries (aggregate ``version``)."""
    body = {"state": pack(state), "frontier": frontier}
    return {"version": version, **body, "seal": seal(key, game_id, size, version, body)}


def unsealed(key: bytes, game_id: str, size: int, stored: dict[str, Any]) -> dict[str, Any] | None:
    """The stored kept state if its seal is right (else None): version, state (still packed)
    and frontier."""
    try:
        version, body = int(stored["version"]), {"state": stored["state"], "frontier": stored["frontier"]}
        expected = seal(key, game_id, size, version, body)
        if not hmac.compare_digest(expected.encode(), str(stored["seal"]).encode()):
            return None
    except (KeyError, TypeError, ValueError):
        return None
    return {"version": version, **body}
