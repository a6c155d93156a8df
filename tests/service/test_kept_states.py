"""Kept game states: every ``snapshot_interval`` entries the writer keeps the game's state, sealed,
so a new process reaches any past state by folding only the entries since the nearest one, and
those entries are checked against the checkpoint signed after them. A kept state the database
changed is not used; fsck names it."""

from __future__ import annotations

import dataclasses
import json
import sqlite3

import pytest

from benchmarks.longgame import register_games
from pbem.config import Settings
from pbem.games import catalog
from pbem.games.simulate import play_random
from pbem.service import states
from pbem.service.service import GameService
from tests.ops.helpers import PLAYERS

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")
register_games()  # long-pig: Hidden Pig with as many rounds as a test needs


def service(home, interval: int = 4) -> GameService:
    return GameService(Settings(home=home, snapshot_interval=interval))


def played(svc: GameService, moves: int) -> str:
    game_id = svc.create("long-pig", PLAYERS[:2], {"rounds": "100"}, seed=b"\x0e" * 32)
    for player in PLAYERS[:2]:
        svc.join(game_id, player)
    for number in range(moves):
        game = svc.game(game_id)
        command = "roll" if number % 3 else "hold"
        assert svc.submit(game_id, game.emails[game.spec.to_move(svc.state(game))[0]], command).ok
    return game_id


def folded(svc: GameService, game_id: str) -> list:
    """The state after every version, folded from the first entry (no cache, no kept state)."""
    game = svc.game(game_id)
    state, result = None, [None]
    for index in range(game.version):
        if game.entry(index)["kind"] in ("started", "moved"):
            for fact in game.private(index)["facts"]:
                state = game.spec.evolve(state, fact)
        result.append(state)
    return result


def test_the_writer_keeps_a_state_every_interval_of_entries(tmp_path):
    svc = service(tmp_path)
    game_id = played(svc, 12)
    sizes = [size for size, _ in svc.store.kept_states(game_id)]
    version = svc.game(game_id).version
    assert sizes and sizes == sorted(sizes)
    assert all(later - earlier <= 4 + 1 for earlier, later in zip([0, *sizes], sizes, strict=False))
    assert version - sizes[-1] < 4 + 1


def test_a_state_kept_already_at_its_size_is_left_and_the_move_is_stored(settings):
    settings = dataclasses.replace(settings, snapshot_interval=4)
    svc = GameService(settings)
    game_id = played(svc, 1)
    size = svc.game(game_id).version // 4 * 4 + 4  # the next size at which the writer keeps a state
    other = GameService(settings)  # another process kept it first
    assert other.store.keep_state(game_id, size, {"version": 0, "state": "", "frontier": [], "seal": "theirs"})
    other.close()
    while svc.game(game_id).version <= size:
        game = svc.game(game_id)
        assert svc.submit(game_id, game.emails[game.spec.to_move(svc.state(game))[0]], "roll").ok
    assert dict(svc.store.kept_states(game_id))[size]["seal"] == "theirs"


def counting_commits(svc: GameService) -> list[int]:
    """A list that grows by one at each commit of the store's SQLite connections."""
    commits: list[int] = []

    def count(connection):
        commit = connection.commit

        def counted() -> None:
            commits.append(1)
            commit()

        connection.commit = counted
        return connection

    pool = svc.store.factory.datastore.pool
    make = pool._create_connection
    pool._create_connection = lambda: count(make())
    for connection in list(pool._pool):
        count(connection)
    return commits


def test_a_move_keeps_its_state_and_its_record_snapshot_in_its_own_commit(tmp_path):
    svc = service(tmp_path)
    game_id = played(svc, 2)
    commits = counting_commits(svc)
    record_id = svc.store.game(game_id).id
    states_before = len(svc.store.kept_states(game_id))
    snapshots_before = len(list(svc.store.snapshots.get(record_id)))
    for moves in range(1, 10):
        game = svc.game(game_id)
        assert svc.submit(game_id, game.emails[game.spec.to_move(svc.state(game))[0]], "roll").ok
        assert len(commits) == moves  # one transaction per move, whatever it keeps
    assert len(svc.store.kept_states(game_id)) >= states_before + 2
    assert len(list(svc.store.snapshots.get(record_id))) >= snapshots_before + 2


