"""The bytes ``mailgateway.mime`` writes for a mail mean what the email package's
``EmailMessage`` made of the same mail (the way pbem composed mail before): both are read back
with the email package and their headers, MIME trees and contents compared. The mails are the
ones a game by mail calls for (with board pictures, receipts, Czech and Polish words), and
made-up ones at the edges: a non-ASCII sender's name, an international recipient, a state line
of 200 characters, a subject that starts with a non-ASCII word, lines longer than 78
characters."""

from __future__ import annotations

import email
import json
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from typing import Any

import pytest

from mailgateway import compose, mime
from mailgateway.picture import picture_of
from pbem.mailroom.pictures import unpacked
from tests.mailgateway.conftest import SERVICE, make_mail
from tests.mailgateway.test_pictures import PLAYERS, started

NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
SENDER = "pbem+game-1.token@example.org"


def stdlib_build(
    model: dict[str, Any],
    key: str,
    to: str,
    sender: str,
    now: datetime,
    in_reply_to: str | None = None,
    references: Any = (),
    attachment: Any = None,
    thread: str | None = None,
) -> bytes:
    """The mail as the email package composed it (the reference: pbem's own code before
    ``mailgateway.mime``)."""
    domain = sender.split("@", 1)[1]
    packed = (model.get("game") or {}).get("picture")
    picture = picture_of(unpacked(packed)) if packed else None
    cid = f"board.{compose.hashlib.sha256(key.encode()).hexdigest()[:24]}@{domain}"
    subject, state, text, html = compose.rendered(model, picture, cid)
    msg = EmailMessage()
    msg["From"] = formataddr((compose._from_name(model), sender))
    msg["Reply-To"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Date"] = format_datetime(now)
    msg["Message-ID"] = compose.message_id(key, domain)
    msg["Auto-Submitted"] = "auto-replied" if in_reply_to else "auto-generated"
    msg["X-Auto-Response-Suppress"] = "All"
    msg["X-Loop"] = sender.split("+", 1)[0].split("@", 1)[0] + "@" + domain
    msg["X-Pbem-Kind"] = str(model.get("kind", ""))
    msg["X-Pbem-State"] = state
    if in_reply_to:
        msg["In-Reply-To"] = in_reply_to
    chain = compose.reference_chain(thread, references, in_reply_to)
    if chain:
        msg["References"] = " ".join(chain)
    msg.set_content(text)
    msg.add_alternative(html, subtype="html")
    if picture is not None:
        html_part = next(part for part in msg.iter_parts() if part.get_content_type() == "text/html")
        html_part.add_related(
            picture.png, maintype="image", subtype="png", cid=f"<{cid}>", disposition="inline", filename="board.png"
        )
    if attachment is not None:
        msg.make_mixed()
        msg.add_attachment(
            json.dumps(attachment, indent=2, sort_keys=True).encode(),
            maintype="application",
            subtype="json",
            filename="receipt.json",
        )
    msg["Content-Language"] = model.get("lang", "en")
    return msg.as_bytes(policy=policy.SMTP)


def meaning(raw: bytes) -> list[Any]:
    """What a mail client reads of a mail: its headers (decoded, unfolded; the boundaries, the
    transfer encodings and a part's own MIME-Version aside) and each part's type, parameters
    and content."""
    msg = email.message_from_bytes(raw, policy=policy.default)
    read: list[Any] = []
    for part in msg.walk():
        headers = [
            (name.lower(), " ".join(str(value).split()))
            for name, value in part.items()
            if name.lower() not in ("content-type", "content-transfer-encoding", "mime-version")
        ]
        params = {k: v for k, v in part.get_params(header="content-type") or [] if k != "boundary"}
        content = None if part.is_multipart() else part.get_content()
        if isinstance(content, str):  # a line break is CRLF in quoted-printable, LF in base64: one meaning
            content = content.replace("\r\n", "\n")
        read.append((part.get_content_type(), params, sorted(headers) if part is not msg else headers, content))
    return read


def lines_within_limits(raw: bytes) -> None:
    assert b"\n" not in raw.replace(b"\r\n", b"")  # CRLF line ends only
    head, _ = raw.split(b"\r\n\r\n", 1)
    assert all(len(line) <= mime.MAX_LINE for line in head.split(b"\r\n")), head
    assert all(len(line) <= 998 for line in raw.split(b"\r\n"))


def test_every_mail_of_a_game_means_what_the_email_package_made_of_it(gw, transport, monkeypatch):
    calls: list[tuple[Any, ...]] = []
    real = compose.build

    def recorded(*args: Any) -> bytes:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(compose, "build", recorded)
    for name in ("kingsburg", "ruse-and-bruise"):
        game_id = started(gw, transport, name)
        gw.receive(make_mail(PLAYERS[0], SERVICE, f"language cs\nstatus {game_id}"))
        gw.receive(make_mail(PLAYERS[1], SERVICE, f"jezyk pl\nxyzzy {game_id}"))
        gw.work()
    kinds = {args[0].get("kind") for args in calls}
    pictures = [args for args in calls if (args[0].get("game") or {}).get("picture")]
    assert len(calls) >= 8 and {"started", "reply"} <= kinds and pictures  # a positive control of the mix
    for args in calls:
        ours = real(*args)
        lines_within_limits(ours)
        assert meaning(ours) == meaning(stdlib_build(*args)), args[1]


EDGES = {
    "press from a Czech name": {"kind": "press", "extra": {"sender_name": "Jiří Dvořák"}},
    "a long state line": {"kind": "reply", "results": [{"line": "x", "ok": True, "text": "word " * 60}]},
    "Polish words": {"kind": "reply", "lang": "pl", "results": [{"line": "ż", "ok": False, "text": "żółć " * 30}]},
    "a long line": {"kind": "reply", "results": [{"line": "y", "ok": True, "text": "https://e.org/" + "a" * 200}]},
}


@pytest.mark.parametrize("edge", sorted(EDGES))
def test_a_mail_at_the_edges_means_the_same(edge):
    model = {"lang": "cs", "service": SERVICE, **EDGES[edge]}
    args = (model, f"k/{edge}", "ann@example.net", SENDER, NOW, "<a@b.example>", ["<c@d.example>"], {"x": "ž"})
    ours, theirs = meaning(compose.build(*args)), meaning(stdlib_build(*args))
    lines_within_limits(compose.build(*args))
    if edge.startswith("press"):  # the email package read "(pbem)" of a non-ASCII name as a comment
        assert ("from", f'"Jiří Dvořák (pbem)" <{SENDER}>') in ours[0][2]
        assert ("from", f"Jiří Dvořák <{SENDER}>") in theirs[0][2]
        ours[0][2].remove(("from", f'"Jiří Dvořák (pbem)" <{SENDER}>'))
        theirs[0][2].remove(("from", f"Jiří Dvořák <{SENDER}>"))
    assert ours == theirs


def test_an_international_recipient_keeps_its_address_and_its_domain_goes_in_idna():
    model = {"kind": "reply", "lang": "cs", "service": SERVICE}
    msg = email.message_from_bytes(compose.build(model, "k", "ann@příklad.cz", SENDER, NOW), policy=policy.default)
    assert msg["To"] == "ann@xn--pklad-zsa96e.cz"
    raw = compose.build(model, "k", "jiří@příklad.cz", SENDER, NOW)  # sent only with SMTPUTF8
    assert "To: jiří@xn--pklad-zsa96e.cz\r\n".encode() in raw


def test_a_subject_that_starts_with_a_word_not_in_ascii_stays_within_the_line():
    value = compose.subject_value("Čtení: " + "ěščřžýáíé " * 8, "X-Pbem-State")
    raw = mime.header("X-Pbem-State", value)
    assert all(len(line) <= mime.MAX_LINE for line in raw.split(b"\r\n"))
    assert email.message_from_bytes(raw + b"\r\nx", policy=policy.default)["X-Pbem-State"].startswith("Čtení: ěšč")


def test_a_header_with_a_line_break_is_refused():
    with pytest.raises(ValueError):
        mime.header("In-Reply-To", "<a@b>\nBcc: eve@example.net")
    assert mime.header("Subject", "one\n two") == b"Subject: one\r\n two\r\n"  # a continuation is kept


def test_the_same_mail_is_the_same_bytes_and_a_boundary_no_part_holds():
    model = {"kind": "reply", "lang": "en", "service": SERVICE}
    assert compose.build(model, "k", "ann@example.net", SENDER, NOW) == compose.build(
        model, "k", "ann@example.net", SENDER, NOW
    )
    taken = mime.boundary("k", "mixed", [])
    part = mime.text_part(f"--{taken}\n", "plain")
    assert mime.boundary("k", "mixed", [part]) != taken
    assert taken.encode() not in mime.multipart("k", "mixed", [part]).split(b"\r\n", 1)[0]


def test_the_sender_sends_what_compose_writes(gw, transport):
    started(gw, transport, "kingsburg")
    assert transport.sent and all(raw.endswith(b"\r\n") and b"\r\n\r\n" in raw for _, _, raw in transport.sent)
