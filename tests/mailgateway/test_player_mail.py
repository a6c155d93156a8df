"""What a player's mail says and where its answer goes: one test per promise of docs/mail.md
("What a mail to a player contains", "Subjects and threads", "Rate limits")."""

from __future__ import annotations

import email
import email.header
from dataclasses import replace
from email import policy
from pathlib import Path

import pytest
from click.testing import CliRunner

from mailgateway import mime
from mailgateway.compose import SUBJECT_MAX, game_subject, subject_value, within_words
from mailgateway.gateway import Gateway
from pbem.cli import main
from pbem.config import ConfigError, Settings
from pbem.mailroom.news import name_seats
from pbem.mailroom.replies import plain_subject
from pbem.mailroom.settings import MailSettings
from pbem.service.service import GameService
from tests.mailgateway.conftest import SERVICE, address_of, confirmed, joined_by_mail, make_mail, started_pig
from tests.mailgateway.playbook import decision_lines, state_of, text_of

ANN, BOB = "ann@example.net", "bob@example.com"


@pytest.fixture
def kingsburg(gw, transport):
    return joined_by_mail(gw, gw.service.create("kingsburg", [ANN, BOB], {}, seed=b"\x05" * 32), [ANN, BOB])


def latest(transport, player):
    return transport.to(player)[-1]


def test_since_your_last_mail_tells_every_fact_of_the_other_players_move(gw, transport, kingsburg):
    game = gw.service.game(kingsburg)
    mover = game.emails[game.spec.to_move(gw.service.state(game))[0]]
    other = next(e for e in game.emails if e != mover)
    gw.receive(make_mail(mover, address_of(gw, kingsburg, mover), decision_lines(text_of(latest(transport, mover)))[0]))
    gw.work()
    gw.receive(make_mail(other, address_of(gw, kingsburg, other), "status"))
    gw.work()
    after = gw.service.game(kingsburg)
    facts = [
        line
        for row in gw.service.history(kingsburg, viewer=other)[game.version : after.version]
        for line in row["lines"]
    ]
    news = text_of(latest(transport, other)).split("Since your last mail:")[1]
    assert facts and all(f"  - {line}\n" in news for line in facts)


def test_your_decision_lists_at_most_twelve_lines_and_the_moves_command_lists_all(gw, transport, kingsburg):
    game = gw.service.game(kingsburg)
    state = gw.service.state(game)
    seat = game.spec.to_move(state)[0]
    player = game.emails[seat]
    text = text_of(latest(transport, player))
    shown = decision_lines(text)
    legal = game.spec.legal_texts(state, seat, limit=10_000)
    assert shown == legal[:12]
    if len(legal) > 12:
        assert f'and {len(legal) - 12} more: send "moves"' in text
    gw.receive(make_mail(player, address_of(gw, kingsburg, player), "moves"))
    gw.work()
    answer = text_of(latest(transport, player))
    assert all(f"  {move}\n" in answer for move in legal)


def test_every_decision_line_is_accepted_as_sent(gw, transport, kingsburg):
    game = gw.service.game(kingsburg)
    player = game.emails[game.spec.to_move(gw.service.state(game))[0]]
    before = game.version
    line = decision_lines(text_of(latest(transport, player)))[-1]
    gw.receive(make_mail(player, address_of(gw, kingsburg, player), line))
    gw.work()
    assert gw.service.game(kingsburg).version > before
    assert "moves applied" in state_of([m for m in transport.to(player) if m["X-Pbem-Kind"] == "reply"][-1])


def test_the_join_that_starts_the_game_gets_one_mail(gw, transport):
    game_id = gw.service.create("kingsburg", [ANN, BOB], {}, seed=b"\x06" * 32)
    gw.receive(make_mail(ANN, address_of(gw, game_id, ANN), "join"))
    gw.work()
    transport.clear()
    gw.receive(make_mail(BOB, address_of(gw, game_id, BOB), "join"))
    gw.work()
    (only,) = transport.to(BOB)
    assert only["X-Pbem-Kind"] == "reply" and "The game started." in text_of(only)
    assert [m["X-Pbem-Kind"] for m in transport.to(ANN)] == ["started"]


