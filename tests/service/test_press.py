"""Press in the signed log: each message is an entry; a table message is opened in the log, a
private one only for its sender and recipients, whose receipts prove it; verify checks them."""

import copy
import json

import pytest

from pbem.cli.core import play_to_end
from pbem.config import Settings
from pbem.games.base import ErrorCode, GameError
from pbem.ledger import press
from pbem.ledger.receipts import ReceiptError, check_receipt
from pbem.ledger.verify import VerificationError, export_bytes, verify_bytes
from pbem.service.service import GameService
from tests.service.helpers import ANN, BOB, started_pig, to_move_email

CAROL = "carol@example.org"
SECRET_WORDS = "meet me at the north gate, zebra-7731"
TABLE_WORDS = "good luck everyone, walrus-4410"


@pytest.fixture
def service(tmp_path):
    service = GameService(Settings(home=tmp_path / "home"))
    yield service
    service.close()


def _three(service: GameService) -> str:
    game_id = service.create("hidden-pig", [ANN, BOB, CAROL], {"rounds": "1"}, b"\x02" * 32)
    for email in (ANN, BOB, CAROL):
        service.join(game_id, email)
    return game_id


def _said(service: GameService, game_id: str) -> tuple[int, int]:
    """A private message from ann to bob and a table message from bob; their indexes."""
    assert service.say(game_id, ANN, ["Bob"], SECRET_WORDS).ok
    private = service.game(game_id).version - 1
    assert service.say(game_id, BOB, "all", TABLE_WORDS).ok
    return private, private + 1


def test_a_private_message_is_closed_in_the_log_and_in_the_export(service):
    game_id = _three(service)
    private, _ = _said(service, game_id)
    game = service.game(game_id)
    entry = game.entry(private)
    assert entry["kind"] == "said" and entry["seat"] == 0 and entry["to"] == [1]
    assert "text" not in entry and len(entry["text_commitment"]) == 64
    exported = json.dumps(service.export(game_id))
    assert TABLE_WORDS in exported  # positive control: the table message is public
    assert SECRET_WORDS not in exported


def test_a_table_message_is_opened_in_the_log_and_the_public_history(service):
    game_id = _three(service)
    _, table = _said(service, game_id)
    entry = service.game(game_id).entry(table)
    assert entry["to"] == "all" and entry["text"] == TABLE_WORDS
    assert press.opens(entry["text_salt"], entry["text"], entry["text_commitment"])
    assert service.history(game_id)[table]["entry"]["text"] == TABLE_WORDS


def test_only_the_parties_read_a_private_message_in_the_history(service):
    game_id = _three(service)
    private, _ = _said(service, game_id)
    shown = {who: service.history(game_id, who)[private]["entry"].get("text") for who in (ANN, BOB, CAROL)}
    assert shown == {ANN: SECRET_WORDS, BOB: SECRET_WORDS, CAROL: None}
    assert "text" not in service.history(game_id)[private]["entry"]


def test_a_recipients_receipt_proves_what_was_said_to_whom_and_when(service):
    game_id = _three(service)
    private, _ = _said(service, game_id)
    receipt = service.receipt(game_id, private, viewer=BOB)
    checked = check_receipt(receipt, [str(service.keys.signer().verifier)])
    assert checked.text == SECRET_WORDS and checked.opened == 1
    summary = checked.summary()
    assert f"said, seat 0 to seats [1]: {SECRET_WORDS!r}" in summary
    assert checked.entry["time"] in summary


def test_a_strangers_receipt_holds_no_opening_of_a_private_message(service):
    game_id = _three(service)
    private, _ = _said(service, game_id)
    receipt = service.receipt(game_id, private, viewer=CAROL)
    assert "opened" not in receipt and SECRET_WORDS not in json.dumps(receipt)
    assert (
        check_receipt(receipt).summary().endswith("signed") and "a closed message" in check_receipt(receipt).summary()
    )


def test_a_forged_message_in_a_receipt_is_refused(service):
    game_id = _three(service)
    private, table = _said(service, game_id)
    receipt = service.receipt(game_id, private, viewer=ANN)
    forged = copy.deepcopy(receipt)
    forged["opened"]["text"] = "I never said that"
    with pytest.raises(ReceiptError, match="does not match the log's commitment"):
        check_receipt(forged)
    public = service.receipt(game_id, table)
    public["entry"]["text"] = "changed"
    with pytest.raises(ReceiptError):
        check_receipt(public)


