"""The writer of the game service (``GameWriter``: create, join, move) and the facade that opens
the service's parts on one store (``GameService``: the repository, the signer, the reader and
the writer; docs/architecture.md). Each write is load -> pure rules -> save; the rules are the
game's, the log format is ``pbem.ledger``.

Concurrency: a save that conflicts with another process's save (optimistic concurrency in the
event store) is retried against the new state, or refused as stale when the caller named the
version it answered. A command with an idempotency key (a mail's Message-ID) is recorded in the
same transaction as its effect, so it is applied at most once.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from eventsourcing.persistence import RecordConflictError

from pbem import i18n
from pbem.config import Settings
from pbem.games import AnySpec, get_spec, speech
from pbem.games.base import ErrorCode, GameError
from pbem.games.speech import _  # refusals in the language of the caller's speaking block
from pbem.games.text import parse_named
from pbem.ledger import entries as log
from pbem.ledger.canonical import canonical_bytes
from pbem.ledger.fairness import new_seed, seed_commitment
from pbem.ledger.merkle import Frontier, leaf_hash
from pbem.logs import log_entries
from pbem.service.game import LoadedGame
from pbem.service.inputs import address_problem, printable
from pbem.service.names import clean_name, seat_names
from pbem.service.outcome import LineResult, Outcome
from pbem.service.reading import GameReader
from pbem.service.repository import GameRepository
from pbem.service.signer import CheckpointSigner
from pbem.service.store import GameRecord, Receipt, SeatKeys
from pbem.service.talk import answers, note_plan, say_plan
from pbem.service.turnfile import parse_turn_file
from pbem.service.work import Work, _Batch

__all__ = ["GameService", "LineResult", "Outcome", "Work", "seat_names"]

Plan = Callable[[LoadedGame, "_Batch"], list[LineResult]]
SOURCES = ("cli", "email", "turnfile", "web", "robot", "deadline", "autoplay")
MAX_SAVE_ATTEMPTS = 10


MAX_LEGAL_SHOWN = 12  # legal moves listed with a refused line; the rest are counted ("moves" lists all)


def legal_now(game: LoadedGame, state: Any, seat: int, error: GameError) -> GameError:
    """``error`` with the moves legal for ``seat`` at ``state`` as what is legal instead, in
    the words of the reader, never a game's generic examples: none when the seat has no move."""
    spec = game.spec
    if state is None or spec.outcome(state) is not None or seat not in spec.to_move(state):
        error.legal, error.more = [], 0
        return error
    moves = spec.legal_moves(state, seat)
    error.legal = [spec.say_move(move) for move in moves[:MAX_LEGAL_SHOWN]]
    error.more = max(0, len(moves) - MAX_LEGAL_SHOWN)
    return error


