"""Deadlines, reminders, absences and the missed-turn policy, with a clock the test moves."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pbem.mailroom.deadlines import deadline_at, hours_for, reminder_lead
from pbem.mailroom.records import Correspondent
from tests.mailgateway.conftest import SERVICE, confirmed, make_mail, started_pig, text_of
from tests.mailgateway.playbook import state_of

ANN, BOB = "ann@example.net", "bob@example.com"
T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def test_deadline_arithmetic():
    assert deadline_at(T0, 0, []) is None
    assert deadline_at(T0, 48, []) == datetime(2026, 1, 7, 12, 0, tzinfo=UTC)
    # away the whole of 6 January: the clock stops for that day
    assert deadline_at(T0, 48, [["2026-01-06", "2026-01-06"]]) == datetime(2026, 1, 8, 12, 0, tzinfo=UTC)
    # an absence long before or after does not count
    assert deadline_at(T0, 48, [["2025-12-01", "2025-12-02"], ["2026-02-01", "2026-02-02"]]) == datetime(
        2026, 1, 7, 12, 0, tzinfo=UTC
    )
    rules = {"deadline": 48, "deadline.trade": 6}
    assert hours_for(rules, "Turn 3, Trade") == 6 and hours_for(rules, "turn 3, build") == 48


@pytest.fixture
def game(gw, transport):
    return started_pig(gw, transport, [ANN, BOB], rounds="3", seed=b"\x03" * 32)


def test_reminder_once_then_default_move_then_robot_after_two_misses(gw, transport, clock, game):
    clock.advance(hours=37)  # 11 hours before the 48-hour deadline, the reminder (12 hours) is due
    gw.work()
    gw.work()
    (reminder,) = transport.to(ANN)
    assert "reminder" in state_of(reminder) and "2026-01-07 12:00 UTC" in text_of(reminder)
    transport.clear()
    clock.advance(hours=12)  # past the deadline: the default move (hold) is played for ann
    gw.work()
    entry = gw.service.game(game).entries[-1]
    assert entry["source"] == "deadline" and entry["command"] == "hold" and entry["seat"] == 0
    notice = [m for m in transport.to(ANN) if "deadline passed" in state_of(m)]
    assert len(notice) == 1 and "Missed deadlines: 1 of 2" in text_of(notice[0])
    assert any("your turn" in state_of(m) for m in transport.to(BOB))
    gw.service.submit(game, BOB, ["hold"], source="cli")
    transport.clear()
    clock.advance(hours=49)
    gw.work()
    game_now = gw.service.game(game)
    assert 0 in game_now.robots and game_now.entries[-1]["kind"] in ("moved", "resigned", "ended")
    for player in (ANN, BOB):
        assert any("played by the robot" in state_of(m) for m in transport.to(player))


def test_a_missed_deadline_is_one_transaction_like_a_mail(gw, transport, clock, game):
    """The default move of a missed deadline and the robot taking the seat over are stored by
    one save: one signed checkpoint after both, none between them."""
    clock.advance(hours=49)
    gw.work()
    gw.service.submit(game, BOB, ["hold"], source="cli")
    clock.advance(hours=49)
    gw.work()
    played = gw.service.game(game)
    entries = played.entries
    moved = max(e["index"] for e in entries if e.get("source") == "deadline")
    resigned = next(e["index"] for e in entries if e["kind"] == "resigned")
    assert moved < resigned and entries[resigned]["reason"] == "missed-turns"
    sizes = [size for size, _ in played.checkpoints]  # one checkpoint per save
    assert not [size for size in sizes if moved < size <= resigned]


def test_absence_extends_the_deadline(gw, transport, clock, game):
    confirmed(gw, transport, ANN, "nepřítomnost 2026-01-06 2026-01-07")
    clock.advance(hours=50)
    gw.work()
    assert gw.service.game(game).entries[-1]["kind"] == "started"  # nothing played yet
    assert gw.mailroom.clocks.find(Correspondent.create_id(ANN)).absences == [["2026-01-06", "2026-01-07"]]
    clock.advance(hours=48)
    gw.work()
    assert gw.service.game(game).entries[-1]["source"] == "deadline"


def created_by_mail(gw, options: str) -> str:
    """A Hidden Pig game that ann created by mail with ``options``, both players joined."""
    gw.receive(make_mail(ANN, SERVICE, f"new hidden-pig {ANN} {BOB} {options}"))
    gw.work()
    (game_id,) = gw.service.game_ids()
    gw.service.join(game_id, ANN)
    gw.service.join(game_id, BOB)
    gw.work()
    return game_id


def test_wait_policy_only_tells_the_player(gw, transport, clock):
    game_id = created_by_mail(gw, "deadline=2 reminder=0 policy=wait")
    transport.clear()
    clock.advance(hours=3)
    gw.work()
    gw.work()
    version = gw.service.game(game_id).version
    (missed,) = transport.to(ANN)
    assert "missed the deadline" in state_of(missed) and "This game waits for you" in text_of(missed)
    clock.advance(hours=100)
    gw.work()
    assert gw.service.game(game_id).version == version and not gw.service.game(game_id).robots


@pytest.mark.parametrize(
    ("deadline", "wanted", "lead"),
    [
        (24, 24, 6),  # the default reminder with a one-day deadline: a quarter of it, not "at once"
        (72, 24, 18),  # the defaults: a quarter of 72 hours before
        (48, 12, 12),
        (4, 24, 1),  # at least one hour before
        (1, 24, 0),  # a deadline too short for a reminder
        (48, 0, 0),  # reminder=0: none
    ],
)
def test_the_reminder_lead_fits_the_deadline(deadline, wanted, lead):
    assert reminder_lead({"reminder": wanted}, deadline) == lead


def test_a_one_day_deadline_sends_one_reminder_six_hours_before_and_never_with_your_turn(gw, transport, clock):
    game_id = created_by_mail(gw, "rounds=3 deadline=24 reminder=24")
    gw.service.submit(game_id, ANN, ["hold"], source="cli")  # a quick answer: bob's turn, no reminder for ann
    gw.work()
    assert not [m for m in transport.to(ANN) + transport.to(BOB) if "reminder" in state_of(m)]
    clock.advance(hours=17, minutes=59)
    gw.work()
    assert not [m for m in transport.to(BOB) if "reminder" in state_of(m)]
    clock.advance(minutes=2)
    gw.work()
    gw.work()
    reminders = [m for m in transport.to(BOB) if "reminder" in state_of(m)]
    assert len(reminders) == 1 and "your turn" in state_of(reminders[0])
    assert reminders[0]["X-Pbem-Kind"] == "reminder"
    assert not [m for m in transport.to(ANN) if "reminder" in state_of(m)]


def test_the_robot_does_not_take_the_seat_of_a_player_whose_mail_bounces(gw, transport, clock, game):
    """Issue 28: a player whose mail comes back never heard of her turns; the default moves keep
    the game going, the robot waits, and the other player's mails say why she is silent."""
    for _ in range(3):
        gw.receive(make_mail(ANN, SERVICE, "help"))
    gw.work()
    for key, to, _ in transport.sent:  # three of our mails to ann bounce for good
        if to == ANN:
            gw.mailroom.views.bounced(gw.mailroom.views.get(key).return_tag, clock(), True)
    assert gw.mailroom.views.undeliverable(ANN)
    clock.advance(hours=49)
    gw.work()
    gw.service.submit(game, BOB, ["hold"], source="cli")
    transport.clear()
    clock.advance(hours=49)
    gw.work()
    played = gw.service.game(game)
    assert [e["source"] for e in played.entries if e.get("seat") == 0 and e["kind"] == "moved"] == ["deadline"] * 2
    assert 0 not in played.robots  # two misses, the limit, and still her seat
    assert any("keeps coming back undelivered" in " ".join(text_of(m).split()) for m in transport.to(BOB))
