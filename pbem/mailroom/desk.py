"""The message port: one parsed mail in, its whole effect stored in one transaction.

``MailDesk.handle(letter)`` authenticates the sender, loads each game the mail touches once,
plans every command against it, and saves the new game entries, the changed mail records and
the mail's ``Receipt`` (what the reply must say: the mail intent the outbox follows) in a single
``store.save``. Only after that commit may the SMTP server say 250 (or ``mail-in`` exit 0).
A repeated Message-ID finds its receipt and changes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from eventsourcing.persistence import RecordConflictError

from pbem.games.base import ErrorCode, GameError
from pbem.mailroom import commands as cmd
from pbem.mailroom.auth import authenticate
from pbem.mailroom.deadlines import utcnow
from pbem.mailroom.records import Correspondent, GameClock, Watchers
from pbem.mailroom.settings import MailSettings
from pbem.service.outcome import Outcome
from pbem.service.service import GameService, Work
from pbem.service.store import Receipt

log = logging.getLogger("pbem.mail")
MAX_ATTEMPTS = 10
MAIL_KEY_PREFIX = "mail:"  # receipts of mails; internal keys (deadlines) use other prefixes


def receipt_key(message_key: str) -> str:
    """The idempotency key of a mail: its own namespace, so no Message-ID can name an internal
    key such as a deadline's."""
    return MAIL_KEY_PREFIX + message_key


@dataclass(frozen=True)
class Letter:
    """A parsed incoming mail, as the port needs it (the gateway makes it from the raw bytes)."""

    key: str  # the Message-ID (or a hash of the message without one)
    sender: str
    game_id: str | None  # None: the service address
    token: str | None = None
    lines: tuple[str, ...] = ()
    turn_file: str | None = None
    subject: str = ""
    message_id: str | None = None
    references: tuple[str, ...] = ()
    dkim: bool | None = None  # None: not checked
    too_large: bool = False
    size: int = 0
    notes: dict[str, Any] = field(default_factory=dict)  # extra context for the reply


def error_dict(error: Exception) -> dict[str, Any]:
    if isinstance(error, GameError):
        return error.to_dict()
    return {"code": ErrorCode.INVALID.value, "message": str(error), "legal": []}