def test_a_message_changes_no_state_and_no_submissions_version(service):
    game_id = started_pig(service)
    game = service.game(game_id)
    before, version = service.state(game), game.version
    assert service.say(game_id, BOB, ["ann"], "hold now?").ok
    assert service.state(service.game(game_id)) == before
    mover = to_move_email(service, game_id)
    # written at the version before the message: still answers the game
    assert service.submit(game_id, mover, ["hold"], expected_version=version).ok


def test_a_move_since_the_version_still_makes_a_submission_stale(service):
    game_id = started_pig(service)
    version = service.game(game_id).version
    service.submit(game_id, to_move_email(service, game_id), ["hold"])
    service.say(game_id, ANN, "all", "your turn")
    outcome = service.submit(game_id, to_move_email(service, game_id), ["hold"], expected_version=version)
    assert outcome.error is not None and outcome.error.code is ErrorCode.STALE


@pytest.mark.parametrize(
    ("who", "to", "text", "code"),
    [
        (ANN, ["bob"], "x" * (press.MAX_PRESS_BYTES + 1), "longer"),
        (ANN, ["bob"], "ž" * (press.MAX_PRESS_BYTES // 2 + 1), "longer"),
        (ANN, ["bob"], "   \n ", "empty"),
        (ANN, ["ann"], "to myself", "self"),
        (ANN, ["dave"], "to a stranger", "stranger"),
        (ANN, [], "to nobody", "nobody"),
        ("mallory@example.org", "all", "hello", "not seated"),
    ],
)
def test_a_refused_message_stores_nothing(service, who, to, text, code):
    game_id = started_pig(service)
    version = service.game(game_id).version
    try:
        outcome = service.say(game_id, who, to, text)
        refused = outcome.error
    except GameError as error:
        refused = error
    assert refused is not None, code
    assert service.game(game_id).version == version


def test_a_message_of_exactly_the_bound_is_sent(service):
    game_id = started_pig(service)
    assert service.say(game_id, ANN, ["bob"], "ž" * (press.MAX_PRESS_BYTES // 2)).ok


def test_an_ended_games_table_is_closed(service):
    game_id = started_pig(service, seed=None)
    play_to_end(service, game_id, seed=3)
    outcome = service.say(game_id, ANN, "all", "gg")
    assert outcome.error is not None and outcome.error.code is ErrorCode.GAME_OVER


def test_a_finished_game_with_press_verifies_and_keeps_private_words_closed(service):
    game_id = started_pig(service, seed=None)
    service.say(game_id, ANN, ["bob"], SECRET_WORDS)
    service.submit(game_id, to_move_email(service, game_id), ["hold"])
    service.say(game_id, BOB, "all", TABLE_WORDS)
    play_to_end(service, game_id, seed=3)
    data = export_bytes(service.export(game_id))
    report = verify_bytes(data)
    assert report.ended
    assert any("1 table message matches" in line and "1 private message names" in line for line in report.checked)
    assert TABLE_WORDS.encode() in data and SECRET_WORDS.encode() not in data


def _export_with_press(service: GameService) -> tuple[dict, int, int]:
    game_id = _three(service)
    private, table = _said(service, game_id)
    return service.export(game_id), private, table


@pytest.mark.parametrize(
    ("index_of", "field", "value"),
    [
        ("table", "text", "something else"),
        ("table", "to", [1]),
        ("private", "to", [2]),
        ("private", "seat", 2),
        ("private", "text_commitment", "0" * 64),
    ],
)
def test_a_tampered_press_entry_is_caught(service, index_of, field, value):
    document, private, table = _export_with_press(service)
    index = {"private": private, "table": table}[index_of]
    document["entries"][index][field] = value
    with pytest.raises(VerificationError) as caught:
        verify_bytes(export_bytes(document))
    assert f"entry {index}" in caught.value.where or "checkpoint" in caught.value.where


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"to": [0]}, "not other seats"),
        ({"to": [2, 1]}, "not a sorted list"),
        ({"to": [1, 7]}, "not other seats"),
        ({"to": "everyone"}, "not a sorted list"),
        ({"text": "leaked", "text_salt": "00" * 16}, "opened in the public log"),
    ],
)
def test_a_malformed_private_message_is_named(change, why):
    entry = {"kind": "said", "seat": 0, "to": [1], "text_commitment": "ab" * 32}
    assert why in (press.problem(entry | change, 3) or "")


def test_an_oversized_table_message_is_named():
    from pbem.ledger.commitments import commit

    text = "x" * (press.MAX_PRESS_BYTES + 1)
    entry = {"kind": "said", "seat": 0, "to": "all", "text": text, "text_salt": "00" * 16}
    entry["text_commitment"] = commit("00" * 16, text)
    assert "longer than" in (press.problem(entry, 2) or "")
    assert press.problem(entry | {"text": "x"}, 2) == "the table message does not match its commitment"