def test_join_on_the_service_address_when_seated_says_so_and_replies_go_to_the_private_address(
    gw, transport, kingsburg
):
    gw.receive(make_mail(ANN, SERVICE, f"join {kingsburg}"))
    gw.work()
    answer = latest(transport, ANN)
    assert "You have already joined" in text_of(answer) and 'Send "join" there' not in text_of(answer)
    assert answer["Reply-To"] == address_of(gw, kingsburg, ANN)


def test_the_answer_to_new_from_a_player_comes_from_their_private_address_and_reply_joins(gw, transport):
    gw.receive(make_mail(ANN, SERVICE, f"new kingsburg {ANN} {BOB}"))
    gw.work()
    (game_id,) = gw.service.game_ids()
    (answer,) = [m for m in transport.to(ANN) if m["X-Pbem-Kind"] == "reply"]
    assert f"Created game {game_id}" in text_of(answer) and "Since your last mail:" in text_of(answer)
    assert answer["Reply-To"] == address_of(gw, game_id, ANN) and game_id in text_of(answer)
    gw.receive(make_mail(ANN, answer["Reply-To"], "join"))
    gw.work()
    assert 0 in gw.service.game(game_id).joined


def test_a_mail_to_another_players_address_is_answered_to_its_sender(gw, transport, kingsburg):
    version = gw.service.game(kingsburg).version
    transport.clear()
    gw.receive(make_mail(ANN, address_of(gw, kingsburg, BOB), "pass"))
    gw.work()
    assert gw.service.game(kingsburg).version == version
    (answer,) = transport.to(ANN)
    assert answer["X-Pbem-Kind"] == "wrong-address"
    assert "private address of bob" in text_of(answer) and address_of(gw, kingsburg, ANN) in text_of(answer)
    assert answer["Reply-To"] == address_of(gw, kingsburg, ANN)


def test_subjects_are_rebuilt_from_the_game_and_do_not_grow(gw, transport, kingsburg):
    subject = f"Re: [pbem] {kingsburg}: Re: {kingsburg}: Re: Re: your turn - Turn 4 (year 1)"
    gw.receive(make_mail(ANN, address_of(gw, kingsburg, ANN), "status", subject=subject))
    gw.work()
    answer = latest(transport, ANN)["Subject"]
    assert answer == "[pbem] Kingsburg — ann, bob" and len(answer) <= SUBJECT_MAX
    assert plain_subject(subject) == "your turn - Turn 4 (year 1)"


def test_a_game_keeps_one_subject_for_its_whole_life(gw, transport, kingsburg):
    reply_to_a_decision(gw, transport, kingsburg)
    subjects = {str(m["Subject"]) for m in transport.to(ANN) + transport.to(BOB)}
    states = {str(m["X-Pbem-State"]) for m in transport.to(ANN) + transport.to(BOB)}
    assert subjects == {"[pbem] Kingsburg — ann, bob"}
    assert len(states) > 1  # positive control: the mails differ, in the header the subject left


def test_the_state_opens_the_text_of_a_game_mail(gw, transport, kingsburg):
    mail = latest(transport, ANN)
    assert text_of(mail).startswith(str(mail["X-Pbem-State"]).strip()[:40])
    assert "Turn " in mail["X-Pbem-State"]


def test_a_long_table_gives_way_to_a_count_never_cutting_a_name():
    names = ["Jan Novák", "Petra Svobodová", "Karel Dvořák", "Eva Nováková", "Zdeněk"]
    subject = game_subject("Kingdom Builder", names)
    assert subject == "[pbem] Kingdom Builder — Jan Novák, Petra Svobodová +3"
    assert len(subject) <= SUBJECT_MAX
    assert game_subject("Kingsburg", names[:2]) == "[pbem] Kingsburg — Jan Novák, Petra Svobodová"


