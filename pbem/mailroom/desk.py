"""The message port: one parsed mail in, its whole effect stored in one transaction.

``MailDesk.handle(letter)`` authenticates the sender, loads each game the mail touches once,
plans every command against it, and saves the new game entries, the changed mail records and
the mail's ``Receipt`` (what the reply must say: the mail intent the outbox follows) in a single
``store.save``. Only after that commit may the SMTP server say 250 (or ``mail-in`` exit 0).
A repeated Message-ID finds its receipt and changes nothing.
"""

from __future__ import annotations

import logging
import secrets
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from eventsourcing.persistence import RecordConflictError

from pbem import i18n
from pbem.games.base import ErrorCode, GameError
from pbem.games.speech import N_, _, ngettext
from pbem.games.text import parse_named
from pbem.ledger import press
from pbem.mailroom import clocks, expiry, people, substitutes, talk, vacations
from pbem.mailroom import commands as cmd
from pbem.mailroom.auth import authenticate
from pbem.mailroom.deadlines import utcnow
from pbem.mailroom.reading import NotRead, Order, Reading, read_letter, sender_names
from pbem.mailroom.records import Confirmation, Correspondent, GameClock, MailRecords, VerifiedAddress, Watchers
from pbem.mailroom.settings import MailSettings
from pbem.service.failures import StoreUnavailable
from pbem.service.game import LoadedGame
from pbem.service.names import clean_name
from pbem.service.outcome import Outcome
from pbem.service.service import GameService, Work
from pbem.service.store import Receipt

log = logging.getLogger("pbem.mail")
MAX_ATTEMPTS = 10
PICTURES_USAGE = N_("pictures on or pictures off")
LANGUAGE_USAGE = N_("language en, language cs or language pl")
NAME_USAGE = N_("name YOUR NAME (letters and spaces; at most 40 characters)")
STANDING = cmd.SETTINGS  # confirmed when sent to the service address
CONFIRM_WITHIN = timedelta(days=7)
MAX_NOT_READ = 20  # lines listed in a reply as not read as commands
# Commands that add an event to a mail record (a seat's keys, an address's settings, a game's
# observers, a confirmation): each record is read again for every later mail, so one mail may
# change them only this often; the rest of such lines are answered as refused.
RECORD_CHANGES = ("rotate", *cmd.SETTINGS, "confirm")
MAX_RECORD_CHANGES = 5
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
    lines: tuple[str, ...] = ()  # the new text the sender wrote (``mailgateway.letters``)
    paragraphs: tuple[str, ...] = ()  # ``lines`` with the blank lines between them kept as ""
    turn_file: str | None = None
    subject: str = ""
    closing_at: int | None = None  # where in ``lines`` a signature may start with a closing
    unread: tuple[str, ...] = ()  # the signature's lines
    footers: tuple[str, ...] = ()  # the client's footer lines ("Sent from my iPhone")
    attachments: tuple[str, ...] = ()  # the names of attachments that are not read
    message_id: str | None = None
    references: tuple[str, ...] = ()
    dkim: bool | None = None  # None: not checked
    too_large: bool = False
    size: int = 0
    refusal: str | None = None  # the whole mail is refused, for this reason
    notes: dict[str, Any] = field(default_factory=dict)  # extra context for the reply
    fingerprint: str = ""  # who sent what (mailgateway.parse.fingerprint): two mails under one key differ in it
    sender_name: str = ""  # the display name of From, as written ("Jan Novák"; names.clean_name cleans it)
    conversation: str | None = None  # sent to a message's conversation address: the text is a message


def error_dict(error: Exception) -> dict[str, Any]:
    if isinstance(error, GameError):
        return error.to_dict()
    return {"code": ErrorCode.INVALID.value, "message": str(error), "legal": []}


class _Remembered:
    """What this process read from the store about addresses and may read again for each of
    their mails: a bounded map (the oldest entry goes first), so a stream of new senders costs
    memory only up to ``limit``."""

    def __init__(self, limit: int = 4096):
        self.limit = limit
        self._kept: OrderedDict[str, str] = OrderedDict()

    def get(self, email: str) -> str | None:
        return self._kept.get(email)

    def keep(self, email: str, value: str) -> None:
        self._kept[email] = value
        self._kept.move_to_end(email)
        while len(self._kept) > self.limit:
            self._kept.popitem(last=False)


