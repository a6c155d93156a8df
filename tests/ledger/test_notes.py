"""Ed25519 signed notes (C2SP) and checkpoints."""

import base64
import hashlib

import pytest

from pbem.ledger.notes import (
    Checkpoint,
    NoteError,
    SignerKey,
    VerifierKey,
    open_note,
    sign_checkpoint,
    sign_note,
    verify_checkpoint,
)


@pytest.fixture(scope="module")
def signer():
    return SignerKey.generate("pbem.test")


def test_verifier_key_text_round_trips(signer):
    text = str(signer.verifier)
    assert VerifierKey.parse(text) == signer.verifier
    name, key_id, encoded = text.split("+", 2)
    assert name == "pbem.test"
    raw = base64.b64decode(encoded)
    assert raw[0] == 1 and len(raw) == 33
    assert key_id == hashlib.sha256(b"pbem.test\n\x01" + raw[1:]).digest()[:4].hex()


def test_verifier_key_with_a_wrong_id_is_refused(signer):
    name, _, encoded = str(signer.verifier).split("+", 2)
    with pytest.raises(NoteError):
        VerifierKey.parse(f"{name}+00000000+{encoded}")


def test_note_has_text_blank_line_and_em_dash_signature(signer):
    note = sign_note("hello\n", signer)
    text, signature = note.split("\n\n")
    assert text == "hello"
    assert signature.startswith("\u2014 pbem.test ")


def test_signed_checkpoint_verifies_and_parses(signer):
    checkpoint = Checkpoint("pbem.test/game/g-1", 7, bytes(range(32)))
    assert verify_checkpoint(sign_checkpoint(checkpoint, signer), [signer.verifier]) == checkpoint


def test_changed_note_text_fails(signer):
    note = sign_checkpoint(Checkpoint("o", 7, bytes(32)), signer).replace("\n7\n", "\n8\n")
    with pytest.raises(NoteError):
        open_note(note, [signer.verifier])


def test_unknown_key_fails(signer):
    other = SignerKey.generate("pbem.test")
    with pytest.raises(NoteError):
        open_note(sign_note("x\n", other), [signer.verifier])


def test_signing_is_deterministic(signer):
    assert sign_note("same\n", signer) == sign_note("same\n", signer)


def test_private_key_pem_round_trips(signer):
    again = SignerKey.from_pem("pbem.test", signer.to_pem())
    assert again.verifier == signer.verifier