def test_a_subject_too_long_for_any_name_is_cut_at_a_space():
    assert game_subject("x" * 70, ["ann"]) == "[pbem] " + "x" * 50 + "..."
    assert within_words("[pbem] Re: " + "word " * 20) == "[pbem] Re: " + " ".join(["word"] * 9) + "..."
    assert game_subject("Kingsburg", ["a" * 55]) == "[pbem] Kingsburg — +1"


@pytest.mark.parametrize(
    "subject",
    [
        "[pbem] kingsburg-4449cbf6: neprovedeno, jste na tahu - tah 4 (rok 1, Královská výpomoc, ...)",
        "[pbem] warriors-traders-4449cbf6: neprovedeno, jste na tahu - tah 4 (příprava)",
        "[pbem] kingsburg-4449cbf6: ruchy wykonane, twój ruch - tura 12 (rok 2, lato: wpływ ...)",
        "Čtení: ěščřžýáíé úů ĚŠČŘŽÝÁÍÉ ÚŮ, łódź żółć",
        "[pbem] kingsburg-4449cbf6: your turn - Turn 4 (year 1)",
        "[pbem] Kingsburg — Jan Novák, Petra Svobodová, Łucja +2",
    ],
)
def test_a_subject_reads_back_with_every_space_it_had(subject):
    raw = mime.head([("Subject", subject_value(subject))]) + b"\r\n" + mime.text_part("x", "plain")
    assert all(len(line) <= 78 for line in raw.split(b"\r\n\r\n")[0].split(b"\r\n"))
    assert email.message_from_bytes(raw, policy=policy.default)["Subject"] == subject
    head = raw.split(b"\r\n\r\n")[0].decode("ascii").replace("\r\n ", " ")
    words = email.header.decode_header(head.split("Subject: ", 1)[1].split("\r\n", 1)[0])
    assert str(email.header.make_header(words)) == subject  # as a client that follows RFC 2047 reads it


def test_every_mail_of_a_game_names_the_same_thread(gw, transport, kingsburg):
    mails = transport.to(ANN)
    roots = {m["References"].split()[0] for m in mails}
    assert len(mails) >= 2 and len(roots) == 1 and kingsburg in roots.pop()


def reply_to_a_decision(gw, transport, game_id: str):
    """The reply to the player to move, who sent the first line of their "Your decision"."""
    game = gw.service.game(game_id)
    player = game.emails[game.spec.to_move(gw.service.state(game))[0]]
    line = decision_lines(text_of(latest(transport, player)))[0]
    gw.receive(make_mail(player, address_of(gw, game_id, player), line))
    gw.work()
    return [m for m in transport.to(player) if m["X-Pbem-Kind"] == "reply"][-1]


def test_the_receipt_is_an_attachment_and_one_line(gw, transport, kingsburg):
    reply = reply_to_a_decision(gw, transport, kingsburg)
    text = text_of(reply)
    assert (
        "attached as receipt.json" in " ".join(text.split())
        and "Inclusion proof" not in text
        and "Leaf hash" not in text
    )
    assert [p.get_filename() for p in reply.iter_attachments()] == ["receipt.json"]


def test_the_receipt_line_names_the_turn_the_mail_and_the_web_name(gw, transport, kingsburg):
    """One turn number (finding 7): the receipt's leaf index counts from 0, the mail says its turn."""
    import json

    reply = reply_to_a_decision(gw, transport, kingsburg)
    turn = gw.service.game(kingsburg).version
    (attachment,) = reply.iter_attachments()
    assert json.loads(attachment.get_content())["index"] == turn - 1
    assert f"Turn {turn} " in state_of(reply) and f"(turn {turn} of the signed log)" in text_of(reply)


def test_errors_name_players_not_seats():
    named = name_seats("It is not your turn; seat 2 is to move.", ["ann", "bob"])
    assert named == "It is not your turn; bob is to move."
    assert name_seats("seat 7 and Seat 1", ["ann", "bob"]) == "seat 7 and ann"


