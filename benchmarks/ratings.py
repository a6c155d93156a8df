"""The ratings row: ``pbem ratings`` over N finished games (each export verified, then rated)
against the bare library rating the same N results (docs/benchmarks.md)."""

from __future__ import annotations

import time
from pathlib import Path

from openskill.models import PlackettLuce

from benchmarks.measure import Row, ms, service_at
from pbem.cli.core import play_to_end
from pbem.ledger.ratings import ratings


def _bare(standings: list[list[int]], names: list[str]) -> None:
    model = PlackettLuce()
    held = {name: model.rating(name=name) for name in names}
    for ranks in standings:
        rated = model.rate([[held[name]] for name in names], ranks=ranks)
        for name, team in zip(names, rated, strict=True):
            held[name] = team[0]


def ratings_row(work: Path, quick: bool) -> list[Row]:
    """One finished three-player game's export, rated N times over (the same players each
    time: the cost per game does not depend on who played)."""
    count = 1_000 if quick else 10_000
    svc = service_at(work)
    game_id = svc.create("ruse-and-bruise", [f"p{n}@bench.example" for n in range(3)], seed=b"\x05" * 32)
    play_to_end(svc, game_id, seed=5)
    document = svc.export(game_id)
    svc.close()
    names = document["entries"][0]["seats"]
    ranks = {s["seat"]: s["rank"] for s in document["entries"][-1]["standings"]}
    standings = [[ranks[seat] for seat in range(len(names))]] * count
    started = time.perf_counter()
    table = ratings([document] * count)
    pbem = time.perf_counter() - started
    assert len(table["games"]) == count
    started = time.perf_counter()
    _bare(standings, names)
    bare = time.perf_counter() - started
    return [
        Row(
            "ratings",
            f"pbem ratings (verify each export, rate) vs openskill alone, {len(document['entries'])}-entry games",
            f"{count:,} games",
            f"{ms(pbem)} ({ms(pbem / count)} a game)",
            ms(bare),
            pbem / bare,
            "pbem time / bare rating time (the verifying is the difference)",
        )
    ]
