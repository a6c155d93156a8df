"""Tampering with an export: every value path of exported games is changed in every way that
fits its kind, and verification must refuse each changed file, naming the place."""

from __future__ import annotations

import random

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.games import catalog
from pbem.ledger.verify import VerificationError, export_bytes, verify_bytes
from tests.faults.conftest import LONG, scale
from tests.faults.tamper import all_changes, census, names_the_place, replaced
from tests.ops.helpers import PLAYERS, finished_game, service_at

# Changes the verifier does not notice (none: unknown fields, repeated keys and openings of a
# running game are refused since the verifier became strict).
KNOWN_GAPS: set[tuple[str, str]] = set()


@pytest.fixture(scope="module")
def exports(tmp_path_factory):
    """Finished games of every registered type, and a running Hidden Pig game."""
    svc = service_at(tmp_path_factory.mktemp("home"))
    done = {
        name: svc.export(finished_game(svc, name, max(2, spec.min_players), seed=3)) for name, spec in catalog().items()
    }
    running = svc.create("hidden-pig", PLAYERS[:3], {"rounds": "2"}, seed=b"\x07" * 32)
    for player in PLAYERS[:3]:
        svc.join(running, player)
    svc.submit(running, PLAYERS[0], "roll")
    done["running hidden-pig"] = svc.export(running)
    return done


def _problems(document, changes):
    problems = []
    for path, kind, new in changes:
        if (path[0], kind) in KNOWN_GAPS and len(path) <= 2:
            continue
        try:
            verify_bytes(export_bytes(replaced(document, path, new)))
        except VerificationError as error:
            if not names_the_place(path, error.where, error.what):
                problems.append(f"{path} {kind}: named {error}")
        else:
            problems.append(f"{path} {kind}: not detected")
    return problems


@pytest.mark.parametrize("name", ["hidden-pig", "running hidden-pig"])
def test_every_change_to_every_value_is_detected(exports, name):
    document = exports[name]
    verify_bytes(export_bytes(document))
    changes = all_changes(document)
    assert len(changes) > 200
    assert _problems(document, changes) == []


@pytest.mark.parametrize("name", sorted(set(catalog()) - {"hidden-pig"}))
def test_changes_to_real_games_are_detected(exports, name):
    document = exports[name]
    changes = all_changes(document)
    if not LONG:  # the short form: a seeded sample; python -m benchmarks.faults checks all
        changes = random.Random(name).sample(changes, min(len(changes), 60))
    assert _problems(document, changes) == []


def test_changed_bytes_are_detected(exports):
    data = export_bytes(exports["hidden-pig"])
    positions = range(len(data)) if LONG else random.Random(1).sample(range(len(data)), scale(300, 0))
    undetected = []
    for position in positions:
        for replacement in {data[position] ^ 1, ord(" ")} - {data[position]}:
            changed = data[:position] + bytes([replacement]) + data[position + 1 :]
            try:
                verify_bytes(changed)
            except VerificationError as error:
                assert error.where
            else:
                undetected.append(position)
    assert undetected == []


def test_pbem_verify_refuses_a_changed_file(exports, tmp_path):
    path = tmp_path / "game.json"
    path.write_bytes(export_bytes(replaced(exports["hidden-pig"], ("entries", 4, "time"), "2000-01-01")))
    result = CliRunner().invoke(main, ["verify", str(path)])
    assert result.exit_code == 1
    assert "INVALID: checkpoint" in result.output and "entry 4" in result.output


@pytest.mark.parametrize("path", [("checkpoints", 0), ("openings", 1), ()])
def test_unknown_fields_are_refused(exports, path):
    document = exports["hidden-pig"]
    target = document
    for key in path:
        target = target[key]
    changed = replaced(document, path, {**target, "tampered": 1}) if path else {**document, "tampered": 1}
    with pytest.raises(VerificationError):
        verify_bytes(export_bytes(changed))


def test_an_added_key_is_refused(exports):
    document = exports["hidden-pig"]
    with pytest.raises(VerificationError):
        verify_bytes(export_bytes(replaced(document, ("keys",), document["keys"] + document["keys"][:1])))


def test_openings_of_a_running_game_must_be_null(exports):
    with pytest.raises(VerificationError):
        verify_bytes(export_bytes(replaced(exports["running hidden-pig"], ("openings",), [])))


@pytest.fixture(scope="module")
def signed_games(tmp_path_factory):
    """A finished and a running Hidden Pig game, with the service that signed them (so a
    dishonest server's rewritten logs carry real signatures)."""
    svc = service_at(tmp_path_factory.mktemp("signed"))
    finished = finished_game(svc, "hidden-pig", 3, seed=4)
    running = svc.create("hidden-pig", PLAYERS[:3], {"rounds": "3"}, seed=b"\x08" * 32)
    for player in PLAYERS[:3]:
        svc.join(running, player)
    for _ in range(5):
        game = svc.game(running)
        svc.submit(running, game.emails[game.spec.to_move(svc.state(game))[0]], "hold")
    yield svc, {"finished": finished, "running": running}
    svc.close()


@pytest.mark.parametrize("which", ["finished", "running"])
def test_every_kind_of_tampering_is_detected_with_one_held_receipt_or_checkpoint(signed_games, which):
    svc, ids = signed_games
    results = census(svc, ids[which])
    kinds = results["kinds of change to a value (place x change)"]
    assert kinds[0] >= 50
    assert {case: (tried, found) for case, (tried, found, _) in results.items()} == {
        case: (tried, tried) for case, (tried, _, _) in results.items()
    }
    assert results["truncation to an earlier signed checkpoint"][2] == {"truncated"}
    assert results["rollback: entry replaced at its index"][2] == {"rolled back"}
    assert results["fork: a move replaced, log grown on"][2] == {"forked"}
