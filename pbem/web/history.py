"""History rows for the pages, computed only for the entries a page shows (a page of 50, one
entry, the feed), so a long game's history costs the same as a short one's."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from typing import Any

from pbem.games.base import SECRET, can_see
from pbem.games.speech import _
from pbem.ledger import entries as log
from pbem.ledger import handovers, press, proposals, withdrawals
from pbem.ledger.entries import NAMED
from pbem.service.game import LoadedGame
from pbem.service.names import renamed_line
from pbem.service.talk import talk_line
from pbem.web.helpers import service

PAGE_SIZE = 50


@dataclass(frozen=True)
class HistoryWindow:
    """Which entries (log indices) one page of a history shows. Without ``since`` the pages run
    newest first (page 1 ends at the latest entry); with ``since`` (a turn) they read forward
    from the entry that made turn ``since + 1``."""

    indices: list[int]
    page: int
    pages: int
    since: int | None

    @property
    def newest_first(self) -> bool:
        return self.since is None


def history_window(version: int, since: int | None, page: int, size: int = PAGE_SIZE) -> HistoryWindow | None:
    """The entries of page ``page`` of a log of ``version`` entries; None when there is no
    such page. Pure."""
    first = 0 if since is None else since
    pages = max(1, -(-(version - first) // size))
    if not 1 <= page <= pages:
        return None
    if since is None:
        top = version - 1 - (page - 1) * size
        indices = list(range(top, max(first, top - size + 1) - 1, -1))
    else:
        start = first + (page - 1) * size
        indices = list(range(start, min(version, start + size)))
    return HistoryWindow(indices, page, pages, since)


def page_of_entry(version: int, index: int, size: int = PAGE_SIZE) -> int:
    """The page of the newest-first history that holds entry ``index``."""
    return (version - 1 - index) // size + 1


def history_rows(game: LoadedGame, seat: int | None, indices: list[int]) -> list[dict[str, Any]]:
    """The entries ``indices`` as ``seat`` (None: the public) may see them."""
    leaves = service().leaves(game)
    return [_row(game, seat, index, leaves[index].hex(), note_at(game, index + 1)) for index in indices]


def note_at(game: LoadedGame, size: int) -> str | None:
    """The checkpoint signed at exactly ``size`` entries, if one was (the list is in order of
    size: a binary search, not a walk through a long game's thousand checkpoints)."""
    at = bisect_left(game.checkpoints, size, key=lambda checkpoint: checkpoint[0])
    if at < len(game.checkpoints) and game.checkpoints[at][0] == size:
        return str(game.checkpoints[at][1])
    return None


def history_row(game: LoadedGame, index: int, seat: int | None) -> dict[str, Any]:
    return history_rows(game, seat, [index])[0]


def _row(game: LoadedGame, seat: int | None, index: int, leaf: str, checkpoint: str | None) -> dict[str, Any]:
    names = game.names
    entry = log.visible_entry(game.entries[index], game.privates[index], seat, game.ended)
    facts = entry.get("facts") or []
    return {
        "index": index,
        "turn": index + 1,  # the entry's place in the log: its URL
        "number": game.turn_of(index),  # the turn shown: talk does not advance it
        "kind": entry["kind"],
        "time": entry.get("time", ""),
        "who": names[entry["seat"]] if isinstance(entry.get("seat"), int) else "",
        "command": game.spec.say_command(entry.get("command", "")),
        "source": entry.get("source", ""),
        "lines": _lines(game, entry),
        "mine": _mine(game, seat, facts) if seat is not None and not game.ended else [],
        "leaf_hash": leaf,
        "checkpoint": checkpoint,
        "hidden": sum(1 for f in facts if SECRET in f and "data" not in f[SECRET]),
        "seed": entry.get("seed") if entry["kind"] == "ended" else None,
        "nonce": entry.get("nonce") if entry["kind"] == "joined" else None,
    }


def _lines(game: LoadedGame, shown: dict[str, Any]) -> list[str]:
    """The entry's readable lines (as its viewer may see it): its facts, or a message."""
    if shown["kind"] in press.TALK_KINDS:
        return [talk_line(shown, game.names)]
    if shown["kind"] == NAMED:
        return [renamed_line(game.created["seats"], shown, _)]
    if shown["kind"] in handovers.KINDS:
        return [handovers.describe(shown, game.entries[: shown["index"]], game.names, _)]
    if shown["kind"] in proposals.KINDS:
        return [proposals.describe(shown, game.entry, game.names, _)]
    if shown["kind"] == withdrawals.WITHDRAWN:  # the move it names, by its place in the log (its link)
        return [_("The move of entry {move} is withdrawn; the game stands as before it.", move=shown["move"] + 1)]
    if shown["kind"] in withdrawals.KINDS:
        return [_("The move of entry {move}.", move=int(shown.get("move", -1)) + 1)] if "move" in shown else []
    return [game.spec.describe_fact(fact, game.names) for fact in shown.get("facts") or []]


def _mine(game: LoadedGame, seat: int, facts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The seat's own secrets among ``facts`` (already opened for it)."""
    return [
        {"line": game.spec.describe_fact(fact, game.names), "data": fact[SECRET]["data"]}
        for fact in facts
        if SECRET in fact and "data" in fact[SECRET] and can_see(fact, seat)
    ]


def secrets_of(game: LoadedGame, seat: int) -> list[dict[str, Any]]:
    """Every secret fact addressed to ``seat`` so far, newest first (for its private page).
    Reads the private parts only, without hashing or describing the other entries."""
    found: list[dict[str, Any]] = []
    if game.ended:  # everything is open now: the history shows it
        return found
    for index in range(game.version - 1, -1, -1):
        entry = game.entries[index]
        if not any(SECRET in fact and can_see(fact, seat) for fact in entry.get("facts") or []):
            continue
        shown = log.visible_entry(entry, game.privates[index], seat, game.ended)
        found += [item | {"turn": index + 1} for item in _mine(game, seat, shown.get("facts") or [])]
    return found
