"""The game-summary read model: a follower of the event store keeps one row per game, on
SQLite and on PostgreSQL, projecting each stored event once."""

from __future__ import annotations

import itertools

import pytest
from eventsourcing.persistence import Tracking

from pbem.cli.core import play_to_end
from pbem.games.base import ErrorCode, GameError
from pbem.games.text import name_seats
from pbem.service.service import GameService
from pbem.service.summaries import PAGE_SIZE, SummaryFollower, open_view, summarise
from tests.service.helpers import ANN, BOB, started_pig


def ticking_clock():
    """Each call one second later, so "newest activity first" has no ties."""
    counter = itertools.count()

    def clock() -> str:
        n = next(counter)
        return f"2030-01-01T{n // 3600:02d}:{n // 60 % 60:02d}:{n % 60:02d}+00:00"

    return clock


@pytest.fixture
def service(settings):
    svc = GameService(settings)
    yield svc
    svc.close()


def rows_by_id(follower: SummaryFollower) -> dict:
    listing = follower.list_games(None, None, 1)
    return {row.id: row for row in listing.rows}


def test_summary_rows_say_status_phase_whose_move_and_turn(service):
    follower = SummaryFollower(service)
    waiting = service.create("hidden-pig", [ANN, BOB])
    service.join(waiting, BOB)
    running = started_pig(service)
    finished = started_pig(service)
    play_to_end(service, finished, 1)

    rows = rows_by_id(follower)

    assert rows[waiting].status == "waiting_join" and rows[waiting].waiting_names == ["ann"]
    game = service.game(running)
    state = service.state(game)
    assert rows[running].status == "running"
    assert rows[running].phase_in("en") == name_seats(game.spec.phase_label(state), game.names)
    assert rows[running].waiting == list(game.spec.to_move(state))
    assert rows[running].turn == game.version
    assert rows[running].names == ["ann", "bob"]
    assert rows[finished].status == "finished" and rows[finished].waiting == []
    assert rows[finished].turn == service.game(finished).version
    assert rows[finished].last_activity == service.game(finished).entries[-1]["time"]


def test_catch_up_projects_only_the_events_stored_since(service):
    follower = SummaryFollower(service)
    game_id = started_pig(service)
    assert follower.catch_up() == 3  # created, joined, joined+started
    assert follower.catch_up() == 0
    game = service.game(game_id)
    seat = game.spec.to_move(service.state(game))[0]
    service.submit(game_id, game.emails[seat], "roll")
    assert follower.catch_up() == 1
    assert follower.position() == service.store.recorder.max_notification_id()


def test_status_filter_and_game_type_filter(service):
    follower = SummaryFollower(service)
    running = started_pig(service)
    finished = started_pig(service)
    play_to_end(service, finished, 1)
    assert [r.id for r in follower.list_games(None, "finished", 1).rows] == [finished]
    assert [r.id for r in follower.list_games(None, "running", 1).rows] == [running]
    assert follower.list_games("kingsburg", None, 1).rows == []
    assert {r.id for r in follower.list_games("hidden-pig", None, 1).rows} == {running, finished}


def test_pages_hold_fifty_games_newest_activity_first(settings):
    service = GameService(settings, clock=ticking_clock())
    try:
        made = [service.create("hidden-pig", [ANN, BOB]) for _ in range(PAGE_SIZE + 2)]
        service.join(made[0], ANN)  # the oldest game is now the most recently active
        follower = SummaryFollower(service)
        first, second = follower.list_games(None, None, 1), follower.list_games(None, None, 2)
        assert (first.total, first.pages, len(first.rows), len(second.rows)) == (PAGE_SIZE + 2, 2, PAGE_SIZE, 2)
        assert [r.id for r in first.rows] == [made[0], *made[:0:-1][: PAGE_SIZE - 1]]
        assert [r.id for r in second.rows] == [made[2], made[1]]
    finally:
        service.close()


def test_two_followers_on_one_view_agree_and_never_fail(service):
    one = SummaryFollower(service)
    other = SummaryFollower(service, open_view(service.settings.store_env(), service.settings.home))
    game_id = started_pig(service)
    one.catch_up()
    play_to_end(service, game_id, 1)
    # the other starts from the shared position; the first, not knowing, reads the same events
    # again, and its page is refused whole (the tracking is already further): no error
    assert other.catch_up() > 0
    one.catch_up_all()
    assert one.catch_up() == 0 and other.catch_up() == 0
    assert rows_by_id(one) == rows_by_id(other)
    assert rows_by_id(one)[game_id].status == "finished"
    other.close()


