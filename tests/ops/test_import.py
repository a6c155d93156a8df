"""pbem import: an ended game's export is verified, stored, and exported again byte for byte."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.games import catalog
from pbem.ledger.verify import VerificationError, export_bytes, verify_bytes
from pbem.service.importer import ImportRefused, import_game
from tests.ops.helpers import PLAYERS, finished_game, service_at


def _restored_home(source, target):
    """A new installation that got the keys folder back from a backup (a fresh database)."""
    shutil.copytree(source / "keys", target / "keys")
    return target


def test_export_import_export_is_byte_identical(tmp_path):
    original = service_at(tmp_path / "a")
    game_id = finished_game(original, options={"rounds": "2"})
    data = export_bytes(original.export(game_id))

    restored = service_at(_restored_home(tmp_path / "a", tmp_path / "b"))
    result = import_game(restored, json.loads(data))

    assert (result.game_id, result.identical, result.already_present) == (game_id, True, False)
    assert export_bytes(restored.export(game_id)) == data
    assert restored.game_ids() == [game_id]
    assert restored.summary(game_id)["over"] is True
    assert restored.summary(game_id, version=5) == original.summary(game_id, version=5)

    # the readable lines may order a fact's fields differently (an export has sorted keys)
    def strip(rows):
        return [{k: v for k, v in row.items() if k != "lines"} for row in rows]

    assert strip(restored.history(game_id)) == strip(original.history(game_id))


@pytest.mark.parametrize("game_type", sorted(set(catalog()) - {"hidden-pig"}))
def test_round_trip_of_every_registered_game(tmp_path, game_type):
    original = service_at(tmp_path / "a")
    game_id = finished_game(original, game_type, max(2, catalog()[game_type].min_players))
    data = export_bytes(original.export(game_id))
    restored = service_at(_restored_home(tmp_path / "a", tmp_path / "b"))
    assert import_game(restored, json.loads(data)).identical
    assert export_bytes(restored.export(game_id)) == data


def test_round_trip_after_key_rotation_keeps_both_keys(tmp_path):
    original = service_at(tmp_path / "a")
    game_id = original.create("hidden-pig", PLAYERS[:2], {"rounds": "2"}, seed=b"\x01" * 32)
    original.join(game_id, PLAYERS[0])
    original.keys.rotate()
    from pbem.cli.core import play_to_end

    play_to_end(original, game_id, 3)
    data = export_bytes(original.export(game_id))
    assert len(json.loads(data)["keys"]) == 2

    restored = service_at(_restored_home(tmp_path / "a", tmp_path / "b"))
    assert import_game(restored, json.loads(data)).identical
    assert export_bytes(restored.export(game_id)) == data


def test_importing_twice_changes_nothing(tmp_path):
    svc = service_at(tmp_path)
    game_id = finished_game(svc)
    data = export_bytes(svc.export(game_id))
    result = import_game(svc, json.loads(data))
    assert result.already_present and result.identical
    assert svc.game(game_id).version == json.loads(data)["entries"][-1]["index"] + 1
    assert export_bytes(svc.export(game_id)) == data


def test_running_game_is_refused(tmp_path):
    original = service_at(tmp_path / "a")
    game_id = original.create("hidden-pig", PLAYERS[:2], seed=b"\x02" * 32)
    original.join(game_id, PLAYERS[0])
    original.join(game_id, PLAYERS[1])
    document = original.export(game_id)
    restored = service_at(_restored_home(tmp_path / "a", tmp_path / "b"))
    with pytest.raises(ImportRefused, match="has not ended"):
        import_game(restored, document)
    assert restored.game_ids() == []


def test_tampered_export_is_refused_and_nothing_is_stored(tmp_path):
    original = service_at(tmp_path / "a")
    game_id = finished_game(original)
    document = original.export(game_id)
    document["entries"][3]["time"] = "2000-01-01T00:00:00+00:00"
    restored = service_at(_restored_home(tmp_path / "a", tmp_path / "b"))
    with pytest.raises(VerificationError, match="checkpoint"):
        import_game(restored, document)
    assert restored.game_ids() == []


def test_foreign_keys_need_adopting(tmp_path):
    original = service_at(tmp_path / "a")
    game_id = finished_game(original)
    data = export_bytes(original.export(game_id))
    stranger = service_at(tmp_path / "b")  # same origin name, its own new key
    with pytest.raises(ImportRefused, match="adopt-keys"):
        import_game(stranger, json.loads(data))
    assert stranger.game_ids() == []

    result = import_game(stranger, json.loads(data), adopt_keys=True)
    assert not result.identical  # this server's export also lists its own key
    again = export_bytes(stranger.export(game_id))
    verify_bytes(again)
    assert json.loads(again)["entries"] == json.loads(data)["entries"]
    assert set(json.loads(data)["keys"]) < set(json.loads(again)["keys"])


def test_other_origin_is_refused(tmp_path):
    original = service_at(tmp_path / "a")
    game_id = finished_game(original)
    document = original.export(game_id)
    elsewhere = service_at(_restored_home(tmp_path / "a", tmp_path / "b"), origin="other.example")
    with pytest.raises(ImportRefused, match="PBEM_ORIGIN"):
        import_game(elsewhere, document)


def test_addresses_can_be_given_back(tmp_path):
    original = service_at(tmp_path / "a")
    game_id = finished_game(original)
    document = original.export(game_id)
    restored = service_at(_restored_home(tmp_path / "a", tmp_path / "b"))
    import_game(restored, document, emails=[PLAYERS[0], PLAYERS[1]])
    assert restored.game(game_id).seat_of(PLAYERS[1]) == 1
    assert export_bytes(restored.export(game_id)) == export_bytes(document)


def test_cli_import(tmp_path, monkeypatch):
    original = service_at(tmp_path / "a")
    game_id = finished_game(original)
    path = tmp_path / "game.json"
    path.write_bytes(export_bytes(original.export(game_id)))
    home = _restored_home(tmp_path / "a", tmp_path / "b")
    monkeypatch.setenv("PBEM_HOME", str(home))
    monkeypatch.delenv("PBEM_DATABASE_URL", raising=False)
    runner = CliRunner()

    result = runner.invoke(main, ["import", str(path)])
    assert result.exit_code == 0, result.output
    assert f"imported: game {game_id}" in result.output
    out = tmp_path / "again.json"
    assert runner.invoke(main, ["export", game_id, "-o", str(out)]).exit_code == 0
    assert out.read_bytes() == path.read_bytes()

    backup = tmp_path / "backup"
    result = runner.invoke(main, ["export-all", str(backup)])
    assert result.exit_code == 0 and (backup / f"{game_id}.json").read_bytes() == path.read_bytes()

    path.write_bytes(path.read_bytes().replace(b'"rank":1', b'"rank":2', 1))
    result = runner.invoke(main, ["import", str(path)])
    assert result.exit_code == 1 and "INVALID" in result.output


def test_an_imported_game_keeps_its_states_as_if_played_here(tmp_path):
    original = service_at(tmp_path / "a", snapshot_interval=4)
    game_id = finished_game(original, options={"rounds": "5"})
    data = export_bytes(original.export(game_id))
    played_here = [size for size, _ in original.store.kept_states(game_id)]

    restored = service_at(_restored_home(tmp_path / "a", tmp_path / "b"), snapshot_interval=4)
    import_game(restored, json.loads(data))
    assert [size for size, _ in restored.store.kept_states(game_id)] == played_here
    fresh = service_at(tmp_path / "b", snapshot_interval=4)  # a new process: a past state from a kept one
    version = played_here[-1] - 1
    assert fresh.summary(game_id, version=version) == original.summary(game_id, version=version)
    assert not fresh.store._logs and fresh.fsck(game_id) is None
