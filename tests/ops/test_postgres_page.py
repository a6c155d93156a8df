"""The follower's page on PostgreSQL is written with one statement per table
(``MailViews._record_page``): the tables it leaves are those the notifications written one
after another leave, also where notifications of one page overlap (a mail key twice, a game's
timers replaced twice, versions told out of order, a head lowered)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from eventsourcing.persistence import Tracking

from pbem.config import Settings
from pbem.mailroom.queue import DROPPED, Mail, Queued, Timer, views_for
from pbem.service.service import GameService
from tests.conftest import _database, _require_postgres

NOW = datetime(2026, 1, 1, tzinfo=UTC)
TABLES = ("pbem_mail", "pbem_told", "pbem_timers", "pbem_heads", "pbem_stranger_mail", "pbem_bounces")


def _seat_mail(key: str, to: str, game: str, version: int, decision: object, **extra: object) -> Mail:
    return Mail(key, to, {"game": {"id": game, "seat": 0, "version": version, "decision": decision}}, **extra)


def _timer(game: str, seat: int, version: int) -> Timer:
    return Timer(game, seat, "deadline", version, f"p{seat}@x", NOW, 24, NOW + timedelta(hours=version))


def _page() -> list[Queued]:
    first = [_seat_mail("a", "p0@x", "g1", 3, "x"), _seat_mail("b", "p1@x", "g1", 3, None, stranger=True)]
    second = [
        _seat_mail("a", "p0@x", "g1", 9, "dup"),  # a key queued twice: the first stays, tells nothing
        _seat_mail("c", "p0@x", "g1", 2, "older"),  # an older version told later: kept out
        _seat_mail("d", "p1@x", "g1", 3, "same"),  # the same version told later: wins
        _seat_mail("e", "p1@x", "g2", 7, "dropped", status=DROPPED),
    ]
    return [
        Queued(1, Tracking("mailroom", 1), first, ["g1"], [_timer("g1", 0, 1), _timer("g1", 1, 1)], {"g1": 5}),
        Queued(2, Tracking("mailroom", 2), second, ["g1"], [_timer("g1", 0, 2)], {"g1": 4}, cleared=["p2@x"]),
        Queued(3, Tracking("mailroom", 3), [], [], [_timer("g2", 0, 3)], {"g2": 1}),
    ]


def _tables(by_page: bool, home: Path) -> dict[str, list[tuple[object, ...]]]:
    with _database() as url:
        service = GameService(Settings(home=home, database_url=url))
        views = views_for(service)
        views.by_page = by_page
        with views.writing() as cursor:
            cursor.execute("INSERT INTO pbem_bounces (tag, address, time, permanent) VALUES ('t', 'p2@x', 'x', 1)")
        views.record(_page(), NOW)
        seen = {}
        with views.reading() as cursor:
            for table in TABLES:
                cursor.execute(f"SELECT * FROM {table}")  # the names above
                seen[table] = sorted(tuple(row.values()) for row in cursor.fetchall())
        position = views.max_tracking_id("mailroom")
        views.close()
        return seen | {"position": [(position,)]}


def test_a_page_written_at_once_leaves_what_one_notification_after_another_leaves(tmp_path):
    _require_postgres()
    by_page = _tables(True, tmp_path / "page")
    assert by_page == _tables(False, tmp_path / "one")
    assert by_page["position"] == [(3,)] and by_page["pbem_bounces"] == []  # positive controls
    assert len(by_page["pbem_mail"]) == 5 and len(by_page["pbem_timers"]) == 2
