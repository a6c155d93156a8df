"""No public page or download shows a hidden fact before the game reveals it.

Seeded random games of every registered game type are stopped part way; every public
response (pages, board pictures, the export, checkpoints, proofs, keys, the games list) is
searched for the hidden data of that game: the secret parts of its stored facts, the salts
and draws behind its commitments, secret commands, the server seed, the players' addresses
and their private link tokens. A seat's private pages are searched for the secrets of the
other seats.

Hidden values are searched as distinctive text (the canonical JSON of a secret, and lists
of three or more items as the site or a game might print them), raw and HTML-escaped, so
that small numbers do not match by chance. A secret counts as revealed once the public log
itself contains it. Positive controls prove the search finds what it looks for: the export
of the ended game contains every secret, and a seat's private page shows its own.
"""

from __future__ import annotations

import html
import json
import os
import re
from dataclasses import dataclass

import pytest
from markupsafe import escape

from pbem.cli.core import play_to_end
from pbem.config import Settings
from pbem.games import catalog
from pbem.games.base import SECRET
from pbem.ledger.canonical import canonical_bytes
from pbem.service.service import GameService
from pbem.web import create_app
from tests.web.conftest import play_some, players

SEEDS = range(int(os.environ.get("PBEM_WEB_LEAK_GAMES", "2")))
STOPS = (4, 2)  # look at the game a quarter and half of the way through
MAX_TURN_PAGES = 6


