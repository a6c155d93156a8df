"""Games that never start expire (issue 32, docs/mail.md "Games that never start"), over real
SMTP with a test clock: after ``start-within`` days (14 when not given) every player is told in
their language, a join is refused, and the export still verifies."""

from __future__ import annotations

import pytest

from pbem.ledger.verify import export_bytes, verify_bytes
from pbem.mailroom.records import GameClock
from pbem.web import create_app
from tests.mailgateway.conftest import SERVICE, address_of, make_mail, text_of

ANN, BOB, CYRIL = "ann@example.org", "bob@example.org", "cyril@example.org"


def flat(text: str) -> str:
    return " ".join(text.split())


def send(smtp, gw, player: str, address: str, body: str) -> None:
    assert smtp(make_mail(player, address, body), player, address) == 250
    gw.work()


def created(gw, smtp, transport, options: str = "lang=en", game: str = "kingsburg") -> tuple[str, dict[str, str]]:
    """A game created by mail that only its creator joined."""
    before = set(gw.service.game_ids())
    send(smtp, gw, ANN, SERVICE, f"new {game} {ANN} {BOB} {options}")
    (game_id,) = set(gw.service.game_ids()) - before
    addresses = {}
    for player in (ANN, BOB):
        mails = transport.to(player)
        (invitation,) = [m for m in mails if m["X-Pbem-Kind"] == "invitation" and game_id in str(m["Reply-To"])]
        addresses[player] = str(invitation["Reply-To"])
    send(smtp, gw, ANN, addresses[ANN], "join")
    return game_id, addresses


def expired_mails(transport, player: str) -> list:
    return [m for m in transport.to(player) if m["X-Pbem-Kind"] == "expired"]


def expired(gw, game_id: str) -> str | None:
    clock = gw.service.record(GameClock.create_id(game_id, {}))
    return clock.expired_at() if clock is not None else None


def tick(gw) -> None:
    gw.work()
    gw.work()


def test_a_game_that_never_starts_expires_and_a_late_join_is_refused(gw, smtp, transport, clock):
    game_id, addresses = created(gw, smtp, transport, "lang=en start-within=3")
    clock.advance(days=2, hours=23)
    tick(gw)
    assert not expired(gw, game_id) and not expired_mails(transport, ANN), "not before its time"
    clock.advance(hours=1, minutes=1)
    tick(gw)
    assert expired(gw, game_id) == clock().isoformat(timespec="seconds")
    for player in (ANN, BOB):
        (notice,) = expired_mails(transport, player)
        said = flat(text_of(notice))
        assert f"Game {game_id} (Kingsburg) has expired: not every player joined within 3 days" in said, said
        assert "Never joined: bob." in said and "the game has expired" in notice["X-Pbem-State"].lower()
    version = gw.service.game(game_id).version
    transport.clear()
    send(smtp, gw, BOB, addresses[BOB], "join")
    reply = flat(text_of(transport.to(BOB)[-1]))
    assert f"Game {game_id} expired on 2026-01-08" in reply, reply
    send(smtp, gw, BOB, SERVICE, f"join {game_id}")  # the invitation is not sent again either
    assert f"Game {game_id} expired on" in flat(text_of(transport.to(BOB)[-1]))
    game = gw.service.game(game_id)
    assert game.version == version and not game.started
    tick(gw)
    assert len(expired_mails(transport, ANN)) == 0, "told once"
    assert verify_bytes(export_bytes(gw.service.export(game_id))).entries == version


def test_games_expire_after_fourteen_days_by_default(gw, smtp, transport, clock):
    game_id, _ = created(gw, smtp, transport)
    clock.advance(days=13, hours=23)
    tick(gw)
    assert not expired(gw, game_id)
    clock.advance(hours=1, seconds=1)
    tick(gw)
    assert expired(gw, game_id) and expired_mails(transport, BOB)


def test_a_game_that_started_in_time_does_not_expire(gw, smtp, transport, clock):
    game_id, addresses = created(gw, smtp, transport, "lang=en start-within=2")
    send(smtp, gw, BOB, addresses[BOB], "join")
    assert gw.service.game(game_id).started
    clock.advance(days=10)
    tick(gw)
    assert not expired(gw, game_id) and not expired_mails(transport, ANN)


