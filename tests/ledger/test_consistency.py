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
    held = [
        ("r4", service.receipt(game_id, 4, 5)),
        ("r6", service.receipt(game_id, 6, 7)),
        ("note", service.game(game_id).checkpoint_at()),
    ]
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
    findings = _findings(
        service,
        document,
        [("mine", service.game(game_id).checkpoint_at(6)), ("friend's", other["checkpoints"][-1]["note"])],
    )
    assert FORKED in {f.verdict for f in findings}
    assert any("split view" in f.explanation for f in findings)


def test_a_receipt_signed_by_an_unknown_key_is_not_evidence(game):
    service, game_id = game
    document = service.export(game_id)
    stranger = GameService(Settings(home=service.settings.home.parent / "stranger"))
    try:
        foreign = stranger.keys.signer()
        fake = rewritten_move(document, 5, foreign)
        reading = read_held(
            [("fake", fake["checkpoints"][-1]["note"])], [VerifierKey.parse(k) for k in document["keys"]]
        )
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


def test_held_trees_are_checked_by_proof_when_the_export_kept_only_its_newest_checkpoint(game):
    service, game_id = game
    document = service.export(game_id)
    document["checkpoints"] = document["checkpoints"][-1:]  # no signed checkpoint at the held sizes
    held = [("r4", service.receipt(game_id, 4, 5)), ("r6", service.receipt(game_id, 6, 7))]
    assert _findings(service, document, held) == []  # the proofs from the entries lead to the newest root


def test_a_checkpoints_document_is_read_one_checkpoint_at_a_time(game):
    service, game_id = game
    game_record = service.game(game_id)
    keys = [VerifierKey.parse(k) for k in service.export(game_id)["keys"]]
    listing = {"checkpoints": [{"note": game_record.checkpoint_at(5)}, game_record.checkpoint_at(7)]}
    reading = read_held([("seen.json", listing)], keys)
    assert reading.refused == []
    assert [(h.source, h.note, h.checkpoint.size) for h in reading.held] == [
        ("seen.json #0", game_record.checkpoint_at(5), 5),
        ("seen.json #1", game_record.checkpoint_at(7), 7),
    ]
    [finding] = compare(truncated(service.export(game_id), 6), reading.held, keys)
    assert finding.verdict == TRUNCATED and finding.held.source == "seen.json #1"


def test_a_held_file_that_is_no_evidence_is_refused_by_name(game):
    service, game_id = game
    keys = [VerifierKey.parse(k) for k in service.export(game_id)["keys"]]
    receipt = service.receipt(game_id, 4, 5)
    broken = {**receipt, "path": []}  # the inclusion proof taken out
    reading = read_held([("notes.json", {"seen": 1}), ("number.json", 42), ("broken.json", broken)], keys)
    assert reading.held == []
    assert reading.refused[:2] == [
        "notes.json: neither a receipt nor a signed checkpoint",
        "number.json: neither a receipt nor a signed checkpoint",
    ]
    assert reading.refused[2].startswith("broken.json: ") and len(reading.refused[2]) > len("broken.json: ")


def test_a_receipt_from_another_server_is_not_evidence(game):
    service, game_id = game
    stranger = GameService(Settings(home=service.settings.home.parent / "stranger-receipt"))
    try:
        from tests.service.helpers import started_pig

        foreign = stranger.receipt(started_pig(stranger), 1, 2)
    finally:
        stranger.close()
    reading = read_held([("foreign.json", foreign)], [VerifierKey.parse(k) for k in service.export(game_id)["keys"]])
    assert reading.held == [] and reading.refused[0].startswith("foreign.json: ")


def test_the_evidence_shows_both_signed_checkpoints_and_the_failing_proof(game):
    service, game_id = game
    forked = rewritten_move(service.export(game_id), 5, service.keys.signer(), extra=3)
    forked["checkpoints"] = forked["checkpoints"][-1:]
    [finding] = _findings(service, forked, [("r5", service.receipt(game_id, 5, 6))])
    proof_lines = "".join(f"  {p}\n" for p in finding.proof)
    assert finding.evidence() == (
        f"FORKED: {finding.explanation}\n"
        f"--- the checkpoint you hold (r5):\n{finding.held.note}"
        f"--- the conflicting signed checkpoint:\n{forked['checkpoints'][0]['note']}"
        f"--- consistency proof (RFC 9162) built from the export, which fails:\n{proof_lines}"
    )
    assert len(finding.proof) >= 1


def test_a_truncation_needs_no_proof_in_its_evidence(game):
    service, game_id = game
    [finding] = _findings(service, truncated(service.export(game_id), 6), [("r6", service.receipt(game_id, 6, 7))])
    assert finding.proof == [] and "consistency proof" not in finding.evidence()
    assert finding.evidence().startswith(
        "TRUNCATED: the export has 6 entries, but you hold a checkpoint the server signed over 7\n"
    )
