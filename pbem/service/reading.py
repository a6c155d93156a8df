"""The reader of the game service: views at any version, history, proofs, exports and seat
tokens, read through the game repository (``pbem.service.repository``, which checks each game
against its signed history as it reads it). Nothing here writes."""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pbem.config import Settings
from pbem.games import catalog, get_spec
from pbem.games.speech import _
from pbem.ledger import entries as log
from pbem.ledger import handovers, proposals
from pbem.ledger.canonical import canonical_bytes
from pbem.ledger.merkle import consistency_proof, inclusion_proof, leaf_hash, root
from pbem.ledger.receipts import Proved, make_receipt, opened_for
from pbem.service.game import LoadedGame
from pbem.service.keys import KeyRing
from pbem.service.names import renamed_line
from pbem.service.repository import GameRepository
from pbem.service.signer import CheckpointSigner
from pbem.service.store import GameRecord, SeatKeys
from pbem.service.summary_view import GameSummary
from pbem.service.wakeup import Wakeup

if TYPE_CHECKING:
    from pbem.service.rated import RatingsFollower

alarms = logging.getLogger("pbem")
GAME_TOPICS = [f"{c.__module__}:{c.__qualname__}" for c in (GameRecord.Created, GameRecord.Appended)]
MAX_KEPT_TOKENS = 65_536  # seat tokens kept (then they start afresh)


