"""A separate OS process submitting moves to one game (for the scale and fault tests).

    python -m tests.ops.worker HOME DATABASE_URL GAME_ID NAME COUNT GO_FILE OUT_FILE [--unguarded]

Waits (bounded) until GO_FILE exists, so that workers start together, then submits COUNT moves,
each with its own idempotency key NAME-i, for whichever seat is to move, and writes every
outcome as JSON to OUT_FILE. Guarded submissions name the version they answer (stale ones are
refused); unguarded ones are planned again on a conflict.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

from benchmarks.longgame import register_games
from pbem.config import Settings
from pbem.service.service import GameService


def main(argv: list[str]) -> int:
    home, url, game_id, name, count, go, out = argv[:7]
    guarded = "--unguarded" not in argv
    register_games()
    svc = GameService(Settings(home=Path(home), database_url=url or None))
    chooser = random.Random(name)
    deadline = time.monotonic() + 30
    while not Path(go).exists():
        if time.monotonic() > deadline:
            return 3
        time.sleep(0.005)
    outcomes = []
    for number in range(int(count)):
        game = svc.game(game_id)
        state = svc.state(game)
        seat = game.spec.to_move(state)[0]
        move = "hold" if chooser.random() < 0.3 else "roll"
        outcome = svc.submit(
            game_id,
            game.emails[seat],
            [move],
            "cli",
            expected_version=game.version if guarded else None,
            idempotency_key=f"{name}-{number}",
        )
        result = outcome.to_dict()
        result["key"] = f"{name}-{number}"
        outcomes.append(result)
    svc.close()
    Path(out).write_text(json.dumps(outcomes), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
