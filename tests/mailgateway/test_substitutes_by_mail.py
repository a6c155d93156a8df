"""Substitutes by mail over real SMTP with a test clock (issue 32, docs/mail.md "Substitutes"):
a substitute invited for a seat the robot plays or whose player missed a deadline takes it by
answering the invitation with ``join``, the old private address stops working, and the game is
finished; the exports verify, and a forged hand-over does not."""

from __future__ import annotations

import copy
import random

import pytest

from pbem.ledger.ratings import RatingTable, result_of
from pbem.ledger.verify import VerificationError, export_bytes, verify_bytes
from pbem.mailroom.records import GameClock
from pbem.web import create_app
from tests.mailgateway.conftest import SERVICE, make_mail, text_of

ANN, BOB, CYRIL = "ann@example.org", "bob@example.org", "cyril@example.org"
GAMES = ("kingsburg", "kingdom-builder", "warriors-traders", "ruse-and-bruise")


def flat(text: str) -> str:
    return " ".join(text.split())


def send(smtp, gw, player: str, address: str, body: str) -> None:
    assert smtp(make_mail(player, address, body), player, address) == 250
    gw.work()


def last_reply(transport, player: str) -> str:
    return flat(text_of([m for m in transport.to(player) if m["In-Reply-To"]][-1]))


def started(gw, smtp, transport, game: str, options: str = "lang=en") -> tuple[str, dict[str, str]]:
    """A two-player game created and joined by mail; its id and the private addresses."""
    send(smtp, gw, ANN, SERVICE, f"new {game} {ANN} {BOB} {options}")
    (game_id,) = gw.service.game_ids()
    addresses = {}
    for player in (ANN, BOB):
        (invitation,) = [m for m in transport.to(player) if m["X-Pbem-Kind"] == "invitation"]
        addresses[player] = str(invitation["Reply-To"])
        send(smtp, gw, player, addresses[player], "join")
    return game_id, addresses


def invitation_to(transport, player: str):
    (invitation,) = [m for m in transport.to(player) if m["X-Pbem-Kind"] == "substitute"]
    return invitation


def finish(gw, game_id: str, seed: int = 3) -> None:
    """Random legal moves of the players (as their mails would send them) to the end."""
    chooser = random.Random(seed)
    for _ in range(3000):
        game = gw.service.game(game_id)
        state = gw.service.state(game)
        if game.ended or game.spec.outcome(state) is not None:
            return
        seat = chooser.choice(sorted(game.spec.to_move(state)))
        move = chooser.choice(game.spec.legal_texts(state, seat, limit=10_000))
        assert gw.service.submit(game_id, game.emails[seat], [move], source="email").ok
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("game", GAMES)
def test_a_substitute_takes_a_seat_the_robot_plays_and_finishes_the_game(gw, smtp, transport, game):
    game_id, addresses = started(gw, smtp, transport, game)
    send(smtp, gw, BOB, addresses[BOB], "resign")
    assert 1 in gw.service.game(game_id).robots
    transport.clear()
    send(smtp, gw, ANN, addresses[ANN], f"substitute Bob {CYRIL}")
    assert "The invitation to take over the seat is sent" in last_reply(transport, ANN)
    invitation = invitation_to(transport, CYRIL)
    said = flat(text_of(invitation))
    assert "ann invites you to take over the seat of bob" in said, said
    assert "The game so far:" in said and "joined" in said, "a digest of the game so far"
    invited_at = str(invitation["Reply-To"])
    assert invited_at not in addresses.values() and game_id in invited_at
    loaded = gw.service.game(game_id)
    assert loaded.entries[-1]["kind"] == "substitute" and CYRIL not in str(loaded.entries[-1])
    assert loaded.emails[1] == BOB, "the seat changes hands only when the substitute joins"

    transport.clear()
    send(smtp, gw, CYRIL, invited_at, "join")
    loaded = gw.service.game(game_id)
    assert loaded.emails == [ANN, CYRIL] and 1 not in loaded.robots
    assert [e["kind"] for e in loaded.entries[-2:]] == ["handed", "named"]
    (handed,) = [m for m in transport.to(ANN) if m["X-Pbem-Kind"] == "handed"]
    assert "cyril has taken over the seat of bob as a substitute" in flat(text_of(handed))
    assert loaded.names == ["ann", "cyril"], "the seat goes by the new player's name"
    reply = [m for m in transport.to(CYRIL) if m["In-Reply-To"]][-1]
    seat_address = str(reply["Reply-To"])
    assert seat_address not in (invited_at, addresses[BOB]), "the seat's token changed"

    version = loaded.version
    transport.clear()
    send(smtp, gw, BOB, addresses[BOB], "resign")  # the old seat token is refused
    send(smtp, gw, CYRIL, addresses[BOB], "resign")  # for the new player too
    send(smtp, gw, CYRIL, invited_at, "join")  # and the invitation is used up
    assert gw.service.game(game_id).version == version, "nothing changed"
    old_token = addresses[BOB].split("@")[0].rsplit(".", 1)[1]
    assert gw.service.seat_by_token(game_id, old_token) is None
    assert gw.service.seat_by_token(game_id, seat_address.split("@")[0].rsplit(".", 1)[1]) == 1

    page = create_app(gw.service).test_client().get(f"/games/{game_id}/history?lang=en").get_data(as_text=True)
    assert "ann invites a substitute for bob" in page and "cyril plays the seat of bob from now on" in page
    assert CYRIL not in page, "the substitute's address stays private"
    lines = [line for row in gw.service.history(game_id) for line in row["lines"]]  # pbem history's lines
    assert (
        "ann invites a substitute for bob." in lines
        and "cyril plays the seat of bob from now on, as a substitute." in lines
    )
    send(smtp, gw, CYRIL, seat_address, "status")  # the new player's address works
    assert "refused" not in last_reply(transport, CYRIL)
    send(smtp, gw, CYRIL, SERVICE, "status")  # and the game is among the substitute's games
    assert game_id in last_reply(transport, CYRIL)
    finish(gw, game_id)
    loaded = gw.service.game(game_id)
    assert loaded.ended
    report = verify_bytes(export_bytes(gw.service.export(game_id)))
    assert report.entries == loaded.version and any("replaying" in line for line in report.checked)
    rated = result_of(gw.service.export(game_id))  # the ratings credit the player who finished the seat
    assert rated["names"] == ["ann", "cyril"] and rated["robots"] == []
    (before,) = rated["left"]  # bob left the seat: his moves and the abandoned game are his
    assert before["name"] == "bob"
    table = RatingTable()
    table.add(rated)
    bob, cyril = table.players["bob"], table.players["cyril"]
    assert (bob.abandoned, bob.finished, bob.games) == (1, 0, 1) and (cyril.finished, cyril.abandoned) == (1, 0)
    assert bob.moves == before["moves"] and cyril.moves == rated["moves"][1]


