"""Witnesses: cosignatures in the C2SP cosignature/v1 form, consistency before co-signing,
and a split view reported with proof, by two witnesses against a server that forks a game."""

import threading

import pytest
from click.testing import CliRunner
from flask import Flask, abort, jsonify
from werkzeug.serving import make_server

from pbem.cli import main
from pbem.ledger.canonical import canonical_bytes
from pbem.ledger.merkle import consistency_proof, leaf_hash
from pbem.ledger.notes import SignerKey, VerifierKey
from pbem.ledger.witness import WitnessKey, cosign, cosignature_time, observe
from pbem.service.witnesses import WitnessFolder, received_cosignatures
from pbem.web import create_app
from tests.faults.tamper import rewritten_move


def _proofs(document):
    leaves = [leaf_hash(canonical_bytes(e)) for e in document["entries"]]
    return lambda origin, old, new: consistency_proof(old, leaves[:new])


def test_a_cosignature_verifies_only_for_its_witness_and_text(game):
    service, game_id = game
    note = service.game(game_id).checkpoint_at()
    witness, other = SignerKey.generate("w1.example"), SignerKey.generate("w2.example")
    cosigned = cosign(note, witness, 1_700_000_000)
    assert WitnessKey.parse(str(WitnessKey.of(witness))) == WitnessKey.of(witness)
    assert cosignature_time(cosigned, WitnessKey.of(witness)) == 1_700_000_000
    assert cosignature_time(cosigned, WitnessKey.of(other)) is None
    changed = cosigned.replace("\n", "\nx", 1)
    assert cosignature_time(changed, WitnessKey.of(witness)) is None


def test_a_witness_accepts_a_log_that_grew_consistently(game):
    service, game_id = game
    document = service.export(game_id)
    keys = [VerifierKey.parse(k) for k in document["keys"]]
    first = observe(None, document["checkpoints"][2]["note"], keys, _proofs(document))
    later = observe(first.seen, document["checkpoints"][-1]["note"], keys, _proofs(document))
    assert (first.status, later.status) == ("new", "grew")
    assert observe(later.seen, document["checkpoints"][-1]["note"], keys, _proofs(document)).status == "same"


def test_a_fork_fails_the_consistency_proof(game):
    service, game_id = game
    document = service.export(game_id)
    forked = rewritten_move(document, 5, service.keys.signer(), extra=3)
    keys = [VerifierKey.parse(k) for k in document["keys"]]
    held = observe(None, document["checkpoints"][-1]["note"], keys, _proofs(document)).seen
    seen = observe(held, forked["checkpoints"][-1]["note"], keys, _proofs(forked))
    assert seen.alarm and seen.proof and seen.evidence == [held.note, forked["checkpoints"][-1]["note"]]
    assert seen.seen == held  # nothing of the fork is accepted


def _forking_site(trees):
    """A server that shows each view its own tree of the same game."""
    app = Flask("forking")

    @app.get("/<view>/keys.txt")
    def keys(view):
        return "".join(f"{k}\n" for k in trees[view]["keys"])

    @app.get("/<view>/games/<game_id>/checkpoint")
    def checkpoint(view, game_id):
        return trees[view]["checkpoints"][-1]["note"]

    @app.get("/<view>/games/<game_id>/proofs/consistency/<int:old>/<int:new>.json")
    def consistency(view, game_id, old, new):
        leaves = [leaf_hash(canonical_bytes(e)) for e in trees[view]["entries"]]
        if not 0 <= old <= new <= len(leaves):
            abort(404)
        return jsonify({"path": [p.hex() for p in consistency_proof(old, leaves[:new])]})

    return app


@pytest.fixture
def forking_server(game):
    service, game_id = game
    honest = service.export(game_id)
    trees = {"a": honest, "b": rewritten_move(honest, len(honest["entries"]) - 2, service.keys.signer(), extra=1)}
    server = make_server("127.0.0.1", 0, _forking_site(trees))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", game_id, trees, service.keys.signer()
    server.shutdown()
    thread.join()


