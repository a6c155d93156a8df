"""Isolation (issue 28): a notification the follower cannot turn into mail, a mail the sender
cannot send and a timer that cannot fire each become a visible dead letter with its error, and
the loop moves on to the others in the same round. Addresses are checked at the door."""

from __future__ import annotations

import pytest

from mailgateway.gateway import Gateway
from pbem.games.base import GameError
from pbem.mailroom.outbox import Outbox
from pbem.mailroom.scheduler import Scheduler
from pbem.service.service import GameService
from tests.mailgateway.conftest import SERVICE, address_of, make_mail, started_pig, text_of
from tests.mailgateway.playbook import state_of

ANN, BOB, CY, DEE = "ann@example.net", "bob@example.net", "cy@example.net", "dee@example.net"


@pytest.fixture
def any_gw(settings, mail_settings, clock, transport):
    """A gateway on SQLite and on PostgreSQL."""
    service = GameService(settings, clock=lambda: clock().isoformat(timespec="seconds"))
    yield Gateway(service, mail_settings, clock=clock, transport=transport)
    service.close()


def _move_is_answered(gw: Gateway, transport, game_id: str, player: str, key: str) -> bool:
    gw.receive(make_mail(player, address_of(gw, game_id, player), "roll", message_id=f"<{key}@example.net>"))
    gw.work()
    return any(m["In-Reply-To"] == f"<{key}@example.net>" for m in transport.to(player))


@pytest.mark.parametrize(
    "address", ["x\x00y@example.org", "ann\r\nbcc@example.org", "a@b\x7f.example", "a@" + "é" * 70 + ".cz"]
)
def test_an_address_no_later_stage_could_take_is_refused_at_the_door(service, address):
    with pytest.raises(GameError):
        service.create("hidden-pig", [ANN, address], {})


def test_an_international_address_is_let_in(service):
    game_id = service.create("hidden-pig", [ANN, "ä@ü.example"], {})
    assert service.game(game_id).emails == [ANN, "ä@ü.example"]


def test_a_notification_that_cannot_become_mail_is_a_dead_letter_and_the_follower_moves_on(
    any_gw, transport, monkeypatch
):
    gw = any_gw
    good = started_pig(gw, transport, [ANN, BOB])
    real = Outbox.mails_for

    def broken_for_one_game(outbox, round_, event, position):
        if getattr(event, "game_id", None) not in (None, good):  # the second game's events
            raise NotImplementedError("a view that was never written")
        return real(outbox, round_, event, position)

    monkeypatch.setattr(Outbox, "mails_for", broken_for_one_game)
    gw.service.create("hidden-pig", [CY, DEE], {}, seed=b"\x05" * 32)  # its invitations cannot be built
    assert _move_is_answered(gw, transport, good, ANN, "after-broken")
    (dead,) = gw.mailroom.dead_letters()
    assert dead.key.endswith("/unbuilt") and "NotImplementedError: a view that was never written" in (dead.error or "")


def test_a_value_postgresql_refuses_is_a_dead_letter_not_a_stop(
    postgres_url, tmp_path, mail_settings, clock, transport
):
    """Today's main: an invitee with a NUL (let in by an older door) stopped every mail on
    PostgreSQL, the follower retrying the same notification for ever."""
    from pbem.config import Settings

    service = GameService(Settings(home=tmp_path / "pg", database_url=postgres_url))
    gw = Gateway(service, mail_settings, clock=clock, transport=transport)
    try:
        good = started_pig(gw, transport, [ANN, BOB])
        record = service.writer._new_record  # the record as an older door let it in: no address check
        spec, _, options = service.checked_new("hidden-pig", [CY, DEE], {})
        service.store.save(record(spec, "hidden-pig-nul", [CY, "x\x00y@example.org"], options, b"\x06" * 32, True))
        assert _move_is_answered(gw, transport, good, ANN, "after-nul")
        (dead,) = gw.mailroom.dead_letters()
        assert "DataError" in (dead.error or "") and "\x00" not in (dead.error or "")
    finally:
        service.close()


def test_a_mail_the_sender_cannot_send_is_a_dead_letter_and_the_round_goes_on(any_gw, transport):
    gw = any_gw
    gw.receive(make_mail(ANN, SERVICE, "help"))
    gw.receive(make_mail(BOB, SERVICE, "help"))
    transport.failures.append(UnicodeEncodeError("ascii", "ä", 0, 1, "no SMTPUTF8"))  # the first mail's send
    gw.work()
    (dead,) = gw.mailroom.dead_letters()
    assert "UnicodeEncodeError" in (dead.error or "")
    assert len(transport.sent) == 1  # the other mail of the same round was sent


def test_a_timer_that_cannot_fire_is_a_dead_letter_and_the_others_fire(any_gw, transport, clock, monkeypatch):
    gw = any_gw
    broken = started_pig(gw, transport, [ANN, BOB], seed=b"\x07" * 32)
    good = started_pig(gw, transport, [CY, DEE], seed=b"\x08" * 32)
    real = Scheduler._fire

    def failing(scheduler, timer, now, round_):
        if timer.game_id == broken:
            raise RecursionError("maximum recursion depth exceeded")
        return real(scheduler, timer, now, round_)

    monkeypatch.setattr(Scheduler, "_fire", failing)
    clock.advance(hours=40)  # the reminders of both games come due
    gw.work()
    assert [(state_of(m), good in text_of(m)) for m in transport.to(CY)] == [("reminder, your turn - Turn 4", True)]
    dead = gw.mailroom.dead_letters()
    assert [d.key for d in dead] == [f"timer:{broken}/{gw.service.game(broken).version}/0/reminder"]
    assert "RecursionError" in (dead[0].error or "")
    monkeypatch.setattr(Scheduler, "_fire", real)
    transport.clear()
    assert gw.mailroom.retry(dead[0].key) == [dead[0].key]  # due again at once
    gw.work()
    reminder = ("reminder, your turn - Turn 4", True)
    assert [(state_of(m), broken in text_of(m)) for m in transport.to(ANN)] == [reminder], "the retried reminder fires"
    assert not [m for m in transport.sent if m[1] in (CY, DEE)], f"{good}'s reminder fired once"
