"""The people at a table, by mail over real SMTP (issue 32, docs/mail.md "People"): a rematch
of a finished game in each of the four games; the commands not built yet are refused in the
player's language and change nothing."""

from __future__ import annotations

import pytest

from pbem.games import catalog
from pbem.ledger.verify import export_bytes, verify_bytes
from pbem.mailroom.records import GameClock
from tests.mailgateway.conftest import SERVICE, make_mail, text_of

ANN, BOB = "ann@example.org", "bob@example.org"
GAMES = [name for name in catalog() if name in ("kingsburg", "kingdom-builder", "warriors-traders", "ruse-and-bruise")]


def invitation_address(transport, player: str, game_id: str) -> str:
    (invitation,) = [m for m in transport.to(player) if m["X-Pbem-Kind"] == "invitation" and game_id in m["From"]]
    return str(invitation["Reply-To"])


def started_by_mail(gw, smtp, transport, game: str, extra: str = "") -> tuple[str, dict[str, str]]:
    """A game created and joined by mail over SMTP; returns its id and the private addresses."""
    before = set(gw.service.game_ids())
    assert (
        smtp(make_mail(ANN, SERVICE, f"new {game} {ANN} {BOB} press=public deadline=30 lang=cs {extra}"), ANN, SERVICE)
        == 250
    )
    gw.work()
    (game_id,) = set(gw.service.game_ids()) - before
    addresses = {player: invitation_address(transport, player, game_id) for player in (ANN, BOB)}
    for player, address in addresses.items():
        assert smtp(make_mail(player, address, "join"), player, address) == 250
    gw.work()
    return game_id, addresses


def finished_by_mail(gw, smtp, transport, game: str) -> tuple[str, dict[str, str]]:
    """A game both players resigned by mail: the house robot played it to its end."""
    game_id, addresses = started_by_mail(gw, smtp, transport, game)
    for player, address in addresses.items():
        assert smtp(make_mail(player, address, "resign"), player, address) == 250
    gw.work()
    assert gw.service.game(game_id).ended
    return game_id, addresses


def last_reply(transport, player: str) -> str:
    return text_of([m for m in transport.to(player) if m["In-Reply-To"]][-1])


@pytest.mark.parametrize("game", GAMES)
def test_rematch_starts_a_new_game_with_the_same_players_options_and_language(gw, smtp, transport, game):
    old_id, addresses = finished_by_mail(gw, smtp, transport, game)
    transport.clear()
    assert smtp(make_mail(BOB, addresses[BOB], "odveta"), BOB, addresses[BOB]) == 250
    gw.work()
    (new_id,) = set(gw.service.game_ids()) - {old_id}
    old, new = gw.service.game(old_id), gw.service.game(new_id)
    assert (new.spec.name, new.emails, new.names, new.options) == (old.spec.name, old.emails, old.names, old.options)
    assert new.options["press"] == "public" and not new.started
    rules = gw.service.record(GameClock.create_id(new_id, {})).rules
    assert rules == {"deadline": 30, "lang": "cs", "invited_by": BOB}
    assert f"Odveta: hra {new_id} se stejnými hráči" in " ".join(last_reply(transport, BOB).split())
    for player in (ANN, BOB):  # invitations as usual, in the game's language
        (invitation,) = [m for m in transport.to(player) if m["X-Pbem-Kind"] == "invitation"]
        assert new_id in invitation["From"] and invitation["Content-Language"] == "cs"
    for game_id in (old_id, new_id):  # the exports of both games verify
        assert verify_bytes(export_bytes(gw.service.export(game_id))).entries == gw.service.game(game_id).version


def test_a_game_is_rematched_once_and_only_after_its_end(gw, smtp, transport):
    old_id, addresses = finished_by_mail(gw, smtp, transport, "kingsburg")
    assert smtp(make_mail(ANN, addresses[ANN], "rematch"), ANN, addresses[ANN]) == 250
    gw.work()
    (new_id,) = set(gw.service.game_ids()) - {old_id}
    assert smtp(make_mail(BOB, addresses[BOB], "rewanż"), BOB, addresses[BOB]) == 250
    gw.work()
    assert set(gw.service.game_ids()) == {old_id, new_id}, "the second rematch made no game"
    assert new_id in last_reply(transport, BOB) and old_id in last_reply(transport, BOB)
    new_address = invitation_address(transport, ANN, new_id)
    assert smtp(make_mail(ANN, new_address, "join\nrematch"), ANN, new_address) == 250
    gw.work()
    assert set(gw.service.game_ids()) == {old_id, new_id}, "a game that is not over has no rematch"


@pytest.mark.parametrize(
    ("line", "word"),
    [
        ("zpět", "zpět"),
        ("náhradník Cyril cyril@example.org", "náhradník"),
        ("navrh end", "navrh"),
        ("přijmout 1", "přijmout"),
    ],
)
def test_commands_not_built_yet_are_refused_in_the_players_language(gw, smtp, transport, line, word):
    game_id, addresses = started_by_mail(gw, smtp, transport, "kingsburg")
    version = gw.service.game(game_id).version
    assert smtp(make_mail(ANN, addresses[ANN], line), ANN, addresses[ANN]) == 250
    gw.work()
    reply = last_reply(transport, ANN)
    assert f"> {line}" in reply and "odmítnuto" in reply and "zatím" in reply, reply
    assert gw.service.game(game_id).version == version
    assert set(gw.service.game_ids()) == {game_id}


def test_accept_stays_a_move_of_warriors_and_traders(gw, smtp, transport):
    """``accept OFFER`` is a move there: the game's reading of the line comes first, so the
    refusal is the game's (no such offer), not the mail command's."""
    game_id, addresses = started_by_mail(gw, smtp, transport, "warriors-traders")
    version = gw.service.game(game_id).version
    assert smtp(make_mail(ANN, addresses[ANN], "accept 1"), ANN, addresses[ANN]) == 250
    gw.work()
    reply = " ".join(last_reply(transport, ANN).split())
    assert "odmítnuto (řádek 1): accept 1" in reply and "Není co přijmout" not in reply, reply
    assert gw.service.game(game_id).version == version
    assert smtp(make_mail(ANN, addresses[ANN], "přijmout 1"), ANN, addresses[ANN]) == 250
    gw.work()
    assert "Není co přijmout" in " ".join(last_reply(transport, ANN).split()), "positive control"
