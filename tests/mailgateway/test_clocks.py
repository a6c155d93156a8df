"""Correspondence clocks (``clock=BANK+MOVE``, ``weekend=off``, ``timezone``) over real SMTP, with
a clock the test moves (docs/mail.md, "Correspondence clocks")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pbem.ledger.verify import export_bytes, verify_bytes
from pbem.mailroom.clocks import banks, parse_clock, runs_out, stops_of, weekends, zone_of
from pbem.mailroom.commands import parse_command, parse_new
from pbem.mailroom.records import Correspondent
from tests.mailgateway.conftest import SERVICE, address_of, make_mail, text_of
from tests.mailgateway.playbook import state_of

ANN, BOB, CID = "ann@example.net", "bob@example.com", "cid@example.org"
PLAYERS = [ANN, BOB, CID]
T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)  # a Monday, the test clock's start


def kingsburg_by_mail(gw, smtp, options: str) -> str:
    """A three-player Kingsburg game that ann created by mail with ``options``, everyone
    joined: it starts with the King's aid, a step all three seats answer at once."""
    assert smtp(make_mail(ANN, SERVICE, f"new kingsburg {' '.join(PLAYERS)} {options}"), ANN, SERVICE) == 250
    gw.work()
    (game_id,) = gw.service.game_ids()
    for player in PLAYERS:
        gw.service.join(game_id, player)
    gw.work()
    game = gw.service.game(game_id)
    assert game.spec.to_move(gw.service.state(game)) == [0, 1, 2]
    return game_id


def mail_move(gw, smtp, game_id: str, player: str, text: str) -> None:
    address = address_of(gw, game_id, player)
    assert smtp(make_mail(player, address, text), player, address) == 250
    gw.work()


def left(gw, game_id: str) -> list[timedelta]:
    game = gw.service.game(game_id)
    found = gw.mailroom.clocks.time_left(game, game.version)
    assert found is not None
    return found


def due(gw, game_id: str, player: str) -> datetime:
    (timer,) = [t for t in gw.mailroom.views.timers_of(player) if t.kind == "deadline" and t.game_id == game_id]
    return timer.due


# -- the rules, pure ---------------------------------------------------------------------------
def test_a_seat_gains_the_increment_when_its_turn_ends_and_only_then():
    never: list = []
    turns = [
        (T0, frozenset({0, 1})),
        (T0 + timedelta(hours=5), frozenset({1})),  # seat 0 moved after 5 hours
        (T0 + timedelta(hours=8), frozenset({0})),  # seat 1 after 8; seat 0's turn again
        (T0 + timedelta(hours=10), frozenset({0})),
    ]
    found = banks(turns, 2, (48, 24, 60), lambda seat: stops_of(never, None))
    # seat 0: 48 - 5, then + 24 capped at 60, then 2 hours of its next turn; seat 1: 48 - 8 + 24, capped
    assert found == [timedelta(hours=60 - 2), timedelta(hours=60)]


def test_a_clock_that_ran_out_starts_its_next_turn_with_the_increment_only():
    turns = [(T0, frozenset({0})), (T0 + timedelta(hours=30), frozenset())]
    assert banks(turns, 1, (24, 6, 48), lambda seat: stops_of([], None)) == [timedelta(hours=6)]


def test_weekends_are_counted_in_each_time_zone():
    friday = datetime(2026, 1, 9, 12, 0, tzinfo=UTC)
    # Auckland (UTC+13): Friday noon UTC is already Saturday there; its Monday begins Sunday 11:00 UTC
    assert runs_out(friday, timedelta(hours=24), stops_of([], "Pacific/Auckland")) == datetime(
        2026, 1, 12, 11, 0, tzinfo=UTC
    )
    # Los Angeles (UTC-8): 20 hours run before Saturday begins there, 4 after Monday 08:00 UTC
    assert runs_out(friday, timedelta(hours=24), stops_of([], "America/Los_Angeles")) == datetime(
        2026, 1, 12, 12, 0, tzinfo=UTC
    )
    assert runs_out(friday, timedelta(hours=24), stops_of([], None)) == friday + timedelta(hours=24)  # control


def test_a_weekend_across_a_change_of_summer_time_is_two_local_days():
    (saturday,) = weekends("Europe/Prague", datetime(2026, 3, 27, tzinfo=UTC), datetime(2026, 3, 29, 12, tzinfo=UTC))
    assert saturday == (datetime(2026, 3, 27, 23, 0, tzinfo=UTC), datetime(2026, 3, 29, 22, 0, tzinfo=UTC))


def test_absences_stop_a_clock_too():
    stops = stops_of([["2026-01-06", "2026-01-06"]], None)
    assert runs_out(T0, timedelta(hours=24), stops) == T0 + timedelta(hours=48)


@pytest.mark.parametrize(
    ("line", "refused"),
    [
        ("new kingsburg a@x b@y clock=0d", "clock takes a time"),
        ("new kingsburg a@x b@y clock=99999d", "clock takes a time"),
        ("new kingsburg a@x b@y clock=7d+x", "clock takes a time"),
        ("new kingsburg a@x b@y clock.max=0", "clock.max takes a time"),
        ("new kingsburg a@x b@y clock.bank=3", "no option of clocks"),
        ("new kingsburg a@x b@y weekend=sometimes", "weekend is on or off"),
        ("new kingsburg a@x b@y vacation=400", "vacation takes a whole number of days"),
    ],
)
def test_clock_options_are_bounded_at_parse(line, refused):
    command = parse_command(line)
    with pytest.raises(ValueError, match=refused):
        parse_new(command.args)


