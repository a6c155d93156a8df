"""Ratings and reliability that anyone can recompute from exports.

Only finished games count, and only exports that verify (``pbem.ledger.verify``: signatures,
the Merkle log, every opening; the rules replay is left out here, as ``verify --quick``).
Games are taken in the order they ended (the time of their ``ended`` entry, then their id),
so the live store and a folder of its exports give the same sequence, and so the same numbers
to the last bit: the ratings are the library's floats, kept as they are in JSON.

Ratings come from ``openskill`` (the Plackett-Luce model of Weng and Lin), a maintained
library made for games of more than two players with ties, such as ours: each finished game
updates the ratings of its seats from their final ranks. A player is known by their public
name in the game (the seat's newest name, ``named`` entries included: never an address).
Reliability comes from the same log: ``moves`` the player made, ``defaulted`` moves the
deadline made for them, ``finished`` games played to the end, ``abandoned`` games handed to
the robot (resigned or too many missed turns) or to a substitute (``pbem.ledger.handovers``:
such a game is not rated for the player who left, and the seat's result is the substitute's).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce

from pbem.ledger.entries import seat_names
from pbem.ledger.handovers import HANDED, robots_in
from pbem.ledger.verify import VerificationError, verify_export
from pbem.ledger.withdrawals import withdrawn_moves

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
    kept.sort(key=lambda d: (d["entries"][-1]["time"], d["game"]))  # as ``order_of``
    return kept, left_out


def ratings(documents: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Every player's rating and reliability from the finished, verified games among ``documents``."""
    games, left_out = finished_games(documents)
    table = RatingTable()
    for document in games:
        table.add(result_of(document))
    return table.to_dict(left_out)


def result_of(document: dict[str, Any]) -> dict[str, Any]:
    """What the ratings read of one finished, verified game's export (JSON-plain, so a
    projection can keep it): its id and end, the seats' names, each seat's own moves and the
    moves its deadlines made (moves withdrawn by consent left out), the seats the robot took
    over and the final ranks."""
    entries = document["entries"]
    names = seat_names(entries)  # a seat renamed during the game is rated under its newest name
    moves, defaulted = [0] * len(names), [0] * len(names)
    gone = withdrawn_moves(entries)  # a move taken back by consent was not played
    left: list[dict[str, Any]] = []  # the players who left a seat to a substitute, and their moves
    for index, entry in enumerate(entries):
        if index in gone:
            continue
        if entry["kind"] == HANDED:
            seat = entry["seat"]
            left.append({"name": seat_names(entries[:index])[seat], "moves": moves[seat], "defaulted": defaulted[seat]})
            moves[seat] = defaulted[seat] = 0
        elif entry["kind"] == "moved" and entry.get("source") != "robot":  # the robot plays for nobody
            counts = defaulted if entry.get("source") == "deadline" else moves
            counts[entry["seat"]] += 1
    ranks = {s["seat"]: s["rank"] for s in entries[-1]["standings"]}
    return {
        "game": document["game"],
        "ended": entries[-1]["time"],
        "names": names,
        "moves": moves,
        "defaulted": defaulted,
        "robots": sorted(robots_in(entries)),  # a seat a substitute took over is played to the end
        "ranks": [ranks.get(n, len(names)) for n in range(len(names))],
        "left": left,
    }


def order_of(result: dict[str, Any]) -> tuple[str, str]:
    """Games are rated in the order they ended (then by id): the same order from any source."""
    return (result["ended"], result["game"])


class RatingTable:
    """The players' ratings and reliability, brought forward one finished game at a time (in
    ``order_of`` order: the same sequence of the library's operations gives the same floats)."""

    def __init__(self) -> None:
        self.model = PlackettLuce()
        self.players: dict[str, Player] = {}
        self.games: list[str] = []

    def add(self, result: dict[str, Any]) -> None:
        model, names = self.model, result["names"]
        seats = [self.players.setdefault(name, Player(name, rating=model.rating(name=name))) for name in names]
        for player, moves, defaulted in zip(seats, result["moves"], result["defaulted"], strict=True):
            player.moves += moves
            player.defaulted += defaulted
        updated = model.rate([[p.rating] for p in seats], ranks=list(result["ranks"]))
        robots = set(result["robots"])
        for number, (player, team) in enumerate(zip(seats, updated, strict=True)):
            player.rating = team[0]
            player.games += 1
            if number in robots:
                player.abandoned += 1
            else:
                player.finished += 1
        for before in result.get("left", []):  # who left a seat to a substitute abandoned the game, unrated
            player = self.players.setdefault(
                before["name"], Player(before["name"], rating=model.rating(name=before["name"]))
            )
            player.moves += before["moves"]
            player.defaulted += before["defaulted"]
            player.games += 1
            player.abandoned += 1
        self.games.append(result["game"])

    def to_dict(self, left_out: list[str]) -> dict[str, Any]:
        table = sorted((p.to_dict() for p in self.players.values()), key=lambda row: (-row["ordinal"], row["name"]))
        return {"format": RATING_FORMAT, "games": list(self.games), "players": table, "left_out": list(left_out)}