class MailDesk:
    def __init__(self, service: GameService, settings: MailSettings, clock: Callable[[], datetime] = utcnow):
        self.service = service
        self.settings = settings
        self.clock = clock

    def seen(self, key: str) -> bool:
        return self.service.store.receipt(receipt_key(key)) is not None

    def handle(self, letter: Letter) -> str:
        """Apply a mail; returns "processed" or "duplicate". Store errors propagate (the
        caller answers "try again later"); everything about the mail's content is an answer."""
        key = receipt_key(letter.key)
        for _ in range(MAX_ATTEMPTS):
            if self.service.store.receipt(key) is not None:
                return "duplicate"
            work = Work(self.service, key)
            context: dict[str, Any] = {
                "reply_to": letter.sender, "message_id": letter.message_id, "references": list(letter.references),
                "subject": cmd.subject_command(letter.subject)[:200], "game": letter.game_id, "notify": [],
                **letter.notes,
            }
            if letter.too_large:
                results = [{"action": "too-large", "size": letter.size, "limit": self.settings.max_bytes}]
            elif letter.game_id is None:
                results = self._global(letter, work)
            else:
                results = self._seat(letter, work, context)
            work.add(Receipt(key, context["game"], {"kind": "mail", "results": results, "context": context}))
            try:
                work.commit()
            except RecordConflictError:
                continue  # another process saved first (the same mail, or a move in the game): again
            return "processed"
        raise RuntimeError(f"could not store the receipt of {letter.key}")

    # -- global commands on the service address --------------------------------------------
    def _global(self, letter: Letter, work: Work) -> list[dict[str, Any]]:
        lines = [line for line in letter.lines if not line.startswith("#")]
        parsed = [cmd.parse_command(line) for line in lines]
        if not lines:
            subject = cmd.parse_command(cmd.subject_command(letter.subject))
            parsed, lines = ([subject], [subject.text]) if subject else ([cmd.Command("help", (), "")], [""])
        results = []
        for line, command in zip(lines, parsed):
            if command is None:
                results.append({"action": "unknown", "text": line[:200]})
                continue
            try:
                results.append(self._global_command(letter.sender, command, work))
            except (GameError, ValueError) as error:
                results.append({"action": command.name, "text": line[:200], "error": error_dict(error)})
        return results

    def _global_command(self, sender: str, command: cmd.Command, work: Work) -> dict[str, Any]:
        args, name = command.args, command.name
        result: dict[str, Any] = {"action": name, "text": command.text}
        if name in ("help", "catalog", "games"):
            return result
        if name == "new":
            return result | self._new(sender, command, work)
        if name in ("language", "absence"):
            return result | self._preference(sender, command, work)
        if not args:  # the rest name a game
            if name == "status":
                return result
            raise ValueError(f"say which game: {name} GAME")
        game = work.batch(args[0].lower()).game
        result["game"] = game.id
        if name in ("status", "history"):
            return result
        if name in ("subscribe", "unsubscribe"):
            getattr(self._watchers(work, game.id), name)(sender)
            return result
        if name in ("join", "template"):
            game.seat_of(sender)  # refuses a non-player; the reply goes to the registered address
            return result | {"action": "invite"}
        raise ValueError(f"send {name!r} to your private address for game {game.id}")

    def _new(self, sender: str, command: cmd.Command, work: Work) -> dict[str, Any]:
        new = cmd.parse_new(command.args)
        rules: dict[str, Any] = {k: (v if k in ("policy", "lang") else int(v)) for k, v in new.mail_options.items()}
        game_id = self.service.new_game(work, new.game_type, new.players, new.options)
        creator = work.find(Correspondent.create_id(sender))
        if "lang" not in rules and creator is not None and creator.language != "en":
            rules["lang"] = creator.language  # invitations in the creator's language
        if rules:
            work.add(GameClock(game_id, rules))
        return {"game": game_id, "players": list(new.players), "rules": new.mail_options}

    def _preference(self, sender: str, command: cmd.Command, work: Work) -> dict[str, Any]:
        person = work.aggregate(Correspondent.create_id(sender), lambda: Correspondent(sender))
        if command.name == "language":
            language = cmd.language_of(command.args[0]) if command.args else None
            if language is None:
                raise ValueError("language en or language cs")
            person.choose_language(language)
            return {"language": language}
        period = cmd.parse_absence(command.args, self.clock().date())
        if period is None:
            person.clear_absences()
        elif len(person.absences) >= cmd.MAX_ABSENCES:
            raise ValueError(f"at most {cmd.MAX_ABSENCES} absences are kept; send 'absence off' first")
        else:
            person.add_absence(*period)
        return {"period": list(period) if period else None}

    @staticmethod
    def _watchers(work: Work, game_id: str) -> Watchers:
        return work.aggregate(Watchers.create_id(game_id), lambda: Watchers(game_id))  # type: ignore[no-any-return]

    # -- mail to a game's address ----------------------------------------------------------
    def _seat(self, letter: Letter, work: Work, context: dict[str, Any]) -> list[dict[str, Any]]:
        sender = letter.sender
        try:
            game = work.batch(letter.game_id or "").game
        except GameError as error:
            context["game"] = None
            return [{"action": "refused", "reason": "unknown-game", "error": error.to_dict()}]
        seat = self.service.seat_by_token(game.id, letter.token, game) if letter.token else None
        if letter.dkim is not None:
            context["dkim"] = letter.dkim
        dkim_ok = letter.dkim if self.settings.dkim == "require" else None
        verdict = authenticate(game.emails, seat, letter.token is not None, sender, dkim_ok)
        if not verdict.ok:
            context["reply_to"] = sender if sender in game.emails and verdict.reason != "forged" else None
            if verdict.owner and verdict.owner != context["reply_to"]:
                context["notify"].append({"to": verdict.owner, "reason": verdict.reason, "sender": sender,
                                          "game": game.id, "subject": letter.subject[:200]})
            log.warning("refused %s for %s: %s from %s", letter.key, game.id, verdict.reason, sender)
            return [{"action": "refused", "reason": verdict.reason, "game": game.id}]
        if letter.turn_file is not None:
            return [self._turn_file(letter, work, game.id)]
        return self._seat_lines(letter, work, game.id)

    def _turn_file(self, letter: Letter, work: Work, game_id: str) -> dict[str, Any]:
        named, plan = self.service.turn_file_plan(letter.turn_file or "", letter.sender)
        if isinstance(plan, Outcome):
            return {"action": "turnfile", "outcome": plan.to_dict()}
        if named.strip().lower() != game_id:
            error = GameError(ErrorCode.INVALID, f"This turn file is for game {named or '(none)'}, but it was "
                                                 f"sent to your address for game {game_id}; nothing was applied.")
            return {"action": "turnfile", "error": error.to_dict()}
        return {"action": "turnfile", "outcome": work.run(game_id, plan).to_dict()}

    def _seat_lines(self, letter: Letter, work: Work, game_id: str) -> list[dict[str, Any]]:
        lines = [line for line in letter.lines if not line.startswith("#")]
        if not lines:
            return [{"action": "status", "game": game_id}]
        results: list[dict[str, Any]] = []
        batch: list[str] = []

        def flush() -> None:
            if batch:
                orders = [(n, text.strip()) for n, text in enumerate(batch, start=1) if text.strip()]
                plan = self.service.orders_plan(letter.sender, orders, "email", None, None, False)
                results.append({"action": "moves", "outcome": work.run(game_id, plan).to_dict()})
                batch.clear()

        for line in lines:
            command = cmd.parse_command(line)
            if command is None or command.name not in cmd.SEAT_COMMANDS:
                batch.append(line)
                continue
            flush()
            results.append(self._seat_command(letter, work, game_id, command))
        flush()
        return results

    def _seat_command(self, letter: Letter, work: Work, game_id: str, command: cmd.Command) -> dict[str, Any]:
        name, email = command.name, letter.sender
        result: dict[str, Any] = {"action": name, "text": command.text, "game": game_id}
        plans: dict[str, Callable[[], Any]] = {
            "join": lambda: self.service.join_plan(email, " ".join(command.args) or None),
            "resign": lambda: self._resign_plan(work, game_id, email),
        }
        try:
            if name in plans:
                return result | {"outcome": work.run(game_id, plans[name]()).to_dict()}
            if name in ("subscribe", "unsubscribe"):
                getattr(self._watchers(work, game_id), name)(email)
                return result
            if name in ("language", "absence"):
                return result | self._preference(email, command, work)
            return result  # help, status, history, template: the reply shows them
        except (GameError, ValueError) as error:
            return result | {"error": error_dict(error)}

    def _resign_plan(self, work: Work, game_id: str, email: str) -> Any:
        batch = work.batch(game_id)
        seat = batch.game.seat_of(email)
        if seat in batch.seats_of("resigned"):
            raise GameError(ErrorCode.ILLEGAL, "Your seat is already played by the robot.")
        return self.service.robot_plan(seat, "resigned")
