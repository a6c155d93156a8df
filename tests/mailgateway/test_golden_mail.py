"""Golden files of every kind of mail a player gets, for each game, in English, Czech and Polish.

Each game is played by mail from the invitation to the final standings, always sending the
first line of the previous mail's "Your decision". The mails of each kind are compared with
``golden/GAME/LANG/KIND.txt`` (the game's random id and the seats' tokens replaced). After a
deliberate change of the mails, write the files again with ``PBEM_UPDATE_GOLDEN=1`` and read
the differences before committing them.
"""

from __future__ import annotations

import dataclasses
import email
import os
from email import policy
from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.mailgateway.conftest import address_of, confirmed, make_mail
from tests.mailgateway.playbook import decision_lines, stable, text_of

GAMES = ("kingsburg", "kingdom-builder", "warriors-traders", "ruse-and-bruise")
KINDS = ("invitation", "started", "error", "reply", "turn", "reminder", "ended", "limited")
GOLDEN = Path(__file__).with_name("golden")
PLAYERS = ("ann@example.net", "bob@example.com")
SEED = bytes(range(32))
MAX_MOVES = 3000


class Table:
    """The players' side of a game by mail: what each has received, and what they answered."""

    def __init__(self, gw, transport, clock, game_id: str):
        self.gw, self.transport, self.clock, self.game_id = gw, transport, clock, game_id
        self.seen = 0
        self.latest: dict[str, EmailMessage] = {}
        self.kinds: dict[str, EmailMessage] = {}

    def deliver(self) -> list[EmailMessage]:
        self.gw.work()
        new = [
            (to, email.message_from_bytes(raw, policy=policy.default))
            for _, to, raw in self.transport.sent[self.seen :]
        ]
        self.seen = len(self.transport.sent)
        for to, msg in new:
            self.latest[to] = msg
            self.kinds.setdefault(msg["X-Pbem-Kind"], msg)
        return [msg for _, msg in new]

    def send(self, player: str, body: str) -> list[EmailMessage]:
        self.clock.advance(seconds=20)
        self.gw.receive(make_mail(player, address_of(self.gw, self.game_id, player), body))
        return self.deliver()

    def next_move(self) -> tuple[str, str] | None:
        """A player whose latest mail asks for a decision, and its first line."""
        for player in PLAYERS:
            msg = self.latest.get(player)
            lines = decision_lines(text_of(msg)) if msg is not None else []
            if lines:
                return player, lines[0]
        return None


def play(gw, transport, clock, game: str) -> Table:
    game_id = gw.service.create(game, list(PLAYERS), {}, seed=SEED)
    table = Table(gw, transport, clock, game_id)
    table.deliver()
    table.send(PLAYERS[0], "join ann-nonce")
    table.send(PLAYERS[1], "join bob-nonce")
    player, line = table.next_move()
    table.kinds.pop("reply", None)  # the answers to the joins; the golden reply is a move's
    table.send(player, "xyzzy")
    table.kinds["error"] = table.latest[player]
    table.kinds.pop("reply", None)
    table.send(player, line)
    clock.advance(hours=37)  # the reminder goes out 12 hours before the 48-hour deadline
    table.deliver()
    for _ in range(MAX_MOVES):
        if gw.service.game(game_id).ended:
            break
        player, line = table.next_move()
        table.send(player, line)
    assert gw.service.game(game_id).ended
    for _ in range(gw.settings.replies_per_hour + 1):  # a flood after the end: the limit holds
        table.send(PLAYERS[0], "status")
    return table


@pytest.fixture
def mail_settings(mail_settings):
    """Without the board pictures: the golden files are the text parts, and drawing a PNG for
    each of some thousand turn mails would double this module's time (the pictures have their
    own tests in test_pictures.py)."""
    return dataclasses.replace(mail_settings, pictures=False)


def replacements(gw, game_id: str, game: str) -> dict[str, str]:
    loaded = gw.service.game(game_id)
    tokens = {gw.service.seat_token(game_id, seat): f"TOKEN{seat}" for seat in range(len(loaded.emails))}
    return tokens | {game_id: f"{game}-GAMEID"}


@pytest.mark.parametrize("lang", ("en", "cs", "pl"))
@pytest.mark.parametrize("game", GAMES)
def test_every_kind_of_mail_matches_its_golden_file(gw, transport, clock, game, lang, monkeypatch):
    # the game id is mixed into every draw: a fixed one makes the dice the same on every run
    monkeypatch.setattr("pbem.service.service.secrets.token_hex", lambda n: "0a1b2c3d")
    for player in PLAYERS:
        confirmed(gw, transport, player, f"language {lang}")
    transport.clear()
    table = play(gw, transport, clock, game)
    names = replacements(gw, table.game_id, game)
    missing = [kind for kind in KINDS if table.kinds.get(kind) is None]
    assert not missing
    for kind in KINDS:
        text = stable(table.kinds[kind], names)
        path = GOLDEN / game / lang / f"{kind}.txt"
        if os.environ.get("PBEM_UPDATE_GOLDEN") == "1":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        assert text == path.read_text(encoding="utf-8"), f"{path} differs"


def test_the_examples_in_docs_mail_are_the_golden_files():
    page = Path(__file__).resolve().parents[2] / "docs" / "mail.md"
    docs = page.read_text(encoding="utf-8")
    if os.environ.get("PBEM_UPDATE_GOLDEN") == "1":
        head, *rest = docs.split("<!-- golden: ")
        for n, example in enumerate(rest):
            name, _, after = example.partition(" -->\n```text\n")
            rest[n] = (
                f"{name} -->\n```text\n{(GOLDEN / name).read_text(encoding='utf-8')}```\n" + after.split("```\n", 1)[1]
            )
        docs = "<!-- golden: ".join([head, *rest])
        page.write_text(docs, encoding="utf-8")
    examples = docs.split("<!-- golden: ")[1:]
    assert len(examples) >= len(KINDS)
    for example in examples:
        name, _, rest = example.partition(" -->\n```text\n")
        shown = rest.split("```\n", 1)[0]
        assert shown == (GOLDEN / name).read_text(encoding="utf-8"), name