def test_clock_options_as_stored():
    command = parse_command("new kingsburg a@x b@y clock=7d+1d clock.max=14d weekend=off vacation=10")
    assert parse_new(command.args).mail_options == {
        "clock": "168+24",
        "clock.max": "336",
        "weekend": "off",
        "vacation": "10",
    }
    assert parse_clock("36h") == (36, 0) and parse_clock("1d12h+2h") == (36, 2)


def test_time_zones_are_read_in_three_languages_and_bounded():
    assert [parse_command(line).name for line in ("timezone x", "časové pásmo x", "strefa czasowa x")] == [
        "timezone"
    ] * 3
    assert parse_command("Časové pásmo Europe/Prague").args == ("Europe/Prague",)
    assert zone_of("europe/prague") == "Europe/Prague"
    for bad in ("../../etc/passwd", "Mars/Olympus", "x" * 500, "Europe/Praha\x00"):
        assert zone_of(bad) is None


# -- by mail -----------------------------------------------------------------------------------
def test_three_seats_moving_hours_apart_each_keep_their_own_time(gw, smtp, transport, clock):
    """A simultaneous step: every seat's clock runs from the step's start, a move stops only its
    author's clock and adds the increment to it; the others' deadlines stay where they were."""
    game_id = kingsburg_by_mail(gw, smtp, "clock=2d+1d")
    start = gw.service.game(game_id).version
    assert due(gw, game_id, CID) == T0 + timedelta(hours=48)
    clock.advance(hours=5)
    mail_move(gw, smtp, game_id, ANN, "take gold")
    clock.advance(hours=3)
    transport.clear()
    mail_move(gw, smtp, game_id, BOB, "take wood")
    assert gw.service.game(game_id).version == start + 2
    assert left(gw, game_id) == [timedelta(hours=67), timedelta(hours=64), timedelta(hours=40)]
    assert due(gw, game_id, CID) == T0 + timedelta(hours=48)  # two moves later, still the step's start + 2 days
    (reply,) = transport.to(BOB)
    assert "cid: 1 day 16 hours 0 minutes (running)" in text_of(reply)
    assert "ann: 2 days 19 hours 0 minutes" in text_of(reply)
    clock.advance(hours=40, minutes=-1)  # a minute before cid's clock runs out: nothing
    transport.clear()
    gw.work()
    assert not [m for m in transport.to(CID) if "deadline passed" in state_of(m)]
    assert gw.service.game(game_id).version == start + 2
    clock.advance(minutes=1)
    gw.work()
    assert [m for m in transport.to(CID) if "deadline passed" in state_of(m)]
    entry = gw.service.game(game_id).entries[-1]
    assert (entry["source"], entry["seat"], entry["time"]) == ("deadline", 2, "2026-01-07T12:00:00+00:00")
    report = verify_bytes(export_bytes(gw.service.export(game_id)))  # what pbem verify checks
    assert report.entries == gw.service.game(game_id).version  # the recorded times, chained and signed


def test_a_clock_that_runs_out_plays_the_default_move(gw, smtp, transport, clock):
    """Hidden Pig has a default move (hold): a run-out clock plays it, marked as a deadline move."""
    assert smtp(make_mail(ANN, SERVICE, f"new hidden-pig {ANN} {BOB} clock=10h+2h"), ANN, SERVICE) == 250
    gw.work()
    (game_id,) = gw.service.game_ids()
    gw.service.join(game_id, ANN)
    gw.service.join(game_id, BOB)
    gw.work()
    clock.advance(hours=10)
    gw.work()
    entry = gw.service.game(game_id).entries[-1]
    assert (entry["source"], entry["seat"]) == ("deadline", 0)
    assert left(gw, game_id)[0] == timedelta(hours=2)  # nothing left, then the increment


def test_weekends_stop_each_clock_in_its_player_s_time_zone(gw, smtp, transport, clock):
    clock.advance(days=4)  # Friday 9 January, noon UTC
    game_id = kingsburg_by_mail(gw, smtp, "clock=1d weekend=off")
    friday = clock()
    # UTC until she names a zone: 12 hours on Friday, the other 12 from Monday 00:00
    assert due(gw, game_id, ANN) == friday + timedelta(days=3)
    mail_move(gw, smtp, game_id, ANN, "timezone Pacific/Auckland")
    mail_move(gw, smtp, game_id, BOB, "časové pásmo America/Los_Angeles")
    person = gw.mailroom.clocks.find(Correspondent.create_id(BOB))
    assert person.timezone == "America/Los_Angeles"
    assert due(gw, game_id, ANN) == datetime(2026, 1, 12, 11, 0, tzinfo=UTC)
    assert due(gw, game_id, BOB) == datetime(2026, 1, 12, 12, 0, tzinfo=UTC)
    assert due(gw, game_id, CID) == datetime(2026, 1, 12, 12, 0, tzinfo=UTC)  # UTC: Saturday and Sunday
    transport.clear()
    mail_move(gw, smtp, game_id, CID, "strefa czasowa Asia/Tokyo")
    (reply,) = transport.to(CID)
    assert "Asia/Tokyo" in text_of(reply)
    assert due(gw, game_id, CID) == datetime(2026, 1, 12, 12, 0, tzinfo=UTC)  # 3 hours Friday, 21 on Monday


def test_a_time_zone_at_the_service_address_is_confirmed_first(gw, smtp, transport):
    from tests.mailgateway.conftest import confirmed

    confirmed(gw, transport, ANN, "timezone Europe/Prague")
    assert gw.mailroom.clocks.find(Correspondent.create_id(ANN)).timezone == "Europe/Prague"
    transport.clear()
    gw.receive(make_mail(ANN, SERVICE, "timezone Mars/Olympus"))
    gw.work()
    (reply,) = transport.to(ANN)
    assert "refused" in text_of(reply) and "Europe/Prague" in text_of(reply)
