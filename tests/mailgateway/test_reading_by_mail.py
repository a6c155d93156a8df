"""Mail as people write it, through the gateway: what is forgiven, what is answered when
nothing is a command, moves in the subject or at the wrong address, Czech and Polish words and
turn files (issue 27). The corpus (test_corpus.py) covers the client layouts."""

from __future__ import annotations

import re
from email.message import EmailMessage

import pytest

from pbem.mailroom.records import GameClock
from tests.mailgateway.conftest import SERVICE, address_of, confirmed, make_mail, started_pig, text_of

ANN, BOB = "ann.smith@example.net", "bob@example.com"


@pytest.fixture
def game(gw, transport):
    """A started two-seat Hidden Pig game (ann moves first), with the start mails sent."""
    return started_pig(gw, transport, [ANN, BOB])


def reply_to(gw, transport, sender: str) -> str:
    gw.work()
    answers = [m for m in transport.to(sender) if m["In-Reply-To"]]
    return text_of(answers[-1])


def unwrapped(text: str) -> str:
    """A mail's text with its lines of at most 72 characters joined again where they were wrapped."""
    return re.sub(r"\r?\n +(?=\S)", " ", text)


def test_a_greeting_a_sign_off_and_a_name_around_a_move_are_forgiven_and_listed(gw, transport, game):
    gw.receive(make_mail(ANN, address_of(gw, game, ANN), "Hi Bob,\n\nhold.\n\nCheers!\nAnn\n\nSent from my iPhone"))
    text = reply_to(gw, transport, ANN)
    assert gw.service.game(game).entries[-1]["command"] == "hold"
    assert "applied: hold" in text and "Not read as commands:" in text
    for line in ("Hi Bob,  (a greeting)", "Cheers!  (a sign-off)", "Ann  (a name)", "Sent from my iPhone  ("):
        assert f"    {line}" in text


def test_a_bad_line_between_moves_still_stops_the_batch(gw, transport, game):
    version = gw.service.game(game).version
    gw.receive(make_mail(ANN, address_of(gw, game, ANN), "Hi,\nhold\nmaybe not\nhold\nAnn"))
    text = reply_to(gw, transport, ANN)
    assert gw.service.game(game).version == version
    assert "rejected (line 2): maybe not" in text and "Nothing was applied" in text


def test_a_mail_without_a_command_says_so_and_gives_the_decision_again(gw, transport, game):
    version = gw.service.game(game).version
    gw.receive(make_mail(ANN, address_of(gw, game, ANN), "Hi all,\nwhat should I do?\nAnn", subject="question"))
    text = reply_to(gw, transport, ANN)
    assert gw.service.game(game).version == version
    assert "No command was found in your mail, so nothing changed." in text
    assert "    what should I do?  (a remark)" in text
    assert "Reply with one of these lines" in text and "  roll\r\n" in text and "  hold\r\n" in text


def test_a_move_only_in_the_subject_at_a_private_address_is_read(gw, transport, game):
    gw.receive(make_mail(ANN, address_of(gw, game, ANN), "", subject=f"Re: [pbem] {game}: hold"))
    text = reply_to(gw, transport, ANN)
    assert gw.service.game(game).entries[-1]["command"] == "hold"
    assert "applied: hold" in text


def test_a_reply_subject_that_is_no_command_is_not_an_error(gw, transport, game):
    subject = f"Re: [pbem] {game}: your turn - Turn 4 (round 1)"
    gw.receive(make_mail(ANN, address_of(gw, game, ANN), "Ann", subject=subject))
    text = reply_to(gw, transport, ANN)
    assert "No command was found" in text and "rejected" not in text


def test_a_move_sent_to_the_service_address_is_answered_with_the_private_address(gw, transport, game):
    gw.receive(make_mail(ANN, SERVICE, "hold"))
    gw.work()
    answer = [m for m in transport.to(ANN) if m["In-Reply-To"]][-1]
    text = unwrapped(text_of(answer))
    assert "Moves go to your private address for the game:" in text
    assert address_of(gw, game, ANN) in text
    assert answer["Reply-To"] == address_of(gw, game, ANN)  # "Reply" goes where moves count
    assert gw.service.game(game).entries[-1]["kind"] != "moved" or gw.service.game(game).entries[-1]["seat"] != 0


