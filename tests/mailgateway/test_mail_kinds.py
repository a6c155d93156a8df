"""Golden files of the mails the played games of test_golden_mail.py do not reach (a robot
taking a seat, a default move, a missed deadline, a watcher's update, a refused or misdirected
mail, the answers to help, catalog and an oversized mail), composed from fixed models in
English, Czech and Polish: ``golden/compose/LANG/KIND.txt``. Write them again with
``PBEM_UPDATE_GOLDEN=1`` after a deliberate change and read the differences."""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import pytest

from mailgateway import compose

GOLDEN = Path(__file__).with_name("golden") / "compose"
SERVICE = "pbem@example.org"


def game(**changes: Any) -> dict[str, Any]:
    block = {
        "id": "kingsburg-GAMEID",
        "title": "Kingsburg",
        "turn": 12,
        "phase": "productive season",
        "started": True,
        "over": False,
        "first": False,
        "since": ["ann rolled 3, 4, 6"],
        "waiting": [{"seat": 1, "name": "bob", "deadline": "2026-01-09 10:00 UTC"}],
        "decision": None,
        "view": "",
        "deadline": None,
        "url": "http://127.0.0.1:8000/games/kingsburg-GAMEID",
        "turn_url": "http://127.0.0.1:8000/games/kingsburg-GAMEID/turn/12",
        "seat_url": "http://127.0.0.1:8000/games/kingsburg-GAMEID/seat/TOKEN0",
        "address": "pbem+kingsburg-GAMEID.TOKEN0@example.org",
        "seats": ["ann", "bob"],
        "your_turn": False,
    }
    return block | changes


YOUR_TURN = {
    "decision": {"sentence": "place your dice", "moves": ["place 5", "place 3 4", "pass"], "more": 7},
    "waiting": [{"seat": 0, "name": "ann", "deadline": "2026-01-09 10:00 UTC"}],
    "deadline": "2026-01-09 10:00 UTC",
    "your_turn": True,
}
MODELS: dict[str, dict[str, Any]] = {
    "robot": {"kind": "robot", "game": game(), "extra": {"name": "bob", "reason": "missed-turns"}},
    "robot-resigned": {"kind": "robot", "game": game(), "extra": {"name": "bob", "reason": "resigned"}},
    "deadline": {"kind": "deadline", "game": game(), "extra": {"moves": ["pass"], "misses": 2, "limit": 3}},
    "missed": {"kind": "missed", "game": game(**YOUR_TURN), "extra": {"policy": "default", "misses": 1, "limit": 3}},
    "missed-wait": {"kind": "missed", "game": game(**YOUR_TURN), "extra": {"policy": "wait", "misses": 4, "limit": 3}},
    "watch": {"kind": "watch", "game": game(seat_url=None), "extra": {"lines": ["ann built a Statue"]}},
    "refused": {
        "kind": "refused",
        "game": game(),
        "extra": {"sender": "eve@example.com", "game": "kingsburg-GAMEID", "reason": "forged"},
    },
    "wrong-address": {"kind": "wrong-address", "game": game(), "extra": {"subject": "my move", "owner": "bob"}},
    "help": {"kind": "reply", "game": None, "subject": "help", "results": [{"text": "help", "action": "help"}]},
    # issue 28: the answer to a mail that did not show it came from its From quotes none of it
    "help-unquoted": {
        "kind": "reply",
        "game": None,
        "subject": "",
        "results": [
            {"text": "help", "action": "help"},
            {"action": "not-read", "lines": [], "more": 0, "hidden": 3},
        ],
    },
    # issue 28: every other seat hears that a player's mail comes back undelivered
    "turn-bouncing": {"kind": "turn", "game": game(**YOUR_TURN, bouncing=["bob"])},
    # issue 32: a correspondence clock's time left per seat, counted in each language's forms
    "turn-clocks": {
        "kind": "turn",
        "game": game(
            **YOUR_TURN,
            clocks=[
                {"name": "ann", "days": 2, "hours": 1, "minutes": 5, "running": True},
                {"name": "bob", "days": 5, "hours": 22, "minutes": 0, "running": False},
                {"name": "cid", "days": 1, "hours": 4, "minutes": 1, "running": False},
                {"name": "dan", "days": 3, "hours": 0, "minutes": 0, "running": False, "robot": True},
            ],
        ),
    },
    # issue 32: another player's vacation, announced at once
    "vacation": {
        "kind": "vacation",
        "game": game(),
        "extra": {"name": "bob", "first": "2026-02-02", "last": "2026-02-04", "days": 3, "left": 18},
    },
    # issue 32: an invitation to take over an abandoned seat (its address's own), and the table told
    "substitute": {
        "kind": "substitute",
        "game": game(seat=None, seat_url=None, address=None, since=None, name=None),
        "extra": {
            "name": "bob",
            "by": "ann",
            "lines": ["11. From now on the house robot plays bob (resigned).", "12. ann invites a substitute for bob."],
            "earlier": 10,
        },
    },
    "handed": {"kind": "handed", "game": game(), "extra": {"name": "bob", "new": "cyril"}},
    "replaced": {"kind": "replaced", "game": game(), "extra": {"name": "bob", "new": "cyril", "address": None}},
    # issue 32: a game that never started expired; every player is told
    "expired": {
        "kind": "expired",
        "game": game(started=False, turn=2, since=None),
        "extra": {"days": 14, "missing": ["bob"]},
    },
    "absence-reply": {
        "kind": "reply",
        "game": None,
        "subject": "absence",
        "results": [
            {
                "text": "absence 2026-02-02 2026-02-06",
                "action": "absence",
                "period": ["2026-02-02", "2026-02-06"],
                "vacation": [{"game": "kingsburg-GAMEID", "days": 5, "left": 16, "year": 2026, "budget": 21}],
            }
        ],
    },
    "catalog": {
        "kind": "reply",
        "game": None,
        "subject": "catalog",
        "results": [
            {
                "text": "catalog",
                "action": "catalog",
                "games": [
                    {"name": "kingsburg", "title": "Kingsburg", "min_players": 2, "max_players": 5, "options": []},
                    {"name": "duel", "title": "Duel", "min_players": 1, "max_players": 1, "options": []},
                ],
            }
        ],
    },
    "too-large": {
        "kind": "reply",
        "game": None,
        "subject": "moves",
        "results": [
            {"action": "too-large", "size": 300002, "limit": 262144},
            {"action": "too-large", "size": 2, "limit": 1},
            {"action": "too-large", "size": 1, "limit": 0},
        ],
    },
    "games": {
        "kind": "reply",
        "game": None,
        "subject": "games",
        "results": [
            {
                "text": "games",
                "action": "games",
                "games": [
                    {
                        "id": "kingsburg-GAMEID",
                        "title": "Kingsburg",
                        "over": False,
                        "phase": "spring",
                        "waiting": ["bob"],
                        "mine": True,
                    }
                ],
            }
        ],
    },
}


