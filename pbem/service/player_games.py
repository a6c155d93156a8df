"""Which games each address plays, as a read model: a follower of the store's ``Created``
events keeps one row per seat's address and game (``player_games``, beside the games list's
rows, tracked under a name of its own), so ``status`` and a move sent to the service address
find a player's games without loading every game.

The address is never stored as it is: a row names it by an HMAC under a key derived from the
seat-token secret in ``keys/`` (never in the database), so the view, which is not encrypted when
the event store is, holds no address. The seats' addresses are those of a game's creation, so
the games' first events are all the follower reads: a round costs O(new games). The activity
rows (``status``, the lists of a player's games) follow every event and also add a substitute
who took over a seat (a ``handed`` entry); the player before keeps the game in their lists, as
one they left (``summary_view.LEFT``: listed after the finished ones, said "handed to a substitute").
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import weakref
from contextlib import suppress
from typing import Any

from eventsourcing.persistence import IntegrityError, Tracking

from pbem.ledger.handovers import HANDED, address_before
from pbem.service.store import GameRecord
from pbem.service.summary_view import GameSummary, SummaryView

MAX_SEATS = 8  # seats of a game at most, over every game offered (a test checks the catalog)
CREATED = f"{GameRecord.Created.__module__}:{GameRecord.Created.__qualname__}"
APPENDED = f"{GameRecord.Appended.__module__}:{GameRecord.Appended.__qualname__}"
ENDED = "ended"  # the kind of a game's last entry (pbem.ledger.entries)


class PlayerGames:
    """The follower and its query (``games_of``). ``repository``: the game repository (its
    store's notifications, its keys)."""

    def __init__(self, repository: Any, view: SummaryView, batch: int = 500, rows: Any = None):
        self.store = repository.store
        self.view = view
        self.rows = rows  # the games list's follower (``SummaryFollower``), whose rows the lists read
        self.name = f"{self.store.name}.players"
        self.activity = f"{self.store.name}.activity"  # the seats' games in status order, tracked apart
        self.batch = batch
        self._key = hmac.new(repository.keys.token_secret(), b"pbem player games", hashlib.sha256).digest()
        self._lock = threading.Lock()

    def player(self, email: str) -> str:
        """An address as the rows name it."""
        return hmac.new(self._key, email.strip().lower().encode(), hashlib.sha256).hexdigest()

    def catch_up(self) -> int:
        """Follow the games created since the view's position, a batch at a time."""
        total = 0
        with self._lock:
            while True:
                after = self.view.max_tracking_id(self.name) or 0
                page = self.store.notifications(after, self.batch, [CREATED])
                if not page:
                    return total
                rows = []
                for notice in page:
                    created = notice.event()
                    game_id = created.game_id
                    emails = dict.fromkeys(created.privates[0].get("emails", []))
                    rows += [
                        {"player": self.player(e), "game_id": game_id, "notification_id": notice.id} for e in emails
                    ]
                with suppress(IntegrityError):  # another process followed these first
                    self.view.save_players(rows, Tracking(self.name, page[-1].id))
                total += len(page)

    def catch_up_activity(self) -> int:
        """Follow every game event since the activity rows' position, a batch at a time: a game's
        ``Created`` adds a row per seat, each later event sets the game's newest activity (and,
        once it ends, that it is finished) on its seats' rows. Reads only the events."""
        total = 0
        with self._lock:
            while True:
                after = self.view.max_tracking_id(self.activity) or 0
                page = self.store.notifications(after, self.batch, [CREATED, APPENDED])
                if not page:
                    return total
                seats: list[dict[str, Any]] = []
                moves: dict[str, dict[str, Any]] = {}
                left: list[dict[str, Any]] = []
                for notice in page:
                    event = notice.event()
                    entries = event.entries
                    if not entries:
                        continue
                    game_id = entries[-1]["game"]
                    finished = int(any(entry["kind"] == ENDED for entry in entries))
                    moved = {"game_id": game_id, "finished": finished, "last_activity": entries[-1].get("time", "")}
                    if isinstance(event, GameRecord.Created):
                        emails = dict.fromkeys(event.privates[0].get("emails", []))
                        seats += [moved | {"player": self.player(email)} for email in emails]
                    else:  # a substitute who took a seat plays the game from then on (pbem.ledger.handovers)
                        seats += [moved | {"player": self.player(email)} for email in _handed_to(event)]
                        left += [{"player": self.player(email), "game_id": game_id} for email in self._left(event)]
                        earlier = moves.get(game_id, {}).get("finished", 0)
                        moves[game_id] = moved | {"finished": max(finished, earlier)}
                with suppress(IntegrityError):  # another process followed these first
                    self.view.save_activity(seats, list(moves.values()), Tracking(self.activity, page[-1].id), left)
                total += len(page)

    def _left(self, event: Any) -> list[str]:
        """The addresses a stored event's hand-overs took seats from (the game is theirs no more)."""
        handed = [entry for entry in event.entries if entry["kind"] == HANDED]
        record = self.store.game(handed[0]["game"]) if handed else None
        if record is None:
            return []
        log = self.store.game_log(record)
        found = (address_before(log.entries, log.privates, int(entry["index"])) for entry in handed)
        return [email for email in found if email is not None]

    def newest(self, count: int) -> list[str]:
        """The ``count`` games created last, oldest of them first (``game_ids()[-count:]``,
        without reading every game's first event)."""
        self.catch_up()
        found = dict.fromkeys(self.view.newest_seats(count * MAX_SEATS))
        return list(found)[:count][::-1]

    def games_of(self, email: str) -> list[str]:
        """The games ``email`` has a seat in, oldest first (as ``game_ids``)."""
        self.catch_up()
        return self.view.player_games(self.player(email))

    def summaries_of(self, email: str, limit: int) -> tuple[list[GameSummary], int]:
        """The games list's rows of ``email``'s games, those not finished first, newest activity
        first, at most ``limit``, and how many games ``email`` has: two indexed queries, no game
        loaded, however many games the player has."""
        self._follow()
        return self.view.player_rows(self.player(email), limit)

    def summaries(self, game_ids: list[str], email: str) -> list[tuple[GameSummary, bool]]:
        """The rows of ``game_ids`` in that order, each with whether ``email`` plays in it."""
        self._follow()
        return self.view.rows_of(game_ids, self.player(email))

    def _follow(self) -> None:
        """The read models brought up to the store's end: the players' rows, their games'
        activity and the games list's rows."""
        self.catch_up()
        self.catch_up_activity()
        if self.rows is not None:
            self.rows.catch_up_all()


def _handed_to(event: Any) -> list[str]:
    """The addresses a stored event's hand-overs gave seats to (from their private parts)."""
    return [
        str(private["emails"][0])
        for entry, private in zip(event.entries, event.privates, strict=False)
        if entry["kind"] == HANDED and private.get("emails")
    ]


_FOLLOWERS: weakref.WeakKeyDictionary[Any, PlayerGames] = weakref.WeakKeyDictionary()
_FOLLOWERS_LOCK = threading.Lock()


def player_games_for(repository: Any) -> PlayerGames:
    """One follower per game repository in a process, on the games list's view."""
    from pbem.service.summaries import follower_for

    with _FOLLOWERS_LOCK:
        follower = _FOLLOWERS.get(repository)
        if follower is None:
            rows = follower_for(repository)
            follower = _FOLLOWERS[repository] = PlayerGames(repository, rows.view, rows=rows)
        return follower
