"""Press over real SMTP, for each of the four games: the gateway is an aiosmtpd server on
loopback and its mail goes through a relay that is a second one (the sink), as in
test_live_play_smtp.

A private message reaches exactly its recipients: a scan of every other mail (decoded text
and attachments), every public page, the feed and the export finds its words nowhere, and the
same scan finds them where they belong (the positive control). A table message reaches every
player and the web history. A reply to a message from a Gmail, Thunderbird or Outlook style
client is a message back and applies no command. A recipient's receipt proves the message with
``pbem check-receipt``; ``pbem verify`` passes on the export; a tampered message is caught.
"""

from __future__ import annotations

import json
import smtplib
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.games import catalog
from pbem.ledger.verify import VerificationError, export_bytes, verify_bytes
from pbem.web import create_app
from tests.mailgateway.conftest import make_mail
from tests.mailgateway.test_press_by_mail import reply_to

GAMES = ("kingsburg", "kingdom-builder", "warriors-traders", "ruse-and-bruise")
SECRET_WORDS = "the owl hoots twice, cormorant-5519"
TABLE_WORDS = "may the dice be kind, pelican-3308"


class Mailboxes:
    def __init__(self, gw, sink, port: int):
        self.gw, self.sink, self.port, self.read = gw, sink, port, 0
        self.inbox: dict[str, list[EmailMessage]] = {}

    def send(self, raw: bytes, sender: str, to: str) -> None:
        raw = raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")  # as an MTA sends it
        with smtplib.SMTP("127.0.0.1", self.port, timeout=10) as client:
            assert client.sendmail(sender, [to], raw) == {}
        self.deliver()

    def deliver(self) -> None:
        self.gw.work()
        for envelope in self.sink.envelopes[self.read :]:
            msg = message_from_bytes(envelope.original_content, policy=policy.default)
            for to in envelope.rcpt_tos:
                self.inbox.setdefault(to, []).append(msg)
        self.read = len(self.sink.envelopes)

    def press(self, to: str) -> list[EmailMessage]:
        return [m for m in self.inbox.get(to, []) if m["X-Pbem-Kind"] == "press"]


def readable(msg: EmailMessage) -> str:
    """Everything a reader can read of a mail: its headers, each text part and attachment decoded."""
    parts = [str(value) for value in msg.values()]
    for part in msg.walk():
        if part.is_multipart():
            continue
        content = part.get_content()
        parts.append(content.decode("utf-8", "replace") if isinstance(content, bytes) else str(content))
    return "\n".join(parts).replace("\r\n", "\n")


def receipt_of(msg: EmailMessage) -> dict:
    (part,) = [p for p in msg.iter_attachments() if p.get_filename() == "receipt.json"]
    return json.loads(part.get_content())


# the client each game's reply is written in (every style is tried with every game in test_press_by_mail)
STYLES = {
    "kingsburg": "gmail",
    "kingdom-builder": "thunderbird",
    "warriors-traders": "outlook",
    "ruse-and-bruise": "gmail",
}


def public_pages(service, game_id: str) -> list[str]:
    size = service.game(game_id).version
    return [
        f"/games/{game_id}",
        f"/games/{game_id}/history",
        f"/games/{game_id}/feed.atom",
        f"/games/{game_id}/export.json",
        f"/games/{game_id}/checkpoints.json",
        *(f"/games/{game_id}/history/{turn}" for turn in range(1, size + 1)),
        *(f"/games/{game_id}/proofs/inclusion/{index}.json" for index in range(size)),
    ]


@pytest.mark.parametrize("game", GAMES)
def test_press_over_smtp(relay_gw, smtp_server, sink, tmp_path, game):
    spec = catalog()[game]
    players = [f"{name}@example.org" for name in ("ann", "bob", "carol")[: min(3, spec.max_players)]]
    service = relay_gw.service
    game_id = service.create(game, players, seed=b"\x09" * 32)
    for player in players:
        service.join(game_id, player)
    boxes = Mailboxes(relay_gw, sink, smtp_server)
    boxes.deliver()
    ann, bob, carol = players
    address = {p: service.seat_token(game_id, n) for n, p in enumerate(players)}
    ann_address = f"pbem+{game_id}.{address[ann]}@example.org"
    before = len(sink.envelopes)

    boxes.send(make_mail(ann, ann_address, f"tell bob: {SECRET_WORDS}\n\ntell all: {TABLE_WORDS}"), ann, ann_address)
    assert len(sink.envelopes) > before

    # exactly its recipients: bob (and ann's copy) read the words; carol's mail has none of them
    to_bob = next(m for m in boxes.press(bob) if SECRET_WORDS in readable(m))
    assert any(SECRET_WORDS in readable(m) for m in boxes.press(ann))
    assert all(SECRET_WORDS not in readable(m) for m in boxes.inbox.get(carol, []))
    assert any(TABLE_WORDS in readable(m) for m in boxes.press(carol))  # the table message reaches her

    # a reply from a Gmail, Thunderbird or Outlook style client is a message back, and no command
    version = service.game(game_id).version
    boxes.send(reply_to(to_bob, bob, "resign\nnot so fast, ann", STYLES[game]), bob, to_bob["Reply-To"])
    stored = service.game(game_id)
    assert stored.version == version + 1 and stored.entry(version)["kind"] == "said" and not stored.robots
    assert any("not so fast, ann" in readable(m) for m in boxes.press(ann))

    # the receipt proves the private message, with pbem check-receipt
    held = tmp_path / "receipt.json"
    held.write_text(json.dumps(receipt_of(to_bob)))
    checked = CliRunner().invoke(main, ["check-receipt", str(held), "--key", str(service.keys.signer().verifier)])
    assert checked.exit_code == 0 and SECRET_WORDS in checked.output

    # no public page, feed or export shows the private words; the table message is in the history
    client = create_app(service).test_client()
    public = "".join(client.get(url).get_data(as_text=True) for url in public_pages(service, game_id))
    assert SECRET_WORDS not in public
    assert TABLE_WORDS in client.get(f"/games/{game_id}/history").get_data(as_text=True)
    private = client.get(f"/games/{game_id}/seat/{address[bob]}/history").get_data(as_text=True)
    assert SECRET_WORDS in private  # positive control: the same scan finds them on bob's page

    # verify passes on the export; a changed message is caught
    document = service.export(game_id)
    assert verify_bytes(export_bytes(document)).entries == stored.version
    said = next(n for n, e in enumerate(document["entries"]) if e.get("text") == TABLE_WORDS)
    document["entries"][said]["text"] = "may the dice be cruel"
    with pytest.raises(VerificationError):
        verify_bytes(export_bytes(document))
