"""Ratings anyone can recompute: from the live store (CLI and web) and from a folder of its
exports, the same numbers to the last bit; only finished games that verify count."""

import json

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.cli.core import play_to_end
from pbem.config import Settings
from pbem.ledger.ratings import ratings
from pbem.ledger.verify import export_bytes
from pbem.service.service import GameService
from pbem.web import create_app

PLAYERS = ["ann@example.org", "bob@example.org", "carol@example.org"]


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_HOME", str(tmp_path / "home"))
    service = GameService(Settings(home=tmp_path / "home"))
    for seed in range(3):
        game_id = service.create("hidden-pig", PLAYERS[: 2 + seed % 2], {"rounds": "1"}, bytes([seed]) * 32)
        play_to_end(service, game_id, seed=seed)
    service.create("hidden-pig", PLAYERS[:2], {"rounds": "1"})  # waiting: never counts
    yield service, tmp_path
    service.close()


def _cli(*args: str) -> dict:
    result = CliRunner().invoke(main, ["ratings", "--json", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_the_exports_reproduce_the_live_numbers_bit_for_bit(home):
    service, tmp_path = home
    folder = tmp_path / "exports"
    assert CliRunner().invoke(main, ["export-all", str(folder)]).exit_code == 0
    live, offline = _cli(), _cli("--from", str(folder))
    assert live == offline and json.dumps(live) == json.dumps(offline)
    assert len(live["games"]) == 3 and any("not finished" in line for line in live["left_out"])
    web = create_app(service).test_client().get("/players.json").get_json()
    assert web == live
    page = create_app(service).test_client().get("/players").get_data(as_text=True)
    assert all(row["name"] in page for row in live["players"]) and "@" not in page.split("<main")[1]


def test_a_changed_export_is_left_out(home):
    service, tmp_path = home
    folder = tmp_path / "exports"
    folder.mkdir()
    documents = [service.export(game_id) for game_id in service.game_ids()]
    for document in documents:
        (folder / f"{document['game']}.json").write_bytes(export_bytes(document))
    first = json.loads((folder / f"{documents[0]['game']}.json").read_text())
    first["entries"][-1]["standings"][0]["score"] += 1
    (folder / f"{documents[0]['game']}.json").write_text(json.dumps(first))
    table = _cli("--from", str(folder))
    assert documents[0]["game"] not in table["games"]
    assert any(documents[0]["game"] in line and "does not verify" in line for line in table["left_out"])


def test_reliability_counts_moves_and_abandoned_games(home):
    service, _ = home
    game_id = service.create("hidden-pig", PLAYERS[:2], {"rounds": "1"}, b"\x07" * 32)
    service.join(game_id, PLAYERS[0])
    service.join(game_id, PLAYERS[1])
    service.resign(game_id, PLAYERS[1])
    play_to_end(service, game_id, seed=1)
    table = ratings([service.export(game_id)])
    rows = {row["name"]: row for row in table["players"]}
    assert rows["bob"]["abandoned"] == 1 and rows["bob"]["finished"] == 0
    assert rows["ann"]["finished"] == 1 and rows["ann"]["moves"] >= 1
    assert rows["ann"]["deadlines_met"] == 1
