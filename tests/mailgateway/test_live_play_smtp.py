"""Whole games by mail over real SMTP, played as people play them: each player answers the
latest mail they got, at the address in its Reply-To, with a line taken from its "Your
decision", at the pace of live play and with the default limits.

The gateway is a real aiosmtpd server on loopback; its replies go through a relay that is a
second aiosmtpd server (the sink), as in test_smtp.
"""

from __future__ import annotations

import random
import smtplib
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest

from mailgateway.compose import SUBJECT_MAX
from pbem.mailroom.settings import MailSettings
from tests.mailgateway.conftest import SERVICE, make_mail
from tests.mailgateway.playbook import decision_lines, has_since, state_of, text_of

MAX_MAILS = 1500
SECONDS_BETWEEN_MAILS = 10  # a quick player at the keyboard


@pytest.fixture
def mail_settings(tmp_path) -> MailSettings:
    """The installation's defaults (hourly limit, deadlines, reminders): only the addresses set."""
    return MailSettings(address=SERVICE, maildir=tmp_path / "maildir")


class Players:
    """The players' mailboxes at the sink, and what each one sent."""

    def __init__(self, gw, sink, port: int, clock, emails: list[str]):
        self.gw, self.sink, self.port, self.clock, self.emails = gw, sink, port, clock, emails
        self.read = 0
        self.inbox: dict[str, list[EmailMessage]] = {e: [] for e in emails}
        self.answered: set[str] = set()  # Message-IDs of our mails that a player already answered
        self.sent: list[str] = []  # Message-IDs of the players' mails
        self.senders: list[str] = []

    def send(self, sender: str, to: str, body: str) -> None:
        self.clock.advance(seconds=SECONDS_BETWEEN_MAILS)
        raw = make_mail(sender, to, body)
        self.sent.append(message_from_bytes(raw, policy=policy.default)["Message-ID"])
        self.senders.append(sender)
        with smtplib.SMTP("127.0.0.1", self.port, timeout=10) as client:
            assert client.sendmail(sender, [to], raw) == {}
        self.deliver()

    def deliver(self) -> None:
        self.gw.work()
        for envelope in self.sink.envelopes[self.read :]:
            msg = message_from_bytes(envelope.original_content, policy=policy.default)
            for to in envelope.rcpt_tos:
                self.inbox[to].append(msg)
        self.read = len(self.sink.envelopes)

    def latest(self, player: str) -> EmailMessage | None:
        return self.inbox[player][-1] if self.inbox[player] else None

    def next_move(self, chooser: random.Random) -> tuple[str, EmailMessage, str] | None:
        """Someone whose latest mail asks for a decision they have not answered yet."""
        for player in chooser.sample(self.emails, len(self.emails)):
            msg = self.latest(player)
            if msg is None or msg["Message-ID"] in self.answered:
                continue
            lines = decision_lines(text_of(msg))
            if lines:
                return player, msg, chooser.choice(lines)
        return None


def play_by_mail(gw, sink, port: int, clock, game: str, emails: list[str], seed: int) -> Players:
    players = Players(gw, sink, port, clock, emails)
    players.send(emails[0], SERVICE, f"new {game} {' '.join(emails)}")
    for player in emails:
        (invitation,) = [m for m in players.inbox[player] if m["X-Pbem-Kind"] == "invitation"]
        players.send(player, invitation["Reply-To"], f"join {player.split('@')[0]}-nonce")
    chooser = random.Random(seed)
    (game_id,) = gw.service.game_ids()
    for _ in range(MAX_MAILS):
        if gw.service.game(game_id).ended:
            break
        move = players.next_move(chooser)
        assert move is not None, "the game waits, but no player's latest mail asks for a decision"
        player, msg, line = move
        players.answered.add(msg["Message-ID"])
        players.send(player, msg["Reply-To"], line)
    assert gw.service.game(game_id).ended
    return players


def check_the_mails(gw, players: Players) -> None:
    everything = [(player, msg) for player, box in players.inbox.items() for msg in box]
    replies = {msg["In-Reply-To"] for _, msg in everything if msg["In-Reply-To"]}
    assert set(players.sent) <= replies, "every mail a player sent is answered"
    subjects = {str(msg["Subject"]) for _, msg in everything}
    assert len(subjects) == 1, "one subject for the whole game, so every client keeps one thread"
    assert len(subjects.pop()) <= SUBJECT_MAX
    game_mails = [msg for _, msg in everything]  # the answer to "new" too: all are about the game
    assert all("+" in msg["From"] for msg in game_mails), "every mail comes from the player's private address"
    assert all(has_since(text_of(msg)) for msg in game_mails), "every mail about the game says what happened"
    assert all(msg["Reply-To"] == msg["From"].addresses[0].addr_spec for msg in game_mails)
    refused = [text_of(msg) for msg in game_mails if msg["X-Pbem-Kind"] == "reply" and "not applied" in state_of(msg)]
    assert refused == [], "a line from 'Your decision' is always legal"
    assert "dropped" not in gw.mailroom.views.counts()
    assert gw.settings.replies_per_hour == MailSettings().replies_per_hour == 20
    busiest = max(players.senders.count(player) for player in players.emails)
    hours = len(players.sent) * SECONDS_BETWEEN_MAILS / 3600
    assert busiest / max(hours, 1) > gw.settings.replies_per_hour, "the pace is above the hourly limit"
    for _player, box in players.inbox.items():
        final = box[-1]
        assert "game over" in state_of(final) and "Final standings:" in text_of(final)


def test_two_players_play_kingsburg_by_mail_from_invitation_to_standings(relay_gw, smtp_server, sink, clock):
    players = play_by_mail(relay_gw, sink, smtp_server, clock, "kingsburg", ["ann@example.net", "bob@example.com"], 1)
    check_the_mails(relay_gw, players)


def test_three_players_play_kingdom_builder_by_mail_from_invitation_to_standings(relay_gw, smtp_server, sink, clock):
    emails = ["ann@example.net", "bob@example.com", "cyril@example.cz"]
    players = play_by_mail(relay_gw, sink, smtp_server, clock, "kingdom-builder", emails, 2)
    check_the_mails(relay_gw, players)
