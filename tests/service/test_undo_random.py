"""Taking back moves by consent in random games, through the service (pbem/service/consent.py):
each game is played with random legal moves, and after a move its author often asks to take it
back; then the other seats agree, or one of them moves instead (the request lapses). After every
step the live state is the fold of the moves in play (``LoadedGame.rewound``), a withdrawal
leaves the game as it stood before the move, and at the end ``verify`` with the rules replay
passes on the export. A few games per game in ``make test``; PBEM_LONG_UNDO_GAMES (default
250 per game, 1,000 in all) in ``make test-long``."""

from __future__ import annotations

import os
import random

import pytest

from pbem.games import catalog
from pbem.games.base import GameError
from pbem.ledger import withdrawals
from pbem.ledger.verify import export_bytes, verify_bytes
from pbem.service import consent
from pbem.service.service import GameService

NAMES = [name for name in ("kingsburg", "kingdom-builder", "warriors-traders", "ruse-and-bruise") if name in catalog()]
PLAYERS = ["ann@example.org", "bob@example.org", "cyril@example.org"]
MAX_STEPS = 80  # then everybody resigns and the robots finish the game


def run(service: GameService, game_id: str, plan) -> bool:
    work = service.work()
    outcome = work.run(game_id, plan)
    work.commit()
    return outcome.ok


def play_one(service: GameService, name: str, seed: int) -> dict[str, int]:
    chooser = random.Random(seed)
    players = PLAYERS[: chooser.choice([2, 3]) if name != "ruse-and-bruise" else 2]
    game_id = service.create(name, players, {}, seed=seed.to_bytes(32, "big"))
    for player in players:
        service.join(game_id, player)
    counts = {"asked": 0, "withdrawn": 0, "lapsed": 0, "refused": 0}
    clock, state_at = service.writer.clock, service.state
    for _ in range(MAX_STEPS):
        game = service.game(game_id)
        state = service.state(game)
        if game.ended or game.spec.outcome(state) is not None:
            break
        assert state == game.rewound(game.version), "the live state is the fold of the moves in play"
        asked = withdrawals.pending(game.entries)
        if asked is not None:
            before = service.state(game, asked["move"])
            others = sorted(withdrawals.missing_consents(game.entries, asked, len(players), game.robots))
            if chooser.random() < 0.7:
                for seat in others:
                    assert run(service, game_id, consent.consent_plan(players[seat], None, clock, state_at))
                counts["withdrawn"] += 1
                game = service.game(game_id)
                assert game.entries[-1]["kind"] == "withdrawn"
                assert service.state(game) == before, "the game stands as before the move"
                continue
            counts["lapsed"] += 1  # a move instead: the request lapses
        seat = chooser.choice(sorted(game.spec.to_move(state)))
        move = chooser.choice(game.spec.legal_texts(state, seat, limit=10_000))
        assert service.submit(game_id, players[seat], [move], source="email").ok
        if chooser.random() < 0.5:
            try:
                ok = run(service, game_id, consent.undo_plan(players[seat], clock, state_at))
            except GameError:
                ok = False
            counts["asked" if ok else "refused"] += 1
    if not service.game(game_id).ended:
        for player in players:
            if not service.game(game_id).ended:
                service.resign(game_id, player)
    game = service.game(game_id)
    assert game.ended
    report = verify_bytes(export_bytes(service.export(game_id)))
    assert report.entries == game.version and any("replaying" in line for line in report.checked)
    return counts


@pytest.mark.parametrize("name", NAMES)
def test_random_games_with_undos_keep_replay_and_verify(sqlite_settings, name):
    service = GameService(sqlite_settings)
    try:
        totals = [play_one(service, name, seed) for seed in range(1, 3)]
    finally:
        service.close()
    if name != "ruse-and-bruise":
        assert sum(t["withdrawn"] for t in totals) > 0, "moves were taken back"
    assert sum(t["refused"] for t in totals) > 0, "and some requests were refused"


@pytest.mark.long
@pytest.mark.parametrize("name", NAMES)
def test_many_random_games_with_undos(sqlite_settings, name):
    service = GameService(sqlite_settings)
    try:
        for seed in range(int(os.environ.get("PBEM_LONG_UNDO_GAMES", "250"))):
            play_one(service, name, 1000 + seed)
    finally:
        service.close()