def _lists(value):
    if isinstance(value, list):
        yield value
        for item in value:
            yield from _lists(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _lists(item)


def listed(value) -> str:
    """A value the way the site lists a secret for its owner ("cards: a, b, c; round: 2")."""
    if isinstance(value, dict):
        return "; ".join(f"{key}: {listed(item)}" for key, item in value.items())
    if isinstance(value, list):
        return ", ".join(listed(item) for item in value)
    return str(value)


def forms(value) -> set[str]:
    """Distinctive ways a value could appear in a page or a download."""
    found = set()
    for text in (canonical_bytes(value).decode(), json.dumps(value, ensure_ascii=False), listed(value)):
        if len(text) >= 10:
            found.add(text)
    for items in _lists(value):
        if len(items) >= 3 and all(isinstance(i, (str, int)) and not isinstance(i, bool) for i in items):
            words = [str(i) for i in items]
            if sum(map(len, words)) >= 6:
                found |= {", ".join(words), " ".join(words), ",".join(words), json.dumps(items, ensure_ascii=False)}
    return found


@dataclass(frozen=True)
class Hidden:
    what: str  # for the failure message
    needles: frozenset[str]
    seats: frozenset[int]  # the seats that may see it before the end


def hidden_data(service: GameService, game_id: str) -> list[Hidden]:
    game = service.game(game_id)
    everyone = frozenset()
    found = [
        Hidden("the server seed", frozenset({game.privates[0]["seed"]}), everyone),
        *(Hidden(f"the address of seat {s}", frozenset({email}), everyone) for s, email in enumerate(game.emails)),
        *(
            Hidden(f"the private link of seat {s}", frozenset({service.seat_token(game_id, s)}), frozenset({s}))
            for s in range(len(game.names))
        ),
    ]
    for index, (entry, private) in enumerate(zip(game.entries, game.privates, strict=False)):
        for number, fact in enumerate(private.get("facts") or []):
            if SECRET in fact:
                part = fact[SECRET]
                found.append(
                    Hidden(
                        f"entry {index} fact {number} {fact['kind']} {part['data']}",
                        frozenset(forms(part["data"])),
                        frozenset(part["to"]),
                    )
                )
        salts = [s for s in private.get("salts") or [] if s]
        salts += [private["draws_salt"]] if "draws_salt" in private else []
        if salts:
            found.append(Hidden(f"entry {index} salts", frozenset(salts), everyone))
        if private.get("draws"):
            found.append(Hidden(f"entry {index} draws", frozenset(forms(private["draws"])), everyone))
        if "command_commitment" in entry:
            found.append(
                Hidden(f"entry {index} secret command", frozenset({private["command"]}), frozenset({entry["seat"]}))
            )
    return [h for h in found if h.needles]


def _pieces(spec, view, names) -> set[str]:
    """The lines of a view's text picture and the texts in its SVG picture."""
    pieces = {line.strip() for line in spec.render_text(view, names).splitlines()}
    svg = spec.render_svg(view, names) or ""
    pieces |= {html.unescape(text).strip() for text in re.findall(r"<text[^>]*>([^<]*)</text>", svg)}
    return {piece for piece in pieces if len(piece) >= 10}


def view_secrets(service: GameService, game_id: str, turn: int) -> list[Hidden]:
    """What each seat's own picture of the game shows that the public picture does not
    (a hand, a card looked at), in the words the game itself prints."""
    game = service.game(game_id)
    state = service.state(game, turn)
    if state is None:
        return []
    spec, names = game.spec, game.names
    public = _pieces(spec, spec.view(state, None), names)
    return [
        Hidden(
            f"seat {seat}'s picture at turn {turn}",
            frozenset(_pieces(spec, spec.view(state, seat), names) - public),
            frozenset({seat}),
        )
        for seat in range(len(names))
    ]


def public_log(service: GameService, game_id: str, turn: int) -> str:
    """What the public log itself says up to ``turn``: anything in it is revealed."""
    rows = service.history(game_id)[:turn]
    return "\n".join(canonical_bytes(r["entry"]).decode() + "\n" + "\n".join(r["lines"]) for r in rows)


def leaks(body: str, secrets: list[Hidden], revealed: str, viewer: int | None) -> list[str]:
    found = []
    # the same value may be one seat's secret and another's own card (two decks alike)
    seen = {n for h in secrets if viewer is not None and viewer in h.seats for n in h.needles}
    for hidden in secrets:
        if viewer is not None and viewer in hidden.seats:
            continue
        for needle in hidden.needles:
            # ... or a part of what the viewer itself may see ("Wizard (face down)" of another
            # seat inside the viewer's own "Wizard (face down) under the Cloak")
            if needle in revealed or needle in seen or any(needle in own for own in seen):
                continue
            if shows(body, needle) or shows(body, str(escape(needle))):
                found.append(f"{hidden.what}: {needle[:80]!r}")
    return found


def shows(body: str, needle: str) -> bool:
    """Whether ``needle`` stands in ``body`` as a whole value: "cards: beggar" is not shown
    by "cards: beggar, king" nor "cards: beggars"."""
    start = body.find(needle)
    while start >= 0:
        before = body[start - 1 : start]
        after = body[start + len(needle) : start + len(needle) + 2]
        if not (before.isalnum() or before == "_") and not (after[:1].isalnum() or after[:1] == "_" or after == ", "):
            return True
        start = body.find(needle, start + 1)
    return False


def fetch(client, url: str) -> str:
    response = client.get(url)
    body = response.get_data(as_text=True)
    response.close()
    assert response.status_code in (200, 404), (url, response.status_code)
    return body


def public_urls(service: GameService, game_id: str) -> list[tuple[str, int]]:
    """(url, the log version whose state it shows)."""
    game = service.game(game_id)
    now = game.version
    base = f"/games/{game_id}"
    urls = [
        ("/", now),
        (f"/?game={game.spec.name}", now),
        ("/?status=running", now),
        (base, now),
        (f"{base}/board.svg", now),
        (f"{base}/history", now),
        (f"{base}/feed.atom", now),
        (f"{base}/history?since={now // 2}", now),
        (f"{base}/history?page=2", now),
        (f"{base}/history/{now}", now),
        (f"{base}/history/{now // 2 + 1}", now),
        (f"{base}/export.json", now),
        (f"{base}/checkpoints.json", now),
        (f"{base}/checkpoint.txt", now),
        (f"{base}/proofs/inclusion/{now - 1}.json", now),
        (f"{base}/proofs/consistency/1/{now}.json", now),
        ("/keys.txt", now),
        ("/keys.json", now),
        ("/keys", now),
        ("/health", now),
        ("/verify", now),
    ]
    step = max(1, now // MAX_TURN_PAGES)
    for version in sorted(set(range(1, now + 1, step)) | {now}):  # turn N shows the first N entries
        urls += [(f"{base}/turn/{version}", version), (f"{base}/turn/{version}/board.svg", version)]
    urls.append((f"{base}/turn/{now}?lang=cs", now))
    return urls


def check_running_game(service: GameService, client, game_id: str) -> int:
    """Search every public response and every seat's private pages; returns how many
    hidden values were looked for."""
    game = service.game(game_id)
    assert not game.ended
    secrets = hidden_data(service, game_id)
    logs, pictures = {}, {}
    problems = []
    for url, turn in public_urls(service, game_id):
        revealed = logs.setdefault(turn, public_log(service, game_id, turn))
        searched = secrets + pictures.setdefault(turn, view_secrets(service, game_id, turn))
        problems += [f"{url}: {leak}" for leak in leaks(fetch(client, url), searched, revealed, None)]
    revealed = public_log(service, game_id, game.version)
    searched = secrets + view_secrets(service, game_id, game.version)
    state = service.state(game)
    for seat in range(len(game.names)):
        base = f"/games/{game_id}/seat/{service.seat_token(game_id, seat)}"
        # the seat's own legal moves are its to see (made from its own hand; with two decks
        # alike they can read like another seat's secret command)
        moves = game.spec.legal_texts(state, seat) if seat in game.spec.to_move(state) else []
        mine = revealed + "\n" + "\n".join(moves)
        for url in (
            base,
            f"{base}/history",
            f"{base}/board.svg",
            f"{base}/turn/{game.version}",
            f"{base}/history/{game.version}",
            f"{base}/history?since=0",
        ):
            problems += [f"{url} (seat {seat}): {leak}" for leak in leaks(fetch(client, url), searched, mine, seat)]
    assert not problems, "hidden data shown:\n" + "\n".join(problems[:20])
    return sum(len(h.needles) for h in searched)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    service = GameService(Settings(home=tmp_path_factory.mktemp("pbem-leaks")))
    yield service, create_app(service).test_client()
    service.close()


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(catalog()))
def test_public_responses_never_show_hidden_facts(site, games, name, seed):
    service, client = site
    spec = catalog()[name]
    count = spec.min_players + seed % (spec.max_players - spec.min_players + 1)
    # about how many moves a game takes: the finished game of the shared fixture, per seat
    length = len(games.service.game(games.finished[name]).kinds("moved")) * count // spec.min_players

    game_id = service.create(name, players(spec, count), seed=bytes([seed + 100]) * 32)
    played = 0
    looked_for = 0
    for stop in STOPS:
        target = max(1, length // stop)
        if target > played:
            play_some(service, game_id, seed, target - played)
            played = target
        if service.game(game_id).ended:
            break
        looked_for += check_running_game(service, client, game_id)
    assert looked_for, "the check searched for nothing"

    # positive controls: the search finds secrets where they are meant to be shown
    game = service.game(game_id)
    shown = 0
    for seat in range(len(game.names)):
        own = [
            h
            for h in hidden_data(service, game_id)
            if h.seats == {seat} and " fact " in h.what and any(": " in n and not n.startswith("{") for n in h.needles)
        ]  # listed as "key: value"
        if own:
            page = fetch(client, f"/games/{game_id}/seat/{service.seat_token(game_id, seat)}")
            found = leaks(page, own, "", None)
            assert found, f"none of seat {seat}'s own secrets {own[:3]} is on its private page"
            shown += len(found)
    play_to_end(service, game_id, seed)
    export = fetch(client, f"/games/{game_id}/export.json")
    facts = [h for h in hidden_data(service, game_id) if " fact " in h.what]
    missing = [h.what for h in facts if not any(n in export for n in h.needles)]
    assert not missing, f"opened secrets not found in the ended game's export: {missing[:5]}"
