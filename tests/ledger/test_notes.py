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


@pytest.mark.parametrize("name", ["", "pbem test", "pbem+test", "pbem\ttest"])
def test_a_key_name_must_be_one_word_without_plus(name):
    with pytest.raises(NoteError, match="must be non-empty, without spaces or '\\+'"):
        SignerKey.generate(name)


@pytest.mark.parametrize(("first_byte", "length"), [(b"\x02", 33), (b"\x01", 32), (b"\x01", 34)])
def test_a_verifier_key_of_another_algorithm_or_length_is_refused(signer, first_byte, length):
    name, key_id, _ = str(signer.verifier).split("+", 2)
    raw = (first_byte + bytes(signer.verifier.public) + b"\x00")[:length]
    with pytest.raises(NoteError, match=r"verifier key 'pbem\.test' is not an Ed25519 key"):
        VerifierKey.parse(f"{name}+{key_id}+{base64.b64encode(raw).decode()}")


@pytest.mark.parametrize("text", ["no newline at the end", "a blank line\n\ninside\n"])
def test_only_text_of_whole_lines_without_a_blank_one_is_signed(signer, text):
    with pytest.raises(NoteError, match="note text must end in a newline and contain no blank line"):
        sign_note(text, signer)


def test_a_note_without_its_blank_line_is_refused(signer):
    note = sign_note("pbem.test\n1\n", signer)
    with pytest.raises(NoteError, match="a note needs a blank line between its text and its signatures"):
        open_note(note.replace("\n\n", "\n"), [signer.verifier])


def test_a_pem_that_is_not_an_ed25519_key_is_refused():
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    with pytest.raises(NoteError, match="the signing key file does not hold an Ed25519 key"):
        SignerKey.from_pem("pbem.test", pem)