def _game_word(game: Any, state: Any, seat: int, line: str, error: GameError) -> bool:
    """Whether a refused line is the game's own (a move refused now) rather than a mail command
    whose word the game does not know: the game must refuse it otherwise than the same line with
    a word that means nothing (a game that reads bare numbers as a move refuses both alike), and
    not because it is not the sender's turn (the game cannot tell then; a vote is no move)."""
    if error.code in (ErrorCode.SYNTAX, ErrorCode.NOT_YOUR_TURN):
        return False
    try:
        parse_named(game.spec, state, seat, " ".join(["~", *line.split()[1:]]), game.names)
    except GameError as other:
        return other.code != error.code
    except Exception:  # a parser's bug: the line stays the game's
        return True
    return True


class MailDesk:
    def __init__(self, service: GameService, settings: MailSettings, clock: Callable[[], datetime] = utcnow):
        self.service = service
        self.settings = settings
        self.clock = clock
        # Read for every authenticated mail, and stored facts that do not change under us: an
        # address's verification (one event, ever) and the name it gave (changed only when a
        # mail gives another). Kept once read from the store, never from an unsaved change, so
        # a save that fails leaves nothing behind; each was a read of the store per mail
        # (two of a move mail's few, in the intake benchmark).
        self._verified = _Remembered()
        self._names = _Remembered()

    def seen(self, key: str) -> bool:
        return self.service.receipt_for(receipt_key(key)) is not None

    def stored_as(self, letter: Letter, key: str) -> str | None:
        """Whether the receipt under ``key`` is this very mail ("duplicate"), another mail that
        used the same Message-ID ("other": somebody who learned it in advance, or a client
        that reuses ids), or missing (None). Receipts stored before fingerprints were kept
        count as this mail."""
        stored = self.service.receipt_for(key)
        if stored is None:
            return None
        context = (stored.outcome or {}).get("context") or {}
        if not letter.fingerprint or "fingerprint" not in context or context["fingerprint"] == letter.fingerprint:
            return "duplicate"
        return "other"

    def handle(self, letter: Letter, trusted: bool = False) -> str:
        """Apply a mail; returns "processed" or "duplicate". Store errors propagate (the
        caller answers "try again later"); everything about the mail's content is an answer.
        ``trusted`` is for the operator's command line: the sender needs no token.

        A mail is keyed by its Message-ID, and a second mail under a Message-ID already used
        is told apart by its fingerprint (sender, subject, body): it is stored under the key
        "ID/FINGERPRINT", so nobody can make a player's coming move a silent duplicate by
        sending a mail with its Message-ID first."""
        key = receipt_key(letter.key)
        for attempt in range(MAX_ATTEMPTS):
            # No look-ups first: the receipt's id is unique, so a second delivery fails to save
            # and is recognised then; and the games are planned on as this process knows them,
            # since a save after another process's write fails too (then loaded fresh).
            work = self.service.work(key, fresh=attempt > 0)
            context: dict[str, Any] = {
                "reply_to": letter.sender,
                "message_id": letter.message_id,
                "references": list(letter.references),
                "subject": cmd.subject_command(letter.subject)[:200],
                "fingerprint": letter.fingerprint,
                "game": letter.game_id,
                "notify": [],
                **letter.notes,
            }
            if letter.too_large:
                results = [{"action": "too-large", "size": letter.size, "limit": self.settings.max_bytes}]
            elif letter.refusal:
                results = [{"action": "mail", "error": error_dict(ValueError(letter.refusal))}]
            elif letter.game_id is None:
                results = self._global(letter, work, context)
            else:
                # a refusal is worded in the sender's language, looked up only if one is needed
                with i18n.speaking_later(lambda: self._language(letter.sender, letter.game_id)):
                    results = self._seat(letter, work, context, trusted)
            self._authenticated(letter, results, context, work)
            work.add(Receipt.of(key, context["game"], {"kind": "mail", "results": results, "context": context}))
            try:
                work.commit()
            except RecordConflictError:
                stored = self.stored_as(letter, key)
                if stored == "duplicate":
                    return "duplicate"
                if stored == "other":  # the same Message-ID, another mail: its own key
                    key = receipt_key(f"{letter.key}/{letter.fingerprint[:32]}")
                continue  # another process moved in the game first: plan again on the new state
            return "processed"
        # the game changed under every attempt: the store is busy, the MTA delivers again later
        raise StoreUnavailable(f"could not store the receipt of {letter.key}: too many concurrent changes")

    def _authenticated(
        self, letter: Letter, results: list[dict[str, Any]], context: dict[str, Any], work: Work
    ) -> None:
        """Note in the context how the sender showed it was itself (the seat's token, set by
        ``_seat``; a confirmation it answered; a DKIM signature of its own domain), and
        remember the address as verified: only a verified address "has written" to the
        service. A mail that only claims a From proves nothing and changes nothing here."""
        how = context.get("authenticated")
        if how is None and letter.dkim:
            how = "dkim"
        if how is None and any("confirmed" in r and not r.get("error") for r in results):
            how = "confirm"
        if how is None:
            return
        context["authenticated"] = how
        if self._verified.get(letter.sender) is not None:
            return
        verified_id = VerifiedAddress.create_id(letter.sender)
        if work.find(verified_id) is None:
            work.add(VerifiedAddress(letter.sender, how, self.clock().isoformat()))
        elif not work.adds(verified_id):
            self._verified.keep(letter.sender, how)

    def _language(self, email: str, game_id: str | None, hint: str | None = None) -> str:
        """``email``'s chosen language, else the game's, else the language of the mail's
        words, else English (as the outbox reads it)."""
        return MailRecords(self.service.record).language(email, game_id, hint)

    # -- reading ------------------------------------------------------------------------------
    @staticmethod
    def _read(
        letter: Letter, recognise: Callable[[str], cmd.Command | Order | None], lines: Sequence[str] | None = None
    ) -> Reading:
        """The letter read (``lines``: its lines without the messages to players, when given)."""
        return read_letter(
            letter.lines if lines is None else lines,
            recognise,
            subject=letter.subject,
            names=sender_names(letter.sender),
            closing_at=letter.closing_at,
            unread=letter.unread,
            footers=letter.footers,
            attachments=letter.attachments,
        )

    @staticmethod
    def _not_read(reading: Reading) -> list[dict[str, Any]]:
        """The lines that were not read as commands, for the reply (none: nothing to say)."""
        if not reading.not_read:
            return []
        lines = [{"text": item.text[:200], "why": item.why} for item in reading.not_read[:MAX_NOT_READ]]
        return [{"action": "not-read", "lines": lines, "more": max(0, len(reading.not_read) - MAX_NOT_READ)}]

    # -- global commands on the service address --------------------------------------------
    def _global(self, letter: Letter, work: Work, context: dict[str, Any]) -> list[dict[str, Any]]:
        reading = self._read(letter, cmd.parse_command)
        hint = cmd.words_language([c for c in reading.commands if isinstance(c, cmd.Command)])
        if hint:
            context["lang"] = hint  # the reply speaks it to somebody who chose no language
        with i18n.speaking_later(lambda: self._language(letter.sender, None, hint)):
            return self._global_lines(letter, work, reading)

    def _global_lines(self, letter: Letter, work: Work, reading: Reading) -> list[dict[str, Any]]:
        results: list[dict[str, Any]] = []
        if not reading.commands:
            results.append({"action": "nothing"})
            results.append({"action": "help", "text": ""})
        changes = iter(range(MAX_RECORD_CHANGES))
        for command in reading.commands:
            if isinstance(command, Order):  # perhaps a move: the reply says where moves go
                results.append({"action": "unknown", "text": command.text[:200], "sender": letter.sender})
                continue
            try:
                self._count_change(command, changes)
                results.append(self._global_command(letter.sender, command, work, letter.sender_name))
            except (GameError, ValueError) as error:
                results.append({"action": command.name, "text": command.text[:200], "error": error_dict(error)})
        return results + self._not_read(reading)

    @staticmethod
    def _count_change(command: cmd.Command, changes: Iterator[int]) -> None:
        """Refuse a command that would change a mail record once the mail has used up its
        ``MAX_RECORD_CHANGES`` (``changes`` yields one item per change allowed)."""
        if command.name in RECORD_CHANGES and next(changes, None) is None:
            raise ValueError(
                f"at most {MAX_RECORD_CHANGES} lines that change settings, subscriptions or private addresses"
                " in one mail; send the rest in another mail"
            )

    def _global_command(self, sender: str, command: cmd.Command, work: Work, sender_name: str = "") -> dict[str, Any]:
        args, name = command.args, command.name
        result: dict[str, Any] = {"action": name, "text": command.text}
        if name in ("help", "catalog", "games"):
            return result
        if name == "new":
            return result | self._new(sender, command, work, sender_name)
        if name == "confirm":
            return result | self._confirm(sender, command, work)
        if name in STANDING:
            self._check_standing(sender, command, work)
            asked = {"action": "confirm", "token": self._ask(sender, command, work)}
            if name in ("subscribe", "unsubscribe"):
                asked["about"] = args[0].lower()  # the reply speaks that game's language
            return result | asked
        if not args:  # the rest name a game
            if name == "status":
                return result
            raise ValueError(_("say which game: {command} GAME", command=name))
        game = work.batch(args[0].lower()).game
        result["game"] = game.id
        if name in ("status", "history"):
            return result
        if name in ("join", "template"):
            game.seat_of(sender)  # refuses a non-player; the reply goes to the registered address
            expiry.refuse_when_expired(work, game.id)
            return result | {"action": "invite"}
        raise ValueError(_("send {command} to your private address for game {game}", command=repr(name), game=game.id))

    # -- confirmations: standing commands sent to the service address ----------------------
    def _check_standing(self, sender: str, command: cmd.Command, work: Work) -> None:
        """Refuse at once what would be refused on confirmation (a wrong date, no such game)."""
        if command.name == "language" and (not command.args or cmd.language_of(command.args[0]) is None):
            raise ValueError(_(LANGUAGE_USAGE))
        if command.name == "pictures" and cmd.pictures_of(command.args) is None:
            raise ValueError(_(PICTURES_USAGE))
        if command.name == "receipts" and cmd.receipts_of(command.args) is None:
            raise ValueError(_(cmd.RECEIPTS_USAGE))
        if command.name == "absence":
            cmd.parse_absence(command.args, self.clock().date())
        if command.name == "name" and clean_name(" ".join(command.args)) is None:
            raise ValueError(_(NAME_USAGE))
        if command.name == "timezone":
            self._zone(command)
        if command.name in ("subscribe", "unsubscribe"):
            if not command.args:
                raise ValueError(_("say which game: {command} GAME", command=command.name))
            cmd.watch_daily(command.name, command.args[1:])
            work.batch(command.args[0].lower())

    def _ask(self, sender: str, command: cmd.Command, work: Work) -> str:
        token = secrets.token_bytes(6).hex()
        work.add(Confirmation(token, sender, command.text, self.clock().isoformat()))
        return token

    def _confirm(self, sender: str, command: cmd.Command, work: Work) -> dict[str, Any]:
        token = command.args[0].strip().lower() if command.args else ""
        asked = work.find(Confirmation.create_id(token)) if token.isascii() and token.isalnum() else None
        too_old = (self.clock() - CONFIRM_WITHIN).isoformat()
        if asked is None or asked.email != sender or asked.used or asked.asked < too_old:
            raise ValueError(
                _("no such confirmation for your address (it is used up, older than a week, or the token is wrong)")
            )
        asked.confirm(self.clock().isoformat())
        work.add(asked)
        confirmed = cmd.parse_command(asked.command)
        assert confirmed is not None  # it was parsed when it was asked
        return {"confirmed": asked.command, "action": confirmed.name} | self._standing(sender, confirmed, work)

    def _standing(self, sender: str, command: cmd.Command, work: Work) -> dict[str, Any]:
        if command.name in ("subscribe", "unsubscribe"):
            game_id = work.batch(command.args[0].lower()).game.id
            return {"game": game_id} | self._watch(work, game_id, sender, command.name, command.args[1:])
        return self._preference(sender, command, work)

    def _new(self, sender: str, command: cmd.Command, work: Work, sender_name: str = "") -> dict[str, Any]:
        new = cmd.parse_new(command.args)
        self.service.checked_new(new.game_type, new.players, new.options)  # the game's own refusals first
        if sender not in new.players:
            raise ValueError(_("a game is created by one of its players: put your own address among them"))
        person = people.count_new(work, sender, self.clock())
        rules = expiry.with_default({k: (v if k in cmd.TEXT_OPTIONS else int(v)) for k, v in new.mail_options.items()})
        own = clean_name(sender_name)
        if own is not None and own != person.known_name():
            person.give_name(own)
        own = own or person.known_name()  # a mail without a display name keeps the name given before
        names = [own if email == sender else self._known_name(work, email) for email in new.players]
        game_id = self.service.new_game(work, new.game_type, new.players, new.options, names=names)
        if "lang" not in rules and person.language:
            rules["lang"] = person.language  # invitations in the creator's language
        work.add(GameClock(game_id, rules | {"invited_by": sender}))  # invitations name who sent them
        return {"game": game_id, "players": list(new.players), "rules": new.mail_options}

    def _learn_name(self, letter: Letter, work: Work) -> None:
        """The name an address goes by, from the From of its authenticated mail; kept only for
        an address with a record of its own (making one would set its language to English)."""
        own = clean_name(letter.sender_name)
        if own is None or self._names.get(letter.sender) == own:
            return
        person_id = Correspondent.create_id(letter.sender)
        person = work.find(person_id)
        if not isinstance(person, Correspondent):
            return
        if own != person.known_name():
            work.aggregate(person_id, lambda: person).give_name(own)
        elif not work.adds(person_id):
            self._names.keep(letter.sender, own)

    @staticmethod
    def _known_name(work: Work, email: str) -> str | None:
        """The name ``email`` goes by, when it ever wrote to this server with one."""
        person = work.find(Correspondent.create_id(email.strip().lower()))
        return person.known_name() if isinstance(person, Correspondent) else None

    def _preference(self, sender: str, command: cmd.Command, work: Work) -> dict[str, Any]:
        person = work.aggregate(Correspondent.create_id(sender), lambda: Correspondent(sender))
        if command.name == "language":
            language = cmd.language_of(command.args[0]) if command.args else None
            if language is None:
                raise ValueError(_(LANGUAGE_USAGE))
            person.choose_language(language)
            return {"language": language}
        if command.name == "name":
            name = clean_name(" ".join(command.args))
            if name is None:
                raise ValueError(_(NAME_USAGE))
            person.give_name(name)
            return {"name": name}
        if command.name == "pictures":
            on = cmd.pictures_of(command.args)
            if on is None:
                raise ValueError(_(PICTURES_USAGE))
            person.choose_pictures(on)
            return {"pictures": on}
        if command.name == "receipts":
            return {"receipts": self._receipts(person, command)}
        if command.name == "timezone":
            zone = self._zone(command)
            person.choose_timezone(zone)
            return {"timezone": zone}
        return self._absence(person, command, work)

    def _absence(self, person: Correspondent, command: cmd.Command, work: Work) -> dict[str, Any]:
        """An absence, paid for from the vacation of every game its sender plays (or all
        absences cleared: no days come back)."""
        period = cmd.parse_absence(command.args, self.clock().date())
        if period is None:
            person.clear_absences()
            return {"period": None}
        if len(person.absences) >= cmd.MAX_ABSENCES:
            raise ValueError(_("at most {n} absences are kept; send 'absence off' first", n=cmd.MAX_ABSENCES))
        spent = self._vacation(person.email, period, work)
        person.add_absence(*period)
        return {"period": list(period), "vacation": spent}

    def _vacation(self, email: str, period: tuple[str, str], work: Work) -> list[dict[str, Any]]:
        """Spend an absence's days in each game ``email`` plays (started, not over, not the
        robot's): refused whole, naming the game, when one game's budget for a year is spent."""
        costs = []
        for game_id, seat in self._seats_away(email, work):
            clock = work.find(GameClock.create_id(game_id, {}))
            budget = vacations.budget_of(clock.rules if clock else {})
            cost = vacations.spend(clock.vacation_list() if clock else [], seat, *period, budget)
            if "over" in cost:
                raise ValueError(
                    ngettext(
                        "this absence needs {days} days of vacation in game {game} in {year}, but {n} day"
                        " of {budget} is left there; nothing was noted",
                        "this absence needs {days} days of vacation in game {game} in {year}, but {n} days"
                        " of {budget} are left there; nothing was noted",
                        cost["left"],
                        days=cost["left"] + cost["over"],
                        game=game_id,
                        year=cost["year"],
                        budget=budget,
                    )
                )
            costs.append((game_id, seat, cost, budget))
        for game_id, seat, cost, _budget in costs:
            if cost["new"]:
                self._clock(work, game_id).take_vacation(seat, period[0], period[1], cost["new"], cost["left"])
        return [
            {"game": g, "days": c["new"], "left": c["left"], "year": c["year"], "budget": b} for g, _s, c, b in costs
        ]

    def _seats_away(self, email: str, work: Work) -> list[tuple[str, int]]:
        """The games where an absence of ``email`` costs vacation, with the seat there: started,
        not over, not the robot's. The running games of ``email`` come from the read models
        (nothing is loaded to find them); only they are loaded, each once."""
        found = []
        rows = self.service.summaries(self.service.games_of(email), email)
        for game_id in [row.id for row, _plays in rows if row.status == "running"]:
            game = work.loaded(game_id) or self.service.game(game_id, fresh=False)
            seat = game.emails.index(email) if email in game.emails else None
            if seat is not None and game.started and not game.ended and seat not in game.robots:
                found.append((game_id, seat))
        return found

    @staticmethod
    def _clock(work: Work, game_id: str) -> GameClock:
        clock: GameClock = work.aggregate(GameClock.create_id(game_id, {}), lambda: GameClock(game_id, {}))
        return clock

    @staticmethod
    def _receipts(person: Correspondent, command: cmd.Command) -> str:
        choice = cmd.receipts_of(command.args)
        if choice is None:
            raise ValueError(_(cmd.RECEIPTS_USAGE))
        person.choose_receipts(choice)
        return choice

    @staticmethod
    def _zone(command: cmd.Command) -> str:
        zone = clocks.zone_of(command.args[0]) if len(command.args) == 1 else None
        if zone is None:
            raise ValueError(_(cmd.TIMEZONE_USAGE))
        return zone

    def _watch(self, work: Work, game_id: str, email: str, name: str, rest: tuple[str, ...]) -> dict[str, Any]:
        """Follow a game (a digest per turn, or ``daily``) or stop following it."""
        daily = cmd.watch_daily(name, rest)
        watchers = self._watchers(work, game_id)
        if daily:
            watchers.subscribe_daily(email)
        else:
            getattr(watchers, name)(email)
        return {"daily": daily}

    @staticmethod
    def _watchers(work: Work, game_id: str) -> Watchers:
        watchers: Watchers = work.aggregate(Watchers.create_id(game_id), lambda: Watchers(game_id))
        return watchers

    # -- mail to a game's address ----------------------------------------------------------
    def _seat(self, letter: Letter, work: Work, context: dict[str, Any], trusted: bool = False) -> list[dict[str, Any]]:
        sender = letter.sender
        try:
            game = work.batch(letter.game_id or "").game
        except GameError as error:
            context["game"] = None
            return [{"action": "refused", "reason": "unknown-game", "error": error.to_dict()}]
        seat = self.service.seat_by_token(game.id, letter.token, game, work) if letter.token else None
        if (invited := self._invited(letter, work, game, context, seat)) is not None:
            return invited
        if letter.dkim is not None:
            context["dkim"] = letter.dkim
        dkim_ok = letter.dkim if self.settings.dkim == "require" else None
        verdict = authenticate(game.emails, seat, letter.token is not None, sender, dkim_ok)
        if trusted:  # the operator, on the command line: no token to show
            game.seat_of(sender)
        elif not verdict.ok:
            context["reply_to"] = sender if sender in game.emails and verdict.reason != "forged" else None
            if verdict.owner and verdict.owner != context["reply_to"]:
                context["notify"].append(
                    {
                        "to": verdict.owner,
                        "reason": verdict.reason,
                        "sender": sender,
                        "game": game.id,
                        "subject": letter.subject[:200],
                    }
                )
            log.warning("refused %s for %s: %s from %s", letter.key, game.id, verdict.reason, sender)
            return [{"action": "refused", "reason": verdict.reason, "game": game.id}]
        if not trusted:
            context["authenticated"] = "token"
            self._learn_name(letter, work)
        return self._from_the_seat(letter, work, game.id, context)

    def _invited(
        self, letter: Letter, work: Work, game: LoadedGame, context: dict[str, Any], seat: int | None
    ) -> list[dict[str, Any]] | None:
        """A mail from an invited substitute to its invitation's address (its token, which names
        no seat, proves the address got the invitation): ``join`` takes the seat. None for any
        other mail."""
        if seat is not None or not letter.token:
            return None
        found = substitutes.invited(self.service, game, letter.token, letter.sender)
        if found is None or (self.settings.dkim == "require" and not letter.dkim):
            return None
        context["authenticated"] = "token"
        name = clean_name(letter.sender_name) or self._known_name(work, letter.sender)
        return substitutes.take_over(self.service, work, game, found, letter.sender, list(letter.lines), name)

    def _from_the_seat(self, letter: Letter, work: Work, game_id: str, context: dict[str, Any]) -> list[dict[str, Any]]:
        """What an authenticated mail to a seat's address holds: an answer to a message (its
        conversation's address), a turn file, or lines of commands and messages."""
        if letter.conversation is not None:
            return self._answer_to_message(letter, work, game_id, context)
        if letter.turn_file is not None:
            attachments = Reading((), tuple(NotRead(name, "attachment") for name in letter.attachments))
            return [self._turn_file(letter, work, game_id), *self._not_read(attachments)]
        return self._seat_lines(letter, work, game_id)

    def _turn_file(self, letter: Letter, work: Work, game_id: str) -> dict[str, Any]:
        named, plan = self.service.turn_file_plan(letter.turn_file or "", letter.sender)
        if isinstance(plan, Outcome):
            return {"action": "turnfile", "outcome": plan.to_dict()}
        if named.strip().lower() != game_id:
            error = GameError(
                ErrorCode.INVALID,
                _(
                    "This turn file is for game {named}, but it was sent to your address for game {game}; "
                    "nothing was applied.",
                    named=named or "-",
                    game=game_id,
                ),
            )
            return {"action": "turnfile", "error": error.to_dict()}
        return {"action": "turnfile", "outcome": work.run(game_id, plan).to_dict()}

    def _seat_recogniser(self, work: Work, game_id: str, sender: str) -> Callable[[str], cmd.Command | Order | None]:
        """What a line at a seat's address is: a mail command, a move of the game (anything
        the game's parser does not refuse as no command of its own: a move that is illegal now
        is still a move, and its refusal is the answer), or neither."""
        batch = work.batch(game_id)
        game, state = batch.game, batch.state
        seat = game.emails.index(sender) if sender in game.emails else None

        def recognise(line: str) -> cmd.Command | Order | None:
            found = cmd.parse_command(line)
            command = found if found is not None and found.name in cmd.SEAT_COMMANDS else None
            if command is not None and (command.name not in cmd.GAME_FIRST or people.names_request(batch, command)):
                return command
            if state is None or seat is None:
                return command
            try:
                parse_named(game.spec, state, seat, line, game.names)
            except GameError as error:
                if command is None:
                    return None if error.code is ErrorCode.SYNTAX else Order(line)
                return Order(line) if _game_word(game, state, seat, line, error) else command
            except Exception:  # a parser's bug: the line is read as a move, and its refusal shows
                log.exception("parsing %r in %s", line[:80], game_id)
                return Order(line)
            return Order(line)

        return recognise

    # -- press: messages between players (pbem/mailroom/talk.py) ---------------------------
    def _tell(self, letter: Letter, work: Work, game_id: str, told: talk.Told) -> dict[str, Any]:
        """One message of a letter, planned on its own: a refused message refuses nothing
        else, and a refused move does not stop the message."""
        to = told.to if isinstance(told.to, str) else list(told.to)
        shown = " / ".join(line.strip() for line in told.text.splitlines() if line.strip())
        result: dict[str, Any] = {"action": "tell", "to": to, "text": shown[:200], "game": game_id}
        if told.kind != "tell":
            result = {"action": "note", "sealed": told.kind == "sealed", "text": shown[:200], "game": game_id}
        try:
            if told.kind == "tell":
                plan = self.service.say_plan(letter.sender, to, told.text)
            else:
                plan = self.service.note_plan(letter.sender, told.text, told.kind == "sealed")
            return result | {"outcome": work.run(game_id, plan).to_dict()}
        except GameError as error:
            return result | {"error": error_dict(error)}

    def _answer_to_message(
        self, letter: Letter, work: Work, game_id: str, context: dict[str, Any]
    ) -> list[dict[str, Any]]:
        """A mail to a message's conversation address: whatever it says (its new text, without
        the quoted message) is a message back, never a command. Its attachments are not sent on."""
        game = work.batch(game_id).game
        to = talk.parse_target_text(letter.conversation or "")
        names: tuple[str, ...] | str = press.TABLE
        if isinstance(to, list) and all(seat < len(game.names) for seat in to):
            names = tuple(game.names[seat] for seat in to)
        elif to != press.TABLE:
            return [{"action": "refused", "reason": "unknown-conversation", "game": game_id}]
        told = talk.Told(names, "\n".join(letter.paragraphs or letter.lines).strip(), 1)
        result = self._tell(letter, work, game_id, told)
        if "error" not in result and (result.get("outcome") or {}).get("ok") and not letter.attachments:
            context["reply_to"] = None  # delivered: the copy of the message is the answer
        attachments = Reading((), tuple(NotRead(name, "attachment") for name in letter.attachments))
        return [result, *self._not_read(attachments)]

    def _seat_lines(self, letter: Letter, work: Work, game_id: str) -> list[dict[str, Any]]:
        told, lines = talk.split_press(letter.lines, letter.paragraphs)
        reading = self._read(letter, self._seat_recogniser(work, game_id, letter.sender), lines)
        results: list[dict[str, Any]] = [self._tell(letter, work, game_id, item) for item in told]
        if not reading.commands:
            return (results or [{"action": "nothing", "game": game_id}]) + self._not_read(reading)
        batch: list[str] = []

        def flush() -> None:
            if batch:
                orders = [(n, text.strip()) for n, text in enumerate(batch, start=1) if text.strip()]
                plan = self.service.orders_plan(letter.sender, orders, "email", None, None, False)
                results.append({"action": "moves", "outcome": work.run(game_id, plan).to_dict()})
                batch.clear()

        changes = iter(range(MAX_RECORD_CHANGES))
        for command in reading.commands:
            if isinstance(command, Order):
                batch.append(command.text)
                continue
            flush()
            try:
                self._count_change(command, changes)
            except ValueError as error:
                results.append(
                    {"action": command.name, "text": command.text, "game": game_id, "error": error_dict(error)}
                )
                continue
            results.append(self._seat_command(letter, work, game_id, command))
        flush()
        return results + self._not_read(reading)

    def _seat_command(self, letter: Letter, work: Work, game_id: str, command: cmd.Command) -> dict[str, Any]:
        name, email = command.name, letter.sender
        result: dict[str, Any] = {"action": name, "text": command.text, "game": game_id}
        plans: dict[str, Callable[[], Any]] = {
            "join": lambda: expiry.join_plan(self.service, work, game_id, email, " ".join(command.args) or None),
            "resign": lambda: self._resign_plan(work, game_id, email),
        }
        try:
            if name in plans:
                return result | {"outcome": self._as_written(work.run(game_id, plans[name]()).to_dict(), command)}
            if name in ("subscribe", "unsubscribe"):
                rest = tuple(arg for arg in command.args if arg.lower() != game_id)  # the game may be named
                return result | self._watch(work, game_id, email, name, rest)
            if name == "name":  # in this game from now on (a "named" entry), and in the games created later
                outcome = work.run(game_id, self.service.name_plan(email, " ".join(command.args))).to_dict()
                return result | {"outcome": outcome} | self._preference(email, command, work)
            if name in ("language", "pictures", "receipts", "name", "absence", "timezone"):
                return result | self._preference(email, command, work)
            if name in people.COMMANDS:
                return result | people.seat_command(self.service, work, game_id, command, email, self.clock())
            if name == "rotate":
                self.service.rotate_plan(work, game_id, email)
                return result
            return result  # help, status, history, template: the reply shows them
        except (GameError, ValueError) as error:
            return result | {"error": error_dict(error)}

    @staticmethod
    def _as_written(outcome: dict[str, Any], command: cmd.Command) -> dict[str, Any]:
        """A join's or resignation's outcome with its line in the sender's word ("připojit"),
        not the service's English name of it; a nonce after the word stays out of the reply."""
        word = command.text.split()[0] if command.text.split() else command.name
        outcome["lines"] = [line | {"text": word} for line in outcome.get("lines") or []]
        return outcome

    def _resign_plan(self, work: Work, game_id: str, email: str) -> Any:
        batch = work.batch(game_id)
        seat = batch.game.seat_of(email)
        if seat in batch.seats_of("resigned"):
            raise GameError(ErrorCode.ILLEGAL, _("Your seat is already played by the robot."))
        return self.service.robot_plan(seat, "resigned")