def test_a_row_is_never_replaced_by_an_older_notification(service):
    follower = SummaryFollower(service)
    game_id = started_pig(service)
    follower.catch_up()
    newest = follower.view.get(game_id)
    game = service.game(game_id)
    older = summarise(game_id, game.entries[:1], game.spec, None, 1)
    follower.view.save(older, Tracking("another-app", 1))  # a slow process committing late
    assert follower.view.get(game_id) == newest


def test_the_list_never_loads_a_game(service):
    follower = SummaryFollower(service)
    started_pig(service)
    follower.catch_up()

    def refuse(*args, **kwargs):
        raise AssertionError("the list loaded a game")

    service.game = refuse  # the instance attribute hides the method
    try:
        listing = follower.list_games(None, None, 1)
        assert listing.total == 1 and follower.count() == 1
    finally:
        del service.game


def test_an_event_whose_game_cannot_be_read_fails_only_its_row(service, monkeypatch):
    follower = SummaryFollower(service)
    game_id = started_pig(service)

    def broken(game, version=None):
        raise GameError(ErrorCode.INVALID, "rules bug")

    monkeypatch.setattr(service, "state", broken)
    assert follower.catch_up() == 3
    row = follower.view.get(game_id)
    assert (row.status, row.phase, row.waiting) == ("running", "", [])


def test_the_row_keeps_the_deadline_the_clock_gives_for_the_latest_event(service):
    from datetime import UTC, datetime, timedelta, timezone

    asked = []

    def clock(game, version, seat):
        asked.append((version, seat))
        return datetime(2031, 1, 2, 3 + seat, 4, tzinfo=timezone(timedelta(hours=1)))

    follower = SummaryFollower(service)
    follower.projection.deadline = clock
    game_id = started_pig(service)
    follower.catch_up_all()
    game = service.game(game_id)
    waiting = list(game.spec.to_move(service.state(game)))
    assert waiting and asked and {version for version, _ in asked} == {game.version}  # the latest event only
    first = min(datetime(2031, 1, 2, 3 + seat, 4, tzinfo=timezone(timedelta(hours=1))) for seat in waiting)
    assert follower.view.get(game_id).deadline == first.astimezone(UTC).isoformat()

    def broken(game, version, seat):
        raise OSError("the clock is gone")

    follower.projection.deadline = broken
    service.submit(game_id, ANN if waiting[0] == 0 else BOB, ["hold"], "cli")
    follower.catch_up_all()
    row = follower.view.get(game_id)
    assert row.turn == game.version + 1 and row.deadline is None  # listed, without a deadline


def test_the_list_asks_only_the_stores_position_while_nothing_is_new(service):
    follower = SummaryFollower(service)
    started_pig(service)
    position = follower.position_now()
    calls = []
    follower.catch_up = lambda *args: calls.append(args) or 0
    assert follower.position_now() == position and calls == []
    started_pig(service)
    follower.position_now()
    assert len(calls) == 1


def test_the_phase_is_kept_in_every_language_with_names_for_seats():
    """The games list reads the phase in the page's language, and never as "seat 1" (Kingdom
    Builder's phase says whose round it is)."""
    import json

    from pbem.games import catalog
    from pbem.games.base import SeededRng
    from pbem.games.simulate import fold
    from pbem.service.summary_view import GameSummary, phases

    spec = catalog()["kingdom-builder"]
    state = fold(spec, spec.setup(2, spec.normalize_options({}, 2), SeededRng("phase")))
    said = json.loads(phases(spec, state, ["ann", "bob"]))
    assert said["en"].startswith("round 1, ") and said["en"].endswith(("ann", "bob"))
    assert said["cs"].startswith("kolo 1, ") and said["pl"].startswith("runda 1, ")
    assert not any(word in text for text in said.values() for word in ("seat", "místo", "miejsce"))
    row = GameSummary("g", "kingdom-builder", ["ann", "bob"], "running", json.dumps(said), [0], 5, "")
    assert row.phase_in("pl") == said["pl"] and row.phase_in("de") == said["en"]
    assert GameSummary("g", "x", [], "running", "old English text", [], 1, "").phase_in("cs") == "old English text"