def test_live_play_is_not_limited_by_the_hourly_limit(gw, transport, game_of_pig, mail_settings):
    for _ in range(mail_settings.replies_per_hour + 5):
        gw.receive(make_mail(ANN, address_of(gw, game_of_pig, ANN), "status"))
    gw.work()
    assert len(transport.to(ANN)) == mail_settings.replies_per_hour + 5
    assert "dropped" not in gw.mailroom.views.counts()
    assert mail_settings.flood_per_hour >= 360  # a mail every 10 seconds, sustained, stays below the guard


def test_the_flood_guard_drops_live_replies_over_its_hourly_setting(service, mail_settings, clock, transport):
    """PBEM_MAIL_FLOOD_PER_HOUR: answers to a player's own moves beyond it within the hour are
    dropped (counted as dropped, never silently), the ones within it sent."""
    gw = Gateway(service, replace(mail_settings, flood_per_hour=3), clock=clock, transport=transport)
    game_of_pig = started_pig(gw, transport, [ANN, BOB])
    for _ in range(5):
        gw.receive(make_mail(ANN, address_of(gw, game_of_pig, ANN), "status"))
    gw.work()
    answers = [m for m in transport.to(ANN) if m["X-Pbem-Kind"] != "limited"]
    assert len(answers) == 3
    assert gw.mailroom.views.counts().get("dropped") == 2


def test_the_flood_guard_is_a_bounded_setting():
    settings = MailSettings.from_env(Path("home"), {"PBEM_MAIL_FLOOD_PER_HOUR": "5000"})
    assert settings.flood_per_hour == 5000
    assert MailSettings.from_env(Path("home"), {}).flood_per_hour == 720
    with pytest.raises(ConfigError, match="PBEM_MAIL_FLOOD_PER_HOUR"):
        MailSettings.from_env(Path("home"), {"PBEM_MAIL_FLOOD_PER_HOUR": "0"})


def test_a_dropped_reply_brings_one_notice_and_a_log_line(gw, transport, mail_settings, caplog):
    for _ in range(mail_settings.replies_per_hour + 4):
        gw.receive(make_mail("eve@evil.example", SERVICE, "help"))
    gw.work()
    notices = [m for m in transport.to("eve@evil.example") if m["X-Pbem-Kind"] == "limited"]
    assert len(notices) == 1 and "Replies resume by" in text_of(notices[0])
    assert sum("rate limit: dropped" in r.message for r in caplog.records) == 4


@pytest.fixture
def game_of_pig(gw, transport):
    return started_pig(gw, transport, [ANN, BOB])


