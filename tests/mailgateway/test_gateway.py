"""Receiving: global commands, moves, authentication, duplicates, automatic mail."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from mailgateway.parse import parse_message
from pbem.mailroom.addresses import game_address
from tests.mailgateway.conftest import SERVICE, address_of, confirmed, make_mail, started_pig, text_of
from tests.mailgateway.playbook import state_of

ANN, BOB, EVE = "ann@example.net", "bob@example.com", "eve@evil.example"
MESSAGES = Path(__file__).parent / "messages"


@pytest.fixture
def game(gw, transport):
    """A started two-seat Hidden Pig game (ann moves first), with the start mails sent."""
    return started_pig(gw, transport, [ANN, BOB])


def replies(transport, to):
    return [m for m in transport.to(to) if m["In-Reply-To"]]


def test_help_and_catalog_in_english_and_czech(gw, transport):
    gw.receive(make_mail(ANN, SERVICE, "help\ncatalog"))
    confirmed(gw, transport, BOB, "jazyk cs")
    gw.receive(make_mail(BOB, SERVICE, "katalog\nxyz"))
    gw.work()
    english = text_of(replies(transport, ANN)[0])
    assert "new GAME" in english and "hidden-pig: Hidden Pig (test game) (2-4 players)" in english
    assert "Jazyk nastaven: cs" in text_of(replies(transport, BOB)[1])
    czech = text_of(replies(transport, BOB)[2])
    assert "hidden-pig: Hidden Pig" in czech and "Toto není příkaz" in czech


def test_empty_mail_uses_the_subject_or_gets_help(gw, transport):
    gw.receive(make_mail(ANN, SERVICE, "", subject="Re: catalog"))
    gw.receive(make_mail(BOB, SERVICE, "", subject="hello"))
    gw.work()
    assert "hidden-pig" in text_of(replies(transport, ANN)[0])
    assert "Commands for pbem@example.org" in text_of(replies(transport, BOB)[0])


def test_moves_reply_with_result_view_turn_and_receipt(gw, transport, game):
    gw.receive(make_mail(ANN, address_of(gw, game, ANN), "hold"))
    gw.work()
    (reply,) = replies(transport, ANN)
    text = text_of(reply)
    assert "applied: hold" in text
    assert "Waiting for bob (deadline 2026-01-07 12:00 UTC)" in text
    said = " ".join(text.split())  # sentences are broken into 72-character lines
    assert f"/games/{game}/seat/" in text and "attached as receipt.json" in said
    assert reply["From"].addresses[0].addr_spec == address_of(gw, game, ANN)
    assert reply["Auto-Submitted"] == "auto-replied" and reply["References"]
    assert reply.get_body(("html",)) is not None
    (turn,) = transport.to(BOB)
    assert "your turn" in state_of(turn) and turn["Auto-Submitted"] == "auto-generated"


def test_errors_list_what_is_legal_and_change_nothing(gw, transport, game):
    before = gw.service.game(game).version
    gw.receive(make_mail(ANN, address_of(gw, game, ANN), "fly away\nhold"))
    gw.work()
    text = text_of(replies(transport, ANN)[0])
    assert "rejected (line 1): fly away" in text and "legal instead:\r\n      roll\r\n      hold\r\n" in text
    assert "Nothing was applied" in text and "fine, but not applied: hold" in text
    assert gw.service.game(game).version == before


def test_turn_file_by_attachment(gw, transport, game):
    raw = (MESSAGES / "turn_file_attachment.eml").read_bytes()
    raw = raw.replace(b"pbem+hidden-pig-0a1b2c3d.abcdefgh@example.org", address_of(gw, game, ANN).encode())
    turn = f"game: {game}\nplayer: {ANN}\nversion: {gw.service.game(game).version}\nhold\n"
    old = b"Z2FtZTogaGlkZGVuLXBpZy0wYTFiMmMzZApwbGF5ZXI6IGFubkBleGFtcGxlLm5ldAojIGEgY29t\nbWVudApyb2xsCg=="
    raw = raw.replace(old, base64.b64encode(turn.encode()))
    assert gw.receive(raw) == "processed"
    gw.work()
    assert gw.service.game(game).entries[-1]["source"] == "turnfile"
    assert "applied: hold" in text_of(replies(transport, ANN)[0])


def test_template_sends_a_turn_file_that_can_be_sent_back(gw, transport, game):
    gw.receive(make_mail(ANN, address_of(gw, game, ANN), "template"))
    gw.work()
    text = text_of(replies(transport, ANN)[0])
    template = text[text.index(f"game: {game}") : text.index("==")]
    gw.receive(make_mail(ANN, address_of(gw, game, ANN), template.replace("# hold", "hold")))
    gw.work()
    assert gw.service.game(game).entries[-1]["source"] == "turnfile"


def test_duplicate_message_id_changes_nothing_and_gets_no_second_reply(gw, transport, game):
    raw = make_mail(ANN, address_of(gw, game, ANN), "roll", message_id="<same@example.net>")
    assert gw.receive(raw) == "processed"
    version = gw.service.game(game).version
    assert gw.receive(raw) == "duplicate"
    assert gw.receive(b"Received: from mx2 by mx1; Mon, 5 Jan 2026 12:00:00 +0000\r\n" + raw) == "duplicate"
    gw.work()
    gw.work()
    assert gw.service.game(game).version == version
    assert len(replies(transport, ANN)) == 1


def test_another_mail_under_a_used_message_id_is_a_mail_of_its_own(gw, transport, game):
    """Duplicates are the same sender saying the same thing under one Message-ID (issue 28)."""
    gw.receive(make_mail(ANN, address_of(gw, game, ANN), "roll", message_id="<same@example.net>"))
    version = gw.service.game(game).version
    resent = make_mail(ANN, address_of(gw, game, ANN), "hold", message_id="<same@example.net>")
    assert gw.receive(resent) == "processed"
    assert gw.receive(resent) == "duplicate"
    assert gw.service.game(game).version == version + 1


def test_no_message_id_is_deduplicated_by_content(gw, transport):
    raw = (MESSAGES / "no_message_id.eml").read_bytes()
    assert gw.receive(raw) == "processed"
    assert gw.receive(raw) == "duplicate"
    gw.work()
    assert len(transport.to("dave@example.org")) == 1


@pytest.mark.parametrize("name", ["vacation_auto_reply.eml", "list_mail.eml", "bounce.eml"])
def test_automatic_mail_gets_no_answer(gw, transport, game, name):
    local = address_of(gw, game, ANN).split("+")[1].split("@")[0]
    raw = (MESSAGES / name).read_bytes().replace(b"hidden-pig-0a1b2c3d.abcdefgh", local.encode())
    version = gw.service.game(game).version
    assert gw.receive(raw) == "ignored"
    gw.work()
    assert transport.sent == [] and gw.service.game(game).version == version


def test_forged_sender_changes_nothing_and_the_owner_is_told(gw, transport, game):
    version = gw.service.game(game).version
    assert gw.receive(make_mail(EVE, address_of(gw, game, ANN), "hold")) == "processed"
    gw.receive(make_mail(BOB, address_of(gw, game, ANN), "hold"))
    gw.work()
    assert gw.service.game(game).version == version
    assert transport.to(EVE) == []
    (wrong,) = transport.to(BOB)  # a player who used another player's address learns their own
    assert "wrong address" in state_of(wrong) and address_of(gw, game, BOB) in text_of(wrong)
    assert wrong["Reply-To"] == address_of(gw, game, BOB)
    told = transport.to(ANN)
    assert len(told) == 2 and all("refused" in state_of(m) for m in told)
    assert "eve@evil.example" in text_of(told[0]) and "did not come from your registered address" in text_of(told[0])


def test_wrong_or_missing_token_changes_nothing(gw, transport, game):
    version = gw.service.game(game).version
    wrong = f"pbem+{game}.aaaaaaaaaaaaaaaa@example.org"
    gw.receive(make_mail(ANN, wrong, "hold"))
    gw.receive(make_mail(ANN, game_address(SERVICE, game), "hold"))
    gw.receive(make_mail(EVE, game_address(SERVICE, game), "hold"))
    gw.work()
    assert gw.service.game(game).version == version
    texts = [text_of(m) for m in replies(transport, ANN)]
    assert len(texts) == 2 and "private address" in texts[1]
    assert transport.to(EVE) == []


def test_another_players_token_with_own_address_is_refused(gw, transport, game):
    version = gw.service.game(game).version
    gw.receive(make_mail(BOB, address_of(gw, game, ANN), "hold"))
    gw.work()
    assert gw.service.game(game).version == version


def test_new_game_invitations_and_join_on_the_service_address(gw, transport):
    gw.receive(make_mail(ANN, SERVICE, f"nová hidden-pig {ANN} {BOB} deadline=12 policy=wait"))
    gw.work()
    (game_id,) = gw.service.game_ids()
    invitation = next(m for m in transport.to(BOB) if "invited" in state_of(m))
    assert address_of(gw, game_id, BOB) in text_of(invitation)
    transport.clear()
    gw.receive(make_mail(BOB, SERVICE, f"join {game_id}"))
    gw.receive(make_mail(EVE, SERVICE, f"join {game_id}"))
    gw.work()
    assert address_of(gw, game_id, BOB) in text_of(replies(transport, BOB)[0])
    assert "has no seat" in text_of(replies(transport, EVE)[0])
    assert not gw.service.game(game_id).joined
    from pbem.mailroom.records import GameClock

    rules = gw.mailroom.clocks.find(GameClock.create_id(game_id, {})).rules
    assert rules == {
        "deadline": 12,
        "policy": "wait",
        "invited_by": ANN,
        "start-within": 14,
    }  # the default expiry stored


def test_status_games_history_and_observers(gw, transport, game):
    confirmed(gw, transport, EVE, f"subscribe {game}")
    gw.receive(make_mail(EVE, SERVICE, f"games\nhistory {game}"))
    gw.receive(make_mail(ANN, SERVICE, "status"))
    gw.work()
    assert f"You now follow game {game}" in text_of(replies(transport, EVE)[1])
    eve = text_of(replies(transport, EVE)[2])
    assert "started" in eve and game in eve
    assert "(yours)" in text_of(replies(transport, ANN)[0])
    transport.clear()
    gw.receive(make_mail(ANN, address_of(gw, game, ANN), "hold"))
    gw.work()
    (update,) = transport.to(EVE)
    assert "update" in state_of(update) and "PointsBanked" in text_of(update)
    assert "unsubscribe" in text_of(update)
    turn = gw.service.game(game).version  # one turn number: the update's lines and its subject
    assert f"Turn {turn}" in state_of(update) and f"\n  {turn}. PointsBanked" in text_of(update)
    transport.clear()
    gw.receive(make_mail(EVE, SERVICE, f"history {game}"))
    gw.work()
    assert f"\n  {turn}. PointsBanked" in text_of(transport.to(EVE)[0])  # the same line as the update's


def test_resign_hands_the_seat_to_the_robot_and_tells_everyone(gw, transport, game):
    gw.receive(make_mail(BOB, address_of(gw, game, BOB), "vzdát"))
    gw.work()
    assert 1 in gw.service.game(game).robots
    assert any("robot" in state_of(m) for m in transport.to(ANN))


def test_rate_limit_on_replies_per_sender(gw, transport, mail_settings):
    for _ in range(mail_settings.replies_per_hour + 3):
        gw.receive(make_mail(EVE, SERVICE, "help"))
    gw.work()
    sent = transport.to(EVE)
    assert len(sent) == mail_settings.replies_per_hour + 1  # the replies, then one notice
    assert "replies paused" in state_of(sent[-1]) and "Replies resume by" in text_of(sent[-1])


def test_too_large_mail_gets_a_short_answer(gw, transport):
    gw.receive(make_mail(ANN, SERVICE, "help\n" + "x" * 300_000))
    gw.work()
    assert "the limit is 262144" in text_of(replies(transport, ANN)[0])


def test_unknown_game_address(gw, transport):
    gw.receive(make_mail(ANN, "pbem+nosuch-game.tok@example.org", "roll"))
    gw.work()
    # the mail showed no token that works, so its reply quotes none of it (issue 28), not even the name
    assert "There is no game '...'" in text_of(replies(transport, ANN)[0])


def test_turn_file_for_another_game_is_refused(gw, transport, game):
    version = gw.service.game(game).version
    gw.receive(make_mail(ANN, address_of(gw, game, ANN), f"game: other-game\nplayer: {ANN}\nhold\n"))
    gw.work()
    assert gw.service.game(game).version == version
    assert "This turn file is for game other-game" in text_of(replies(transport, ANN)[0])


def test_a_notification_that_cannot_be_composed_does_not_block_later_mail(gw, transport, monkeypatch):
    from mailgateway import compose

    real = compose.rendered
    calls = {"n": 0}

    def broken_once(model, *picture):
        calls["n"] += 1
        if calls["n"] == 1:
            raise KeyError("a bug")
        return real(model, *picture)

    monkeypatch.setattr(compose, "rendered", broken_once)
    gw.receive(make_mail(ANN, SERVICE, "help"))
    gw.receive(make_mail(BOB, SERVICE, "help"))
    gw.work()
    assert transport.to(ANN) == [] and len(transport.to(BOB)) == 1


def test_forged_flood_on_the_service_address_does_not_silence_move_replies(gw, transport, game, mail_settings):
    for _ in range(mail_settings.replies_per_hour + 2):
        gw.receive(make_mail(ANN, SERVICE, "help"))  # perhaps forged in ann's name
    gw.receive(make_mail(ANN, address_of(gw, game, ANN), "hold"))
    gw.work()
    sent = transport.to(ANN)
    assert len(sent) == mail_settings.replies_per_hour + 2  # the notice of the pause, and the move's reply
    assert sum("replies paused" in state_of(m) for m in sent) == 1
    assert "applied: hold" in text_of(sent[-1])


def test_status_and_history_at_the_private_address_show_the_players_secrets(gw, transport, game):
    gw.receive(make_mail(ANN, address_of(gw, game, ANN), "stav\nhistorie"))
    gw.receive(make_mail(EVE, SERVICE, f"status {game}"))
    gw.work()
    own = text_of(replies(transport, ANN)[0])
    card = gw.service.summary(game, viewer=ANN)["view"]["cards"][0]
    assert f'"cards": [\r\n    {card},\r\n    null' in own and "CardDealt" in own
    public = text_of(replies(transport, EVE)[0])
    assert '"cards": [\r\n    null,\r\n    null' in public


def test_unsubscribe_stops_observer_mail(gw, transport, game):
    gw.receive(make_mail(EVE, SERVICE, f"odebírat {game}"))
    gw.receive(make_mail(EVE, SERVICE, f"neodebírat {game}"))
    gw.work()
    transport.clear()
    gw.receive(make_mail(ANN, address_of(gw, game, ANN), "hold"))
    gw.work()
    assert transport.to(EVE) == []


def test_invitations_in_the_creators_language_unless_the_player_chose_one(gw, transport):
    confirmed(gw, transport, ANN, "jazyk cs")
    confirmed(gw, transport, EVE, "language en")
    gw.receive(make_mail(ANN, SERVICE, f"nová hidden-pig {ANN} {BOB} {EVE}"))
    gw.work()
    assert "pozvánka" in state_of(next(m for m in transport.to(BOB) if not m["In-Reply-To"]))
    assert "invited" in state_of(next(m for m in transport.to(EVE) if not m["In-Reply-To"]))


def test_iso_8859_2_mail_is_answered_with_its_lines_intact(gw, transport):
    assert gw.receive((MESSAGES / "iso_8859_2.eml").read_bytes()) == "processed"
    gw.work()
    (reply,) = transport.to("oldrich@example.cz")
    text = text_of(reply)
    # a mail to the service address shows nothing of who sent it, so its reply quotes none of it
    # (issue 28); the lines were read intact, as the parser shows; "nová" is Czech: the answer too
    assert "Hra s názvem '...' neexistuje" in text and "žluťoučký" not in text
    inbound = parse_message((MESSAGES / "iso_8859_2.eml").read_bytes(), None, (), SERVICE, 262_144)
    assert "žluťoučký kůň úpěl ďábelské ódy" in inbound.lines and "Zażółć gęślą jaźń" in inbound.lines


def test_several_lines_changing_one_record_in_one_mail(gw, transport, game):
    from pbem.mailroom.records import Correspondent, Watchers

    confirmed(
        gw,
        transport,
        EVE,
        f"language cs\nabsence 2026-02-01 2026-02-03\nlanguage en\nsubscribe {game}\nunsubscribe {game}",
    )  # five changes: the most one mail may make (issue 28)
    confirmed(gw, transport, EVE, f"jazyk cs\nnepřítomnost 2026-03-01 2026-03-02\nsubscribe {game}")
    person = gw.mailroom.clocks.find(Correspondent.create_id(EVE))
    assert person.language == "cs" and person.absences == [["2026-02-01", "2026-02-03"], ["2026-03-01", "2026-03-02"]]
    assert gw.mailroom.clocks.find(Watchers.create_id(game)).emails == [EVE]


@pytest.mark.parametrize("word", ["pl", "polski", "Polski", "polština"])
def test_polish_is_a_language_a_player_can_choose(gw, transport, word):
    confirmed(gw, transport, ANN, f"language {word}")
    gw.receive(make_mail(ANN, SERVICE, f"new hidden-pig {ANN} {BOB}"))
    gw.work()
    invitation = next(m for m in transport.to(ANN) if not m["In-Reply-To"])
    assert "zaproszenie" in state_of(invitation)
    assert "Zaproszenie do gry" in text_of(invitation)
    # and the game's default for players who chose none: the creator's language
    assert "zaproszenie" in state_of(next(m for m in transport.to(BOB) if not m["In-Reply-To"]))


def test_an_unknown_language_is_refused_and_names_the_three(gw, transport):
    gw.receive(make_mail(ANN, SERVICE, "language klingon"))
    gw.work()
    (reply,) = transport.to(ANN)
    assert "language en, language cs or language pl" in text_of(reply)


def test_resigning_sends_one_mail_to_each_player(gw, transport, game):
    gw.receive(make_mail(ANN, address_of(gw, game, ANN), "resign"))  # on ann's turn: the robot moves at once
    gw.work()
    assert 0 in gw.service.game(game).robots
    (reply,) = transport.to(ANN)
    assert reply["X-Pbem-Kind"] == "reply" and "house robot plays your seat" in " ".join(text_of(reply).split())
    (notice,) = transport.to(BOB)  # the robot's taking over and bob's decision, in one mail
    assert notice["X-Pbem-Kind"] == "robot" and "Your decision" in text_of(notice)


def test_a_mail_from_a_seat_the_robot_plays_asks_for_a_substitute(gw, transport, game):
    gw.receive(make_mail(BOB, address_of(gw, game, BOB), "resign"))
    gw.work()
    version = gw.service.game(game).version
    transport.clear()
    gw.receive(make_mail(BOB, address_of(gw, game, BOB), "roll"))
    gw.work()
    text = " ".join(text_of(transport.to(BOB)[-1]).split())
    assert "The robot plays your seat now; ask the table for a substitute." in text
    assert "It is not" not in text and gw.service.game(game).version == version
    gw.receive(make_mail(ANN, address_of(gw, game, ANN), "hold"))  # positive control: ann plays on
    gw.work()
    assert gw.service.game(game).version > version


def ann_plays_a_turn(gw, game: str, lines=("roll", "roll", "hold")) -> None:
    """Ann's lines while it is her turn (a roll of 1 ends it early)."""
    for line in lines:
        loaded = gw.service.game(game)
        if 0 not in loaded.spec.to_move(gw.service.state(loaded)):
            return
        gw.receive(make_mail(ANN, address_of(gw, game, ANN), line))
        gw.work()


