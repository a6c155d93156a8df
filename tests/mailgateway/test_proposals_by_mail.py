"""Proposals and votes by mail over real SMTP with a test clock (issue 32, docs/mail.md
"Proposals and votes"): a pause, an end and a kick pass when every other player accepts and
fail when one declines or when the votes lapse; every proposal and vote is an entry of the log,
and ``pbem verify`` passes on the exports."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pbem.ledger import proposals
from pbem.ledger.ratings import ratings, result_of
from pbem.ledger.verify import export_bytes, verify_bytes
from pbem.web import create_app
from tests.mailgateway.conftest import SERVICE, make_mail, text_of
from tests.mailgateway.test_people_by_mail import ANN, BOB, GAMES, flat, invitation_address, last_reply, send

CYRIL = "cyril@example.org"


def started(
    gw, smtp, transport, game: str, players=(ANN, BOB), deadline: str = "30", options: str = ""
) -> tuple[str, dict[str, str]]:
    """A game created and joined by mail over SMTP (in Czech, 30-hour deadlines unless told)."""
    before = set(gw.service.game_ids())
    body = f"new {game} {' '.join(players)} lang=cs {options}" + (f" deadline={deadline}" if deadline else "")
    assert smtp(make_mail(ANN, SERVICE, body), ANN, SERVICE) == 250
    gw.work()
    (game_id,) = set(gw.service.game_ids()) - before
    addresses = {player: invitation_address(transport, player, game_id) for player in players}
    for player, address in addresses.items():
        send(smtp, gw, player, address, "join")
    return game_id, addresses


def kinds_since(gw, game_id: str, version: int) -> list[str]:
    return [e["kind"] for e in gw.service.game(game_id).entries[version:]]


def due(gw, game_id: str, player: str):
    timers = [t for t in gw.mailroom.views.timers_of(player) if t.kind == "deadline" and t.game_id == game_id]
    return timers[0].due if timers else None


def waited(gw, game_id: str) -> str:
    game = gw.service.game(game_id)
    return game.emails[min(game.spec.to_move(gw.service.state(game)))]


def verified(gw, game_id: str):
    report = verify_bytes(export_bytes(gw.service.export(game_id)))
    assert report.entries == gw.service.game(game_id).version
    return report


def proposal_mail(transport, player: str):
    (mail,) = [m for m in transport.to(player) if m["X-Pbem-Kind"] == "proposal"]
    return mail


@pytest.mark.parametrize("game", GAMES)
def test_a_pause_accepted_by_every_other_player_stops_the_deadlines(gw, smtp, transport, clock, game):
    game_id, addresses = started(gw, smtp, transport, game)
    version = gw.service.game(game_id).version
    clock.advance(hours=2)
    transport.clear()
    send(smtp, gw, ANN, addresses[ANN], "návrh pauza 7d")
    assert "odmítnuto" not in last_reply(transport, ANN), last_reply(transport, ANN)
    number = version + 1
    asked = proposal_mail(transport, BOB)
    assert f'"přijmout {number}"' in flat(text_of(asked)) and f'"odmítnout {number}"' in flat(text_of(asked))
    assert kinds_since(gw, game_id, version) == ["proposed"], "a proposal is an entry; nothing decided yet"
    clock.advance(hours=3)
    transport.clear()
    send(smtp, gw, BOB, str(asked["Reply-To"]), f"přijmout {number}")
    assert kinds_since(gw, game_id, version) == ["proposed", "voted", "decided"]
    decided = gw.service.game(game_id).entries[-1]
    assert decided["passed"] is True
    (told,) = [m for m in transport.to(ANN) if m["X-Pbem-Kind"] == "decided"]
    assert f"Návrh {number} prošel" in flat(text_of(told)), flat(text_of(told))
    waiting = waited(gw, game_id)
    assert due(gw, game_id, waiting) == clock() + timedelta(days=7, hours=30), "the deadline counts after the pause"
    page = create_app(gw.service).test_client().get(f"/games/{game_id}/history?lang=en").get_data(as_text=True)
    assert "ann proposes to pause the game for 7 days." in page and f"Proposal {number} passed" in page
    lines = [line for row in gw.service.reader.history(game_id) for line in row["lines"]]
    assert any(line.startswith(f"Proposal {number} passed") for line in lines), "pbem history says it too"
    verified(gw, game_id)


def test_a_pause_stops_a_correspondence_clock(gw, smtp, transport, clock):
    game_id, addresses = started(gw, smtp, transport, "kingsburg", deadline="", options="clock=3d+0h")
    clock.advance(hours=5)
    send(smtp, gw, ANN, addresses[ANN], "propose pause 2")
    waiting = waited(gw, game_id)
    before = due(gw, game_id, waiting)
    assert before is not None and before < clock() + timedelta(days=3), "the bank ran 5 hours already"
    send(smtp, gw, BOB, addresses[BOB], "accept")
    game = gw.service.game(game_id)
    assert game.entries[-1]["kind"] == "decided" and game.entries[-1]["passed"]
    start = clock()
    assert gw.mailroom.clocks.pauses(game) == ((start, start + timedelta(days=2)),)
    assert due(gw, game_id, waiting) == before + timedelta(days=2), "the clock stands still for the pause"
    clock.advance(hours=30)  # inside the pause: a message makes an entry, and the bank has not run
    left = gw.mailroom.clocks.time_left(game, game.version)
    send(smtp, gw, BOB, addresses[BOB], "tell all: still here")
    later = gw.service.game(game_id)
    assert later.version == game.version + 1, "the message is an entry"
    assert gw.mailroom.clocks.time_left(later, later.version) == left


@pytest.mark.parametrize("game", GAMES)
def test_an_end_accepted_by_every_other_player_ends_the_game_as_a_draw(gw, smtp, transport, game):
    game_id, addresses = started(gw, smtp, transport, game)
    version = gw.service.game(game_id).version
    send(smtp, gw, ANN, addresses[ANN], "propozycja koniec")
    transport.clear()
    send(smtp, gw, BOB, addresses[BOB], f"akceptuj {version + 1}")
    loaded = gw.service.game(game_id)
    assert loaded.ended and kinds_since(gw, game_id, version) == ["proposed", "voted", "decided", "ended"]
    assert [s.rank for s in loaded.standings() or []] == [1, 1], "a draw: every seat first"
    assert any(m["X-Pbem-Kind"] == "ended" for m in transport.to(ANN)), "the other players are told"
    report = verified(gw, game_id)
    assert any("replaying" in line for line in report.checked), report.checked


def test_a_kick_accepted_by_every_other_player_hands_the_seat_to_the_robot(gw, smtp, transport):
    game_id, addresses = started(gw, smtp, transport, "kingsburg", (ANN, BOB, CYRIL))
    version = gw.service.game(game_id).version
    transport.clear()
    send(smtp, gw, ANN, addresses[ANN], "navrh vyloucit cyril")
    assert [m["X-Pbem-Kind"] for m in transport.to(CYRIL) if m["X-Pbem-Kind"] == "proposal"] == [], (
        "the seat to be kicked does not vote"
    )
    asked = proposal_mail(transport, BOB)
    send(smtp, gw, BOB, str(asked["Reply-To"]), f"přijmout {version + 1}")
    loaded = gw.service.game(game_id)
    kicked = [e for e in loaded.entries[version:] if e["kind"] == "resigned"]
    assert [(e["seat"], e["reason"]) for e in kicked] == [(2, "kicked")] and loaded.robots == {2}
    (told,) = [m for m in transport.to(CYRIL) if m["X-Pbem-Kind"] == "robot"]
    assert "hlasováním ostatních hráčů" in flat(text_of(told)), flat(text_of(told))
    verified(gw, game_id)


@pytest.mark.parametrize("line", ["navrh pauza 3", "navrh konec"])
def test_a_proposal_declined_by_one_player_fails_and_changes_nothing(gw, smtp, transport, line):
    game_id, addresses = started(gw, smtp, transport, "kingsburg", (ANN, BOB, CYRIL))
    version = gw.service.game(game_id).version
    send(smtp, gw, ANN, addresses[ANN], line)
    send(smtp, gw, BOB, addresses[BOB], f"přijmout {version + 1}")
    assert gw.service.game(game_id).entries[-1]["kind"] == "voted", "one of two voters: nothing decided yet"
    transport.clear()
    send(smtp, gw, CYRIL, addresses[CYRIL], f"odmítnout {version + 1}")
    loaded = gw.service.game(game_id)
    decided = loaded.entries[-1]
    assert decided["kind"] == "decided" and decided["passed"] is False
    assert not loaded.ended and not loaded.robots and gw.mailroom.clocks.pauses(loaded) == ()
    (told,) = [m for m in transport.to(ANN) if m["X-Pbem-Kind"] == "decided"]
    assert f"Návrh {version + 1} neprošel" in flat(text_of(told)), flat(text_of(told))
    verified(gw, game_id)


def test_a_kick_declined_by_the_other_voter_fails(gw, smtp, transport):
    game_id, addresses = started(gw, smtp, transport, "kingsburg", (ANN, BOB, CYRIL))
    version = gw.service.game(game_id).version
    send(smtp, gw, ANN, addresses[ANN], "propose kick cyril")
    send(smtp, gw, BOB, addresses[BOB], "decline")
    loaded = gw.service.game(game_id)
    assert kinds_since(gw, game_id, version) == ["proposed", "voted", "decided"] and not loaded.robots
    verified(gw, game_id)


def test_a_proposal_lapses_when_its_votes_run_out(gw, smtp, transport, clock):
    game_id, addresses = started(gw, smtp, transport, "kingsburg", deadline="")
    version = gw.service.game(game_id).version
    send(smtp, gw, ANN, addresses[ANN], "navrh konec")
    clock.advance(days=proposals.VOTE_DAYS, seconds=1)
    send(smtp, gw, BOB, addresses[BOB], f"přijmout {version + 1}")
    reply = flat(last_reply(transport, BOB))
    assert "odmítnuto" in reply and f"Návrh {version + 1} už není otevřený" in reply, reply
    assert "voted" not in kinds_since(gw, game_id, version) and not gw.service.game(game_id).ended
    send(smtp, gw, BOB, addresses[BOB], "navrh konec")
    assert gw.service.game(game_id).entries[-1]["kind"] == "proposed", "a lapsed proposal leaves room for a new one"
    verified(gw, game_id)


def test_every_player_is_told_when_a_proposal_lapses(gw, smtp, transport, clock):
    game_id, addresses = started(gw, smtp, transport, "kingsburg", deadline="")
    version = gw.service.game(game_id).version
    send(smtp, gw, ANN, addresses[ANN], "navrh pauza 2")
    transport.clear()
    clock.advance(days=proposals.VOTE_DAYS, seconds=-1)
    gw.work()
    assert not [m for m in transport.sent if b"propadl" in m[2]], "not before its votes close"
    clock.advance(seconds=2)
    gw.work()
    gw.work()
    for player in (ANN, BOB):
        (told,) = [m for m in transport.to(player) if m["X-Pbem-Kind"] == "decided"]
        assert f"Návrh {version + 1} propadl" in flat(text_of(told)), flat(text_of(told))
    assert "decided" not in kinds_since(gw, game_id, version), "the lapse is no entry (the deadlines played on)"


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("navrh pauza 31d", "návrh pauza"),
        ("navrh pauza", "návrh pauza"),
        ("navrh", "návrh pauza"),
        ("navrh vyloucit nikdo", "nikdo"),
        ("navrh vyloucit ann", "sami"),
        ("navrh vyloucit bob", "nikdo další"),
        ("přijmout", "Není žádná žádost"),
        ("odmítnout", "žádný otevřený návrh"),
        ("odmítnout x", "odmítnout N"),
    ],
)
def test_bad_proposals_and_votes_are_refused_and_change_nothing(gw, smtp, transport, line, said):
    game_id, addresses = started(gw, smtp, transport, "kingsburg")
    version = gw.service.game(game_id).version
    send(smtp, gw, ANN, addresses[ANN], line)
    reply = flat(last_reply(transport, ANN))
    assert "odmítnuto" in reply and said.lower() in reply.lower(), reply
    assert gw.service.game(game_id).version == version


def test_one_proposal_at_a_time_and_no_vote_on_ones_own(gw, smtp, transport):
    game_id, addresses = started(gw, smtp, transport, "kingsburg")
    version = gw.service.game(game_id).version
    send(smtp, gw, ANN, addresses[ANN], "navrh pauza 2")
    send(smtp, gw, BOB, addresses[BOB], "navrh konec")
    assert "je stále otevřený" in flat(last_reply(transport, BOB)), flat(last_reply(transport, BOB))
    send(smtp, gw, ANN, addresses[ANN], f"přijmout {version + 1}")
    assert "Návrh jste podali vy" in flat(last_reply(transport, ANN)), flat(last_reply(transport, ANN))
    assert gw.service.game(game_id).version == version + 1


def test_accept_naming_the_proposal_is_a_vote_in_warriors_and_traders(gw, smtp, transport):
    """``accept N`` is a move there (``accept OFFER``), but N naming the open proposal makes it
    the vote the proposal's mail asked for; any other number stays the game's."""
    game_id, addresses = started(gw, smtp, transport, "warriors-traders")
    version = gw.service.game(game_id).version
    send(smtp, gw, ANN, addresses[ANN], "propose pause 2")
    send(smtp, gw, BOB, addresses[BOB], "accept 1")
    assert kinds_since(gw, game_id, version) == ["proposed"], "positive control: not the proposal's number"
    send(smtp, gw, BOB, addresses[BOB], f"accept {version + 1}")
    assert kinds_since(gw, game_id, version) == ["proposed", "voted", "decided"]


def test_an_end_by_agreement_is_rated_as_a_draw_and_a_kicked_seat_as_abandoned(gw, smtp, transport):
    game_id, addresses = started(gw, smtp, transport, "kingsburg", (ANN, BOB, CYRIL))
    version = gw.service.game(game_id).version
    send(smtp, gw, ANN, addresses[ANN], "propose kick cyril")
    send(smtp, gw, BOB, addresses[BOB], f"accept {version + 1}")
    send(smtp, gw, BOB, addresses[BOB], "propose end")
    send(smtp, gw, ANN, addresses[ANN], "accept")
    document = gw.service.export(game_id)
    result = result_of(document)
    assert result["ranks"] == [1, 1, 1] and result["robots"] == [2]
    players = {p["name"]: p for p in ratings([document])["players"]}
    assert players["ann"]["mu"] == players["bob"]["mu"] == players["cyril"]["mu"], "a draw: all alike"
    assert players["cyril"]["abandoned"] == 1 and players["ann"]["abandoned"] == 0
