"""The game service: create, join, move (the read side is ``pbem.service.reading``). Each write
is load -> pure rules -> save; the rules are the game's, the log format is ``pbem.ledger``.

Concurrency: a save that conflicts with another process's save (optimistic concurrency in the
event store) is retried against the new state, or refused as stale when the caller named the
version it answered. A command with an idempotency key (a mail's Message-ID) is recorded in the
same transaction as its effect, so it is applied at most once.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import re
import secrets
from collections.abc import Callable, Sequence
from typing import Any

from eventsourcing.persistence import RecordConflictError

from pbem.games import get_spec
from pbem.games.base import ErrorCode, GameError
from pbem.ledger import entries as log
from pbem.ledger.canonical import canonical_bytes
from pbem.ledger.fairness import DrawRng, draw_scope, new_seed, seed_commitment
from pbem.ledger.merkle import leaf_hash, root
from pbem.ledger.notes import Checkpoint, sign_checkpoint
from pbem.logs import log_entries
from pbem.service.game import LoadedGame
from pbem.service.outcome import LineResult, Outcome
from pbem.service.reading import GameReader
from pbem.service.store import GameRecord, Receipt
from pbem.service.turnfile import parse_turn_file

__all__ = ["GameService", "LineResult", "Outcome", "seat_names"]

EMAIL = re.compile(r"^[^@\s<>]+@[^@\s<>]+$")
SOURCES = ("cli", "email", "turnfile", "web", "robot", "deadline", "autoplay")
MAX_SAVE_ATTEMPTS = 10


def seat_names(emails: Sequence[str]) -> list[str]:
    """Public names for seats: the mail address's local part (addresses stay private)."""
    names: list[str] = []
    for seat, email in enumerate(emails):
        name = email.split("@", 1)[0]
        names.append(f"{name}-{seat + 1}" if name in names or emails[:seat].count(email) else name)
    return names


class _Batch:
    """Entries to append in one save, and the state they lead to."""

    def __init__(self, game: LoadedGame, state: Any):
        self.game = game
        self.state = state
        self.entries: list[log.Entry] = []
        self.privates: list[log.Private] = []

    @property
    def next_index(self) -> int:
        return self.game.version + len(self.entries)

    def add(self, made: tuple[log.Entry, log.Private]) -> None:
        self.entries.append(made[0])
        self.privates.append(made[1])

    def rng(self) -> DrawRng:
        """The draws of the next entry: seed, every nonce logged before it, its position."""
        nonces = [[e["seat"], e["nonce"]] for e in self.game.entries + self.entries
                  if e["kind"] == "joined" and e["nonce"]]
        return DrawRng(self.game.seed, draw_scope(self.game.created), nonces, self.next_index)