def test_two_witnesses_report_a_server_that_forks_a_game(forking_server, tmp_path):
    base, game_id, trees, _ = forking_server
    one, two = tmp_path / "one", tmp_path / "two"
    assert len(trees["a"]["entries"]) == len(trees["b"]["entries"])  # one size, two trees
    run = CliRunner().invoke
    assert (
        run(main, ["witness", f"{base}/a/games/{game_id}", "--dir", str(one), "--name", "one.example"]).exit_code == 0
    )
    assert (
        run(main, ["witness", f"{base}/b/games/{game_id}", "--dir", str(two), "--name", "two.example"]).exit_code == 0
    )
    # each saw a consistent log; comparing what the other published shows the split view
    first = run(main, ["witness", f"{base}/a/games/{game_id}", "--dir", str(one), "--peer", str(two)])
    second = run(main, ["witness", f"{base}/b/games/{game_id}", "--dir", str(two), "--peer", str(one)])
    for result, folder in ((first, one), (second, two)):
        assert result.exit_code == 1 and "SPLIT VIEW" in result.output
        assert trees["a"]["checkpoints"][-1]["note"] in result.output
        assert trees["b"]["checkpoints"][-1]["note"] in result.output
        assert list((folder / "alarms").iterdir())


def test_a_witness_that_sees_both_trees_reports_the_fork(forking_server, tmp_path):
    base, game_id, trees, signer = forking_server
    trees["b"] = rewritten_move(trees["a"], len(trees["a"]["entries"]) - 2, signer, extra=3)  # grew on
    folder = tmp_path / "w"
    run = CliRunner().invoke
    assert run(main, ["witness", f"{base}/a/games/{game_id}", "--dir", str(folder)]).exit_code == 0
    result = run(main, ["witness", f"{base}/b/games/{game_id}", "--dir", str(folder)])
    assert result.exit_code == 1 and "is not a prefix" in result.output and "consistency proof" in result.output


def test_the_site_shows_the_cosignatures_its_operator_placed(game, tmp_path):
    service, game_id = game
    note = service.game(game_id).checkpoint_at()
    placed = WitnessFolder(service.settings.home / "witnesses" / "one")
    signer = placed.signer("one.example")
    placed.publish(service.origin(game_id), cosign(note, signer, 1_700_000_000))
    stranger = WitnessFolder(service.settings.home / "witnesses" / "forger")
    stranger.signer("forger.example")
    stranger.publish(service.origin(game_id), cosign(note, SignerKey.generate("forger.example"), 1))
    served = create_app(service).test_client().get(f"/games/{game_id}/checkpoint").get_data(as_text=True)
    assert served == received_cosignatures(service.settings.home, game_id, note)
    assert cosignature_time(served, WitnessKey.of(signer)) == 1_700_000_000
    assert "forger.example" not in served and served.startswith(note)


@pytest.mark.parametrize(
    "origin",
    ["evil.example/game/../../escaped", "evil.example/game/../../../tmp-escaped", "../../escaped", "/abs/escaped"],
)
def test_a_hostile_sites_origin_cannot_make_the_witness_write_outside_its_folder(tmp_path, origin):
    """Issue 28: the witness named its files after the checkpoint's origin, which the site
    chooses: "../" in it wrote the cosignature outside the witness's folder."""
    from pbem.ledger.notes import Checkpoint, sign_checkpoint

    signer = SignerKey.generate("evil.example")
    note = sign_checkpoint(Checkpoint(origin, 1, bytes(32)), signer)
    site = Flask("hostile")
    site.add_url_rule("/keys.txt", "keys", lambda: f"{signer.verifier}\n")
    site.add_url_rule("/games/<game_id>/checkpoint", "checkpoint", lambda game_id: note)
    server = make_server("127.0.0.1", 0, site)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    folder = tmp_path / "deep" / "er" / "witness"
    try:
        result = CliRunner().invoke(
            main, ["witness", f"http://127.0.0.1:{server.server_port}/games/g1", "--dir", str(folder)]
        )
    finally:
        server.shutdown()
        thread.join()
    assert result.exit_code == 0, result.output
    written = {p for p in tmp_path.rglob("*") if p.is_file()}
    assert written and all(folder in p.parents for p in written)
    (published,) = (folder / "cosigned").iterdir()
    assert published.read_text().startswith(origin + "\n")  # co-signed all the same, under a safe name