class GameWriter:
    """Creating, joining and moving: every command is a plan on a ``Work`` of the game
    repository's games, signed by the checkpoint signer; ``_transact`` runs a plan alone."""

    def __init__(
        self, repository: GameRepository, signer: CheckpointSigner, reader: GameReader, clock: Callable[[], str]
    ):
        self.repository = repository
        self.signer = signer
        self.reader = reader  # the seat tokens a message's links carry
        self.clock = clock  # the time of every entry written

    # -- creating and joining --------------------------------------------------------------
    def create(
        self,
        game_type: str,
        players: Sequence[str],
        options: dict[str, str] | None = None,
        seed: bytes | None = None,
        idempotency_key: str | None = None,
        context: dict[str, Any] | None = None,
        names: Sequence[str | None] = (),
    ) -> str:
        """A new game waiting for its players to join; returns its id. ``seed`` is for tests
        and demos and is marked as such in the game's first entry. With an idempotency key a
        repeated request returns the game the first one created. ``names``: the players'
        own names, seat by seat (None: the local part of the address)."""
        if idempotency_key and (receipt := self.repository.store.receipt(idempotency_key)) is not None:
            return _created_by(receipt)
        spec, emails, normalized = self.checked_new(game_type, players, options)
        server_seed = seed if seed is not None else new_seed()
        for _attempt in range(MAX_SAVE_ATTEMPTS):
            game_id = f"{spec.name}-{secrets.token_hex(4)}"
            record = self._new_record(spec, game_id, emails, normalized, server_seed, seed is not None, names)
            made = (record.created,)
            aggregates: list[Any] = [record]
            if idempotency_key:
                outcome = Outcome(game_id, 0, 1, [LineResult(0, f"new {spec.name}", "applied")])
                aggregates.append(Receipt.of(idempotency_key, game_id, outcome.to_dict() | {"context": context or {}}))
            try:
                self.repository.store.save(*aggregates)
                log_entries(game_id, [made[0]], idempotency_key)
                return game_id
            except RecordConflictError:
                if idempotency_key and (receipt := self.repository.store.receipt(idempotency_key)) is not None:
                    return _created_by(receipt)
                continue
        raise RuntimeError("could not find a free game id")

    def new_game(
        self,
        work: Work,
        game_type: str,
        players: Sequence[str],
        options: dict[str, str] | None,
        seed: bytes | None = None,
        names: Sequence[str | None] = (),
    ) -> str:
        """A new game as part of ``work`` (a mail's transaction); returns its id. A clash of
        the random id with an existing game fails the whole save, which is then retried.
        ``seed`` and ``names`` as in ``create``."""
        spec, emails, normalized = self.checked_new(game_type, players, options)
        game_id = f"{spec.name}-{secrets.token_hex(4)}"
        work.add(self._new_record(spec, game_id, emails, normalized, seed or new_seed(), seed is not None, names))
        return game_id

    def checked_new(
        self, game_type: str, players: Sequence[str], options: dict[str, str] | None
    ) -> tuple[Any, list[str], dict[str, Any]]:
        spec = get_spec(game_type)
        emails = [p.strip().lower() for p in players]
        for email in emails:
            problem = address_problem(email)
            if problem:
                raise GameError(ErrorCode.INVALID, f"{printable(email)!r} {problem}.")
        if len(set(emails)) != len(emails):
            raise GameError(ErrorCode.INVALID, _("Each seat needs a different mail address."))
        spec.check_players(len(emails))
        return spec, emails, spec.normalize_options(options or {}, len(emails))

    def _new_record(
        self,
        spec: Any,
        game_id: str,
        emails: list[str],
        normalized: dict[str, Any],
        server_seed: bytes,
        test_seed: bool,
        names: Sequence[str | None] = (),
    ) -> GameRecord:
        made = log.created(
            game_id,
            self.clock(),
            spec.name,
            spec.rules_version,
            normalized,
            seat_names(emails, names),
            emails,
            server_seed,
            "test" if test_seed else "server",
            seed_commitment(server_seed),
        )
        checkpoint = self.signer.sign(game_id, Frontier.of([leaf_hash(canonical_bytes(made[0]))]))
        return GameRecord(game_id, [made[0]], [made[1]], checkpoint)

    def join(
        self,
        game_id: str,
        email: str,
        nonce: str | None = None,
        idempotency_key: str | None = None,
        context: dict[str, Any] | None = None,
    ) -> Outcome:
        """A seat's player accepts; with an optional nonce that every later draw depends on.
        The game starts (setup is drawn) when the last seat joins."""
        return self._transact(game_id, self.join_plan(email, nonce), idempotency_key, context)

    def join_plan(self, email: str, nonce: str | None) -> Plan:
        if nonce is not None and not 1 <= len(nonce) <= 200:
            raise GameError(ErrorCode.INVALID, _("A nonce is 1 to 200 characters of any text."))

        def plan(game: LoadedGame, batch: _Batch) -> list[LineResult]:
            seat = game.seat_of(email)
            joined = batch.seats_of("joined")
            if batch.started() or batch.state is not None or seat in joined:
                raise GameError(
                    ErrorCode.ILLEGAL,
                    _("{player} has already joined game {game}.", player=game.names[seat], game=game.id),
                )
            batch.add(log.joined(game.id, batch.next_index, self.clock(), seat, nonce))
            if joined | {seat} == set(range(len(game.names))):
                self._start(game, batch)
            return [LineResult(0, "join", "applied")]

        return plan

    def _start(self, game: LoadedGame, batch: _Batch) -> None:
        rng = batch.rng()  # the last joined entry is in the batch, so its nonce counts
        facts = game.spec.setup(len(game.names), game.options, rng)
        batch.add(log.started(game.id, batch.next_index, self.clock(), facts, rng.transcript))
        for fact in facts:
            batch.state = game.spec.evolve(batch.state, fact)
        self._play_robots(game, batch)

    # -- moving ----------------------------------------------------------------------------
    def submit(
        self,
        game_id: str,
        email: str,
        commands: Sequence[str] | str,
        source: str = "cli",
        expected_version: int | None = None,
        idempotency_key: str | None = None,
        phase: str | None = None,
        context: dict[str, Any] | None = None,
    ) -> Outcome:
        """Apply a player's commands in order, all or nothing.

        Every command is checked; if any is refused nothing is stored and every refusal is
        reported. A command whose move drew dice or cards ends the batch: the commands after
        it are not applied (reported as skipped), because the player has not yet seen what
        was drawn and must not be able to probe it with errors.
        """
        lines = commands.splitlines() if isinstance(commands, str) else list(commands)
        orders = [(n, text.strip()) for n, text in enumerate(lines, start=1) if text.strip()]
        plan = self.orders_plan(email, orders, source, expected_version, phase, False)
        return self._transact(game_id, plan, idempotency_key, context)

    def submit_turn_file(
        self,
        text: str,
        email: str,
        source: str = "turnfile",
        idempotency_key: str | None = None,
        context: dict[str, Any] | None = None,
    ) -> Outcome:
        """A turn file: header + orders, checked whole, every error listed with its line."""
        game_id, plan = self.turn_file_plan(text, email, source)
        if isinstance(plan, Outcome):
            return plan
        return self._transact(game_id, plan, idempotency_key, context)

    def turn_file_plan(self, text: str, email: str, source: str = "turnfile") -> tuple[str, Plan | Outcome]:
        """The game a turn file names and the plan of its orders, or the outcome refusing a
        file whose header is wrong."""
        turn = parse_turn_file(text)
        game_id = turn.header.get("game", "")
        problems = [_("line {number}: {problem}", number=n, problem=m) if n else m for n, m in turn.problems]
        if not game_id:
            problems.append(_("the header has no 'game:' line"))
        if "player" not in turn.header:
            problems.append(_("the header has no 'player:' line"))
        version_text = turn.header.get("version", "").strip()  # checked by parse_turn_file
        if problems:
            error = GameError(
                ErrorCode.SYNTAX, _("The turn file's header is wrong: {problems}.", problems="; ".join(problems))
            )
            return game_id, Outcome(game_id, 0, 0, error=error)
        if turn.header["player"].strip().lower() != email.strip().lower():
            error = GameError(
                ErrorCode.NOT_A_PLAYER,
                _(
                    "The turn file is for {player}, but it came from {address}.",
                    player=turn.header["player"],
                    address=email,
                ),
            )
            return game_id, Outcome(game_id, 0, 0, error=error)
        version = int(version_text) if version_text else None
        return game_id, self.orders_plan(email, turn.orders, source, version, turn.header.get("phase"), True)

    def orders_plan(
        self,
        email: str,
        orders: list[tuple[int, str]],
        source: str,
        expected_version: int | None,
        phase: str | None,
        turn_file: bool,
    ) -> Plan:
        """The plan of a player's orders (a batch of moves or a turn file), all or nothing."""
        if source not in SOURCES:
            raise ValueError(f"unknown source {source!r}")

        def plan(game: LoadedGame, batch: _Batch) -> list[LineResult]:
            seat = game.seat_of(email)
            check_open(game, batch.state)
            if expected_version is not None and not answers(game, batch, expected_version):
                raise GameError(
                    ErrorCode.STALE,
                    _(
                        "This answers version {version}, but game {game} is at version {now}; nothing was "
                        "applied. Look at the game again and resend.",
                        version=expected_version,
                        game=game.id,
                        now=batch.next_index,
                    ),
                )
            if phase and not same_phase(game.spec, batch.state, phase):
                raise GameError(
                    ErrorCode.STALE,
                    _(
                        "This answers the phase {phase}, but game {game} is now in {now}; nothing was applied.",
                        phase=repr(phase),
                        game=game.id,
                        now=repr(game.spec.phase_label(batch.state)),
                    ),
                )
            if not orders:
                raise GameError(
                    ErrorCode.SYNTAX, _("There was no command to apply."), game.spec.legal_texts(batch.state, seat)
                )
            results = self._apply_orders(game, batch, seat, orders, source)
            if turn_file and not any(r.status in ("rejected", "skipped") for r in results):
                self._finish_turn_file(game, batch, seat, source, results)
            return results

        return plan

    def _apply_orders(
        self, game: LoadedGame, batch: _Batch, seat: int, orders: list[tuple[int, str]], source: str
    ) -> list[LineResult]:
        results: list[LineResult] = []
        drew = False
        for number, text in orders:
            if drew and self._turn_already_over(game, batch, seat, text):
                results.append(LineResult(number, text, "ignored"))  # a trailing "end" after a draw
                continue
            if drew:
                results.append(
                    LineResult(
                        number,
                        text,
                        "skipped",
                        GameError(
                            ErrorCode.STALE,
                            _(
                                "Not applied: a command before it drew dice or cards or turned up "
                                "something hidden. Send it again once you have seen the result."
                            ),
                        ),
                    )
                )
                continue
            try:
                drew = self._apply_move(game, batch, seat, text, source)
            except GameError as error:
                if self._ends_a_finished_turn(game, error, text, results):
                    results.append(LineResult(number, text, "ignored"))
                else:
                    results.append(LineResult(number, text, "rejected", legal_now(game, batch.state, seat, error)))
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
        return (
            error.code is ErrorCode.NOT_YOUR_TURN
            and text.strip().lower() in game.spec.turn_end_words
            and any(r.status == "applied" for r in results)
        )

    def _apply_move(self, game: LoadedGame, batch: _Batch, seat: int, text: str, source: str) -> bool:
        """Decide one move and add its entry (then any robot moves it makes due). Returns
        whether anything was drawn at random or revealed to the author (``spec.reveals``)."""
        spec = game.spec
        check_open(game, batch.state)
        if seat in batch.seats_of("resigned"):  # not "not your turn": it will never be theirs again
            robot = speech._("The robot plays your seat now; ask the table for a substitute.")
            raise GameError(ErrorCode.ILLEGAL, robot)
        if seat not in spec.to_move(batch.state):
            waiting = ", ".join(game.names[s] for s in spec.to_move(batch.state))
            raise GameError(
                ErrorCode.NOT_YOUR_TURN,
                _("It is not {player}'s turn; waiting for {waiting}.", player=game.names[seat], waiting=waiting),
            )
        move = parse_named(spec, batch.state, seat, text, game.names)  # names may stand for seats
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
        facts, after = spec.decide_and_fold(batch.state, seat, move, rng)  # a game folds its facts once
        batch.add(
            log.moved(
                game.id,
                batch.next_index,
                self.clock(),
                seat,
                source,
                spec.format_move(move),
                spec.public_move_text(batch.state, seat, move),
                facts,
                rng.transcript,
            )
        )
        batch.state = after
        return bool(rng.transcript)

    def _play_robots(self, game: LoadedGame, batch: _Batch) -> bool:
        """Seats given up by their players move at once, with random legal moves."""
        robots = batch.seats_of("resigned")
        drew = False
        while batch.state is not None and game.spec.outcome(batch.state) is None:
            due = [s for s in game.spec.to_move(batch.state) if s in robots]
            if not due:
                return drew
            chooser = random.Random(hmac.new(game.seed, f"robot/{batch.next_index}".encode(), hashlib.sha256).digest())
            move = game.spec.random_move(batch.state, due[0], chooser)
            drew = self._decide(game, batch, due[0], move, "robot") or drew
        return drew

    def _finish_turn_file(
        self, game: LoadedGame, batch: _Batch, seat: int, source: str, results: list[LineResult]
    ) -> None:
        if seat not in game.spec.to_move(batch.state) or game.spec.outcome(batch.state) is not None:
            return
        # the file closes only the decision it was written for, never one that came after it
        if game.spec.decision(self.repository.state(game), seat) != game.spec.decision(batch.state, seat):
            return
        move = game.spec.end_of_turn_file(batch.state, seat)
        if move is not None:
            self._decide(game, batch, seat, move, source)
            self._play_robots(game, batch)
            results.append(LineResult(0, game.spec.format_move(move), "applied"))

    def resign(
        self, game_id: str, email: str, idempotency_key: str | None = None, context: dict[str, Any] | None = None
    ) -> Outcome:
        """The seat leaves the game; the house robot plays it (random legal moves) to the end."""

        def plan(game: LoadedGame, batch: _Batch) -> list[LineResult]:
            return self.robot_plan(game.seat_of(email), "resigned")(game, batch)

        return self._transact(game_id, plan, idempotency_key, context)

    def hand_to_robot(
        self,
        game_id: str,
        seat: int,
        reason: str,
        idempotency_key: str | None = None,
        context: dict[str, Any] | None = None,
    ) -> Outcome:
        """The house robot plays ``seat`` from now on (resignation, or too many missed turns)."""
        return self._transact(game_id, self.robot_plan(seat, reason), idempotency_key, context)

    def robot_plan(self, seat: int, reason: str) -> Plan:
        def plan(game: LoadedGame, batch: _Batch) -> list[LineResult]:
            check_open(game, batch.state)
            if seat in batch.seats_of("resigned"):
                raise GameError(
                    ErrorCode.ILLEGAL, _("{player} is already played by the robot.", player=game.names[seat])
                )
            batch.add(log.resigned(game.id, batch.next_index, self.clock(), seat, reason))
            self._play_robots(game, batch)
            return [LineResult(0, reason, "applied")]

        return plan

    def say(
        self,
        game_id: str,
        email: str,
        to: Sequence[str] | str,
        text: str,
        idempotency_key: str | None = None,
        context: dict[str, Any] | None = None,
    ) -> Outcome:
        """A message from the player of ``email`` to the players named ``to``, or to the whole
        table (``"all"``): an entry of the log, which changes nothing in the game."""
        return self._transact(game_id, self.say_plan(email, to, text), idempotency_key, context)

    def note(
        self, game_id: str, email: str, text: str, sealed: bool = False, idempotency_key: str | None = None
    ) -> Outcome:
        """A note of the player of ``email`` to themselves: private, or ``sealed`` (its
        commitment now, its text for everyone at the end)."""
        return self._transact(game_id, self.note_plan(email, text, sealed), idempotency_key)

    def note_plan(self, email: str, text: str, sealed: bool) -> Plan:
        """The plan of ``note``, for a transaction of several commands (a mail)."""
        return note_plan(self.clock, email, text, sealed)

    def name_plan(self, email: str, text: str) -> Plan:
        """The player of ``email`` goes by ``text`` in this game from now on: a ``named`` entry
        (cleaned and bounded as every name, ``names.clean_name``; never another seat's name)."""
        return name_plan(self.clock, email, text)

    def say_plan(self, email: str, to: Sequence[str] | str, text: str) -> Plan:
        """The plan of ``say``, for a transaction of several commands (a mail)."""
        return say_plan(self.clock, email, to, text, lambda game_id, seat: self.reader.seat_token(game_id, seat))

    def rotate_plan(self, work: Work, game_id: str, email: str) -> int:
        """Change a seat's private token as part of ``work``; returns the seat."""
        seat = work.batch(game_id).game.seat_of(email)
        keys = work.aggregate(SeatKeys.create_id(game_id), lambda: SeatKeys(game_id))
        keys.rotate(seat)
        return seat

    def rotate_token(self, game_id: str, email: str) -> str:
        """A new private token for the player's seat (the old address and link stop working)."""
        for _attempt in range(MAX_SAVE_ATTEMPTS):
            work = self.work()
            seat = self.rotate_plan(work, game_id, email)
            try:
                work.commit()
            except RecordConflictError:
                continue
            return self.reader.seat_token(game_id, seat)
        raise RuntimeError(f"game {game_id}: too many concurrent changes, gave up")

    def seat_by_token(
        self, game_id: str, token: str, game: LoadedGame | None = None, work: Work | None = None
    ) -> int | None:
        """The seat a token belongs to, or None (``GameReader.seat_by_token``). With ``work`` (a
        transaction that will be saved) the seat keys this process kept may be used on a first
        attempt: the keys' version goes into the save's expectations, so if another process
        changed a token meanwhile the save fails and the mail is planned again on fresh keys.
        Without it, the keys are read from the store."""
        if work is None:
            return self.reader.seat_by_token(game_id, token, game)
        kept = self.repository.kept_seat_keys
        keys = kept[game_id] if not work.fresh and game_id in kept else self.repository.seat_keys(game_id)
        work.expect[SeatKeys.create_id(game_id)] = keys.version if keys is not None else 0
        return self.reader.seat_by_token(game_id, token, game, keys)

    # -- the one write path ----------------------------------------------------------------
    def work(self, key: str | None = None, fresh: bool = True) -> Work:
        """A transaction on this service's games (``pbem.service.work``): ``key`` is its
        idempotency key, for the log lines; ``fresh=False`` plans on the games as kept here."""
        return Work(self.repository, self.signer, self.clock, key, fresh)

    def _transact(
        self, game_id: str, plan: Plan, idempotency_key: str | None = None, context: dict[str, Any] | None = None
    ) -> Outcome:
        """Load the game, let ``plan`` add entries, sign and save; retry on a conflict. The
        idempotency key is not looked up first: its receipt is saved with the entries, so a
        second submission fails to save, and is recognised then (one query less per move)."""
        for attempt in range(MAX_SAVE_ATTEMPTS):
            work = self.work(idempotency_key, fresh=attempt > 0)
            outcome = work.run(game_id, plan)
            if idempotency_key:
                work.add(Receipt.of(idempotency_key, outcome.game_id, outcome.to_dict() | {"context": context or {}}))
            try:
                work.commit()
            except RecordConflictError:
                if idempotency_key and (receipt := self.repository.store.receipt(idempotency_key)) is not None:
                    return Outcome.from_receipt(game_id, receipt.game_id, receipt.outcome)
                continue  # someone else saved first: plan again on the new state (a stale guard refuses)
            return outcome
        raise RuntimeError(f"game {game_id}: too many concurrent changes, gave up")