def test_a_forged_hand_over_does_not_verify(gw, smtp, transport):
    game_id, addresses = started(gw, smtp, transport, "kingsburg")
    send(smtp, gw, BOB, addresses[BOB], "resign")
    send(smtp, gw, ANN, addresses[ANN], f"substitute Bob {CYRIL}")
    send(smtp, gw, CYRIL, str(invitation_to(transport, CYRIL)["Reply-To"]), "join")
    document = gw.service.export(game_id)
    assert verify_bytes(export_bytes(document)).entries == gw.service.game(game_id).version
    handed = len(document["entries"]) - 2  # the hand-over, then the new player's name
    forged = copy.deepcopy(document)
    forged["entries"][handed]["invitation"] = 1
    with pytest.raises(VerificationError, match="without an open invitation"):
        verify_bytes(export_bytes(forged))
    forged = copy.deepcopy(document)
    forged["entries"][handed - 1]["by"] = 1  # a seat inviting for itself
    with pytest.raises(VerificationError, match="names no other seat"):
        verify_bytes(export_bytes(forged))


def test_a_seat_that_missed_its_deadline_may_be_taken_over(gw, smtp, transport, clock):
    game_id, addresses = started(gw, smtp, transport, "kingsburg", "lang=en deadline=24 policy=wait reminder=0")
    version = gw.service.game(game_id).version
    send(smtp, gw, ANN, addresses[ANN], f"substitute Bob {CYRIL}")
    assert "has not missed a deadline and is not played by the robot" in last_reply(transport, ANN)
    assert gw.service.game(game_id).version == version, "refused: nothing changed"
    clock.advance(hours=25)
    gw.work()
    gw.work()
    clock_record = gw.service.record(GameClock.create_id(game_id, {}))
    assert any(marker.endswith("/1") for marker in clock_record.done), "bob missed the deadline"
    send(smtp, gw, ANN, addresses[ANN], f"náhradník Bob {CYRIL}")  # the Czech word
    invitation = invitation_to(transport, CYRIL)
    send(smtp, gw, CYRIL, str(invitation["Reply-To"]), "join")
    loaded = gw.service.game(game_id)
    assert loaded.emails == [ANN, CYRIL] and loaded.entries[-2]["kind"] == "handed"


def test_a_player_who_moved_since_the_miss_is_not_replaced(gw, smtp, transport, clock):
    game_id, addresses = started(gw, smtp, transport, "ruse-and-bruise", "lang=en deadline=24 policy=wait reminder=0")
    clock.advance(hours=25)
    gw.work()
    gw.work()
    loaded = gw.service.game(game_id)
    seat = sorted(loaded.spec.to_move(gw.service.state(loaded)))[0]
    mover, other = loaded.emails[seat], loaded.emails[1 - seat]
    move = loaded.spec.legal_texts(gw.service.state(loaded), seat)[0]
    send(smtp, gw, mover, addresses[mover], move)
    name = loaded.names[seat]
    send(smtp, gw, other, addresses[other], f"substitute {name} {CYRIL}")
    assert "has not missed a deadline" in last_reply(transport, other)


