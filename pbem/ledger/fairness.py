"""Fair randomness by commit and reveal.

At creation the server draws a secret seed and publishes only ``SHA-256(seed)``. Players may
add nonces when they join. Every draw of entry ``index`` comes from
``HMAC-SHA256(seed, canonical(["pbem-draw/1", scope, nonces, index, block]))``, read as
64-bit numbers and mapped to a range by rejection sampling (no modulo bias). Each draw is
recorded as ``[low, high, value]``; once the seed is revealed anyone can re-derive them. The
scope is the game id, or "test-seed" for a game created with a chosen seed (``draw_scope``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.base import RngBase
from pbem.ledger.canonical import canonical_bytes

DRAW_LABEL = "pbem-draw/1"
_SPACE = 1 << 64

Nonces = list[list[Any]]  # [[seat, nonce text], ...] in log order


def new_seed() -> bytes:
    return secrets.token_bytes(32)


def seed_commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


TEST_SEED_SCOPE = "test-seed"


def draw_scope(created: Mapping[str, Any]) -> str:
    """What a game's draws are bound to besides the seed, read from its ``created`` entry:
    its own id, so that no two games share draws even if a seed were reused, except for a
    seed given for tests and demos (``seed_source`` "test"), whose draws depend on the seed
    alone: the same seed, players and moves give the same game, whatever its random id."""
    return TEST_SEED_SCOPE if created.get("seed_source") == "test" else created["game"]


class DrawRng(RngBase):
    """The ``Rng`` a game gets from the service: derived, unbiased, and recorded."""

    def __init__(self, seed: bytes, game_id: str, nonces: Nonces, index: int):
        # game_id: the draw scope, see draw_scope (the game id, or "test-seed")
        self._key = seed
        self._context = [DRAW_LABEL, game_id, nonces, index]
        self._head: bytes | None = None  # the context's canonical bytes without the closing "]"
        self._block = 0
        self._pool: list[int] = []
        self.transcript: list[list[int]] = []

    def _message(self) -> bytes:
        """``canonical_bytes([*context, block])``: the context is encoded once, and each block
        adds its number (an int's canonical form is its decimal text) and the closing "]"."""
        if self._head is None:
            self._head = canonical_bytes(self._context)[:-1]
        return b"%s,%d]" % (self._head, self._block)

    def _next_word(self) -> int:
        if not self._pool:
            message = self._message()
            digest = hmac.new(self._key, message, hashlib.sha256).digest()
            self._pool = [int.from_bytes(digest[i : i + 8], "big") for i in range(0, 32, 8)]
            self._block += 1
        return self._pool.pop(0)

    def randint(self, low: int, high: int) -> int:
        if high < low:
            raise ValueError(f"empty range {low}..{high}")
        span = high - low + 1
        limit = _SPACE - _SPACE % span  # words at or above this would favour small values
        while True:
            word = self._next_word()
            if word < limit:
                value = low + word % span
                self.transcript.append([low, high, value])
                return value


def rederive(seed: bytes, game_id: str, nonces: Nonces, index: int, transcript: Sequence[Sequence[int]]) -> int | None:
    """Re-draw a recorded transcript; the position of the first draw that differs, or None."""
    rng = DrawRng(seed, game_id, nonces, index)
    for position, (low, high, value) in enumerate(transcript):
        if rng.randint(low, high) != value:
            return position
    return None
