"""Snapshots stay small: the game's record holds no log, so a snapshot of a long game is the size
of one of a short game; the entries come from the stored events. Databases written before (whose
snapshots held the whole log) still load, check and move."""

from __future__ import annotations

import copy

import pytest
from eventsourcing.domain import Snapshot

from pbem.config import Settings
from pbem.service.service import GameService
from pbem.service.store import GameRecord, game_uuid
from tests.ops.helpers import PLAYERS

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


def service(home, interval: int = 2) -> GameService:
    return GameService(Settings(home=home, snapshot_interval=interval))


def played(svc: GameService, moves: int, command: str = "hold") -> str:
    game_id = svc.create("hidden-pig", PLAYERS[:2], {"rounds": "5"}, seed=b"\x0d" * 32)
    for player in PLAYERS[:2]:
        svc.join(game_id, player)
    for _ in range(moves):
        game = svc.game(game_id)
        assert svc.submit(game_id, game.emails[game.spec.to_move(svc.state(game))[0]], command).ok
    return game_id


def snapshot_sizes(svc: GameService, game_id: str) -> list[int]:
    """Stored bytes of each snapshot of the game, oldest first."""
    return [len(stored.state) for stored in svc.store.snapshots.recorder.select_events(game_uuid(game_id))]


def test_a_snapshot_does_not_grow_with_the_game(tmp_path):
    svc = service(tmp_path)
    game_id = played(svc, 40, "roll")
    sizes = snapshot_sizes(svc, game_id)
    assert len(sizes) >= 15
    # the fifth snapshot (10 events) and the last (40 moves): the same fields, a few bytes apart,
    # besides the Merkle frontier: one hash (67 bytes as stored) per set bit of the size, at most 7 here
    assert max(sizes[4:]) - min(sizes[4:]) < 200 + 7 * 67
    snapshot = next(iter(svc.store.snapshots.get(game_uuid(game_id), desc=True, limit=1)))
    assert not {"entries", "privates", "checkpoints"} & set(snapshot.state)


def test_entries_come_from_the_events_and_match_the_old_whole_log(tmp_path):
    svc = service(tmp_path)
    game_id = played(svc, 8)
    expected = copy.deepcopy(svc.export(game_id))
    svc.close()
    again = service(tmp_path)  # a new process: nothing kept
    game = again.game(game_id)
    assert game.frozen is None
    assert again.export(game_id) == expected
    assert [e["index"] for e in game.entries] == list(range(game.version))
    assert game.entry(game.version - 1) == game.last == game.entries[-1]


def _old_shape_snapshot(svc: GameService, game_id: str, version: int) -> Snapshot:
    """A snapshot as the store wrote it before the log moved out of the record (class version 1:
    the whole log in the aggregate's state)."""
    entries, privates, checkpoints = [], [], []
    for stored in svc.store.events.get(game_uuid(game_id), lte=version):
        entries.extend(stored.entries)
        privates.extend(stored.privates)
        checkpoints.append([len(entries), stored.checkpoint])
    state = {"game_id": game_id, "entries": entries, "privates": privates, "checkpoints": checkpoints}
    return Snapshot(
        originator_id=game_uuid(game_id),
        originator_version=version,
        timestamp=Snapshot.create_timestamp(),
        topic="pbem.service.store:GameRecord",
        state=state,
    )


def test_a_database_with_old_whole_log_snapshots_still_loads_and_moves(tmp_path):
    svc = service(tmp_path, interval=1000)
    game_id = played(svc, 9)
    expected = copy.deepcopy(svc.export(game_id))
    state = svc.state(svc.game(game_id))
    version = svc.game(game_id).record.version
    svc.store.snapshots.put([_old_shape_snapshot(svc, game_id, version - 2)])
    svc.close()

    again = service(tmp_path)
    record = again.store.repository.get(game_uuid(game_id))  # from the old snapshot + 2 events
    assert isinstance(record, GameRecord) and not hasattr(record, "entries")
    game = again.game(game_id)
    assert game.frozen is None
    assert game.version == len(expected["entries"]) and game.joined == {0, 1}
    assert again.export(game_id) == expected
    assert again.state(game) == state
    mover = game.emails[game.spec.to_move(again.state(game))[0]]
    assert again.submit(game_id, mover, "hold").ok
    assert again.game(game_id).version > game.version and again.game(game_id).frozen is None


def test_a_record_that_disagrees_with_its_events_freezes_the_game(tmp_path):
    """A snapshot is stored data too: one whose newest entry is not the stored one is caught."""
    svc = service(tmp_path, interval=1000)
    game_id = played(svc, 4)
    version = svc.game(game_id).record.version
    forged = _old_shape_snapshot(svc, game_id, version)
    forged.state["entries"][-1] = dict(forged.state["entries"][-1], command="roll")
    svc.store.snapshots.put([forged])
    svc.close()
    game = service(tmp_path).game(game_id)
    assert game.frozen and "record" in game.frozen


def test_every_snapshot_is_the_record_its_events_give(tmp_path):
    """Snapshots are taken from the record just saved, not rebuilt from the database: each must
    hold exactly what replaying the game's events up to its version gives."""
    svc = service(tmp_path, interval=3)
    game_id = played(svc, 12, "roll")
    events = list(svc.store.events.get(game_uuid(game_id)))
    snapshots = list(svc.store.snapshots.get(game_uuid(game_id)))
    assert [s.originator_version for s in snapshots] == [v for v in range(1, len(events) + 1) if v % 3 == 0]
    for snapshot in snapshots:
        replayed = None
        for stored in events[: snapshot.originator_version]:
            replayed = stored.mutate(replayed)
        assert snapshot.mutate(None).__dict__ == replayed.__dict__


def test_a_writers_append_stores_the_event_the_decorated_append_stores(tmp_path):
    """``append_hashed`` triggers the event without the decorator: the same event, the same
    record, and replaying the stored event gives that record again."""
    from pbem.ledger.canonical import canonical_bytes
    from pbem.ledger.merkle import leaf_hash
    from pbem.service.es_adapter import copy_aggregate as _copy

    svc = service(tmp_path, interval=0)
    record = svc.store.game(played(svc, 3))
    assert record is not None
    entry = dict(record.last, index=record.size)
    private = {"facts": [], "salts": []}
    by_decorator, by_writer = _copy(record), _copy(record)
    by_decorator.append([entry], [private], "note")
    by_writer.append_hashed([entry], [private], "note", [leaf_hash(canonical_bytes(entry))])
    (made,), (triggered,) = by_decorator.collect_events(), by_writer.collect_events()
    assert type(triggered) is type(made) is GameRecord.Appended
    assert {**vars(triggered), "timestamp": None} == {**vars(made), "timestamp": None}
    assert {**vars(by_writer), "_modified_on": None} == {**vars(by_decorator), "_modified_on": None}
    replayed = svc.store.mapper.to_domain_event(svc.store.mapper.to_stored_event(triggered)).mutate(_copy(record))
    assert {**vars(replayed), "_modified_on": None} == {**vars(by_writer), "_modified_on": None}