def test_cli_warns_before_mail_would_go_to_a_relay(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PBEM_SMTP_RELAY", "127.0.0.1:2525")
    runner = CliRunner()
    refused = runner.invoke(main, ["new", "hidden-pig", "--player", ANN, "--player", BOB])
    assert refused.exit_code == 2 and "PBEM_SMTP_RELAY is set" in refused.output
    assert GameService(Settings(home=tmp_path / "home")).game_ids() == []
    sent = runner.invoke(main, ["new", "hidden-pig", "--player", ANN, "--player", BOB, "--yes"])
    assert sent.exit_code == 0


@pytest.mark.parametrize(
    "command",
    [
        ["join", "GAME", "--as", BOB],
        ["move", "GAME", "--as", ANN, "roll"],
        ["autoplay", "GAME"],
    ],
)
def test_cli_join_move_and_autoplay_warn_before_mail_would_go_to_a_relay(tmp_path, monkeypatch, command):
    monkeypatch.setenv("PBEM_HOME", str(tmp_path / "home"))
    service = GameService(Settings(home=tmp_path / "home"))
    game_id = service.create("hidden-pig", [ANN, BOB], {}, seed=b"\x07" * 32)
    service.join(game_id, ANN)
    if command[0] != "join":
        service.join(game_id, BOB)
    version = service.game(game_id).version
    service.close()
    monkeypatch.setenv("PBEM_SMTP_RELAY", "127.0.0.1:2525")
    args = [game_id if word == "GAME" else word for word in command]
    refused = CliRunner().invoke(main, args)
    assert refused.exit_code == 2 and "PBEM_SMTP_RELAY is set" in refused.output and "--no-mail" in refused.output
    service = GameService(Settings(home=tmp_path / "home"))
    assert service.game(game_id).version == version  # nothing done
    service.close()
    assert CliRunner().invoke(main, [*args, "--yes"]).exit_code == 0


def test_cli_no_mail_game_sends_no_invitation_or_notice(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PBEM_SMTP_RELAY", "127.0.0.1:2525")
    runner = CliRunner()
    made = runner.invoke(main, ["new", "hidden-pig", "--player", ANN, "--player", BOB, "--no-mail"])
    game_id = made.output.strip()
    played = runner.invoke(main, ["autoplay", game_id])  # its mail is off: no choice needed
    assert played.exit_code == 0 and "winner:" in played.output
    from mailgateway.gateway import Gateway
    from pbem.mailroom.settings import MailSettings

    service = GameService(Settings(home=tmp_path / "home"))
    gw = Gateway(service, MailSettings(address=SERVICE, maildir=tmp_path / "maildir"), transport=_Nowhere())
    gw.work()
    assert gw.mailroom.views.counts() == {}


class _Nowhere:
    def send(self, key, to, message):
        raise AssertionError(f"mail {key} to {to} should not exist")


def test_pbem_version():
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0 and result.output.startswith("pbem ")


def test_autoplay_prints_the_winner_and_the_breakdown(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_HOME", str(tmp_path / "home"))
    runner = CliRunner()
    game_id = runner.invoke(main, ["new", "kingdom-builder", "--player", ANN, "--player", BOB]).output.strip()
    output = runner.invoke(main, ["autoplay", game_id]).output
    assert "winner: " in output and "  1. " in output and "gold: " in output


def test_the_breakdown_is_plain_words():
    from pbem.mailroom.news import breakdown

    details = {"gold": {"castles": 6, "fishermen": 4}, "six_suits": None, "goods": 3, "goals": ["trade-1", "music-2"]}
    assert breakdown(details) == "gold: castles 6, fishermen 4; goods 3; goals trade-1, music-2"


def test_since_your_last_mail_on_each_store(settings, mail_settings, clock, transport):
    """The version a player was last told is kept as the mail is queued (``pbem_told``) and read
    back in a new round, and agrees with the queue itself (SQLite and PostgreSQL)."""
    from mailgateway.gateway import Gateway

    service = GameService(settings, clock=lambda: clock().isoformat(timespec="seconds"))
    try:
        gw = Gateway(service, mail_settings, clock=clock, transport=transport)
        game_id = joined_by_mail(
            gw, service.create("hidden-pig", [ANN, BOB], {"rounds": "2"}, seed=b"\x01" * 32), [ANN, BOB]
        )
        outbox = gw.mailroom.outbox
        told = outbox.last_mailed(outbox.round(), ANN, game_id)  # a new round: read from the queue
        assert told == max(
            m["game"]["version"]
            for m in gw.mailroom.views.latest_models(ANN, game_id)
            if m["game"] and m["game"]["seat"] is not None
        )
        gw.receive(make_mail(ANN, address_of(gw, game_id, ANN), "status"))
        gw.work()
        news = text_of(transport.to(ANN)[-1]).split("Since your last mail:")[1]
        assert "nothing new." in news.split("\n\n")[0]
    finally:
        service.close()


def test_kingsburg_names_the_advisor_whose_gift_is_chosen():
    """Finding 3 of issue 16: "take gold" during the gifts step was refused 15 times in 17,
    because the mail did not say which advisor's gift was pending."""
    from pbem.games import get_spec
    from pbem.games.kingsburg.data import ADVISORS
    from pbem.games.simulate import play_random

    spec = get_spec("kingsburg")
    sentences: list[tuple[str, str]] = []

    def look(before, seat, move, facts, after):
        if after.step == "gifts":
            for waiting in spec.to_move(after):
                advisor = next(a for a, s, _ in after.gifts if s == waiting)
                sentences.append((spec.decision_text(after, waiting, ["ann", "bob"]), ADVISORS[advisor].name))

    play_random(spec, 2, seed=3, on_step=look)
    assert sentences
    assert all(f"the {name} (advisor " in sentence for sentence, name in sentences)


def test_the_mails_own_lines_of_since_your_last_mail_are_in_the_players_language():
    from types import SimpleNamespace

    from pbem import i18n
    from pbem.mailroom.news import entry_lines

    game = SimpleNamespace(names=["ann", "bob"], spec=SimpleNamespace(say_command=lambda text: text))
    czech = i18n.translations("cs").gettext
    missed = {"kind": "moved", "seat": 0, "source": "deadline", "command": "hold", "facts": []}
    robot = {"kind": "resigned", "seat": 1, "reason": "missed-turns"}
    assert entry_lines(game, missed) == ["(ann: deadline passed, default move: hold)"]
    assert entry_lines(game, missed, czech) == ["(ann: termín vypršel, výchozí tah: hold)"]
    assert entry_lines(game, robot) == ["From now on the house robot plays bob (too many missed deadlines)."]
    (line,) = entry_lines(game, robot, czech)
    assert "bob" in line and "robot" in line and "From now on" not in line and "missed" not in line


def test_every_mail_names_its_language_in_content_language(gw, transport, kingsburg):
    confirmed(gw, transport, BOB, "language pl")
    assert str(latest(transport, BOB)["Content-Language"]) == "pl"
    assert str(latest(transport, ANN)["Content-Language"]) == "en"  # it was lost under the parts before


def test_the_creators_name_from_their_mail_names_their_seat(gw, transport):
    gw.receive(make_mail(f"Ann Smith <{ANN}>", SERVICE, f"new kingsburg {ANN} {BOB}"))
    gw.work()
    (game_id,) = gw.service.game_ids()
    assert gw.service.game(game_id).names == ["Ann Smith", "bob"]
    invitation = next(m for m in transport.to(BOB) if m["X-Pbem-Kind"] == "invitation")
    assert str(invitation["Subject"]) == "[pbem] Kingsburg — Ann Smith, bob"
    assert "with Ann Smith." in " ".join(text_of(invitation).split())


def test_a_name_given_once_names_the_seats_of_later_games(gw, transport):
    confirmed(gw, transport, BOB, "language en")  # bob has a record of his own
    gw.receive(make_mail(ANN, SERVICE, f"new kingsburg {ANN} {BOB}"))
    gw.work()
    (first,) = gw.service.game_ids()
    gw.receive(make_mail(f'"Bob Brown" <{BOB}>', address_of(gw, first, BOB), "join"))
    gw.work()
    gw.receive(make_mail(ANN, SERVICE, f"new kingsburg {ANN} {BOB}"))
    gw.work()
    (second,) = set(gw.service.game_ids()) - {first}
    assert gw.service.game(first).names == ["ann", "bob"]  # a game keeps the names it was made with
    assert gw.service.game(second).names == ["ann", "Bob Brown"]


@pytest.mark.parametrize("word", ["name", "jméno", "imię"])
def test_the_name_command_names_the_seats_of_later_games(gw, transport, word):
    confirmed(gw, transport, BOB, f"{word} Bob  Brown\x07")
    assert "Bob Brown" in " ".join(text_of(transport.to(BOB)[-1]).split())
    gw.receive(make_mail(ANN, SERVICE, f"new kingsburg {ANN} {BOB}"))
    gw.work()
    (game_id,) = gw.service.game_ids()
    assert gw.service.game(game_id).names == ["ann", "Bob Brown"]


def test_a_name_of_nothing_is_refused_and_changes_nothing(gw, transport):
    gw.receive(make_mail(BOB, SERVICE, "name <@>"))
    gw.work()
    assert "name YOUR NAME" in text_of(transport.to(BOB)[-1])


def test_a_creator_who_gave_a_name_keeps_it_when_their_mail_has_none(gw, transport):
    confirmed(gw, transport, ANN, "name Ann Smith")
    gw.receive(make_mail(ANN, SERVICE, f"new kingsburg {ANN} {BOB}"))  # a plain From
    gw.work()
    (game_id,) = gw.service.game_ids()
    assert gw.service.game(game_id).names == ["Ann Smith", "bob"]
