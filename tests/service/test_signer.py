"""The checkpoint signer: what it signs verifies under the server's keys and names the game."""

from __future__ import annotations

from pbem.ledger.merkle import Frontier
from pbem.ledger.notes import verify_checkpoint
from pbem.service import states
from pbem.service.keys import KeyRing
from pbem.service.signer import CheckpointSigner


def test_a_signed_checkpoint_verifies_and_names_its_game(tmp_path):
    keys = KeyRing(tmp_path, "pbem.test")
    keys.load()
    signer = CheckpointSigner("pbem.test", keys)
    frontier = Frontier.of([b"\x01" * 32, b"\x02" * 32])
    signed = verify_checkpoint(signer.sign("pig-1", frontier), keys.verifiers())
    assert (signed.origin, signed.size, signed.root) == ("pbem.test/game/pig-1", 2, frontier.root())


def test_a_sealed_state_unseals_only_for_its_game_and_size(tmp_path):
    keys = KeyRing(tmp_path, "pbem.test")
    keys.load()
    signer = CheckpointSigner("pbem.test", keys)
    kept = signer.sealed_state("pig-1", 32, 3, {"score": (1, 2)}, Frontier.of([b"\x01" * 32]))
    assert kept is not None
    assert states.unsealed(keys.state_key(), "pig-1", 32, kept) is not None
    assert states.unsealed(keys.state_key(), "pig-2", 32, kept) is None
    assert signer.sealed_state("pig-1", 32, 3, None, Frontier()) is None
