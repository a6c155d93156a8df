"""A receipt stands alone: it holds the entry, and checking it recomputes the leaf."""

import copy

import pytest

from pbem.cli.core import play_moves
from pbem.config import Settings
from pbem.ledger.notes import SignerKey
from pbem.ledger.receipts import ReceiptError, check_receipt
from pbem.service.service import GameService
from tests.ops.helpers import PLAYERS
from tests.service.helpers import ANN, BOB, started_pig


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    service = GameService(Settings(home=tmp_path_factory.mktemp("home")))
    game_id = started_pig(service)
    service.submit(game_id, ANN, ["hold"])
    yield service, game_id
    service.close()


def _refused(receipt, trusted=None) -> str:
    before = copy.deepcopy(receipt)
    with pytest.raises(ReceiptError) as caught:
        check_receipt(receipt, trusted)
    assert receipt == before
    return str(caught.value)


def test_a_receipt_proves_its_entry(game):
    service, game_id = game
    receipt = service.receipt(game_id, 4, viewer=ANN)
    checked = check_receipt(receipt, [str(service.keys.signer().verifier)])
    assert checked.entry == service.game(game_id).entries[4]
    assert checked.summary().startswith("entry 4 (moved, seat 0: 'hold'")


def test_a_changed_entry_is_refused(game):
    service, game_id = game
    receipt = service.receipt(game_id, 4)
    receipt["entry"]["command"] = "roll"
    assert "entry was changed" in _refused(receipt)
    del receipt["leaf_hash"]
    assert "inclusion proof fails" in _refused(receipt)


def test_an_entry_moved_to_another_index_is_refused(game):
    service, game_id = game
    receipt = service.receipt(game_id, 4)
    assert "the entry says it is entry 4" in _refused(receipt | {"index": 3})


def test_a_receipt_without_its_entry_is_refused(game):
    service, game_id = game
    receipt = service.receipt(game_id, 4)
    del receipt["entry"]
    assert "does not hold its entry" in _refused(receipt)


def test_a_receipt_signed_by_another_key_is_refused(game):
    service, game_id = game
    other = SignerKey.generate(service.settings.origin)
    assert "signature does not verify" in _refused(service.receipt(game_id, 4), [str(other.verifier)])


def test_the_viewers_openings_match_the_commitments(game):
    service, game_id = game
    receipt = service.receipt(game_id, 3, viewer=ANN)  # the started entry: each seat's secret card
    assert [salt is not None for salt in receipt["opened"]["salts"]] == [False, True, False]
    assert check_receipt(receipt).opened == 1
    bobs = service.receipt(game_id, 3, viewer=BOB)["opened"]
    assert [salt is not None for salt in bobs["salts"]] == [False, False, True]


def test_a_changed_opening_is_refused(game):
    service, game_id = game
    receipt = service.receipt(game_id, 3, viewer=ANN)
    card = receipt["opened"]["facts"][1]
    receipt["opened"]["facts"][1] = {**card, "card": card["card"] % 9 + 1}
    assert "fact 1" in _refused(receipt)


@pytest.fixture(scope="module")
def secret_command(tmp_path_factory):
    """A receipt, for its author, of a move whose command the log only commits to (a card
    played face down in Ruse & Bruise), from a game still running."""
    service = GameService(Settings(home=tmp_path_factory.mktemp("secret")))
    game_id = service.create("ruse-and-bruise", PLAYERS[:2], {}, seed=b"\x05" * 32)
    play_moves(service, game_id, seed=5, max_moves=12)
    game = service.game(game_id)
    index = next(i for i, entry in enumerate(game.entries) if "command_commitment" in entry)
    receipt = service.receipt(game_id, index, viewer=game.emails[game.entries[index]["seat"]])
    service.close()
    return receipt


def test_the_authors_secret_command_matches_its_commitment(secret_command):
    assert "command" in secret_command["opened"]
    checked = check_receipt(secret_command)
    assert checked.note == secret_command["checkpoint"]
    assert checked.opened == 1 + sum(salt is not None for salt in secret_command["opened"].get("salts") or [])


def test_a_changed_secret_command_is_refused(secret_command):
    changed = copy.deepcopy(secret_command)
    changed["opened"]["command"] += " "
    assert _refused(changed) == "your command does not match the log's commitment"


def test_a_receipt_whose_proof_names_another_size_is_refused(game):
    service, game_id = game
    receipt = service.receipt(game_id, 4)
    assert _refused(receipt | {"size": receipt["size"] + 1}) == (
        f"the checkpoint is for {receipt['size']} entries, the proof for {receipt['size'] + 1}"
    )


def test_a_receipt_for_an_entry_of_another_game_is_refused(game):
    service, game_id = game
    receipt = service.receipt(game_id, 4)
    receipt["entry"]["game"] = "hidden-pig-00000000"
    assert _refused(receipt).startswith("the checkpoint is for ") and "'hidden-pig-00000000'" in _refused(receipt)


def test_what_is_not_a_receipt_is_refused_by_what_it_lacks(game):
    service, game_id = game
    assert _refused([1, 2]) == "a receipt is a JSON object"
    receipt = service.receipt(game_id, 4)
    receipt["entry"]["note"] = 0.5  # a float has no canonical form
    assert _refused(receipt).startswith("the entry cannot be hashed: ")


def test_changing_a_receipt_changes_nothing_in_the_log(game):
    service, game_id = game
    before = copy.deepcopy(service.receipt(game_id, 3, viewer=ANN))
    entry_before = copy.deepcopy(service.game(game_id).entries[3])
    held = service.receipt(game_id, 3, viewer=ANN)
    held["entry"]["time"] = "1999-01-01T00:00:00+00:00"
    held["opened"]["facts"][1]["card"] = 0
    assert service.game(game_id).entries[3] == entry_before
    assert service.receipt(game_id, 3, viewer=ANN) == before
    assert service.inclusion(game_id, 3)["entry"] == entry_before


def test_a_checked_receipt_says_what_it_proves(secret_command):
    """The sentence `pbem check-receipt` prints."""
    entry, checked = secret_command["entry"], check_receipt(secret_command)
    assert checked.summary() == (
        f"entry {entry['index']} (moved, seat {entry['seat']}: {entry['command']!r}, {entry['time']}) is in "
        f"{secret_command['origin']} at size {secret_command['size']}, signed; "
        f"{checked.opened} opened secret part(s) match their commitments"
    )


def test_a_receipt_of_an_entry_with_nothing_opened_says_so_by_saying_nothing(game):
    service, game_id = game
    receipt = service.receipt(game_id, 2)  # a join: no command, no secret
    entry = receipt["entry"]
    assert check_receipt(receipt).summary() == (
        f"entry 2 ({entry['kind']}, seat {entry['seat']}, {entry['time']}) is in {receipt['origin']} "
        f"at size {receipt['size']}, signed"
    )
