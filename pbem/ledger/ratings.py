"""Ratings and reliability that anyone can recompute from exports.

Only finished games count, and only exports that verify (``pbem.ledger.verify``: signatures,
the Merkle log, every opening; the rules replay is left out here, as ``verify --quick``).
Games are taken in the order they ended (the time of their ``ended`` entry, then their id),
so the live store and a folder of its exports give the same sequence, and so the same numbers
to the last bit: the ratings are the library's floats, kept as they are in JSON.

Ratings come from ``openskill`` (the Plackett-Luce model of Weng and Lin), a maintained
library made for games of more than two players with ties, such as ours: each finished game
updates the ratings of its seats from their final ranks. A player is known by their public
name in the game (the seat's name: never an address). Reliability comes from the same log:
``moves`` the player made, ``defaulted`` moves the deadline made for them, ``finished`` games
played to the end, ``abandoned`` games handed to the robot (resigned or too many missed turns).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce

from pbem.ledger.verify import VerificationError, verify_export

RATING_FORMAT = "pbem-ratings/1"


@dataclass
class Player:
    name: str
    games: int = 0
    moves: int = 0
    defaulted: int = 0
    finished: int = 0
    abandoned: int = 0
    rating: Any = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        deadlines = self.moves + self.defaulted
        return {
            "name": self.name,
            "mu": self.rating.mu,
            "sigma": self.rating.sigma,
            "ordinal": self.rating.ordinal(),
            "games": self.games,
            "finished": self.finished,
            "abandoned": self.abandoned,
            "moves": self.moves,
            "defaulted": self.defaulted,
            "deadlines_met": self.moves / deadlines if deadlines else None,
        }


def finished_games(documents: Iterable[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """The exports of finished games that verify, in the order they ended; and a line for each
    export left out, saying why."""
    kept: list[dict[str, Any]] = []
    left_out: list[str] = []
    for document in documents:
        game = str(document.get("game", "?")) if isinstance(document, dict) else "?"
        try:
            report = verify_export(document, replay=False)
        except VerificationError as error:
            left_out.append(f"{game}: does not verify ({error})")
            continue
        if not report.ended:
            left_out.append(f"{game}: not finished")
            continue
        kept.append(document)
    kept.sort(key=lambda d: (d["entries"][-1]["time"], d["game"]))
    return kept, left_out


def ratings(documents: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Every player's rating and reliability from the finished, verified games among ``documents``."""
    games, left_out = finished_games(documents)
    model = PlackettLuce()
    players: dict[str, Player] = {}
    for document in games:
        _count(document, players, model)
    table = sorted((p.to_dict() for p in players.values()), key=lambda row: (-row["ordinal"], row["name"]))
    return {"format": RATING_FORMAT, "games": [d["game"] for d in games], "players": table, "left_out": left_out}


def _count(document: dict[str, Any], players: dict[str, Player], model: PlackettLuce) -> None:
    entries = document["entries"]
    names = entries[0]["seats"]
    seats = [players.setdefault(name, Player(name, rating=model.rating(name=name))) for name in names]
    robots = {e["seat"] for e in entries if e["kind"] == "resigned"}
    for entry in entries:
        if entry["kind"] == "moved" and entry.get("source") != "robot":  # the robot plays for nobody
            player = seats[entry["seat"]]
            if entry.get("source") == "deadline":
                player.defaulted += 1
            else:
                player.moves += 1
    ranks = {s["seat"]: s["rank"] for s in entries[-1]["standings"]}
    updated = model.rate([[p.rating] for p in seats], ranks=[ranks.get(n, len(names)) for n in range(len(names))])
    for number, (player, team) in enumerate(zip(seats, updated, strict=True)):
        player.rating = team[0]
        player.games += 1
        if number in robots:
            player.abandoned += 1
        else:
            player.finished += 1