def test_an_observer_gets_one_digest_when_a_turn_ends(gw, transport, game):
    confirmed(gw, transport, EVE, f"subscribe {game}")
    transport.clear()
    start = gw.service.game(game).version
    ann_plays_a_turn(gw, game)
    end = gw.service.game(game).version
    assert end - start >= 2  # positive control: ann's turn took several entries (several mails)
    (digest,) = transport.to(EVE)
    assert all(f"\n  {turn}. " in text_of(digest) for turn in range(start + 1, end + 1))
    assert f"Turn {end}" in state_of(digest)


def test_an_observer_who_asked_for_daily_gets_at_most_one_digest_a_day(gw, transport, clock, game):
    confirmed(gw, transport, EVE, f"subscribe {game} daily")
    assert "one mail a day" in " ".join(text_of(transport.to(EVE)[-1]).split())
    transport.clear()
    ann_plays_a_turn(gw, game, ("hold",))
    gw.receive(make_mail(BOB, address_of(gw, game, BOB), "hold"))
    gw.work()
    (first,) = transport.to(EVE)  # bob's turn ended the same day: no second digest
    bobs_hold = gw.service.game(game).version  # the turn number of bob's hold
    clock.advance(hours=25)
    ann_plays_a_turn(gw, game, ("hold",))
    first, second = transport.to(EVE)
    assert f"\n  {bobs_hold}. PointsBanked" in text_of(second)  # bob's hold, kept for the next digest
    assert f"\n  {bobs_hold}. PointsBanked" not in text_of(first)


def test_subscribe_takes_only_daily_after_the_game(gw, transport, game):
    gw.receive(make_mail(EVE, SERVICE, f"subscribe {game} hourly"))
    gw.work()
    assert "subscribe GAME daily" in text_of(replies(transport, EVE)[-1])


def test_the_catalog_mail_keeps_every_line_within_72_characters(gw, transport):
    """An option with many choices was one line of 343 characters (the choices joined without
    spaces could not be broken); now every line of the text part fits a phone's 72."""
    gw.receive(make_mail(ANN, SERVICE, "catalog"))
    gw.work()
    text = text_of(replies(transport, ANN)[0])
    assert "hidden-pig" in text and "rounds=" in text
    assert [line for line in text.splitlines() if len(line) > 72 and "://" not in line] == []
