"""What each address was last told of each game ("since your last mail") is kept as mail is
queued (``pbem_told``, in the queue's transaction), so a player's mail is built without reading
the queued mail back."""

from __future__ import annotations

from datetime import UTC, datetime

from pbem.mailroom.queue import DROPPED, Mail, views_for
from pbem.service.service import GameService
from tests.mailgateway.conftest import address_of, make_mail, started_pig
from tests.mailgateway.playbook import text_of

ANN, BOB = "ann@example.net", "bob@example.com"
NOW = datetime(2026, 11, 28, 12, tzinfo=UTC)


def _told_mail(key: str, version: int, status: str = "queued", decision: object = None) -> Mail:
    block = {"id": "g-1", "seat": 0, "version": version, "decision": decision}
    return Mail(key, ANN, {"kind": "turn", "game": block}, status=status)


def test_since_your_last_mail_reads_no_queued_mail(gw, transport, monkeypatch):
    game_id = started_pig(gw, transport, [ANN, BOB])
    asked: list[tuple[str, str]] = []
    views = gw.mailroom.views
    scan = views.latest_models
    monkeypatch.setattr(
        views, "latest_models", lambda to, text, *a, **k: asked.append((to, text)) or scan(to, text, *a, **k)
    )
    for _ in range(3):
        game = gw.service.game(game_id)
        mover = game.emails[game.spec.to_move(gw.service.state(game))[0]]
        gw.receive(make_mail(mover, address_of(gw, game_id, mover), "hold"))
        gw.work()
    assert "Since your last mail:" in text_of(transport.to(BOB)[-1])  # the positive control: the news is there
    assert asked == []  # and no queued mail was read back to find where it starts


def test_the_newest_version_told_is_kept_and_a_dropped_mail_tells_nothing(settings):
    service = GameService(settings)
    try:
        views = views_for(service.store)
        assert views.told(ANN, "g-1") is None
        views.enqueue([_told_mail("a", 5, status=DROPPED)], NOW, 1)
        assert views.told(ANN, "g-1") is None  # over a rate limit: never sent, so never told
        views.enqueue([_told_mail("b", 4, decision={"moves": ["roll"]})], NOW, 2)
        assert views.told(ANN, "g-1") == (4, {"moves": ["roll"]})
        views.enqueue([_told_mail("c", 3)], NOW, 3)  # an older version (a late notice) does not go back
        assert views.told(ANN, "g-1") == (4, {"moves": ["roll"]})
        views.enqueue([_told_mail("d", 4, decision="later")], NOW, 4)  # of one version, the one queued last
        assert views.told(ANN, "g-1") == (4, "later")
        views.enqueue([_told_mail("b", 9)], NOW, 5)  # a key queued before is not queued again: nothing told
        assert views.told(ANN, "g-1") == (4, "later")
        assert views.told(BOB, "g-1") is None
    finally:
        service.close()


def test_what_was_told_before_the_table_is_filled_once_from_the_queue(gw, transport):
    game_id = started_pig(gw, transport, [ANN, BOB])
    gw.receive(make_mail(ANN, address_of(gw, game_id, ANN), "hold"))
    gw.work()
    views = gw.mailroom.views
    told = {player: views.told(player, game_id) for player in (ANN, BOB)}
    assert all(told.values())
    with views.datastore.transaction(commit=True) as cursor:  # a database from before the table
        cursor.execute("DELETE FROM pbem_told")
        cursor.execute("DELETE FROM pbem_told_filled")
    assert views.told(ANN, game_id) is None  # the control: the rows are gone
    views_for(gw.service.store)  # the next process to open the views fills them in
    assert {player: views.told(player, game_id) for player in (ANN, BOB)} == told
