"""The benchmarks' bulk store (a ``PbemStore`` made without the snapshot settings) keeps up with
the store it stands for: a long game built through it is the game the service reads, and a replay
of every stored event gives the same state. (`python -m benchmarks` broke when the store gained
its wakeup and the bulk store did not: no test ran the benchmarks' own set-up.)"""

from __future__ import annotations

from benchmarks.longgame import EventsOnlyStore, build, register_games
from benchmarks.measure import _replayed, service_at


def test_the_benchmarks_long_game_is_built_and_replayed_from_every_event(tmp_path):
    register_games()
    svc = service_at(tmp_path)
    try:
        built = build(svc, 40, seed=1)
        replay_store = EventsOnlyStore(svc.settings.store_env())
        try:
            replayed = _replayed(replay_store, built.game_id)
            served = svc.game(built.game_id)
            assert built.entries > 10 and served.version == replayed.version == built.entries
            assert svc.state(served) == svc.state(replayed)
        finally:
            replay_store.close()
    finally:
        svc.close()
