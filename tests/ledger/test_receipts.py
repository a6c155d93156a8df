"""A receipt stands alone: it holds the entry, and checking it recomputes the leaf."""

import copy

import pytest

from pbem.config import Settings
from pbem.ledger.notes import SignerKey
from pbem.ledger.receipts import ReceiptError, check_receipt
from pbem.service.service import GameService
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
