"""Correspondence clocks (``clock=BANK+MOVE``, ``weekend=off``, ``timezone``) over real SMTP, with
a clock the test moves (docs/mail.md, "Correspondence clocks")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.ledger.verify import export_bytes, verify_bytes
from pbem.mailroom.clocks import banks, parse_clock, runs_out, stops_of, weekends, zone_of
from pbem.mailroom.commands import parse_command, parse_new
from pbem.mailroom.deadlines import Clocks
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


def flat(text: str) -> str:
    """A mail's text with its lines joined (the text part is wrapped at 72 characters)."""
    return " ".join(text.split())


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


# -- vacation that is fair ---------------------------------------------------------------------
def test_vacation_days_are_counted_per_year_and_once_per_day():
    from pbem.mailroom.vacations import spend

    assert spend([], 0, "2026-02-02", "2026-02-04", 5) == {"new": 3, "year": 2026, "left": 2}
    taken = [[0, "2026-02-02", "2026-02-04"], [1, "2026-03-01", "2026-03-10"]]  # seat 1's days are its own
    assert spend(taken, 0, "2026-02-04", "2026-02-05", 5) == {"new": 1, "year": 2026, "left": 1}
    assert spend(taken, 0, "2026-02-10", "2026-02-12", 5) == {"new": 3, "year": 2026, "left": 2, "over": 1}
    # across New Year: two days in each year, so a budget of 2 a year is enough
    assert spend([], 0, "2026-12-30", "2027-01-02", 2) == {"new": 4, "year": 2026, "left": 0}


def test_an_absence_spends_vacation_is_announced_and_is_refused_when_over_budget(gw, smtp, transport, clock):
    game_id = kingsburg_by_mail(gw, smtp, "clock=2d+1d vacation=5")
    transport.clear()
    mail_move(gw, smtp, game_id, ANN, "dovolená 2026-01-06 2026-01-08")  # Czech, three days
    (reply,) = transport.to(ANN)
    assert "3 days of vacation taken, 2 of 5 left in 2026" in flat(text_of(reply))
    for other in (BOB, CID):  # announced at once, by the same round
        (notice,) = transport.to(other)
        assert "ann is away" in state_of(notice)
        assert "ann is away from 2026-01-06 to 2026-01-08" in flat(text_of(notice)) and "2 left this year" in flat(
            text_of(notice)
        )
    assert due(gw, game_id, ANN) == T0 + timedelta(days=5)  # her clock stood still for three days
    assert due(gw, game_id, BOB) == T0 + timedelta(days=2)  # positive control: bob's did not
    transport.clear()
    mail_move(gw, smtp, game_id, ANN, "absence 2026-02-10 2026-02-12")  # three more: over the budget
    (reply,) = transport.to(ANN)
    assert "refused" in flat(text_of(reply)) and f"in game {game_id} in 2026, but 2 days of 5 are left" in flat(
        text_of(reply)
    )
    assert not transport.to(BOB) and not transport.to(CID)  # nothing announced
    assert gw.mailroom.clocks.find(Correspondent.create_id(ANN)).absences == [["2026-01-06", "2026-01-08"]]
    transport.clear()
    mail_move(gw, smtp, game_id, ANN, "urlop 2026-01-08 2026-01-09")  # Polish; one day is new
    assert "1 day of vacation taken, 1 of 5 left in 2026" in flat(text_of(transport.to(ANN)[0]))
    assert "ann is away from 2026-01-08 to 2026-01-09" in flat(text_of(transport.to(BOB)[0]))
    report = verify_bytes(export_bytes(gw.service.export(game_id)))
    assert report.entries == gw.service.game(game_id).version