def test_a_stranger_sending_a_move_to_the_service_address_is_told_it_is_no_command(gw, transport):
    gw.receive(make_mail("carol@example.org", SERVICE, "hold"))
    text = reply_to(gw, transport, "carol@example.org")
    assert 'This is not a command. Send "help" for the list.' in text


@pytest.mark.parametrize(
    "header, player",
    [("hra", "hráč"), ("gra", "gracz"), ("Hra", "hrac")],
)
def test_czech_and_polish_turn_files_in_the_body(gw, transport, game, header, player):
    version = gw.service.game(game).version
    body = f"Ahoj,\n\n{header}: {game}\n{player}: {ANN}\nverze: {version}\nhold\n"
    body = body.replace("verze", "wersja") if header == "gra" else body
    gw.receive(make_mail(ANN, address_of(gw, game, ANN), body.split("\n", 2)[2]))
    text = reply_to(gw, transport, ANN)
    assert gw.service.game(game).entries[-1]["source"] == "turnfile", text


def attachment_mail(sender: str, to: str, body: str, files: list[tuple[str, str, bytes]]) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = sender, to, "tah", f"<att-{len(files)}@x>"
    msg.set_content(body)
    for name, ctype, data in files:
        maintype, subtype = ctype.split("/")
        msg.add_attachment(data, maintype=maintype, subtype=subtype, filename=name)
    return bytes(msg)


def test_a_polish_turn_file_as_an_attachment_is_applied(gw, transport, game):
    turn = f"gra: {game}\ngracz: {ANN}\nhold\n".encode()
    gw.receive(attachment_mail(ANN, address_of(gw, game, ANN), "W załączniku.", [("tura.txt", "text/plain", turn)]))
    reply_to(gw, transport, ANN)
    assert gw.service.game(game).entries[-1]["source"] == "turnfile"


def test_an_attachment_that_is_no_turn_file_is_listed_as_not_read(gw, transport, game):
    files = [("photo.jpg", "image/jpeg", b"\xff\xd8\xff"), ("notes.txt", "text/plain", b"just notes")]
    gw.receive(attachment_mail(ANN, address_of(gw, game, ANN), "hold", files))
    text = reply_to(gw, transport, ANN)
    assert "applied: hold" in text
    assert "    photo.jpg  (an attachment, not a turn file)" in text
    assert "    notes.txt  (an attachment, not a turn file)" in text


def test_polish_service_words_are_understood(gw, transport):
    confirmed(gw, transport, BOB, "język pl")
    gw.receive(make_mail(BOB, SERVICE, "Cześć!\nnowa hidden-pig bob@example.com carol@example.org\nPozdrawiam"))
    text = reply_to(gw, transport, BOB)
    assert "Utworzono grę" in text or "hidden-pig-" in text
    # the lines not read are counted, not quoted: the mail did not show it came from bob (issue 28)
    assert "2 wiersze nie zostały odczytane jako polecenia" in " ".join(text.split())


def test_a_refused_move_lists_the_legal_moves_of_the_game_in_the_players_language(gw, transport):
    game_id = gw.service.create("kingdom-builder", [ANN, BOB], {}, seed=bytes(32))
    gw.service.store.save(GameClock(game_id, {"lang": "cs"}))
    for player in (ANN, BOB):
        gw.service.join(game_id, player)
    gw.work()
    first = gw.service.game(game_id).emails[gw.service.summary(game_id)["waiting_for"][0]["seat"]]
    gw.receive(make_mail(first, address_of(gw, game_id, first), "xyzzy"))
    text = reply_to(gw, transport, first).replace("\r\n", "\n")
    listed = re.search(r"\n +místo toho lze:\n((?: {6}\S.*\n)+) +a dalších", text)
    legal = [line.strip() for line in listed.group(1).splitlines()]  # one move a line, to copy
    assert len(legal) == 12 and all(move.startswith("postav ") for move in legal)
    assert "postav C4 D4 E5" not in legal  # the game's generic example is gone from the list
    assert re.search(r'a dalších \d+: pošlete "tahy"', unwrapped(text))
