"""The people at a table, by mail over real SMTP (issue 32, docs/mail.md "People"): a rematch
of a finished game in each of the four games (substitutes: test_substitutes_by_mail.py;
proposals: test_proposals_by_mail.py)."""

from __future__ import annotations

import copy
import random

import pytest

from pbem.games import catalog
from pbem.ledger import withdrawals
from pbem.ledger.verify import VerificationError, export_bytes, verify_bytes
from pbem.mailroom.records import GameClock
from pbem.web import create_app
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
    assert rules == {"deadline": 30, "lang": "cs", "invited_by": BOB, "start-within": 14}  # the expiry days too
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


def test_accept_stays_a_move_of_warriors_and_traders(gw, smtp, transport):
    """``accept OFFER`` is a move there: the game's reading of the line comes first, so the
    refusal is the game's (no such offer), not the mail command's."""
    game_id, addresses = started_by_mail(gw, smtp, transport, "warriors-traders")
    version = gw.service.game(game_id).version
    assert smtp(make_mail(ANN, addresses[ANN], "accept 1"), ANN, addresses[ANN]) == 250
    gw.work()
    reply = " ".join(last_reply(transport, ANN).split())
    assert "odmítnuto (řádek 1): accept 1" in reply and "Není žádná žádost" not in reply, reply
    assert gw.service.game(game_id).version == version
    assert smtp(make_mail(ANN, addresses[ANN], "přijmout 1"), ANN, addresses[ANN]) == 250
    gw.work()
    assert "Není žádná žádost" in " ".join(last_reply(transport, ANN).split()), "positive control"


# -- taking back a move by consent -------------------------------------------------------------
def play_until(gw, game_id: str, wanted, seed: int = 7, steps: int = 400) -> int:
    """Random legal moves (each seat's, as its mail would send them) until ``wanted(game)`` says
    the log is as the test needs; returns the index of the newest move."""
    chooser = random.Random(seed)
    for _ in range(steps):
        game = gw.service.game(game_id)
        newest = withdrawals.last_move(game.entries)
        if newest is not None and wanted(game, newest):
            return newest
        state = gw.service.state(game)
        assert game.spec.outcome(state) is None, "the game ended before the position the test needs"
        seat = chooser.choice(sorted(game.spec.to_move(state)))
        move = chooser.choice(game.spec.legal_texts(state, seat, limit=10_000))
        assert gw.service.submit(game_id, game.emails[seat], [move], source="email").ok
    raise AssertionError("no such position in the moves played")


def undoable_now(gw):
    def wanted(game, newest: int) -> bool:
        entry = game.entries[newest]
        before = gw.service.state(game, newest)
        seat = entry["seat"]
        return withdrawals.undoable(game.entries, seat) == newest and not withdrawals.revealed(
            game.spec, before, game.privates[newest]["facts"], len(game.names)
        )

    return wanted


def send(smtp, gw, player: str, address: str, body: str) -> None:
    assert smtp(make_mail(player, address, body), player, address) == 250
    gw.work()


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("game", [game for game in GAMES if game != "ruse-and-bruise"])
def test_an_undo_accepted_by_the_other_seat_withdraws_the_move(gw, smtp, transport, game):
    game_id, addresses = started_by_mail(gw, smtp, transport, game)
    move = play_until(gw, game_id, undoable_now(gw))
    loaded = gw.service.game(game_id)
    mover = loaded.emails[loaded.entries[move]["seat"]]
    other = BOB if mover == ANN else ANN
    before, version = gw.service.state(loaded, move), loaded.version
    transport.clear()
    send(smtp, gw, mover, addresses[mover], "zpět")
    assert "odmítnuto" not in last_reply(transport, mover)
    (asked,) = [m for m in transport.to(other) if m["X-Pbem-Kind"] == "undo"]
    number = version + 1  # the request's number in the history
    assert f'pošlete "přijmout {number}"' in flat(text_of(asked)) or f'"accept {number}"' in flat(text_of(asked))
    assert gw.service.game(game_id).version == version + 1, "the request is an entry; nothing withdrawn yet"
    transport.clear()
    send(smtp, gw, other, str(asked["Reply-To"]), f"přijmout {number}")
    (told,) = transport.to(mover)  # the mover's turn again, with what happened
    assert told["X-Pbem-Kind"] == "turn"
    assert f"souhlasí se vzetím tahu {move + 1} zpět" in flat(text_of(told))
    assert f"Tah {move + 1} ({loaded.names[loaded.entries[move]['seat']]}) je se souhlasem všech vzat zpět" in flat(
        text_of(told)
    )
    loaded = gw.service.game(game_id)
    kinds = [e["kind"] for e in loaded.entries[version:]]
    assert kinds == ["undo", "consented", "withdrawn"]
    assert loaded.entries[move]["kind"] == "moved", "the log stays append-only: the move is still in it"
    assert gw.service.state(loaded) == before, "the game stands as before the move"
    page = create_app(gw.service).test_client().get(f"/games/{game_id}/history?lang=en").get_data(as_text=True)
    assert f"The move of entry {move + 1} is withdrawn" in page, "the web history shows the withdrawal"
    assert f'id="turn-{move + 1}"' in page, "and the move it withdraws"
    document = gw.service.export(game_id)
    assert verify_bytes(export_bytes(document)).entries == loaded.version
    forged = copy.deepcopy(document)  # the asker's own consent counts for nothing
    forged["entries"][version + 1]["seat"] = loaded.entries[version]["seat"]
    with pytest.raises(VerificationError, match="agrees to no open request"):
        verify_bytes(export_bytes(forged))
    for player, address in addresses.items():  # to the end: the replay of the rules passes over the withdrawal
        send(smtp, gw, player, address, "resign")
    loaded = gw.service.game(game_id)
    assert loaded.ended
    report = verify_bytes(export_bytes(gw.service.export(game_id)))
    assert report.entries == loaded.version and any("replaying" in line for line in report.checked)


