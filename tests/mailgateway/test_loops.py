"""Issue 28, item 5: the loop brake. An auto-responder that sets none of the automatic-mail
markers answers every reply with another mail without a command; at a player's private
address those answers met only the flood guard (720 an hour). Through real SMTP."""

from __future__ import annotations

from pbem.mailroom.limits import NOTHING_PER_HOUR
from tests.mailgateway.conftest import address_of, make_mail, started_pig

ANN, BOB = "ann@example.com", "bob@example.com"
HOLIDAY = "Thank you for your message. I am on holiday until Monday and will read it then."


def test_a_naive_auto_responder_gets_at_most_five_answers_an_hour(gw, smtp, transport, clock):
    game_id = started_pig(gw, transport, [ANN, BOB])
    address = address_of(gw, game_id, ANN)
    for _ in range(20):  # the responder answering each of our replies at once
        assert smtp(make_mail(ANN, address, HOLIDAY, subject="Re: your turn"), ANN, address) == 250
        gw.work()
    assert len(transport.to(ANN)) == NOTHING_PER_HOUR == 5
    assert smtp(make_mail(ANN, address, "roll"), ANN, address) == 250  # her move is answered still
    gw.work()
    assert len(transport.to(ANN)) == 6 and gw.service.game(game_id).entries[-1]["kind"] == "moved"
    clock.advance(hours=1, minutes=1)
    smtp(make_mail(ANN, address, HOLIDAY, subject="Re: your turn"), ANN, address)
    gw.work()
    assert len(transport.to(ANN)) == 7  # an hour later a mail without a command is answered again


def test_positive_control_a_person_without_a_command_is_answered(gw, smtp, transport):
    game_id = started_pig(gw, transport, [ANN, BOB])
    address = address_of(gw, game_id, ANN)
    smtp(make_mail(ANN, address, "Thanks, see you on Friday.", subject="Hello"), ANN, address)
    gw.work()
    (reply,) = transport.to(ANN)
    assert "No command was found" in " ".join(reply.get_body(("plain",)).get_content().split())
