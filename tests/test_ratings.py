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


def test_the_live_ratings_verify_each_game_once_as_it_ends(home, monkeypatch):
    service, _ = home
    exported: list[str] = []
    export = service.reader.export  # what the ratings' follower exports with
    monkeypatch.setattr(
        service.reader, "export", lambda game_id, *a, **k: exported.append(game_id) or export(game_id, *a, **k)
    )
    first = service.player_ratings()
    assert len(exported) == 3  # the projection's first catch-up: each finished game once
    game_id = service.create("hidden-pig", PLAYERS[:3], {"rounds": "1"}, b"\x09" * 32)
    play_to_end(service, game_id, seed=9)
    exported.clear()
    table = service.player_ratings()
    assert exported == [game_id]  # only the game that ended since
    assert table != first and len(table["games"]) == 4
    documents = [export(g) for g in service.game_ids()]
    assert json.dumps(table) == json.dumps(ratings(documents))  # the same floats as from the files
    exported.clear()
    assert service.player_ratings() is table and exported == []  # nothing new: nothing done


def test_games_ending_in_the_same_second_fold_in_the_files_order(tmp_path):
    """Games ending in one second are rated in the order of their ids: a game that ends later
    but sorts before the games already folded folds the table again, to the same floats."""
    service = GameService(Settings(home=tmp_path / "same"), clock=lambda: "2026-11-28T01:00:00+00:00")
    ids = [service.create("hidden-pig", PLAYERS[:2], {"rounds": "1"}, bytes([seed]) * 32) for seed in (21, 22, 23)]
    for seed, game_id in enumerate(sorted(ids, reverse=True)):  # each ends before the ones folded
        play_to_end(service, game_id, seed=seed)
        table = service.player_ratings()
        assert table["games"] == sorted(table["games"])
        documents = [service.export(g) for g in service.game_ids()]
        assert json.dumps(table) == json.dumps(ratings(documents))
    assert len(table["games"]) == 3
    service.close()


def test_the_players_page_is_in_the_sites_menu(home):
    service, _ = home
    page = create_app(service).test_client().get("/").get_data(as_text=True)
    nav = page.split("<nav", 1)[1].split("</nav>", 1)[0]
    assert 'href="/players"' in nav


def test_the_ratings_projection_on_either_store(settings):
    """The kept results in the view of either store give the numbers of the files."""
    service = GameService(settings)
    for seed in range(2):
        game_id = service.create("hidden-pig", PLAYERS[:2], {"rounds": "1"}, bytes([40 + seed]) * 32)
        play_to_end(service, game_id, seed=seed)
        table = service.player_ratings()
    documents = [service.export(g) for g in service.game_ids()]
    assert len(table["games"]) == 2 and json.dumps(table) == json.dumps(ratings(documents))
    service.close()


def test_an_imported_finished_game_is_rated(home, tmp_path):
    """An imported game is created with its end in one event: the projection rates it too."""
    from pbem.service.importer import import_game

    service, _ = home
    documents = [service.export(g) for g in service.game_ids()]
    other = GameService(Settings(home=tmp_path / "other"))
    for document in documents:
        if document["entries"][-1]["kind"] == "ended":
            import_game(other, document, adopt_keys=True)
    table = other.player_ratings()
    assert len(table["games"]) == 3 and json.dumps(table["players"]) == json.dumps(ratings(documents)["players"])
    other.close()


def test_a_move_withdrawn_by_consent_is_not_counted_as_played():
    """Reliability counts the moves a seat played: one taken back by consent (an ``undo``, the
    others' consent, a ``withdrawn`` entry) was not played; the same game without the
    withdrawal counts it (the control)."""
    from pbem.ledger.ratings import result_of

    def document(withdraw: bool) -> dict:
        entries = [
            {"kind": "created", "seats": ["ann", "bob"]},
            {"kind": "moved", "seat": 0, "source": "email"},
            {"kind": "moved", "seat": 1, "source": "email"},
        ]
        if withdraw:
            entries += [
                {"kind": "undo", "seat": 1, "move": 2},
                {"kind": "consented", "seat": 0, "undo": 3},
                {"kind": "withdrawn", "seat": 1, "move": 2},
            ]
        entries.append({"kind": "ended", "standings": [{"seat": 0, "rank": 1}, {"seat": 1, "rank": 2}]})
        return {"game": "g", "entries": [e | {"time": "2026-11-28T00:00:00Z"} for e in entries]}

    assert result_of(document(withdraw=False))["moves"] == [1, 1]
    assert result_of(document(withdraw=True))["moves"] == [1, 0]


def test_a_seat_renamed_during_the_game_is_rated_under_its_newest_name(home):
    """docs/mail.md "Names": the ratings took the names of the game's created entry and rated
    a renamed player under the name they no longer go by; like every page and mail, they name
    the seat by its newest name (the export and the live store alike)."""
    service, _ = home
    game_id = service.create("hidden-pig", PLAYERS[:2], {"rounds": "1"}, b"\x08" * 32)
    for email in PLAYERS[:2]:
        service.join(game_id, email)
    work = service.work()
    assert work.run(game_id, service.name_plan(PLAYERS[1], "Robert Novák")).ok
    work.commit()
    play_to_end(service, game_id, seed=2)
    names = {row["name"] for row in ratings([service.export(game_id)])["players"]}
    assert names == {"ann", "Robert Novák"}
    live = {row["name"]: row for row in service.player_ratings()["players"]}
    assert live["Robert Novák"]["games"] == 1 and live["bob"]["games"] == 3  # bob's earlier games, not renamed