def name_plan(clock: Callable[[], str], email: str, text: str) -> Plan:
    """See ``GameService.name_plan``."""
    name = clean_name(text)

    def plan(game: LoadedGame, batch: _Batch) -> list[LineResult]:
        seat = game.seat_of(email)
        if game.ended or any(e["kind"] == "ended" for e in batch.entries):
            raise GameError(ErrorCode.GAME_OVER, _("Game {game} is over; its table is closed.", game=game.id))
        if name is None:
            raise GameError(ErrorCode.INVALID, _("name YOUR NAME (letters and spaces; at most 40 characters)"))
        others = {n.casefold() for s, n in enumerate(game.names) if s != seat}
        if name.casefold() in others or name.casefold() in {e["name"].casefold() for e in batch.planned(log.NAMED)}:
            raise GameError(ErrorCode.INVALID, _("{name} is another player's name in this game.", name=name))
        batch.add(log.named(game.id, batch.next_index, clock(), seat, name))
        return [LineResult(0, "name", "applied")]

    return plan


def check_open(game: LoadedGame, state: Any) -> None:
    """Refuses a move in a game that has not started or is over."""
    if state is None:
        waiting = [game.names[s] for s in range(len(game.names)) if s not in game.joined]
        raise GameError(
            ErrorCode.NOT_STARTED,
            _(
                "Game {game} has not started: waiting for {players} to join.",
                game=game.id,
                players=", ".join(waiting),
            ),
        )
    if game.ended or game.spec.outcome(state) is not None:
        raise GameError(ErrorCode.GAME_OVER, _("Game {game} is over.", game=game.id))