# What a player wrote around their command, in their language: the golden mails of "no command
# found" and "lines not read as commands" (issue 27) show it back to them.
WRITTEN = {
    "en": {"greeting": "Hi Bob,", "question": "what now?", "move": "take gold", "closing": "Cheers", "name": "Ann"},
    "cs": {"greeting": "Ahoj Bobe,", "question": "co teď?", "move": "vezmi zlato", "closing": "Díky", "name": "Petra"},
    "pl": {"greeting": "Cześć Bob,", "question": "co teraz?", "move": "weź złoto", "closing": "Dzięki", "name": "Jan"},
}
FOOTERS = {"en": "Sent from my iPhone", "cs": "Odesláno z iPhonu", "pl": "Wysłane z iPhone'a"}


def written_models(lang: str) -> dict[str, dict[str, Any]]:
    words = WRITTEN[lang]
    nothing = {
        "kind": "reply",
        "summary": "answer",
        "game": game(**YOUR_TURN),
        "subject": "",
        "results": [
            {"action": "nothing", "game": "kingsburg-GAMEID"},
            {
                "action": "not-read",
                "more": 0,
                "lines": [
                    {"text": words["greeting"], "why": "greeting"},
                    {"text": words["question"], "why": "remark"},
                    {"text": words["name"], "why": "name"},
                ],
            },
        ],
    }
    applied = {
        "game": "kingsburg-GAMEID",
        "ok": True,
        "duplicate": False,
        "version_before": 11,
        "version": 12,
        "lines": [{"line": 1, "text": words["move"], "status": "applied"}],
        "error": None,
    }
    not_read = {
        "kind": "reply",
        "summary": "applied",
        "game": game(),
        "subject": "",
        "results": [
            {"action": "moves", "outcome": applied},
            {
                "action": "not-read",
                "more": 0,
                "lines": [
                    {"text": words["greeting"], "why": "greeting"},
                    {"text": words["closing"], "why": "sign-off"},
                    {"text": words["name"], "why": "name"},
                    {"text": FOOTERS[lang], "why": "footer"},
                    {"text": "photo.jpg", "why": "attachment"},
                ],
            },
        ],
    }
    return {"nothing": nothing, "not-read": not_read}


WRITTEN_KINDS = ("nothing", "not-read")


def rendered(name: str, lang: str) -> str:
    models = MODELS | written_models(lang)
    model = copy.deepcopy(models[name]) | {"lang": lang, "service": SERVICE}
    subject, state, text, html = compose.rendered(model)
    assert f'<html lang="{lang}">' in html
    return f"Subject: {subject}\nX-Pbem-State: {state}\n\n{text}"


@pytest.mark.parametrize("lang", ("en", "cs", "pl"))
@pytest.mark.parametrize("name", sorted([*MODELS, *WRITTEN_KINDS]))
def test_each_kind_of_mail_matches_its_golden_file(name, lang):
    text = rendered(name, lang)
    path = GOLDEN / lang / f"{name}.txt"
    if os.environ.get("PBEM_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{path} differs"


@pytest.mark.parametrize("lang", ("en", "cs", "pl"))
def test_a_vacation_line_stands_on_its_own_line_after_absence_noted(lang):
    """The plain-text answer to an absence ran "...extended by it.  Game kingsburg-...: 5 days
    of vacation taken" into one paragraph: each game's vacation line is a line of its own."""
    text = rendered("absence-reply", lang)
    lines = text.split("\n")
    noted = next(n for n, line in enumerate(lines) if "2026-02-02" in line)
    rest = "\n".join(lines[noted:])
    assert "\n  kingsburg-GAMEID" not in rest and any(
        line.lstrip().startswith(("Game kingsburg-GAMEID", "Hra kingsburg-GAMEID", "Gra kingsburg-GAMEID"))
        for line in lines[noted + 1 :]
    ), rest


def test_a_model_is_not_changed_by_rendering():
    model = copy.deepcopy(MODELS["missed"]) | {"lang": "pl", "service": SERVICE}
    before = copy.deepcopy(model)
    compose.render(model)
    assert model == before


def test_an_unknown_language_is_english():
    model = copy.deepcopy(MODELS["robot"]) | {"lang": "xx", "service": SERVICE}
    assert "From now on the house robot plays bob" in compose.render(model)[1]


def test_each_language_has_one_environment_made_once():
    assert compose.environment("cs") is compose.environment("cs")
    assert compose.environment("cs") is not compose.environment("pl")
