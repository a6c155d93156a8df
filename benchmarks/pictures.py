"""The ``mail-pictures`` rows of ``python -m benchmarks``: what drawing a turn mail's board as a
PNG costs next to composing the rest of that mail, for each game.

"The rest" is everything the mail side does for a turn mail besides the PNG: the outbox's model
of the mail (the game's summary as the player sees it, what happened since their last mail, the
decision with its legal moves, the text board and the board's SVG, packed) and the sender's
composing of the message from it (subject, text and HTML parts from the templates, the HTML
part with the picture's ``<img>`` and the board's lines the picture leaves to words). The
PNG is ``mailgateway.picture.drawn`` of that SVG, as the sender draws it the first time (it
keeps its last pictures for the mails that share one). Both are timed
taking turns in one run, on one game per type some moves in, with two players. The ratio is
of the medians of CPU time (this process's, so a renderer's own threads count too): on the
shared machine the wall-clock medians swing with the load of the others, the CPU times far
less; both are printed.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.measure import Row, ms, service_at
from mailgateway import compose
from mailgateway.gateway import Gateway
from mailgateway.picture import drawn, picture_of
from pbem.cli.core import play_moves
from pbem.mailroom.pictures import unpacked
from pbem.mailroom.settings import MailSettings

GAMES = ("kingsburg", "kingdom-builder", "warriors-traders", "ruse-and-bruise")
MOVES = 40


def taking_turns(calls: dict[str, Callable[[], Any]], budget: float, rounds: int) -> dict[str, tuple[float, float]]:
    """Median (CPU, wall) seconds per call of each, the calls taking turns round after round."""
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in calls}
    started = time.perf_counter()
    while len(times[next(iter(calls))]) < rounds or time.perf_counter() - started < budget * len(calls):
        for name, fn in calls.items():
            wall, cpu = time.perf_counter(), time.process_time()
            fn()
            times[name].append((time.process_time() - cpu, time.perf_counter() - wall))
        if len(times[next(iter(calls))]) >= 200:
            break
    return {
        name: (statistics.median(c for c, _ in values), statistics.median(w for _, w in values))
        for name, values in times.items()
    }


def mail_pictures(work: Path, quick: bool) -> list[Row]:
    rows = []
    for name in GAMES:
        svc = service_at(work / name)
        gateway = Gateway(svc, MailSettings(address="pbem@bench.example", maildir=work / name / "maildir"))
        players = [f"p{seat}@bench.example" for seat in range(2)]
        game_id = svc.create(name, players, seed=bytes([7]) * 32)
        play_moves(svc, game_id, seed=1, max_moves=MOVES)
        game = svc.game(game_id)
        seat = game.spec.to_move(svc.state(game))[0]
        outbox = gateway.mailroom.outbox

        def model() -> dict:
            block = dict(outbox.game_block(outbox.round(), game, game.version, players[seat]))
            return {"kind": "turn", "game": block, "lang": "en", "service": "pbem@bench.example"}

        svg = unpacked(model()["game"]["picture"])
        shown = picture_of(svg)
        assert shown is not None

        def rest() -> None:
            # the message as it is sent, with the picture's <img> and the lines beside it,
            # but the PNG already drawn
            compose.render(model(), shown, "board")

        def png() -> None:
            drawn(svg)  # drawn anew each time: the sender keeps its last pictures (picture_of)

        times = taking_turns({"rest": rest, "png": png}, 0.5 if quick else 3.0, rounds=5 if quick else 20)
        size = f"{len(svg) // 1024} KB SVG, {shown.width}x{shown.height} px, PNG {len(shown.png) // 1024} KB"
        (png_cpu, png_wall), (rest_cpu, rest_wall) = times["png"], times["rest"]
        rows.append(
            Row(
                "mail-pictures",
                f"{name}: a turn mail's board PNG vs composing the rest of the mail",
                size,
                f"{ms(png_cpu)} CPU ({ms(png_wall)} wall)",
                f"{ms(rest_cpu)} CPU ({ms(rest_wall)} wall)",
                png_cpu / rest_cpu,
                "PNG CPU time / rest-of-mail CPU time (the bar: 2x at most)",
            )
        )
        svc.close()
    return rows