def test_the_expiry_is_told_in_each_players_language(gw, smtp, transport, clock):
    game_id, _ = created(gw, smtp, transport, "lang=pl start-within=1", game="warriors-traders")
    clock.advance(days=1, minutes=1)
    tick(gw)
    assert expired(gw, game_id)
    (notice,) = expired_mails(transport, BOB)
    assert notice["Content-Language"] == "pl"
    assert "wygasła" in flat(text_of(notice)), text_of(notice)


def test_an_expired_game_says_so_on_the_site_and_in_status(gw, service, smtp, transport, clock):
    waiting, _ = created(gw, smtp, transport, "lang=en start-within=30")  # positive control: still waiting
    game_id, _ = created(gw, smtp, transport, "lang=en start-within=1")
    client = create_app(service).test_client()
    assert "waiting for players" in client.get(f"/games/{game_id}").get_data(as_text=True)  # the page is kept
    clock.advance(days=1, minutes=1)
    tick(gw)
    assert expired(gw, game_id) and not expired(gw, waiting)
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "expired" in page and "waiting for players" not in page
    assert "waiting for players" in client.get(f"/games/{waiting}").get_data(as_text=True)
    listed = client.get("/").get_data(as_text=True)
    assert game_id in listed and waiting in listed
    running = client.get("/?status=running").get_data(as_text=True)
    assert game_id not in running and waiting in running, "an expired game waits for nobody"
    assert game_id in client.get("/?status=finished").get_data(as_text=True)
    assert "vypršela" in client.get(f"/games/{game_id}", headers={"Accept-Language": "cs"}).get_data(as_text=True)
    for command, word in (("status", "expired"), ("stav", "vypršela"), ("stan", "wygasła")):
        transport.clear()
        send(smtp, gw, ANN, SERVICE, command)
        said = flat(text_of(transport.to(ANN)[-1]))
        assert f"{game_id} Kingsburg: {word}" in said, said
        assert f"{waiting} Kingsburg: " in said and f"{waiting} Kingsburg: {word}" not in said


def test_a_game_created_before_start_within_existed_never_expires(gw, smtp, transport, clock):
    """Its clock has no start-within (as mail-created games had before the option): a join
    more than 14 days after its creation sets no timer, the game goes on waiting and starts."""
    game_id = gw.service.create("kingsburg", [ANN, BOB, CYRIL])
    work = gw.service.work()
    work.add(GameClock(game_id, {"lang": "en", "invited_by": ANN}))  # the rules such a game was created with
    work.commit()
    gw.work()
    send(smtp, gw, ANN, address_of(gw, game_id, ANN), "join")
    clock.advance(days=20)
    send(smtp, gw, BOB, address_of(gw, game_id, BOB), "join")  # the game still waits for cyril
    tick(gw)
    clock.advance(days=1)
    tick(gw)
    assert not expired(gw, game_id) and not expired_mails(transport, ANN), "no timer for an old game"
    send(smtp, gw, CYRIL, address_of(gw, game_id, CYRIL), "join")
    assert gw.service.game(game_id).started


def test_a_new_game_keeps_its_default_expiry_positive_control(gw, smtp, transport, clock):
    game_id, _ = created(gw, smtp, transport)
    assert gw.service.record(GameClock.create_id(game_id, {})).rules["start-within"] == 14


def test_a_late_join_that_starts_the_game_wins_over_its_due_expiry(gw, smtp, transport, clock):
    game_id, addresses = created(gw, smtp, transport, "lang=en start-within=1")
    clock.advance(days=1, minutes=1)  # the expiry is due, the scheduler has not run yet
    send(smtp, gw, BOB, addresses[BOB], "join")
    tick(gw)
    assert gw.service.game(game_id).started
    assert not expired(gw, game_id) and not expired_mails(transport, ANN) and not expired_mails(transport, BOB)


@pytest.mark.parametrize("value", ["0", "91", "x", "7d", "-1", "1000"])
def test_start_within_is_bounded(gw, smtp, transport, value):
    send(smtp, gw, ANN, SERVICE, f"nova kingsburg {ANN} {BOB} start-within={value}")
    reply = flat(text_of([m for m in transport.to(ANN) if m["In-Reply-To"]][-1]))
    assert "odmítnuto" in reply and "start-within" in reply and "od 1 do 90" in reply, reply
    assert gw.service.game_ids() == []