class GameReader:
    """Queries over the stored games: views, history, proofs, exports, seat tokens. It reads
    through the game repository and writes nothing; it is what the web site is given."""

    def __init__(self, repository: GameRepository, signer: CheckpointSigner):
        self.repository = repository
        self.signer = signer
        self._tokens: dict[str, str] = {}  # seat tokens by label (every mail to a seat asks for them)

    # -- the repository's reads that a query's caller may need too -----------------------------
    def game(self, game_id: str, fresh: bool = True) -> LoadedGame:
        """A game as stored and checked (``GameRepository.game``)."""
        return self.repository.game(game_id, fresh)

    def state(self, game: LoadedGame, version: int | None = None) -> Any:
        """The game's state after ``version`` entries (``GameRepository.state``)."""
        return self.repository.state(game, version)

    def leaves(self, game: LoadedGame) -> list[bytes]:
        """The leaf hashes of the game's entries (``GameRepository.leaves``)."""
        return self.repository.leaves(game)

    def position(self) -> int:
        """How far the store's notification log goes (``GameRepository.position``)."""
        return self.repository.position()

    def game_ids(self) -> list[str]:
        return self.repository.game_ids()

    def games_of(self, email: str) -> list[str]:
        """The games ``email`` has a seat in, oldest first, from the read model a follower keeps
        (``pbem.service.player_games``): no game is loaded to find them."""
        from pbem.service.player_games import player_games_for

        return player_games_for(self.repository).games_of(email)

    def newest_games(self, count: int) -> list[str]:
        """The ``count`` games created last, oldest of them first, from the same read model."""
        from pbem.service.player_games import player_games_for

        return player_games_for(self.repository).newest(count)

    def summaries_of(self, email: str, limit: int) -> tuple[list[GameSummary], int]:
        """The games list's rows of the games ``email`` plays, those not finished first, newest
        activity first, at most ``limit``, and how many there are (``PlayerGames.summaries_of``):
        read from the two read models, no game loaded."""
        from pbem.service.player_games import player_games_for

        return player_games_for(self.repository).summaries_of(email, limit)

    def summaries(self, game_ids: list[str], email: str) -> list[tuple[GameSummary, bool]]:
        """The games list's rows of ``game_ids``, each with whether ``email`` plays in it."""
        from pbem.service.player_games import player_games_for

        return player_games_for(self.repository).summaries(game_ids, email)

    def commits(self) -> Wakeup:
        """What wakes a follower of the store after each commit (``GameRepository.commits``)."""
        return self.repository.commits()

    def moved(self, after: int, head: int) -> dict[str, int]:
        """The games saved in notifications ``after`` (exclusive) to ``head``, each with the
        version the last of them left it at (the web's warmer asks)."""
        versions: dict[str, int] = {}
        for notice in self.repository.notifications(after, max(0, head - after), GAME_TOPICS):
            entries = getattr(notice.event(), "entries", None)
            if entries:
                versions[entries[-1]["game"]] = entries[-1]["index"] + 1
        return versions

    @property
    def keys(self) -> KeyRing:
        """The server's keys: the public verifier keys and revocations are shown."""
        return self.repository.keys

    @property
    def settings(self) -> Settings:
        return self.repository.settings

    @property
    def frozen(self) -> dict[str, str]:
        """Games whose store does not match their signed history, and why."""
        return self.repository.frozen

    def catalog(self) -> list[dict[str, Any]]:
        return [
            {
                "name": spec.name,
                "title": spec.title,
                "min_players": spec.min_players,
                "max_players": spec.max_players,
                "options": [o.to_dict() for o in spec.all_options],
            }
            for spec in catalog().values()
        ]

    def player_ratings(self) -> dict[str, Any]:
        """Every player's rating and reliability from the finished games of this store, as
        ``pbem ratings --from`` computes them from their exports (``pbem.ledger.ratings``), read
        from the projection a follower keeps as games end (``ratings``): each game's export is
        verified once, when it ends."""
        return self.ratings().table()

    def ratings(self) -> RatingsFollower:
        """The follower of the store that keeps the finished games' results
        (``pbem.service.rated``): one per repository in a process."""
        from pbem.service.rated import ratings_for

        return ratings_for(self.repository, self.export)

    def origin(self, game_id: str) -> str:
        return self.signer.origin(game_id)

    def summary(
        self, game_id: str, version: int | None = None, viewer: str | None = None, game: LoadedGame | None = None
    ) -> dict[str, Any]:
        """The state of a game at a version as JSON: the shape of ``pbem show --json``."""
        game = game or self.game(game_id)
        version = game.check_version(version)
        seat = game.seat_of(viewer) if viewer else None
        state = self.state(game, version)
        over = version == game.version and game.ended
        waiting = self._waiting(game, state, version)
        return {
            "id": game.id,
            "game": game.spec.name,
            "title": game.spec.title,
            "version": version,
            "latest_version": game.version,
            "seats": game.names,
            "viewer": seat,
            "started": state is not None,
            "over": over,
            "waiting_for": [{"seat": s, "name": game.names[s]} for s in waiting],
            "phase": game.spec.phase_label(state) if state is not None else "waiting for players",
            "standings": [s.to_dict() for s in game.standings() or []] if over else None,
            "robots": sorted(game.robots),
            "view": game.spec.view(state, seat) if state is not None else None,
        }

    def _waiting(self, game: LoadedGame, state: Any, version: int) -> list[int]:
        if state is None:
            joined = {e["seat"] for e in game.entries[:version] if e["kind"] == "joined"}
            return [s for s in range(len(game.names)) if s not in joined]
        return list(game.spec.to_move(state))

    def render(self, game_id: str, version: int | None = None, viewer: str | None = None) -> str:
        summary = self.summary(game_id, version, viewer)
        spec = get_spec(summary["game"])
        head = [
            f"{summary['title']} - game {summary['id']}, turn {summary['version']} of {summary['latest_version']}",
            f"Players: {', '.join(summary['seats'])}",
            f"Now: {summary['phase']}",
        ]
        if summary["waiting_for"]:
            head.append("Waiting for: " + ", ".join(w["name"] for w in summary["waiting_for"]))
        if summary["standings"]:
            head.append(
                "Final standings: "
                + "; ".join(
                    f"{s['rank']}. {summary['seats'][s['seat']]} ({s['score']})"
                    for s in sorted(summary["standings"], key=lambda s: s["rank"])
                )
            )
        body = spec.render_text(summary["view"], summary["seats"]) if summary["view"] is not None else ""
        return "\n".join(head) + ("\n\n" + body if body else "") + "\n"

    def history(self, game_id: str, viewer: str | None = None, game: LoadedGame | None = None) -> list[dict[str, Any]]:
        """Every entry as ``viewer`` may see it, with its leaf hash, a readable line per fact,
        and the checkpoint signed after it (if one was)."""
        game = game or self.game(game_id)
        seat = game.seat_of(viewer) if viewer else None
        notes = {size: note for size, note in game.checkpoints}
        rows = []
        for index, (entry, private) in enumerate(zip(game.entries, game.privates, strict=False)):
            shown = log.visible_entry(entry, private, seat, game.ended)
            if shown["kind"] == log.NAMED:  # said as the pages and the mails say it
                lines = [renamed_line(game.created["seats"], shown, _)]
            elif shown["kind"] in handovers.KINDS:
                lines = [handovers.describe(shown, game.entries[:index], game.names, _)]
            elif shown["kind"] in proposals.KINDS:
                lines = [proposals.describe(shown, game.entry, game.names, _)]
            else:
                lines = [game.spec.describe_fact(f, game.names) for f in shown.get("facts") or []]
            rows.append(
                {
                    "index": index,
                    "turn": game.turn_of(index),  # as mails and pages number it
                    "entry": shown,
                    "leaf_hash": leaf_hash(canonical_bytes(entry)).hex(),
                    "lines": lines,
                    "checkpoint": notes.get(index + 1),
                }
            )
        return rows

    def inclusion(
        self, game_id: str, index: int, size: int | None = None, game: LoadedGame | None = None
    ) -> dict[str, Any]:
        game = game or self.game(game_id)
        size = game.check_version(size)
        leaves = self.leaves(game)[:size]
        proof = inclusion_proof(index, leaves)
        return {
            "origin": self.origin(game_id),
            "index": index,
            "size": size,
            "entry": copy.deepcopy(game.entry(index)),
            "leaf_hash": leaves[index].hex(),
            "root": root(leaves).hex(),
            "path": [p.hex() for p in proof],
            "checkpoint": game.checkpoint_at(size),
        }

    def receipt(
        self,
        game_id: str,
        index: int,
        size: int | None = None,
        viewer: str | None = None,
        game: LoadedGame | None = None,
        also: Sequence[int] = (),
    ) -> dict[str, Any]:
        """A receipt that stands alone (``pbem check-receipt``): entry ``index`` as hashed, its
        inclusion proof in the signed tree of ``size`` entries, the checkpoint and the keys; with
        ``viewer``, also the openings of the entry's secrets that this player may see. ``also``:
        further entries it proves against the same checkpoint (every entry of one mail)."""
        game = game or self.game(game_id)
        size = game.check_version(size)
        leaves = self.leaves(game)[:size]
        seat = game.seat_of(viewer) if viewer else None
        first, *more = (self._proved(game, leaves, i, seat, bool(viewer)) for i in (index, *also))
        return make_receipt(
            self.origin(game_id),
            first.entry,
            first.path,
            size,
            game.checkpoint_at(size),
            [str(key) for key in self.keys.verifiers()],
            first.opened,
            more,
        )

    @staticmethod
    def _proved(game: LoadedGame, leaves: list[bytes], index: int, seat: int | None, viewer: bool) -> Proved:
        """Entry ``index``, its inclusion proof in ``leaves`` and what ``seat`` may see opened."""
        proof = inclusion_proof(index, leaves)  # refuses an index outside the tree
        entry = game.entry(index)
        opened = opened_for(entry, game.private(index), seat, game.ended) if viewer or game.ended else None
        return Proved(entry, proof, opened)

    def consistency(self, game_id: str, old: int, new: int | None = None) -> dict[str, Any]:
        game = self.game(game_id)
        new = game.check_version(new)
        leaves = self.leaves(game)[:new]
        proof = consistency_proof(old, leaves)
        return {
            "origin": self.origin(game_id),
            "old_size": old,
            "new_size": new,
            "old_root": root(leaves[:old]).hex(),
            "new_root": root(leaves).hex(),
            "path": [p.hex() for p in proof],
        }

    # -- seat tokens: the secret in a seat's private mail address and web link ------------
    def seat_token(self, game_id: str, seat: int, keys: SeatKeys | bool | None = False) -> str:
        """``keys``: the game's seat keys when the caller has read them (None: never rotated);
        left out, they are read here."""
        if keys is False:
            keys = self.repository.seat_keys(game_id)
        generation = keys.generations.get(str(seat), 0) if isinstance(keys, SeatKeys) else 0
        return self._token(f"seat/{game_id}/{seat}" + (f"/{generation}" if generation else ""))

    def invitation_token(self, game_id: str, index: int) -> str:
        """The token of the address a substitute is invited to (the ``substitute`` entry at
        ``index``): answering there with ``join`` takes the seat (``pbem.mailroom.substitutes``)."""
        return self._token(f"substitute/{game_id}/{index}")

    def _token(self, label: str) -> str:
        token = self._tokens.get(label)
        if token is None:  # a token depends only on its label and the secret, which never changes
            digest = hmac.new(self.keys.token_secret(), label.encode(), hashlib.sha256).digest()
            token = base64.b32encode(digest[:10]).decode().lower()
            if len(self._tokens) >= MAX_KEPT_TOKENS:
                self._tokens.clear()
            self._tokens[label] = token
        return token

    def seat_by_token(
        self, game_id: str, token: str, game: LoadedGame | None = None, keys: SeatKeys | bool | None = False
    ) -> int | None:
        """The seat a token belongs to, or None (compared in constant time). ``keys``: the
        game's seat keys as the caller has them (a writer, ``GameWriter.seat_by_token``); left
        out, they are read from the store, so a token changed by another process stops at once."""
        game = game or self.game(game_id)
        if keys is False:
            keys = self.repository.seat_keys(game_id)
        for seat in range(len(game.names)):
            # bytes: compare_digest refuses str holding non-ASCII, and a token is any text a mail holds
            if hmac.compare_digest(self.seat_token(game_id, seat, keys).encode(), token.strip().lower().encode()):
                return seat
        return None

    # -- export ----------------------------------------------------------------------------
    def export(self, game_id: str) -> dict[str, Any]:
        """The public history, checkpoints and keys; after the end also every opening."""
        game = self.game(game_id)
        revocations = [r.to_dict() for r in self.keys.revocations()]
        return {
            "format": "pbem-export/1",
            "game": game.id,
            "origin": self.origin(game.id),
            "keys": [str(key) for key in self.keys.verifiers()],
            "entries": game.entries,
            "checkpoints": [{"size": size, "note": note} for size, note in game.checkpoints],
            "openings": [log.opening(private) for private in game.privates] if game.ended else None,
        } | ({"revocations": revocations} if revocations else {})
