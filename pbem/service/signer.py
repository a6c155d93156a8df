"""The server's signature on what it stores: the checkpoint signed after each save of a game,
and the seal on each game state it keeps (``pbem.service.states``). Both use the keys in
``keys/`` (never the database), so a store changed behind the server's back is found out."""

from __future__ import annotations

import logging
from typing import Any

from pbem.ledger.merkle import Frontier
from pbem.ledger.notes import Checkpoint, sign_checkpoint
from pbem.service import states
from pbem.service.keys import KeyRing
from pbem.service.states import NotKept

alarms = logging.getLogger("pbem")


class CheckpointSigner:
    """Signs a game's checkpoints under the server's name (``origin``) and seals its kept states."""

    def __init__(self, name: str, keys: KeyRing):
        self.name = name  # the server's name (``PBEM_ORIGIN``)
        self.keys = keys

    def origin(self, game_id: str) -> str:
        """The name a game's checkpoints are signed under."""
        return f"{self.name}/game/{game_id}"

    def sign(self, game_id: str, frontier: Frontier) -> str:
        """The signed checkpoint of the game's log whose frontier is ``frontier``."""
        return sign_checkpoint(Checkpoint(self.origin(game_id), frontier.size, frontier.root()), self.keys.signer())

    def sealed_state(
        self, game_id: str, size: int, version: int, state: Any, frontier: Frontier
    ) -> dict[str, Any] | None:
        """A game's state after its first ``size`` entries (stored at aggregate ``version``;
        ``frontier``: the log's frontier at that size), sealed for keeping; None for no state,
        or one that has no stored form (the fold then starts further back: said so)."""
        if state is None:
            return None
        try:
            return states.kept(
                self.keys.state_key(), game_id, size, version, state, [node.hex() for _, node in frontier.stack]
            )
        except NotKept as error:
            alarms.warning("game %s: state at %d entries not kept (%s)", game_id, size, error)
            return None
