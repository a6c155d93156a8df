"""The command language and the addresses: pure functions."""

from __future__ import annotations

import pytest

from pbem.mailroom.addresses import Target, chosen, parse_target, seat_address
from pbem.mailroom.commands import parse_absence, parse_command, parse_new, subject_command


@pytest.mark.parametrize(
    "line, name",
    [
        ("help", "help"),
        ("Nápověda", "help"),
        ("KATALOG", "catalog"),
        ("hry", "games"),
        ("nová hidden-pig a@x b@y", "new"),
        ("Připojit g-1 nonce", "join"),
        ("stav", "status"),
        ("historie g-1", "history"),
        ("odebírat g-1", "subscribe"),
        ("neodebírat g-1", "unsubscribe"),
        ("jazyk cs", "language"),
        ("nepřítomnost 2026-01-01 2026-01-03", "absence"),
        ("vzdát", "resign"),
        ("šablona", "template"),
    ],
)
def test_english_and_czech_keywords(line, name):
    assert parse_command(line).name == name


def test_game_commands_are_not_mail_commands():
    assert parse_command("roll") is None
    assert parse_command("") is None


def test_new_separates_players_game_options_and_mail_options():
    new = parse_new(
        (
            "Hidden-Pig",
            "a@x.org",
            "<B@y.org>",
            "rounds=1",
            "deadline=24",
            "deadline.trade=6",
            "policy=wait",
            "robot-after=2",
        )
    )
    assert new.game_type == "hidden-pig" and new.players == ("a@x.org", "b@y.org")
    assert new.options == {"rounds": "1"}
    assert new.mail_options == {"deadline": "24", "deadline.trade": "6", "policy": "wait", "robot-after": "2"}
    with pytest.raises(ValueError):
        parse_new(("hidden-pig", "a@x.org", "banana"))
    with pytest.raises(ValueError):
        parse_new(("hidden-pig", "a@x.org", "policy=never"))


def test_absence():
    assert parse_absence(("2026-01-02", "2026-01-09")) == ("2026-01-02", "2026-01-09")
    assert parse_absence(("konec",)) is None
    with pytest.raises(ValueError):
        parse_absence(("2026-01-09", "2026-01-02"))
    with pytest.raises(ValueError):
        parse_absence(("tomorrow",))


def test_subject_command_strips_reply_prefixes_and_our_tag():
    assert subject_command("Re: RE: Odp: [pbem] hidden-pig-1: your turn") == "hidden-pig-1: your turn"
    assert subject_command("Fwd: help") == "help"


def test_seat_addresses_round_trip():
    address = seat_address("pbem@example.org", "kingdom-builder-0a1b2c3d", "abc234")
    assert address == "pbem+kingdom-builder-0a1b2c3d.abc234@example.org"
    assert parse_target(address.upper(), "pbem@example.org") == Target("kingdom-builder-0a1b2c3d", "abc234", address)
    assert parse_target("pbem+g-1@example.org", "pbem@example.org") == Target("g-1", None, "pbem+g-1@example.org")
    assert parse_target("pbem@example.org", "pbem@example.org").game_id is None
    assert parse_target("pbem@elsewhere.org", "pbem@example.org") is None
    assert parse_target("other+g.t@example.org", "pbem@example.org") is None
    first = chosen([parse_target(r, "pbem@example.org") for r in ("pbem@example.org", "pbem+g-1.t@example.org")])
    assert first.game_id == "g-1"