def test_an_absence_loads_only_the_running_games_of_its_sender(gw, smtp, transport, clock):
    """An absence spends vacation in the games its sender plays: it loaded every game of the
    server to find them, and the game it was sent to twice. It finds them in the players' read
    model and loads only those that are running, each once: others' games, the sender's
    finished game and the one still waiting for players are not loaded."""
    from pbem.cli.core import play_to_end

    game_id = kingsburg_by_mail(gw, smtp, "clock=2d+1d vacation=5")
    others = ["dan@example.org", "eve@example.org"]
    for seed in range(3):  # games the sender has no seat in
        gw.service.create("hidden-pig", others, seed=bytes([seed]) * 32)
    finished = gw.service.create("hidden-pig", [ANN, BOB], seed=b"\x05" * 32)
    play_to_end(gw.service, finished, seed=1)
    gw.service.create("hidden-pig", [ANN, CID])  # waits for its players
    second = gw.service.create("hidden-pig", [BOB, ANN])  # running: the absence is paid there too
    for player in (BOB, ANN):
        gw.service.join(second, player)
    gw.work()
    gw.service.summaries_of(ANN, 1)  # the read models caught up, as the followers keep them on a server
    address = address_of(gw, game_id, ANN)
    loads = gw.service.loads
    assert gw.receive(make_mail(ANN, address, "absence 2026-01-06 2026-01-07")) == "processed"
    # the two running games, once each; twice over, since a mail that adds no entry to its game
    # is planned again on a fresh read before it is saved (``Work.commit``)
    assert gw.service.loads - loads == 2 * 2
    gw.work()
    said = flat(text_of(transport.to(ANN)[-1]))
    assert "2 days of vacation taken, 3 of 5 left in 2026" in said and "19 of 21" in said


def test_the_default_vacation_is_21_days_a_year(gw, smtp, transport):
    game_id = kingsburg_by_mail(gw, smtp, "")
    transport.clear()
    mail_move(gw, smtp, game_id, BOB, "absence 2026-03-01 2026-03-22")  # 22 days
    assert "refused" in flat(text_of(transport.to(BOB)[0])) and "0 days of 21" not in flat(
        text_of(transport.to(BOB)[0])
    )
    assert "21 days of 21 are left" in flat(text_of(transport.to(BOB)[0]))
    transport.clear()
    mail_move(gw, smtp, game_id, BOB, "absence 2026-03-01 2026-03-21")
    assert "21 days of vacation taken, 0 of 21 left in 2026" in flat(text_of(transport.to(BOB)[0]))


def test_absences_stored_before_vacations_keep_stopping_the_clock(gw, smtp, transport, clock):
    """An absence recorded before budgets existed (no ``VacationTaken`` anywhere) still counts."""
    work = gw.service.work("test:old-absence")
    person = work.aggregate(Correspondent.create_id(CID), lambda: Correspondent(CID))
    person.add_absence("2026-01-06", "2026-01-06")
    work.commit()
    game_id = kingsburg_by_mail(gw, smtp, "clock=2d")
    assert due(gw, game_id, CID) == T0 + timedelta(days=3)
    assert due(gw, game_id, ANN) == T0 + timedelta(days=2)


@pytest.mark.parametrize("game_type", ["kingsburg", "kingdom-builder", "warriors-traders", "ruse-and-bruise"])
def test_clocks_in_every_game(gw, smtp, transport, clock, game_type):
    """Each of the four games by mail with ``clock=1d+2h``: a first move 5 hours in takes 5
    hours from its author and adds 2 when the turn passes; a seat still waited on keeps its
    deadline; a seat that is now waited on has its whole bank from now."""
    assert smtp(make_mail(ANN, SERVICE, f"new {game_type} {' '.join(PLAYERS)} clock=1d+2h"), ANN, SERVICE) == 250
    gw.work()
    (game_id,) = gw.service.game_ids()
    for player in PLAYERS:
        gw.service.join(game_id, player)
    gw.work()
    game = gw.service.game(game_id)
    before = set(game.spec.to_move(gw.service.state(game)))
    for seat in before:
        assert due(gw, game_id, PLAYERS[seat]) == T0 + timedelta(days=1)
    mover = min(before)
    line = game.spec.legal_texts(gw.service.state(game), mover, limit=1)[0]
    clock.advance(hours=5)
    transport.clear()
    mail_move(gw, smtp, game_id, PLAYERS[mover], line)
    game = gw.service.game(game_id)
    assert game.entries[-1]["kind"] == "moved" and game.entries[-1]["seat"] == mover
    after = set(game.spec.to_move(gw.service.state(game)))
    times = left(gw, game_id)
    assert times[mover] == timedelta(hours=19 if mover in after else 21)
    for seat in after - {mover}:
        start = T0 if seat in before else clock()
        assert due(gw, game_id, PLAYERS[seat]) == start + timedelta(days=1)
    assert "Time left on the clocks:" in text_of(transport.to(PLAYERS[mover])[0])
    assert verify_bytes(export_bytes(gw.service.export(game_id))).entries == game.version


