"""What a player holds (receipts, checkpoints) against an export: truncation, rollback and
forks are named, with the two signed checkpoints as evidence."""

import json

from click.testing import CliRunner

from pbem.cli import main
from pbem.config import Settings
from pbem.ledger.consistency import FORKED, ROLLED_BACK, TRUNCATED, compare, read_held
from pbem.ledger.notes import VerifierKey
from pbem.ledger.verify import export_bytes, verify_export
from pbem.service.service import GameService
from tests.faults.tamper import rewritten_move, truncated
from tests.service.helpers import ANN


def _findings(service, document, items):
    keys = [VerifierKey.parse(k) for k in document["keys"]]
    verify_export(document, keys)  # each doctored export is valid on its own
    reading = read_held(items, keys)
    assert reading.refused == []
    return compare(document, reading.held, keys)


def test_receipts_of_an_honest_log_are_consistent(game):
    service, game_id = game
    document = service.export(game_id)
    held = [("r4", service.receipt(game_id, 4, 5)), ("r6", service.receipt(game_id, 6, 7)),
            ("note", service.game(game_id).checkpoint_at())]
    assert _findings(service, document, held) == []


def test_a_truncated_export_is_named(game):
    service, game_id = game
    document = service.export(game_id)
    cut = truncated(document, 6)
    [finding] = _findings(service, cut, [("r6", service.receipt(game_id, 6, 7))])
    assert finding.verdict == TRUNCATED
    assert finding.other_note == cut["checkpoints"][-1]["note"] and finding.held.checkpoint.size == 7


def test_a_rolled_back_move_is_named(game):
    service, game_id = game
    document = service.export(game_id)
    rolled = rewritten_move(document, 7, service.keys.signer())
    [finding] = _findings(service, rolled, [("r7", service.receipt(game_id, 7, 8))])
    assert finding.verdict == ROLLED_BACK
    assert finding.other_note == rolled["checkpoints"][-1]["note"]


def test_a_rolled_back_log_that_is_still_shorter_is_named_by_the_receipt(game):
    service, game_id = game
    document = service.export(game_id)
    rolled = rewritten_move(document, 5, service.keys.signer())  # 6 entries; you hold entry 5 of 7
    [finding] = _findings(service, rolled, [("r5", service.receipt(game_id, 5, 7))])
    assert finding.verdict == ROLLED_BACK and "entry 5" in finding.explanation


def test_a_fork_that_grew_on_is_named_with_a_failing_proof(game):
    service, game_id = game
    document = service.export(game_id)
    forked = rewritten_move(document, 5, service.keys.signer(), extra=3)
    [finding] = _findings(service, forked, [("r5", service.receipt(game_id, 5, 6))])
    note_at_six = next(c["note"] for c in forked["checkpoints"] if c["size"] == 6)
    assert finding.verdict == FORKED and finding.other_note == note_at_six
    forked["checkpoints"] = forked["checkpoints"][-1:]  # only the newest signed: a proof is needed
    [finding] = _findings(service, forked, [("r5", service.receipt(game_id, 5, 6))])
    assert finding.verdict == FORKED and finding.proof and finding.other_note == forked["checkpoints"][0]["note"]


def test_two_held_trees_of_one_size_are_a_fork(game):
    service, game_id = game
    document = service.export(game_id)
    other = rewritten_move(document, 5, service.keys.signer())
    findings = _findings(service, document, [("mine", service.game(game_id).checkpoint_at(6)),
                                             ("friend's", other["checkpoints"][-1]["note"])])
    assert FORKED in {f.verdict for f in findings}
    assert any("split view" in f.explanation for f in findings)


def test_a_receipt_signed_by_an_unknown_key_is_not_evidence(game):
    service, game_id = game
    document = service.export(game_id)
    stranger = GameService(Settings(home=service.settings.home.parent / "stranger"))
    try:
        foreign = stranger.keys.signer()
        fake = rewritten_move(document, 5, foreign)
        reading = read_held([("fake", fake["checkpoints"][-1]["note"])],
                            [VerifierKey.parse(k) for k in document["keys"]])
    finally:
        stranger.close()
    assert reading.held == [] and reading.refused


def test_pbem_verify_receipts_reports_truncation(game, tmp_path):
    service, game_id = game
    held = tmp_path / "held"
    held.mkdir()
    (held / "receipt.json").write_text(json.dumps(service.receipt(game_id, 6, 7, viewer=ANN)))
    (held / "latest.note").write_text(service.game(game_id).checkpoint_at())
    export = tmp_path / "export.json"
    export.write_bytes(export_bytes(service.export(game_id)))
    good = CliRunner().invoke(main, ["verify", str(export), "--receipts", str(held)])
    assert good.exit_code == 0 and "2 checkpoints you hold are consistent" in good.output
    export.write_bytes(export_bytes(truncated(service.export(game_id), 5)))
    bad = CliRunner().invoke(main, ["verify", str(export), "--receipts", str(held)])
    assert bad.exit_code == 1 and "INVALID: truncated" in bad.output
    assert "TRUNCATED" in bad.output and service.game(game_id).checkpoint_at(5) in bad.output
