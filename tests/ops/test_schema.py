"""The stored event schema that upgrades must keep readable (docs/operations.md, "Upgrades")."""

from __future__ import annotations

import sqlite3

from eventsourcing.utils import resolve_topic

from pbem.ledger.entries import FORMAT
from pbem.service.store import GameRecord, Receipt
from tests.ops.helpers import PLAYERS, finished_game, service_at

TOPICS = {
    "pbem.service.store:GameRecord.Created": GameRecord.Created,
    "pbem.service.store:GameRecord.Appended": GameRecord.Appended,
    "pbem.service.store:Receipt.Recorded": Receipt.Recorded,
}


def test_the_documented_topics_are_the_stored_ones_and_resolve(tmp_path):
    svc = service_at(tmp_path)
    game_id = finished_game(svc)
    svc.create("hidden-pig", PLAYERS[:2], idempotency_key="<k@x>")
    svc.close()
    with sqlite3.connect(tmp_path / "pbem.sqlite") as db:
        stored = {row[0] for row in db.execute("SELECT DISTINCT topic FROM stored_events")}
    assert stored == set(TOPICS)
    for topic, cls in TOPICS.items():
        assert resolve_topic(topic) is cls
    again = service_at(tmp_path)
    assert all(entry["v"] == FORMAT == 1 for entry in again.game(game_id).entries)
