"""The gateway: one incoming message in, its effects and its reply stored, once.

``Gateway.receive(raw, envelope_from, envelope_to)`` parses the message, authenticates the
sender, applies the commands through the ``GameService`` (each with an idempotency key
derived from the Message-ID) and finally stores a ``Receipt`` for the whole message that
says what the reply must contain. The reply itself is composed later by the outbox from
that receipt. When ``receive`` returns, everything is durably stored: only then may the
SMTP server say 250. Any exception means "try again later" (451, or exit 75).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import RecordConflictError

from mailgateway import commands as cmd
from mailgateway.addresses import Target, choose_target, parse_target
from mailgateway.auth import authenticate, dkim_aligned
from mailgateway.deadlines import Scheduler, utcnow
from mailgateway.outbox import Outbox
from mailgateway.parse import Inbound, parse_message
from mailgateway.records import Correspondent, GameClock, Watchers
from mailgateway.sender import Sender, Transport, transport_for
from mailgateway.settings import MailSettings
from pbem.games.base import ErrorCode, GameError
from pbem.logs import log_mail
from pbem.service.service import GameService
from pbem.service.store import Receipt
from pbem.service.turnfile import parse_turn_file

log = logging.getLogger("pbem.mail")
Loader = Callable[[Any, Callable[[], Any]], Any]  # (aggregate id, make a new one) -> the aggregate
Change = Callable[[Loader], list[Any]]  # loads aggregates, changes them, returns them for saving


def error_dict(error: Exception) -> dict[str, Any]:
    if isinstance(error, GameError):
        return error.to_dict()
    return {"code": ErrorCode.INVALID.value, "message": str(error), "legal": []}


class Gateway:
    def __init__(self, service: GameService, settings: MailSettings | None = None,
                 clock: Callable[[], datetime] = utcnow, dnsfunc: Callable[..., Any] | None = None,
                 transport: Transport | None = None):
        self.service = service
        self.settings = settings or MailSettings.from_env(service.settings.home)
        self.clock = clock
        self.dnsfunc = dnsfunc
        self.outbox = Outbox(self)
        self.scheduler = Scheduler(self)
        self.sender = Sender(self, transport or transport_for(self.settings))

    def get(self, aggregate_id: Any) -> Any:
        try:
            return self.service.store.repository.get(aggregate_id)
        except AggregateNotFoundError:
            return None

    def accepts(self, address: str) -> bool:
        return parse_target(address, self.settings.address) is not None

    def work(self, now: datetime | None = None) -> None:
        """One round of background work: queue replies, run deadlines, send."""
        self.outbox.feed()
        if self.scheduler.tick(now):
            self.outbox.feed()
        self.sender.send_due(now)

    # -- receiving -------------------------------------------------------------------------
    def receive(self, raw: bytes, envelope_from: str | None = None, envelope_to: tuple[str, ...] | list[str] = ()) -> str:
        """Process one message; returns "processed", "duplicate" or "ignored"."""
        try:
            inbound = parse_message(raw, envelope_from, tuple(envelope_to), self.settings.address,
                                    self.settings.max_bytes)
        except Exception:  # a message the email package cannot read at all: retrying cannot help
            log.exception("ignored an unreadable message from %s", envelope_from)
            return "ignored"
        if inbound.auto:
            log.info("ignored %s: %s", inbound.key, inbound.auto)
            return "ignored"
        if self.service.store.receipt(inbound.key) is not None:
            log_mail(inbound.key, "duplicate")
            return "duplicate"
        target = choose_target(inbound.recipients, self.settings.address)
        if target is None:
            log.info("ignored %s: not addressed to us", inbound.key)
            return "ignored"
        context: dict[str, Any] = {
            "reply_to": inbound.sender, "message_id": inbound.message_id, "references": list(inbound.references),
            "subject": cmd.subject_command(inbound.subject), "game": target.game_id, "notify": [],
        }
        changes: list[Change] = []
        if inbound.too_large:
            results = [{"action": "too-large", "size": inbound.size, "limit": self.settings.max_bytes}]
        elif target.game_id is None:
            results = self._global(inbound, changes)
        else:
            results = self._seat(inbound, raw, target, context, changes)
        status = self._finish(inbound.key, target.game_id, results, context, changes)
        log_mail(inbound.key, status, target.game_id, actions=[r.get("action") for r in results])
        return status

    def _finish(self, key: str, game_id: str | None, results: list[dict[str, Any]], context: dict[str, Any],
                changes: list[Change]) -> str:
        outcome = {"kind": "mail", "results": results, "context": context}
        for _ in range(5):
            loaded: dict[Any, Any] = {}  # one copy of each aggregate per attempt, however many lines change it

            def load(aggregate_id: Any, make: Callable[[], Any]) -> Any:
                if aggregate_id not in loaded:
                    loaded[aggregate_id] = self.get(aggregate_id) or make()
                return loaded[aggregate_id]

            changed = {a.id: a for change in changes for a in change(load)}
            try:
                self.service.store.save(*changed.values(), Receipt(key, game_id, outcome))
                return "processed"
            except RecordConflictError:
                if self.service.store.receipt(key) is not None:
                    return "duplicate"
        raise RuntimeError(f"could not store the receipt of {key}")

    def _sub(self, inbound: Inbound, n: int) -> str:
        return f"{inbound.key}#{n}"

    def _service_outcome(self, key: str) -> dict[str, Any]:
        receipt = self.service.store.receipt(key)
        stored = dict(receipt.outcome) if receipt else {}
        stored.pop("context", None)
        return stored

    # -- global commands on the service address --------------------------------------------
    def _global(self, inbound: Inbound, changes: list[Change]) -> list[dict[str, Any]]:
        lines = [line for line in inbound.lines if not line.startswith("#")]
        parsed = [cmd.parse_command(line) for line in lines]
        if not lines:
            subject = cmd.parse_command(cmd.subject_command(inbound.subject))
            parsed, lines = ([subject], [subject.text]) if subject else ([cmd.Command("help", (), "")], [""])
        results = []
        for n, (line, command) in enumerate(zip(lines, parsed), start=1):
            if command is None:
                results.append({"action": "unknown", "text": line})
                continue
            try:
                results.append(self._global_command(inbound, command, n, changes))
            except (GameError, ValueError) as error:
                results.append({"action": command.name, "text": line, "error": error_dict(error)})
        return results

    def _global_command(self, inbound: Inbound, command: cmd.Command, n: int,
                        changes: list[Change]) -> dict[str, Any]:
        sender, args, name = inbound.sender, command.args, command.name
        result: dict[str, Any] = {"action": name, "text": command.text}
        if name in ("help", "catalog", "games"):
            return result
        if name == "new":
            new = cmd.parse_new(args)
            game_id = self.service.create(new.game_type, new.players, new.options,
                                          idempotency_key=self._sub(inbound, n), context={"part_of": inbound.key})
            rules = {k: (v if k in ("policy", "lang") else int(v)) for k, v in new.mail_options.items()}
            creator = self.get(Correspondent.create_id(sender))
            if "lang" not in rules and creator is not None and creator.language != "en":
                rules["lang"] = creator.language  # invitations in the creator's language
            if rules:
                changes.append(lambda load: [] if self.get(GameClock.create_id(game_id, {}))
                               else [load(GameClock.create_id(game_id, {}), lambda: GameClock(game_id, rules))])
            return result | {"game": game_id, "players": list(new.players), "rules": new.mail_options}
        if name == "language":
            language = cmd.language_of(args[0]) if args else None
            if language is None:
                raise ValueError("language en or language cs")
            changes.append(lambda load: [self._person(load, sender, lambda p: p.choose_language(language))])
            return result | {"language": language}
        if name == "absence":
            period = cmd.parse_absence(args)
            if period is None:
                changes.append(lambda load: [self._person(load, sender, lambda p: p.clear_absences())])
            else:
                changes.append(lambda load: [self._person(load, sender, lambda p: p.add_absence(*period))])
            return result | {"period": list(period) if period else None}
        # the rest name a game
        if not args:
            if name == "status":
                return result
            raise ValueError(f"say which game: {name} GAME")
        game = self.service.game(args[0].lower())
        result["game"] = game.id
        if name in ("status", "history"):
            return result
        if name in ("subscribe", "unsubscribe"):
            changes.append(lambda load: [self._watchers(load, game.id, lambda w: getattr(w, name)(sender))])
            return result
        if name in ("join", "template"):
            game.seat_of(sender)  # refuses a non-player; the reply goes to the registered address
            return result | {"action": "invite"}
        raise ValueError(f"send {name!r} to your private address for game {game.id}")

    @staticmethod
    def _person(load: Loader, email: str, change: Callable[[Correspondent], None]) -> Correspondent:
        person = load(Correspondent.create_id(email), lambda: Correspondent(email))
        change(person)
        return person

    @staticmethod
    def _watchers(load: Loader, game_id: str, change: Callable[[Watchers], None]) -> Watchers:
        watchers = load(Watchers.create_id(game_id), lambda: Watchers(game_id))
        change(watchers)
        return watchers

    # -- mail to a game's address ----------------------------------------------------------
    def _seat(self, inbound: Inbound, raw: bytes, target: Target, context: dict[str, Any],
              changes: list[Change]) -> list[dict[str, Any]]:
        sender = inbound.sender
        try:
            game = self.service.game(target.game_id or "")
        except GameError as error:
            context["game"] = None
            return [{"action": "refused", "reason": "unknown-game", "error": error.to_dict()}]
        seat = self.service.seat_by_token(game.id, target.token) if target.token else None
        dkim_ok = None
        if self.settings.dkim != "off":
            verified = dkim_aligned(raw, sender, self.dnsfunc)
            context["dkim"] = verified
            dkim_ok = verified if self.settings.dkim == "require" else None
        verdict = authenticate(game.emails, seat, target.token is not None, sender, dkim_ok)
        if not verdict.ok:
            context["reply_to"] = sender if sender in game.emails and verdict.reason != "forged" else None
            if verdict.owner and verdict.owner != context["reply_to"]:
                context["notify"].append({"to": verdict.owner, "reason": verdict.reason, "sender": sender,
                                          "game": game.id, "subject": inbound.subject})
            log.warning("refused %s for %s: %s from %s", inbound.key, game.id, verdict.reason, sender)
            return [{"action": "refused", "reason": verdict.reason, "game": game.id}]
        return self._seat_commands(inbound, game.id, sender, changes)

    def _seat_commands(self, inbound: Inbound, game_id: str, email: str,
                       changes: list[Change]) -> list[dict[str, Any]]:
        turn_file = inbound.turn_file
        if turn_file is not None:
            named = parse_turn_file(turn_file).header.get("game", "").strip().lower()
            if named != game_id:
                error = GameError(ErrorCode.INVALID, f"This turn file is for game {named or '(none)'}, but it was "
                                                     f"sent to your address for game {game_id}; nothing was applied.")
                return [{"action": "turnfile", "error": error.to_dict()}]
            key = self._sub(inbound, 1)
            outcome = self.service.submit_turn_file(turn_file, email, idempotency_key=key,
                                                    context={"part_of": inbound.key})
            stored = self._service_outcome(key) or outcome.to_dict()
            return [{"action": "turnfile", "outcome": stored}]
        lines = [line for line in inbound.lines if not line.startswith("#")]
        if not lines:
            return [{"action": "status", "game": game_id}]
        results: list[dict[str, Any]] = []
        batch: list[str] = []
        n = 0

        def flush() -> None:
            nonlocal n
            if batch:
                n += 1
                key = self._sub(inbound, n)
                outcome = self.service.submit(game_id, email, list(batch), source="email", idempotency_key=key,
                                              context={"part_of": inbound.key})
                results.append({"action": "moves", "outcome": self._service_outcome(key) or outcome.to_dict()})
                batch.clear()

        for line in lines:
            command = cmd.parse_command(line)
            if command is None or command.name not in cmd.SEAT_COMMANDS:
                batch.append(line)
                continue
            flush()
            n += 1
            results.append(self._seat_command(inbound, game_id, email, command, n, changes))
        flush()
        return results

    def _seat_command(self, inbound: Inbound, game_id: str, email: str, command: cmd.Command, n: int,
                      changes: list[Change]) -> dict[str, Any]:
        name = command.name
        result: dict[str, Any] = {"action": name, "text": command.text, "game": game_id}
        try:
            if name == "join":
                key = self._sub(inbound, n)
                nonce = " ".join(command.args) or None
                outcome = self.service.join(game_id, email, nonce, idempotency_key=key,
                                            context={"part_of": inbound.key})
                return result | {"outcome": self._service_outcome(key) or outcome.to_dict()}
            if name == "resign":
                game = self.service.game(game_id)
                if game.seat_of(email) in game.robots:
                    raise GameError(ErrorCode.ILLEGAL, "Your seat is already played by the robot.")
                key = self._sub(inbound, n)
                outcome = self.service.resign(game_id, email, idempotency_key=key, context={"part_of": inbound.key})
                return result | {"outcome": self._service_outcome(key) or outcome.to_dict()}
            if name in ("subscribe", "unsubscribe"):
                changes.append(lambda load: [self._watchers(load, game_id, lambda w: getattr(w, name)(email))])
                return result
            if name in ("language", "absence"):
                return self._global_command(inbound, command, n, changes) | {"game": game_id}
            return result  # help, status, history, template: the reply shows them
        except (GameError, ValueError) as error:
            return result | {"error": error_dict(error)}