def test_an_undo_names_the_move_by_its_turn_as_the_history_does(gw, smtp, transport):
    """A message advances no turn: after talk, "agrees to take back move N" gave the move's
    place in the log (one more than the turn the history and the mails give it). It names the
    move by its turn; "accept N" still names the request as the mail about it said."""
    game_id, addresses = started_by_mail(gw, smtp, transport, "kingsburg")
    assert gw.service.say(game_id, ANN, "all", "good luck").ok  # talk before the move
    move = play_until(gw, game_id, undoable_now(gw))
    loaded = gw.service.game(game_id)
    turn = loaded.turn_of(move)
    assert turn == move, "the message is one entry that is no turn"
    mover = loaded.emails[loaded.entries[move]["seat"]]
    other = BOB if mover == ANN else ANN
    send(smtp, gw, mover, addresses[mover], "zpět")
    (asked,) = [m for m in transport.to(other) if m["X-Pbem-Kind"] == "undo"]
    transport.clear()
    send(smtp, gw, other, str(asked["Reply-To"]), f"přijmout {loaded.version + 1}")
    told = flat(text_of(transport.to(mover)[0]))
    assert f"souhlasí se vzetím tahu {turn} zpět" in told and f"tahu {move + 1} " not in told, told


def test_an_undo_is_refused_after_another_seats_move(gw, smtp, transport):
    game_id, addresses = started_by_mail(gw, smtp, transport, "kingsburg")

    def wanted(game, newest: int) -> bool:
        entries = game.entries
        earlier = withdrawals.last_move(entries[:newest])
        if earlier is None or entries[earlier]["seat"] == entries[newest]["seat"]:
            return False
        return withdrawals.undoable(entries[: earlier + 1], entries[earlier]["seat"]) == earlier

    move = play_until(gw, game_id, wanted)
    loaded = gw.service.game(game_id)
    earlier = withdrawals.last_move(loaded.entries[:move])
    author = loaded.emails[loaded.entries[earlier]["seat"]]
    send(smtp, gw, author, addresses[author], "undo")
    reply = flat(last_reply(transport, author))
    assert "odmítnuto: Od vašeho posledního tahu táhl jiný hráč" in reply, reply
    assert gw.service.game(game_id).version == loaded.version


def test_an_undo_is_refused_after_a_reveal(gw, smtp, transport):
    game_id, addresses = started_by_mail(gw, smtp, transport, "kingsburg")

    def rolled(game, newest: int) -> bool:
        entry = game.entries[newest]
        return bool(entry.get("draws")) and entry.get("source") == "email"

    move = play_until(gw, game_id, rolled)
    loaded = gw.service.game(game_id)
    author = loaded.emails[loaded.entries[move]["seat"]]
    send(smtp, gw, author, addresses[author], "undo")
    assert "odmítnuto" in last_reply(transport, author)
    assert gw.service.game(game_id).version == loaded.version


def test_no_move_of_ruse_and_bruise_can_be_taken_back(gw, smtp, transport):
    """Every move there plays a card from a hidden hand (the game's ``reveals``): refused."""
    game_id, addresses = started_by_mail(gw, smtp, transport, "ruse-and-bruise")
    move = play_until(gw, game_id, lambda game, newest: game.entries[newest].get("source") == "email")
    loaded = gw.service.game(game_id)
    author = loaded.emails[loaded.entries[move]["seat"]]
    assert withdrawals.undoable(loaded.entries, loaded.entries[move]["seat"]) in (None, move)
    send(smtp, gw, author, addresses[author], "cofnij")
    assert "odmítnuto" in last_reply(transport, author), last_reply(transport, author)
    assert gw.service.game(game_id).version == loaded.version


@pytest.mark.parametrize(
    ("line", "said"), [("zpět", "Nemáte žádný tah"), ("přijmout", "Není žádná žádost"), ("přijmout x", "přijmout N")]
)
def test_undo_and_accept_with_nothing_to_take_back_are_refused(gw, smtp, transport, line, said):
    game_id, addresses = started_by_mail(gw, smtp, transport, "kingsburg")
    version = gw.service.game(game_id).version
    send(smtp, gw, ANN, addresses[ANN], line)
    reply = flat(last_reply(transport, ANN))
    assert "odmítnuto" in reply and said in reply, reply
    assert gw.service.game(game_id).version == version