def test_a_robot_played_seat_shows_no_time_left(gw, smtp, transport, clock):
    """A seat the house robot plays has no clock that anyone waits on: the turn mails listed
    its time left like a player's. They say the robot plays it; the players' times stay."""
    game_id = kingsburg_by_mail(gw, smtp, "clock=2d+1d")
    gw.service.resign(game_id, CID)
    gw.work()
    transport.clear()
    mail_move(gw, smtp, game_id, ANN, "take gold")
    text = flat(text_of(transport.to(ANN)[0]))
    clocks = text.split("Time left on the clocks:")[1]
    assert "cid: the house robot plays (no clock)" in clocks
    assert "cid: 1 day" not in clocks and "cid: 2 days" not in clocks
    assert "ann: 3 days 0 hours" in clocks  # positive control: a player's time (bank and move)


def test_a_change_folds_only_the_new_entries(gw, smtp, transport, clock, monkeypatch):
    """The waits of a clock game are kept per process: after a move, the time left is brought
    forward by the states of the new entries only."""
    game_id = kingsburg_by_mail(gw, smtp, "clock=2d+1d")
    left(gw, game_id)
    mail_move(gw, smtp, game_id, ANN, "take gold")
    asked: list[int] = []
    turn = Clocks._turn
    monkeypatch.setattr(Clocks, "_turn", lambda self, game, version: asked.append(version) or turn(self, game, version))
    game = gw.service.game(game_id)
    assert gw.mailroom.clocks.time_left(game, game.version)[0] == timedelta(hours=48 + 24)
    assert asked == []  # the follower's round already brought it forward
    mail_move(gw, smtp, game_id, BOB, "take gold")
    assert asked == [game.version + 1]  # one new entry, one new state


def test_a_zone_this_machine_no_longer_knows_counts_as_utc():
    assert weekends("Gone/Nowhere", T0, T0 + timedelta(days=7)) == weekends("UTC", T0, T0 + timedelta(days=7))
    assert weekends("UTC", T0, T0 + timedelta(days=7)) == [
        (datetime(2026, 1, 10, tzinfo=UTC), datetime(2026, 1, 12, tzinfo=UTC))
    ]


@given(
    steps=st.lists(
        st.tuples(st.integers(0, 80), st.frozensets(st.integers(0, 2), max_size=3)), min_size=1, max_size=12
    ),
    zone=st.sampled_from([None, "UTC", "Europe/Prague", "America/Los_Angeles"]),
    rules=st.tuples(st.integers(1, 100), st.integers(0, 30), st.integers(1, 150)),
)
def test_banks_match_an_hour_by_hour_count(steps, zone, rules):
    """``banks`` against the rules counted the slow way: hour by hour, a seat's clock runs while
    the game waits on it and it is no weekend in its zone; the increment comes when its turn ends."""
    from zoneinfo import ZoneInfo

    turns, time = [], T0
    for hours, waiting in steps:
        turns.append((time, waiting))
        time += timedelta(hours=hours)
    bank, move, cap = rules
    slow = [bank] * 3
    for (start, waiting), (end, after) in pairwise(turns):
        for seat in waiting:
            hour = start
            while hour < end:
                local = hour.astimezone(ZoneInfo(zone)) if zone else None
                if local is None or local.weekday() < 5:
                    slow[seat] -= 1
                hour += timedelta(hours=1)
            if seat not in after:
                slow[seat] = min(cap, max(slow[seat], 0) + move)
    found = banks(turns, 3, rules, lambda seat: stops_of([], zone))
    assert found == [timedelta(hours=h) for h in slow]