def test_on_postgres_a_move_keeps_its_state_and_its_record_snapshot_in_its_own_call(
    tmp_path, postgres_url, monkeypatch
):
    """On PostgreSQL too the snapshots due go with the save (one call of the save function, one
    commit), not through the snapshot store afterwards."""
    svc = GameService(Settings(home=tmp_path, database_url=postgres_url, snapshot_interval=4))
    game_id = played(svc, 2)
    record_id = svc.store.game(game_id).id
    states_before = len(svc.store.kept_states(game_id))
    snapshots_before = len(list(svc.store.snapshots.get(record_id)))

    def afterwards(*args, **kwargs):
        raise AssertionError("a snapshot stored after its save")

    assert svc.store.snapshots is not None
    monkeypatch.setattr(svc.store.snapshots.recorder, "insert_events", afterwards)
    for _ in range(9):
        game = svc.game(game_id)
        assert svc.submit(game_id, game.emails[game.spec.to_move(svc.state(game))[0]], "roll").ok
    assert len(svc.store.kept_states(game_id)) >= states_before + 2
    assert len(list(svc.store.snapshots.get(record_id))) >= snapshots_before + 2
    svc.close()


def test_every_past_state_of_a_new_process_equals_the_fold_from_the_start(settings):
    settings = dataclasses.replace(settings, snapshot_interval=4)
    svc = GameService(settings)
    game_id = played(svc, 14)
    expected = folded(svc, game_id)
    assert len(svc.store.kept_states(game_id)) >= 3
    svc.close()
    for version in range(1, len(expected)):
        again = GameService(settings)  # a new process each time: nothing kept but the store
        assert again.state(again.game(game_id), version) == expected[version]
        again.close()


def test_a_past_state_in_a_new_process_reads_no_whole_log(tmp_path):
    svc = service(tmp_path)
    game_id = played(svc, 14)
    version = svc.game(game_id).version
    svc.close()
    again = service(tmp_path)
    game = again.game(game_id)
    again.state(game, version - 2)
    assert "log" not in game.__dict__ and not again.store._logs
    assert game.frozen is None


def test_a_move_in_a_new_process_reads_no_whole_log(tmp_path):
    svc = service(tmp_path)
    game_id = played(svc, 14)
    svc.close()
    again = service(tmp_path)
    game = again.game(game_id)
    assert again.submit(game_id, game.emails[game.spec.to_move(again.state(game))[0]], "hold").ok
    assert not again.store._logs
    assert again.fsck(game_id) is None  # and what it signed is sound


def test_a_kept_state_changed_in_the_database_is_not_used(tmp_path):
    svc = service(tmp_path)
    game_id = played(svc, 14)
    expected = folded(svc, game_id)
    size, stored = svc.store.kept_states(game_id)[-1]
    other_size, other = svc.store.kept_states(game_id)[0]
    svc.close()
    with sqlite3.connect(tmp_path / "pbem.sqlite") as db:  # an earlier state put in its place, seal and all
        rows = db.execute(
            "SELECT state FROM stored_snapshots WHERE instr(state, ?) > 0", (stored["seal"].encode(),)
        ).fetchall()
        assert len(rows) == 1
        changed = json.loads(rows[0][0])
        changed["state"]["state"] = other["state"]
        db.execute(
            "UPDATE stored_snapshots SET state = ? WHERE instr(state, ?) > 0",
            (json.dumps(changed).encode(), stored["seal"].encode()),
        )
    again = service(tmp_path)
    assert again.state(again.game(game_id), size) == expected[size] != expected[other_size]
    problem = again.fsck(game_id)
    assert problem and f"kept at {size} entries" in problem