class GameService(GameReader):
    """Creating, joining and moving: every write goes through ``_transact``."""

    # -- creating and joining --------------------------------------------------------------
    def create(self, game_type: str, players: Sequence[str], options: dict[str, str] | None = None,
               seed: bytes | None = None, idempotency_key: str | None = None,
               context: dict[str, Any] | None = None) -> str:
        """A new game waiting for its players to join; returns its id. ``seed`` is for tests
        and demos and is marked as such in the game's first entry. With an idempotency key a
        repeated request returns the game the first one created."""
        if idempotency_key and (receipt := self.store.receipt(idempotency_key)) is not None:
            return receipt.game_id
        spec = get_spec(game_type)
        emails = [p.strip().lower() for p in players]
        for email in emails:
            if not EMAIL.match(email):
                raise GameError(ErrorCode.INVALID, f"{email!r} is not a mail address.")
        if len(set(emails)) != len(emails):
            raise GameError(ErrorCode.INVALID, "Each seat needs a different mail address.")
        spec.check_players(len(emails))
        normalized = spec.normalize_options(options or {}, len(emails))
        server_seed = seed if seed is not None else new_seed()
        for _ in range(MAX_SAVE_ATTEMPTS):
            game_id = f"{spec.name}-{secrets.token_hex(4)}"
            made = log.created(game_id, self.clock(), spec.name, spec.rules_version, normalized,
                               seat_names(emails), emails, server_seed,
                               "test" if seed is not None else "server", seed_commitment(server_seed))
            checkpoint = self._sign(game_id, [leaf_hash(canonical_bytes(made[0]))])
            aggregates: list[Any] = [GameRecord(game_id, [made[0]], [made[1]], checkpoint)]
            if idempotency_key:
                outcome = Outcome(game_id, 0, 1, [LineResult(0, f"new {spec.name}", "applied")])
                aggregates.append(Receipt(idempotency_key, game_id, outcome.to_dict() | {"context": context or {}}))
            try:
                self.store.save(*aggregates)
                log_entries(game_id, [made[0]], idempotency_key)
                return game_id
            except RecordConflictError:
                if idempotency_key and (receipt := self.store.receipt(idempotency_key)) is not None:
                    return receipt.game_id
                continue
        raise RuntimeError("could not find a free game id")

    def join(self, game_id: str, email: str, nonce: str | None = None, idempotency_key: str | None = None,
             context: dict[str, Any] | None = None) -> Outcome:
        """A seat's player accepts; with an optional nonce that every later draw depends on.
        The game starts (setup is drawn) when the last seat joins."""
        if nonce is not None and not 1 <= len(nonce) <= 200:
            raise GameError(ErrorCode.INVALID, "A nonce is 1 to 200 characters of any text.")

        def plan(game: LoadedGame, batch: _Batch) -> list[LineResult]:
            seat = game.seat_of(email)
            if game.started or seat in game.joined:
                raise GameError(ErrorCode.ILLEGAL, f"{game.names[seat]} has already joined game {game.id}.")
            batch.add(log.joined(game.id, batch.next_index, self.clock(), seat, nonce))
            if game.joined | {seat} == set(range(len(game.names))):
                self._start(game, batch)
            return [LineResult(0, "join", "applied")]

        return self._transact(game_id, plan, idempotency_key, context)

    def _start(self, game: LoadedGame, batch: _Batch) -> None:
        rng = batch.rng()  # the last joined entry is in the batch, so its nonce counts
        facts = game.spec.setup(len(game.names), game.options, rng)
        batch.add(log.started(game.id, batch.next_index, self.clock(), facts, rng.transcript))
        for fact in facts:
            batch.state = game.spec.evolve(batch.state, fact)
        self._play_robots(game, batch)

    # -- moving ----------------------------------------------------------------------------
    def submit(self, game_id: str, email: str, commands: Sequence[str] | str, source: str = "cli",
               expected_version: int | None = None, idempotency_key: str | None = None,
               phase: str | None = None, context: dict[str, Any] | None = None) -> Outcome:
        """Apply a player's commands in order, all or nothing.

        Every command is checked; if any is refused nothing is stored and every refusal is
        reported. A command whose move drew dice or cards ends the batch: the commands after
        it are not applied (reported as skipped), because the player has not yet seen what
        was drawn and must not be able to probe it with errors.
        """
        lines = commands.splitlines() if isinstance(commands, str) else list(commands)
        orders = [(n, text.strip()) for n, text in enumerate(lines, start=1) if text.strip()]
        return self._submit_orders(game_id, email, orders, source, expected_version, idempotency_key, phase,
                                   False, context)

    def submit_turn_file(self, text: str, email: str, source: str = "turnfile",
                         idempotency_key: str | None = None, context: dict[str, Any] | None = None) -> Outcome:
        """A turn file: header + orders, checked whole, every error listed with its line."""
        turn = parse_turn_file(text)
        game_id = turn.header.get("game", "")
        if turn.problems or not game_id or "player" not in turn.header:
            problems = [f"line {n}: {m}" if n else m for n, m in turn.problems]
            if not game_id:
                problems.append("the header has no 'game:' line")
            if "player" not in turn.header:
                problems.append("the header has no 'player:' line")
            error = GameError(ErrorCode.SYNTAX, "The turn file's header is wrong: " + "; ".join(problems) + ".")
            return Outcome(game_id, 0, 0, error=error)
        if turn.header["player"].strip().lower() != email.strip().lower():
            error = GameError(ErrorCode.NOT_A_PLAYER,
                              f"The turn file is for {turn.header['player']}, but it came from {email}.")
            return Outcome(game_id, 0, 0, error=error)
        version = int(turn.header["version"]) if "version" in turn.header else None
        return self._submit_orders(game_id, email, turn.orders, source, version, idempotency_key,
                                   turn.header.get("phase"), True, context)

    def _submit_orders(self, game_id: str, email: str, orders: list[tuple[int, str]], source: str,
                       expected_version: int | None, idempotency_key: str | None, phase: str | None,
                       turn_file: bool, context: dict[str, Any] | None) -> Outcome:
        if source not in SOURCES:
            raise ValueError(f"unknown source {source!r}")

        def plan(game: LoadedGame, batch: _Batch) -> list[LineResult]:
            seat = game.seat_of(email)
            self._check_open(game, batch.state)
            if expected_version is not None and expected_version != game.version:
                raise GameError(ErrorCode.STALE,
                                f"This answers version {expected_version}, but game {game.id} is at version "
                                f"{game.version}; nothing was applied. Look at the game again and resend.")
            if phase and phase.strip().lower() != game.spec.phase_label(batch.state).strip().lower():
                raise GameError(ErrorCode.STALE,
                                f"This answers the phase {phase!r}, but game {game.id} is now in "
                                f"{game.spec.phase_label(batch.state)!r}; nothing was applied.")
            if not orders:
                raise GameError(ErrorCode.SYNTAX, "There was no command to apply.",
                                game.spec.legal_texts(batch.state, seat))
            results = self._apply_orders(game, batch, seat, orders, source)
            if turn_file and not any(r.status in ("rejected", "skipped") for r in results):
                self._finish_turn_file(game, batch, seat, source, results)
            return results

        return self._transact(game_id, plan, idempotency_key, context)

    def _apply_orders(self, game: LoadedGame, batch: _Batch, seat: int, orders: list[tuple[int, str]],
                      source: str) -> list[LineResult]:
        results: list[LineResult] = []
        drew = False
        for number, text in orders:
            if drew and self._turn_already_over(game, batch, seat, text):
                results.append(LineResult(number, text, "ignored"))  # a trailing "end" after a draw
                continue
            if drew:
                results.append(LineResult(number, text, "skipped", GameError(
                    ErrorCode.STALE, "Not applied: a command before it drew dice or cards or turned up "
                                     "something hidden. Send it again once you have seen the result.")))
                continue
            try:
                drew = self._apply_move(game, batch, seat, text, source)
            except GameError as error:
                if self._ends_a_finished_turn(game, error, text, results):
                    results.append(LineResult(number, text, "ignored"))
                else:
                    results.append(LineResult(number, text, "rejected", error))
                continue
            results.append(LineResult(number, text, "applied"))
        return results

    @staticmethod
    def _turn_already_over(game: LoadedGame, batch: _Batch, seat: int, text: str) -> bool:
        """An "end" after the seat's turn ended by itself: nothing to apply, nothing learnt."""
        return text.strip().lower() in game.spec.turn_end_words and seat not in game.spec.to_move(batch.state)

    @staticmethod
    def _ends_a_finished_turn(game: LoadedGame, error: GameError, text: str, results: list[LineResult]) -> bool:
        """A trailing "end" after the turn already ended by itself within this batch."""
        return (error.code is ErrorCode.NOT_YOUR_TURN
                and text.strip().lower() in game.spec.turn_end_words
                and any(r.status == "applied" for r in results))

    def _apply_move(self, game: LoadedGame, batch: _Batch, seat: int, text: str, source: str) -> bool:
        """Decide one move and add its entry (then any robot moves it makes due). Returns
        whether anything was drawn at random or revealed to the author (``spec.reveals``)."""
        spec = game.spec
        self._check_open(game, batch.state)
        if seat not in spec.to_move(batch.state):
            waiting = ", ".join(game.names[s] for s in spec.to_move(batch.state))
            raise GameError(ErrorCode.NOT_YOUR_TURN, f"It is not {game.names[seat]}'s turn; waiting for {waiting}.")
        move = spec.parse_move(batch.state, seat, text)
        before, first = batch.state, len(batch.entries)
        drew = self._decide(game, batch, seat, move, source)
        drew = self._play_robots(game, batch) or drew
        # a command that showed the author something hidden ends the batch like a draw: the
        # next commands (and any refusal of them) must not depend on what was revealed
        facts = [fact for private in batch.privates[first:] for fact in private.get("facts", [])]
        return drew or spec.reveals(before, seat, facts)

    def _decide(self, game: LoadedGame, batch: _Batch, seat: int, move: Any, source: str) -> bool:
        spec = game.spec
        rng = batch.rng()
        facts = spec.decide(batch.state, seat, move, rng)
        batch.add(log.moved(game.id, batch.next_index, self.clock(), seat, source, spec.format_move(move),
                            spec.public_move_text(batch.state, seat, move), facts, rng.transcript))
        for fact in facts:
            batch.state = spec.evolve(batch.state, fact)
        return bool(rng.transcript)

    def _play_robots(self, game: LoadedGame, batch: _Batch) -> bool:
        """Seats given up by their players move at once, with random legal moves."""
        robots = game.robots | {e["seat"] for e in batch.entries if e["kind"] == "resigned"}
        drew = False
        while batch.state is not None and game.spec.outcome(batch.state) is None:
            due = [s for s in game.spec.to_move(batch.state) if s in robots]
            if not due:
                return drew
            chooser = random.Random(hmac.new(game.seed, f"robot/{batch.next_index}".encode(), hashlib.sha256).digest())
            move = game.spec.random_move(batch.state, due[0], chooser)
            drew = self._decide(game, batch, due[0], move, "robot") or drew
        return drew

    def _finish_turn_file(self, game: LoadedGame, batch: _Batch, seat: int, source: str,
                          results: list[LineResult]) -> None:
        if seat not in game.spec.to_move(batch.state) or game.spec.outcome(batch.state) is not None:
            return
        # the file closes only the decision it was written for, never one that came after it
        if game.spec.decision(self.state(game), seat) != game.spec.decision(batch.state, seat):
            return
        move = game.spec.end_of_turn_file(batch.state, seat)
        if move is not None:
            self._decide(game, batch, seat, move, source)
            self._play_robots(game, batch)
            results.append(LineResult(0, game.spec.format_move(move), "applied"))

    def resign(self, game_id: str, email: str, idempotency_key: str | None = None,
               context: dict[str, Any] | None = None) -> Outcome:
        """The seat leaves the game; the house robot plays it (random legal moves) to the end."""
        return self.hand_to_robot(game_id, self.game(game_id).seat_of(email), "resigned", idempotency_key, context)

    def hand_to_robot(self, game_id: str, seat: int, reason: str, idempotency_key: str | None = None,
                      context: dict[str, Any] | None = None) -> Outcome:
        """The house robot plays ``seat`` from now on (resignation, or too many missed turns)."""

        def plan(game: LoadedGame, batch: _Batch) -> list[LineResult]:
            self._check_open(game, batch.state)
            if seat in game.robots:
                raise GameError(ErrorCode.ILLEGAL, f"{game.names[seat]} is already played by the robot.")
            batch.add(log.resigned(game.id, batch.next_index, self.clock(), seat, reason))
            self._play_robots(game, batch)
            return [LineResult(0, reason, "applied")]

        return self._transact(game_id, plan, idempotency_key, context)

    @staticmethod
    def _check_open(game: LoadedGame, state: Any) -> None:
        if state is None:
            waiting = [game.names[s] for s in range(len(game.names)) if s not in game.joined]
            raise GameError(ErrorCode.NOT_STARTED,
                            f"Game {game.id} has not started: waiting for {', '.join(waiting)} to join.")
        if game.ended or game.spec.outcome(state) is not None:
            raise GameError(ErrorCode.GAME_OVER, f"Game {game.id} is over.")

    # -- the one write path ----------------------------------------------------------------
    def _transact(self, game_id: str, plan: Callable[[LoadedGame, _Batch], list[LineResult]],
                  idempotency_key: str | None = None, context: dict[str, Any] | None = None) -> Outcome:
        """Load the game, let ``plan`` add entries, sign and save; retry on a conflict."""
        for _ in range(MAX_SAVE_ATTEMPTS):
            if idempotency_key and (receipt := self.store.receipt(idempotency_key)) is not None:
                return Outcome.from_receipt(game_id, receipt.game_id, receipt.outcome)
            game = self.game(game_id)
            batch = _Batch(game, self.state(game))
            outcome = Outcome(game.id, game.version, game.version)
            try:
                outcome.lines = plan(game, batch)
            except GameError as error:
                outcome.error = error
            if outcome.ok and batch.entries:
                self._end_if_over(game, batch)
                outcome.version = batch.next_index
            elif not outcome.ok:
                batch.entries.clear()
            try:
                self._save(game, batch, outcome, idempotency_key, context)
            except RecordConflictError:
                continue  # someone else saved first: plan again on the new state (a stale guard refuses)
            return outcome
        raise RuntimeError(f"game {game_id}: too many concurrent changes, gave up")

    def _end_if_over(self, game: LoadedGame, batch: _Batch) -> None:
        standings = game.spec.outcome(batch.state) if batch.state is not None else None
        if standings is not None:
            batch.add(log.ended(game.id, batch.next_index, self.clock(), standings, game.seed))

    def _save(self, game: LoadedGame, batch: _Batch, outcome: Outcome, idempotency_key: str | None,
              context: dict[str, Any] | None) -> None:
        aggregates: list[Any] = []
        if batch.entries:
            leaves = self.leaves(game) + [leaf_hash(canonical_bytes(e)) for e in batch.entries]
            game.record.append(batch.entries, batch.privates, self._sign(game.id, leaves))
            aggregates.append(game.record)
        if idempotency_key:
            aggregates.append(Receipt(idempotency_key, game.id, outcome.to_dict() | {"context": context or {}}))
        if aggregates:
            self.store.save(*aggregates)
            if batch.entries:
                self.store.saved(game.record)
            log_entries(game.id, batch.entries, idempotency_key)

    def _sign(self, game_id: str, leaves: list[bytes]) -> str:
        return sign_checkpoint(Checkpoint(self.origin(game_id), len(leaves), root(leaves)), self.keys.signer())