@pytest.mark.parametrize(
    ("line", "said"),
    [
        (f"substitute ANN {CYRIL}", "your own seat"),
        (f"substitute Dora {CYRIL}", "Nobody is called Dora"),
        (f"substitute Bob {ANN}", "already plays in game"),
        ("substitute Bob", "substitute NAME ADDRESS"),
        (f"substitute Bob cyril@@example {CYRIL}", "Nobody is called Bob cyril@@example"),
        ("substitute Bob not-an-address@", "not-an-address@"),
    ],
)
def test_substitute_refusals_change_nothing(gw, smtp, transport, line, said):
    game_id, addresses = started(gw, smtp, transport, "kingsburg")
    send(smtp, gw, BOB, addresses[BOB], "resign")
    version = gw.service.game(game_id).version
    send(smtp, gw, ANN, addresses[ANN], line)
    reply = last_reply(transport, ANN)
    assert "refused" in reply and said in reply, reply
    assert gw.service.game(game_id).version == version
    assert not [m for m in transport.sent if m[1] == CYRIL]


def test_the_invitation_is_in_the_games_language_and_only_the_invited_address_joins(gw, smtp, transport):
    game_id, addresses = started(gw, smtp, transport, "warriors-traders", "lang=pl")
    send(smtp, gw, BOB, addresses[BOB], "poddaj")
    send(smtp, gw, ANN, addresses[ANN], f"zastępca Bob {CYRIL}")
    invitation = invitation_to(transport, CYRIL)
    assert invitation["Content-Language"] == "pl"
    version = gw.service.game(game_id).version
    send(smtp, gw, "dora@example.org", str(invitation["Reply-To"]), "join")
    assert gw.service.game(game_id).version == version, "another address cannot use the invitation"
    send(smtp, gw, CYRIL, str(invitation["Reply-To"]), "dołącz")
    assert gw.service.game(game_id).emails == [ANN, CYRIL]


def replaced_mails(transport, player: str) -> list:
    return [m for m in transport.to(player) if m["X-Pbem-Kind"] == "replaced"]


@pytest.mark.parametrize(
    ("options", "resign", "status", "said", "gone"),
    [
        ("lang=pl", "poddaj", "stan", "Gracz cyril przejął jako zastępca twoje miejsce (bob)", "przekazana zastępcy"),
        ("lang=cs", "vzdát", "stav", "Hráč cyril převzal jako náhradník vaše místo (bob)", "předána náhradníkovi"),
        ("lang=en", "resign", "status", "cyril has taken over your seat (bob)", "handed to a substitute"),
    ],
)
def test_the_replaced_player_is_told_and_the_game_leaves_their_status(
    gw, smtp, transport, options, resign, status, said, gone
):
    game_id, addresses = started(gw, smtp, transport, "warriors-traders", options)
    send(smtp, gw, BOB, addresses[BOB], status)
    assert game_id in last_reply(transport, BOB) and gone not in last_reply(transport, BOB)  # positive control
    send(smtp, gw, BOB, addresses[BOB], resign)
    send(smtp, gw, ANN, addresses[ANN], f"substitute Bob {CYRIL}")
    assert not replaced_mails(transport, BOB), "not before the substitute joined"
    send(smtp, gw, CYRIL, str(invitation_to(transport, CYRIL)["Reply-To"]), "join")
    (notice,) = replaced_mails(transport, BOB)
    text = flat(text_of(notice))
    assert said in text and CYRIL not in text and CYRIL not in str(notice), text
    assert notice["Content-Language"] == options[-2:] and not replaced_mails(transport, ANN)
    send(smtp, gw, BOB, SERVICE, status)
    assert game_id in last_reply(transport, BOB) and f": {gone}" in last_reply(transport, BOB), "theirs no more"
    send(smtp, gw, CYRIL, SERVICE, status)
    assert gone not in last_reply(transport, CYRIL), "the game is the substitute's now"


def test_the_replaced_player_sees_the_new_address_when_the_game_shows_addresses(gw, smtp, transport):
    _, addresses = started(gw, smtp, transport, "kingsburg", "lang=en addresses=shown")
    send(smtp, gw, BOB, addresses[BOB], "resign")
    send(smtp, gw, ANN, addresses[ANN], f"substitute Bob {CYRIL}")
    send(smtp, gw, CYRIL, str(invitation_to(transport, CYRIL)["Reply-To"]), "join")
    (notice,) = replaced_mails(transport, BOB)
    assert f"cyril <{CYRIL}> has taken over your seat (bob)" in flat(text_of(notice))