def test_an_entry_changed_after_a_kept_state_freezes_the_game_when_a_past_state_reads_it(tmp_path):
    svc = service(tmp_path, interval=20)
    game_id = played(svc, 60)
    svc.store.take_snapshot(svc.store.game(game_id).id)  # the newest snapshot: a load hashes no entry
    assert 40 in [size for size, _ in svc.store.kept_states(game_id)]
    svc.close()
    with sqlite3.connect(tmp_path / "pbem.sqlite") as db:  # entry 42 (a roll) becomes a hold
        ((rowid, state),) = db.execute(
            "SELECT rowid, state FROM stored_events WHERE instr(state, ?) > 0", (b'"index":42,',)
        ).fetchall()
        db.execute(
            "UPDATE stored_events SET state = ? WHERE rowid = ?", (bytes(state).replace(b'"roll"', b'"hold"', 1), rowid)
        )
    again = service(tmp_path, interval=20)
    game = again.game(game_id)
    assert game.frozen is None  # the load checks the newest checkpoint; entry 42 is behind the snapshot
    again.state(game, 45)  # from the state kept at 40, folding entries 40 to 44
    assert game.frozen and "checkpoint signed at 45 entries" in game.frozen
    assert again.game(game_id).frozen == game.frozen


@pytest.mark.parametrize("name", sorted(catalog()))
def test_every_game_state_round_trips_through_its_stored_form(name):
    spec = catalog()[name]
    seen = []

    def step(before, seat, move, facts, after) -> None:
        if len(seen) % 5 == 0:
            assert states.unpack(states.pack(after), states.spec_modules(spec)) == after
        seen.append(after)

    play_random(spec, max(2, spec.min_players), 5, on_step=step)
    assert len(seen) > 5


def test_a_stored_state_cannot_name_a_class_outside_the_games():
    with pytest.raises(states.NotKept, match="outside the games"):
        states.decode({"c": "subprocess:Popen", "v": {}})
    with pytest.raises(states.NotKept, match="not a game's dataclass"):
        states.decode({"c": "pbem.games.base:replace_at", "v": {}})


def test_a_state_holding_a_float_has_no_stored_form():
    with pytest.raises(states.NotKept, match="float"):
        states.pack((1, 2.5))


def test_a_seal_binds_the_state_to_its_game_and_size():
    kept = states.kept(b"k" * 32, "g-1", 8, 5, (1, 2), ["00" * 32])
    assert states.unsealed(b"k" * 32, "g-1", 8, kept) is not None
    assert states.unsealed(b"k" * 32, "g-2", 8, kept) is None
    assert states.unsealed(b"k" * 32, "g-1", 9, kept) is None
    assert states.unsealed(b"x" * 32, "g-1", 8, kept) is None


def test_pbem_keep_states_keeps_the_states_of_a_game_played_without_them(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from pbem.cli import main

    old = service(tmp_path, interval=0)  # played before pbem kept states
    game_id = played(old, 12)
    expected = folded(old, game_id)
    assert old.store.kept_states(game_id) == []
    old.close()
    monkeypatch.setenv("PBEM_HOME", str(tmp_path))
    monkeypatch.setenv("PBEM_SNAPSHOT_INTERVAL", "4")

    first = CliRunner().invoke(main, ["keep-states"])
    again = CliRunner().invoke(main, ["keep-states", game_id])

    after = service(tmp_path)
    sizes = [size for size, _ in after.store.kept_states(game_id)]
    assert first.exit_code == 0 and f"{game_id}: {len(sizes)} kept" in first.output and len(sizes) >= 3
    assert again.exit_code == 0 and f"{game_id}: 0 kept" in again.output  # nothing kept twice
    after.close()
    for version in range(1, len(expected)):
        fresh = service(tmp_path)
        assert fresh.state(fresh.game(game_id), version) == expected[version]
        fresh.close()


def test_pbem_keep_states_names_an_unknown_game_and_exits_1(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from pbem.cli import main

    monkeypatch.setenv("PBEM_HOME", str(tmp_path))
    result = CliRunner().invoke(main, ["keep-states", "long-pig-00000000"])
    assert result.exit_code == 1 and "long-pig-00000000" in result.output
