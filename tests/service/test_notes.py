"""Notes in the signed log: a private note is its seat's for good; a sealed note is only a
commitment until the end, then opened for everyone and checked by verify."""

import copy
import json

import pytest

from pbem.cli.core import play_to_end
from pbem.config import Settings
from pbem.ledger.receipts import ReceiptError, check_receipt
from pbem.ledger.verify import VerificationError, export_bytes, verify_bytes
from pbem.service.service import GameService
from tests.service.helpers import ANN, BOB, started_pig

PREDICTION = "bob wins by three points, osprey-2291"
PRIVATE = "remember to hold early, kestrel-8120"


@pytest.fixture
def service(tmp_path):
    service = GameService(Settings(home=tmp_path / "home"))
    yield service
    service.close()


def _noted(service: GameService) -> tuple[str, int, int]:
    game_id = started_pig(service, seed=None)
    assert service.note(game_id, ANN, PREDICTION, sealed=True).ok
    assert service.note(game_id, ANN, PRIVATE).ok
    version = service.game(game_id).version
    return game_id, version - 2, version - 1


def test_a_sealed_note_is_unreadable_before_the_end_and_opened_after(service):
    game_id, sealed, _ = _noted(service)
    entry = service.game(game_id).entry(sealed)
    assert entry["kind"] == "noted" and entry["sealed"] is True and "text" not in entry
    assert PREDICTION not in json.dumps(service.export(game_id))
    assert service.history(game_id, BOB)[sealed]["entry"].get("text") is None
    assert service.history(game_id, ANN)[sealed]["entry"]["text"] == PREDICTION  # its writer reads it
    play_to_end(service, game_id, seed=3)
    assert service.history(game_id)[sealed]["entry"]["text"] == PREDICTION
    data = export_bytes(service.export(game_id))
    assert PREDICTION.encode() in data
    report = verify_bytes(data)
    assert any("1 sealed note, opened at the end, matches its commitment" in line for line in report.checked)


def test_a_private_note_is_never_published_not_even_at_the_end(service):
    game_id, _, private = _noted(service)
    play_to_end(service, game_id, seed=3)
    assert PRIVATE.encode() not in export_bytes(service.export(game_id))
    assert service.history(game_id, BOB)[private]["entry"].get("text") is None
    assert service.history(game_id, ANN)[private]["entry"]["text"] == PRIVATE
    assert check_receipt(service.receipt(game_id, private, viewer=ANN)).text == PRIVATE
    assert "opened" not in service.receipt(game_id, private, viewer=BOB)


def test_a_forged_note_opening_is_refused(service):
    game_id, sealed, _ = _noted(service)
    play_to_end(service, game_id, seed=3)
    document = copy.deepcopy(service.export(game_id))  # the export shares the service's kept log
    document["openings"][sealed]["note"]["text"] = "ann wins, as I said"
    with pytest.raises(VerificationError, match="sealed note does not match its commitment"):
        verify_bytes(export_bytes(document))
    receipt = service.receipt(game_id, sealed)
    assert check_receipt(receipt).text == PREDICTION  # at the end, anyone's receipt opens it
    receipt["opened"]["text"] = "ann wins, as I said"
    with pytest.raises(ReceiptError, match="does not match the log's commitment"):
        check_receipt(receipt)


def test_a_sealed_note_left_closed_at_the_end_is_refused(service):
    game_id, sealed, _ = _noted(service)
    play_to_end(service, game_id, seed=3)
    document = copy.deepcopy(service.export(game_id))  # the export shares the service's kept log
    del document["openings"][sealed]["note"]
    with pytest.raises(VerificationError, match="sealed note"):
        verify_bytes(export_bytes(document))


def test_a_published_private_note_is_refused(service):
    game_id, _, private = _noted(service)
    play_to_end(service, game_id, seed=3)
    document = copy.deepcopy(service.export(game_id))  # the export shares the service's kept log
    document["openings"][private]["note"] = {"text": PRIVATE, "salt": "00" * 16}
    with pytest.raises(VerificationError, match="private note is published"):
        verify_bytes(export_bytes(document))


def test_a_note_changes_no_state(service):
    game_id = started_pig(service)
    before = service.state(service.game(game_id))
    assert service.note(game_id, BOB, "nothing to see").ok
    assert service.state(service.game(game_id)) == before
