"""The reply corpus (``corpus/*.eml``, written by ``corpus/make_corpus.py``) sent over real SMTP
to the gateway: replies of every client layout, in Czech, Polish and English, to the "your
turn" mail of a Kingsburg game at the King's aid of year 1. Every mail's command is applied
exactly once (a second delivery changes nothing), the reply is in the player's language and
lists what was not read as commands, and an unclear mail changes nothing and says so."""

from __future__ import annotations

import json
import smtplib
from collections import Counter
from email import message_from_bytes, policy
from pathlib import Path

import pytest

from pbem.mailroom.records import GameClock
from tests.mailgateway.conftest import address_of
from tests.mailgateway.corpus.make_corpus import LAYOUTS, corpus, expectations_text

CORPUS = Path(__file__).with_name("corpus")
EXPECTED: list[dict] = json.loads((CORPUS / "expectations.json").read_text(encoding="utf-8"))
PLAYERS_PER_GAME = 5  # Kingsburg's most; in year 1 every player takes a good at the King's aid


def test_the_corpus_is_what_its_script_writes():
    files, expectations = corpus()
    assert sorted(files) == sorted(path.name for path in CORPUS.glob("*.eml"))
    for name, raw in files.items():
        assert (CORPUS / name).read_bytes() == raw, name
    assert (CORPUS / "expectations.json").read_text(encoding="utf-8") == expectations_text(expectations)


def test_the_corpus_has_150_mails_a_third_in_each_language_and_every_layout():
    assert len(EXPECTED) >= 150
    assert set(Counter(e["lang"] for e in EXPECTED).values()) == {len(EXPECTED) // 3}
    layouts = {e["file"].split("-", 2)[2].removesuffix(".eml") for e in EXPECTED}
    assert layouts == {name for name, _ in LAYOUTS}
    assert sum(e["good"] is None for e in EXPECTED) >= 6  # the unclear ones


def send(port: int, sender: str, to: str, raw: bytes) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        assert client.sendmail(sender, [to], raw) == {}


@pytest.mark.parametrize("lang", ("cs", "pl", "en"))
def test_every_corpus_mail_sent_over_smtp_is_read_as_its_writer_meant(relay_gw, smtp_server, sink, lang):
    mails = [e for e in EXPECTED if e["lang"] == lang]
    games: dict[str, str] = {}
    for start in range(0, len(mails), PLAYERS_PER_GAME):
        players = [e["sender"] for e in mails[start : start + PLAYERS_PER_GAME]]
        game_id = relay_gw.service.create("kingsburg", players, {}, seed=bytes([start]) * 32)
        relay_gw.service.store.save(GameClock(game_id, {"lang": lang}))
        for player in players:
            relay_gw.service.join(game_id, player)
            games[player] = game_id
    relay_gw.work()
    sink.envelopes.clear()
    for e in mails:
        to = address_of(relay_gw, games[e["sender"]], e["sender"])
        raw = (CORPUS / e["file"]).read_bytes().replace(b"{{ADDRESS}}", to.encode())
        send(smtp_server, e["sender"], to, raw)
        send(smtp_server, e["sender"], to, raw)  # delivered twice: applied once, answered once
    relay_gw.work()
    replies: dict[str, list] = {}
    for envelope in sink.envelopes:
        message = message_from_bytes(envelope.original_content, policy=policy.default)
        if message["X-Pbem-Kind"] == "reply":
            for to in envelope.rcpt_tos:
                replies.setdefault(to, []).append(message)
    for e in mails:
        game = relay_gw.service.game(games[e["sender"]])
        seat = game.emails.index(e["sender"])
        moved = [entry for entry in game.entries if entry["kind"] == "moved" and entry["seat"] == seat]
        assert len(moved) == (1 if e["good"] else 0), e["file"]
        if e["good"]:
            assert moved[0]["command"] == f"take {e['good']}", e["file"]
        answers = replies.get(e["sender"], [])
        assert len(answers) == 1, e["file"]
        text = answers[0].get_body(("plain",)).get_content()
        for phrase in e["reply"]:
            assert phrase in text, (e["file"], phrase, text)
        for line in e["not_read"]:
            assert f"    {line}  (" in text, (e["file"], line, text)