def _created_by(receipt: Receipt) -> str:
    """The game a ``create`` with this receipt's key made."""
    if receipt.game_id is None:
        raise GameError(ErrorCode.INVALID, f"The key {receipt.key!r} was used by a request that made no game.")
    return receipt.game_id


def same_phase(spec: AnySpec, state: Any, phase: str) -> bool:
    """Whether a turn file's ``phase:`` names the phase the game is in: as the file's reader
    saw it (the language spoken now) or in English (files written by tools)."""
    wanted = phase.strip().lower()
    with i18n.english():
        english = spec.phase_label(state)
    return wanted in (spec.phase_label(state).strip().lower(), english.strip().lower())


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class GameService(GameRepository):
    """The four parts of the game service opened together on one store: the game repository
    (which this is), the checkpoint signer, the reader and the writer. A thin facade: it
    forwards the reader's queries and the writer's commands, for the callers (the CLI, the
    mailroom, tests) that have not moved to the part they use; the web site is given only
    ``reader``, a ``Work`` only the repository and the signer (docs/architecture.md)."""

    def __init__(self, settings: Settings | None = None, clock: Callable[[], str] = _now):
        super().__init__(settings)
        self.signer = CheckpointSigner(self.settings.origin, self.keys)
        self.reader = reader = GameReader(self, self.signer)
        self.writer = writer = GameWriter(self, self.signer, reader, clock)
        # the reader's queries
        self.catalog = reader.catalog
        self.player_ratings = reader.player_ratings
        self.games_of = reader.games_of
        self.newest_games = reader.newest_games
        self.summaries_of = reader.summaries_of
        self.summaries = reader.summaries
        self.origin = reader.origin
        self.summary = reader.summary
        self.render = reader.render
        self.history = reader.history
        self.export = reader.export
        self.inclusion = reader.inclusion
        self.receipt = reader.receipt
        self.consistency = reader.consistency
        self.seat_token = reader.seat_token
        # the writer's commands, and the plans a mail's transaction is made of
        self.work = writer.work
        self.create = writer.create
        self.new_game = writer.new_game
        self.checked_new = writer.checked_new
        self.join = writer.join
        self.submit = writer.submit
        self.submit_turn_file = writer.submit_turn_file
        self.resign = writer.resign
        self.hand_to_robot = writer.hand_to_robot
        self.say = writer.say
        self.note = writer.note
        self.rotate_token = writer.rotate_token
        self.seat_by_token = writer.seat_by_token
        self.join_plan = writer.join_plan
        self.orders_plan = writer.orders_plan
        self.turn_file_plan = writer.turn_file_plan
        self.robot_plan = writer.robot_plan
        self.say_plan = writer.say_plan
        self.note_plan = writer.note_plan
        self.name_plan = writer.name_plan
        self.rotate_plan = writer.rotate_plan
