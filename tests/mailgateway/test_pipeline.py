"""The shape of the mail pipeline (docs/architecture.md, "The path of one mail"): one load of
a game per mail, one transaction, dead letters that can be retried, and a gateway that never
touches the store."""

from __future__ import annotations

import ast
from pathlib import Path

from click.testing import CliRunner

from mailgateway import compose
from pbem.cli import main
from pbem.mailroom import replies
from pbem.mailroom.queue import DEAD, SENT
from tests.mailgateway.conftest import SERVICE, address_of, make_mail, text_of

ANN, BOB = "ann@example.com", "bob@example.com"
GATEWAY = Path(__file__).resolve().parents[2] / "mailgateway"


def started_game(gw) -> str:
    game_id = gw.service.create("hidden-pig", [ANN, BOB], {}, seed=b"\x05" * 32)
    gw.service.join(game_id, ANN)
    gw.service.join(game_id, BOB)
    return game_id


def test_a_move_mail_loads_its_game_once(gw):
    game_id = started_game(gw)
    gw.work()
    game = gw.service.game(game_id)
    player = game.emails[game.spec.to_move(gw.service.state(game))[0]]
    mail = make_mail(player, address_of(gw, game_id, player), "hold")
    loads = gw.service.loads
    assert gw.receive(mail) == "processed"
    assert gw.service.loads - loads == 1


def test_a_follower_round_loads_each_game_once_however_many_mails(gw):
    game_id = started_game(gw)
    gw.work()
    for _ in range(4):
        game = gw.service.game(game_id)
        player = game.emails[game.spec.to_move(gw.service.state(game))[0]]
        gw.receive(make_mail(player, address_of(gw, game_id, player), "hold"))
    loads = gw.service.loads
    assert gw.mailroom.follow() == 8  # four receipts and four appended entries
    assert gw.service.loads - loads == 1


def test_the_gateway_package_never_imports_the_store():
    imported = set()
    for path in GATEWAY.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
    assert "pbem.mailroom.desk" in imported  # positive control: the port is what it uses
    assert not {name for name in imported if name.startswith(("pbem.service.store", "eventsourcing"))}


def test_a_mail_that_cannot_be_composed_is_a_dead_letter_and_is_sent_after_the_fix(gw, transport, monkeypatch):
    real = compose.rendered

    def broken(model, *picture):
        if model.get("kind") == "reply" and any(r.get("action") == "catalog" for r in model.get("results", [])):
            raise KeyError("a template bug")
        return real(model, *picture)

    monkeypatch.setattr(compose, "rendered", broken)
    gw.receive(make_mail(ANN, SERVICE, "catalog"))
    gw.receive(make_mail(BOB, SERVICE, "help"))
    gw.work()
    assert [m["To"] for m in transport.sent and transport.to(BOB)] == [BOB]  # the others flow
    assert transport.to(ANN) == []
    (dead,) = gw.mailroom.dead_letters()
    assert dead.to == ANN and "a template bug" in (dead.error or "") and dead.status == DEAD
    monkeypatch.setattr(compose, "rendered", real)  # the template is fixed
    assert gw.mailroom.retry(dead.key) == [dead.key]
    gw.work()
    assert len(transport.to(ANN)) == 1 and "Kingsburg" in text_of(transport.to(ANN)[0])
    assert gw.mailroom.dead_letters() == [] and gw.mailroom.views.get(dead.key).status == SENT


def test_a_notification_whose_mails_cannot_be_built_is_a_dead_letter_that_retry_builds(gw, transport, monkeypatch):
    real = replies.answer
    monkeypatch.setattr(replies, "answer", lambda *a: (_ for _ in ()).throw(ValueError("view bug")))
    gw.receive(make_mail(ANN, SERVICE, "help"))
    gw.work()
    gw.receive(make_mail(BOB, SERVICE, "help"))  # a later notification is not held up
    monkeypatch.setattr(replies, "answer", real)
    gw.work()
    assert transport.to(ANN) == [] and len(transport.to(BOB)) == 1
    (dead,) = gw.mailroom.dead_letters()
    assert "view bug" in (dead.error or "")
    assert gw.mailroom.retry(dead.key)
    gw.work()
    assert len(transport.to(ANN)) == 1


def test_pbem_mail_dead_lists_and_retries(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PBEM_MAIL_ADDRESS", SERVICE)
    runner = CliRunner()
    real = compose.rendered
    monkeypatch.setattr(compose, "rendered", lambda model, *picture: (_ for _ in ()).throw(KeyError("boom")))
    assert runner.invoke(main, ["mail-in"], input=make_mail(ANN, SERVICE, "help")).exit_code == 0
    assert runner.invoke(main, ["mail-work"]).exit_code == 0
    listed = runner.invoke(main, ["mail-dead"])
    assert listed.exit_code == 0 and "1 dead letter(s)" in listed.output and "boom" in listed.output
    monkeypatch.setattr(compose, "rendered", real)
    retried = runner.invoke(main, ["mail-dead", "--retry-all"])
    assert retried.exit_code == 0 and "queued again: 1" in retried.output
    assert "0 dead letter(s)" in runner.invoke(main, ["mail-dead"]).output
    assert len(list((tmp_path / "home" / "maildir" / "new").iterdir())) == 1
