"""Whole games by mail over real SMTP, played as people play them: each player answers the
latest mail they got, at the address in its Reply-To, with a line taken from its "Your
decision", at the pace of live play and with the default limits.

The gateway is a real aiosmtpd server on loopback; its replies go through a relay that is a
second aiosmtpd server (the sink), as in test_smtp.
"""

from __future__ import annotations

import random
import re
import smtplib
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest

from mailgateway.compose import SUBJECT_MAX
from pbem import i18n
from pbem.mailroom.settings import MailSettings
from tests.mailgateway.conftest import SERVICE, make_mail
from tests.mailgateway.playbook import decision_lines, has_since, state_of, text_of

MAX_MAILS = 1500
NAME_WORD = {"cs": "jméno", "pl": "imię"}
SECONDS_BETWEEN_MAILS = 10  # a quick player at the keyboard


@pytest.fixture
def mail_settings(tmp_path) -> MailSettings:
    """The installation's defaults (hourly limit, deadlines, reminders): only the addresses set."""
    return MailSettings(address=SERVICE, maildir=tmp_path / "maildir")


class Players:
    """The players' mailboxes at the sink, and what each one sent."""

    def __init__(self, gw, sink, port: int, clock, emails: list[str], observers: tuple[str, ...] = ()):
        self.gw, self.sink, self.port, self.clock, self.emails = gw, sink, port, clock, emails
        self.read = 0
        self.inbox: dict[str, list[EmailMessage]] = {e: [] for e in [*emails, *observers]}
        self.answered: set[str] = set()  # Message-IDs of our mails that a player already answered
        self.sent: list[str] = []  # Message-IDs of the players' mails
        self.senders: list[str] = []
        self.game_starts: dict[str, int] = {}  # where each player's mails about the game begin

    def send(self, sender: str, to: str, body: str) -> None:
        self.clock.advance(seconds=SECONDS_BETWEEN_MAILS)
        raw = make_mail(sender, to, body)
        self.sent.append(message_from_bytes(raw, policy=policy.default)["Message-ID"])
        self.senders.append(sender)
        with smtplib.SMTP("127.0.0.1", self.port, timeout=10) as client:
            assert client.sendmail(sender, [to], raw) == {}
        self.deliver()

    def confirmed(self, sender: str, body: str) -> None:
        """A standing command to the service address, confirmed as its owner would."""
        self.send(sender, SERVICE, body)
        token = re.search(r"^ +\w+ ([0-9a-f]{12})\s*$", text_of(self.inbox[sender][-1]), re.MULTILINE)
        assert token is not None, "the reply asks for a confirmation"
        self.send(sender, SERVICE, token.group(0).strip())

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


def play_by_mail(
    gw,
    sink,
    port: int,
    clock,
    game: str,
    emails: list[str],
    seed: int,
    lang: str = "",
    observer: str = "",
    names: tuple[str, ...] = (),
) -> Players:
    players = Players(gw, sink, port, clock, emails, (observer,) if observer else ())
    for email, name in zip(emails, names, strict=False):  # the names they go by, in their words
        players.confirmed(email, f"{NAME_WORD.get(lang, 'name')} {name}")
    players.game_starts = {email: len(players.inbox[email]) for email in emails}  # the answers before are no game's
    players.send(emails[0], SERVICE, f"new {game} {' '.join(emails)}" + (f" lang={lang}" if lang else ""))
    (game_id,) = gw.service.game_ids()
    if observer:  # follows the game from before the start
        players.confirmed(observer, f"subscribe {game_id}")
    for player in emails:
        (invitation,) = [m for m in players.inbox[player] if m["X-Pbem-Kind"] == "invitation"]
        players.send(player, invitation["Reply-To"], f"join {player.split('@')[0]}-nonce")
    chooser = random.Random(seed)
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
    replies = {msg["In-Reply-To"] for box in players.inbox.values() for msg in box if msg["In-Reply-To"]}
    assert set(players.sent) <= replies, "every mail a player (or observer) sent is answered"
    everything = [
        (player, msg)
        for player in players.emails
        for msg in players.inbox[player][players.game_starts.get(player, 0) :]
    ]
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
    for player in players.emails:
        final = players.inbox[player][-1]
        say = i18n.translations(str(final["Content-Language"])).gettext  # the words of the mail's language
        assert say("game over") in state_of(final) and say("Final standings:") in text_of(final)


def test_two_players_play_kingsburg_by_mail_from_invitation_to_standings(relay_gw, smtp_server, sink, clock):
    players = play_by_mail(relay_gw, sink, smtp_server, clock, "kingsburg", ["ann@example.net", "bob@example.com"], 1)
    check_the_mails(relay_gw, players)


def test_three_players_play_kingdom_builder_by_mail_from_invitation_to_standings(relay_gw, smtp_server, sink, clock):
    emails = ["ann@example.net", "bob@example.com", "cyril@example.cz"]
    players = play_by_mail(relay_gw, sink, smtp_server, clock, "kingdom-builder", emails, 2)
    check_the_mails(relay_gw, players)


def turns_of(gw, game_id: str) -> int:
    """How many times the game came to wait for a player it did not wait for before (a turn
    ended), counted from its states, with the start and the end."""
    game = gw.service.game(game_id)
    waiting: set[int] = set()
    turns = 0
    for version in range(1, game.version + 1):
        state = gw.service.state(game, version)
        now = set(game.spec.to_move(state)) if state is not None else set()
        kind = game.entry(version - 1)["kind"]
        turns += bool(now - waiting) or kind in ("started", "ended", "resigned")
        waiting = now
    return turns


@pytest.mark.parametrize("lang", ["cs", "pl"])
def test_a_game_by_mail_in_each_language_keeps_one_subject_and_an_observer_gets_a_digest_per_turn(
    relay_gw, smtp_server, sink, clock, lang
):
    emails = ["jan.novak@example.net", "lucja@example.com"]
    names = ("Jan Novák", "Łucja Wójcik-Żak")
    players = play_by_mail(relay_gw, sink, smtp_server, clock, "kingsburg", emails, 3, lang, "eve@example.org", names)
    check_the_mails(relay_gw, players)
    subject = "[pbem] Kingsburg — Jan Novák, Łucja Wójcik-Żak"  # as they wrote their names
    assert {str(m["Subject"]) for e in emails for m in players.inbox[e][players.game_starts[e] :]} == {subject}
    final = " ".join(text_of(players.inbox[emails[0]][-1]).split())
    assert all(name in final for name in names) and "lucja@" not in final  # names, never the other's address
    (game_id,) = relay_gw.service.game_ids()
    digests = [m for m in players.inbox["eve@example.org"] if not m["In-Reply-To"]]  # not the subscribe's answers
    entries = relay_gw.service.game(game_id).version
    assert all(m["X-Pbem-Kind"] == "watch" for m in digests)
    assert {str(m["Subject"]) for m in digests} == {subject}  # the players' thread's
    assert 0 < len(digests) <= turns_of(relay_gw, game_id) < entries  # a turn of several entries: one mail
    words = {"cs": "tah", "pl": "tura"}[lang]
    assert all(f" - {words} " in state_of(m) for m in digests)  # in the game's language
