"""What every mail of the outbox is made of: the game block (what a mail shows of a game, as
its reader may see it), the reader's language, and queuing with the rate limits.

Everything a follower round reads or counts lives in its ``Round``, passed to each call: the
``Writer`` itself holds only the service, the settings and the views, so a round of the follower,
a round of the timers and a web thread never share anything that changes.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple, TypedDict

from pbem import i18n
from pbem.games.text import name_seats
from pbem.mailroom.addresses import return_tag, seat_address
from pbem.mailroom.deadlines import Clocks
from pbem.mailroom.limits import Limits, when
from pbem.mailroom.news import breakdown, decision, since_lines
from pbem.mailroom.pictures import board_svg, carries_picture, packed
from pbem.mailroom.queue import DROPPED, Mail, MailViews
from pbem.mailroom.settings import MailSettings
from pbem.service.game import LoadedGame
from pbem.service.service import GameService

log = logging.getLogger("pbem.mail")


class Thread(NamedTuple):
    """Where a reply belongs in its reader's mail client: the mail it answers and its chain."""

    in_reply_to: str | None = None
    references: tuple[str, ...] = ()


NO_THREAD = Thread()


class Waiting(TypedDict):
    seat: int
    name: str
    deadline: str | None


class GameBlock(TypedDict, total=False):
    """The per-game part of a mail model (JSON-plain: the sender composes the text from it).
    The keys after ``decision`` are there only in a mail to a player of the game."""

    id: str
    title: str
    version: int
    turn: int
    turn_url: str
    verify_url: str  # the web page that checks an uploaded receipt
    phase: str
    started: bool
    over: bool
    seats: list[str]
    table: list[str]  # the names the seats were created with: the subject's, the whole game long
    waiting: list[Waiting]
    your_turn: bool
    deadline: str | None
    standings: list[dict[str, Any]]
    view: str
    url: str
    seat: int | None
    name: str | None
    joined: bool
    seat_url: str | None
    address: str | None
    addresses: list[str]  # the other players' "Name <address>", when the creator chose addresses=shown
    since: list[str] | None
    since_version: int | None
    decision: dict[str, Any] | None
    first: bool
    picture: str | None  # the board as the player sees it, packed SVG (pbem/mailroom/pictures.py)
    caption: list[str]  # the lines of that board the picture leaves to the HTML part's words
    bouncing: list[str]  # the other players whose mail comes back undelivered (they hear nothing)
    clocks: list[dict[str, Any]]  # a clock game's time left per seat (pbem/mailroom/clocks.py)


def thread_id(game_id: str, email: str, domain: str) -> str:
    """The Message-ID every mail of one game to one player refers to in ``References``, so
    mail clients thread a game's mails together (it names no real message)."""
    digest = hashlib.sha256(f"{game_id}/{email}".encode()).hexdigest()[:16]
    return f"<{game_id}.{digest}@{domain}>"


@dataclass
class Round:
    """What one round of a follower has read and counted: each game, each game's seat keys and
    each mail record read once (``clocks`` reads through a cache of its own), the version of
    each game each address was last shown, and the mails counted against each budget. A round
    is short; what other processes change meanwhile shows in the next. Only the round's own
    thread sees it."""

    service: GameService
    clocks: Clocks
    limits: Limits
    games: dict[str, LoadedGame] = field(default_factory=dict)
    keys: dict[str, Any] = field(default_factory=dict)
    mailed: dict[tuple[str, str], int | None] = field(default_factory=dict)  # (email, game) -> version
    shown: dict[tuple[str, str], Any] = field(default_factory=dict)  # (email, game) -> the decision last mailed
    quiet: dict[str, bool] = field(default_factory=dict)  # games whose mail is off
    bouncing: dict[str, bool] = field(default_factory=dict)  # addresses marked undeliverable
    cleared: list[str] = field(default_factory=list)  # addresses that wrote: deliverable again when stored
    # (observer, game) -> the version their last digest showed, and when it was queued
    watched: dict[tuple[str, str], tuple[int | None, datetime | None]] = field(default_factory=dict)
    receipted: dict[tuple[str, str], tuple[int | None, datetime | None]] = field(default_factory=dict)

    def game(self, game_id: str) -> LoadedGame:
        if game_id not in self.games:
            self.games[game_id] = self.service.game(game_id)
        return self.games[game_id]

    def seat_token(self, game_id: str, seat: int) -> str:
        if game_id not in self.keys:
            self.keys[game_id] = self.service.seat_keys(game_id)
        return self.service.seat_token(game_id, seat, self.keys[game_id])


class Writer:
    def __init__(self, service: GameService, settings: MailSettings, views: MailViews, clocks: Clocks):
        self.service = service
        self.settings = settings
        self.views = views
        self.clocks = clocks

    def round(self) -> Round:
        """A new round: nothing read, nothing counted."""
        limits = Limits(self.settings, self.views, self.clocks.now, self.service.keys.token_secret)
        return Round(self.service, self.clocks.for_round(), limits)

    # -- the reader's language ---------------------------------------------------------------
    @staticmethod
    def language(round_: Round, email: str | None, game_id: str | None = None, hint: str | None = None) -> str:
        """The address's chosen language, else the game's (``new ... lang=cs``), else the
        language of the words the reader wrote to us (``hint``), else English."""
        return round_.clocks.records.language(email, game_id, hint)

    def speaking(
        self, round_: Round, email: str | None, game_id: str | None, hint: str | None = None
    ) -> AbstractContextManager[Any]:
        """The games' texts in the language of the mail to ``email`` (for no reader: the game's)."""
        return i18n.speaking(self.language(round_, email, game_id, hint))

    # -- the game block ----------------------------------------------------------------------
    def game_block(self, round_: Round, game: LoadedGame, version: int, email: str | None) -> GameBlock:
        """The per-game part of a model, as ``email`` may see it at ``version``: for a player
        also what happened since their last mail and, on their turn, the decision; the
        game's words in the language of ``email``'s mail."""
        with self.speaking(round_, email, game.id):
            seat = game.emails.index(email) if email in game.emails else None
            block = self._public_block(round_, game, version, seat)
            if email is not None and seat is not None:
                block.update(self._seat_block(round_, game, version, email, seat, block["your_turn"]))
                if carries_picture(block) and self.pictures(round_, email):
                    block["picture"], block["caption"] = self._picture(game, version, seat)
            return block

    def pictures(self, round_: Round, email: str) -> bool:
        """Whether ``email`` wants board pictures in mail (``pictures off`` says no), where the
        server draws them (``PBEM_MAIL_PICTURES``)."""
        return self.settings.pictures and round_.clocks.records.pictures(email)

    def _picture(self, game: LoadedGame, version: int, seat: int) -> tuple[str | None, list[str]]:
        """The board as ``seat`` sees it at ``version`` (the view its private web page shows),
        drawn in the mail's language and packed for the queue, and the lines of that board
        the picture leaves to words (``GameSpec.mail_caption``)."""
        state = self.service.state(game, version)
        view = game.spec.view(state, seat) if state is not None else None
        svg = board_svg(game.spec, view, game.names)
        if not svg or view is None:
            return None, []
        return packed(svg), list(game.spec.mail_caption(view, game.names))

    def _public_block(self, round_: Round, game: LoadedGame, version: int, seat: int | None) -> GameBlock:
        viewer = game.emails[seat] if seat is not None else None
        summary = self.service.summary(game.id, version, viewer=viewer, game=game)
        base = self.service.settings.base_url
        names = game.names
        waiting = list(self._waiting(round_, game, version, summary))
        your_turn = seat is not None and summary["started"] and any(w["seat"] == seat for w in waiting)
        return {
            "id": game.id,
            "title": game.spec.title,
            "version": version,
            "turn": game.turn_at(version),  # talk in the log does not advance it
            "turn_url": f"{base}/games/{game.id}/turn/{version}",
            "verify_url": f"{base}/verify",  # where a player checks a receipt (web/checks.py)
            "phase": name_seats(summary["phase"], names),
            "started": summary["started"],
            "over": summary["over"],
            "seats": names,
            "table": list(game.created["seats"]),
            "waiting": waiting,
            "your_turn": your_turn,
            "deadline": next((w["deadline"] for w in waiting if w["seat"] == seat), None),
            "standings": self._standings(game, summary["standings"] or []),
            "view": game.spec.render_text(summary["view"], names) if summary["view"] is not None else "",
            "url": f"{base}/games/{game.id}",
            "seat": seat,
            "name": names[seat] if seat is not None else None,
            "joined": seat is not None and seat in {e["seat"] for e in game.entries[:version] if e["kind"] == "joined"},
            "seat_url": None,
            "address": None,
            "since": None,
            "since_version": None,
            "decision": None,
            "clocks": self._clocks(round_, game, version, {w["seat"] for w in waiting}),
        }

    @staticmethod
    def _clocks(round_: Round, game: LoadedGame, version: int, waiting: set[int]) -> list[dict[str, Any]]:
        """Each seat's time left at ``version`` of a game with a clock (none: an empty list), as
        whole days, hours and minutes, and whether it runs now; a seat the robot plays has no
        clock anyone waits on (``robot``: the mail says so instead of a time)."""
        left = round_.clocks.time_left(game, version)
        if left is None:
            return []
        shown = []
        for seat, time in enumerate(left):
            minutes = max(0, int(time.total_seconds() // 60))
            days, rest = divmod(minutes, 24 * 60)
            shown.append(
                {
                    "name": game.names[seat],
                    "days": days,
                    "hours": rest // 60,
                    "minutes": rest % 60,
                    "running": seat in waiting,
                    "robot": seat in game.robots,
                }
            )
        return shown

    def _waiting(self, round_: Round, game: LoadedGame, version: int, summary: dict[str, Any]) -> Iterator[Waiting]:
        for item in summary["waiting_for"]:
            due = round_.clocks.deadline(game, version, item["seat"]) if summary["started"] else None
            yield {"seat": item["seat"], "name": item["name"], "deadline": when(due)}

    @staticmethod
    def _standings(game: LoadedGame, standings: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            {
                "rank": s["rank"],
                "name": game.names[s["seat"]],
                "score": s["score"],
                "breakdown": breakdown(s.get("details") or {}, game.spec.score_label, game.spec.score_item),
            }
            for s in sorted(standings, key=lambda s: s["rank"])
        ]

    def _seat_block(
        self, round_: Round, game: LoadedGame, version: int, email: str, seat: int, your_turn: bool
    ) -> GameBlock:
        """What only the player of ``seat`` sees: their private links, what happened since their
        last mail and, on their turn, the decision."""
        token = round_.seat_token(game.id, seat)
        base = self.service.settings.base_url
        last = self.last_mailed(round_, email, game.id)
        start = 1 if last is None else min(last, version)
        translate = i18n.translations(self.language(round_, email, game.id)).gettext
        block: GameBlock = {
            "seat_url": f"{base}/games/{game.id}/seat/{token}",
            "address": seat_address(self.settings.address, game.id, token),
            "since_version": start,
            "first": last is None,
            "since": since_lines(game, start, version, seat, translate),
            "bouncing": self._bouncing(round_, game, email),
        }
        if your_turn and version == game.version:
            block["decision"] = decision(game, self.service.state(game, version), seat)
        if self.addresses_shown(round_, game.id):
            block["addresses"] = [f"{game.names[s]} <{e}>" for s, e in enumerate(game.emails) if s != seat]
        return block

    @staticmethod
    def addresses_shown(round_: Round, game_id: str) -> bool:
        """Whether the game's creator chose ``addresses=shown``: each player's mail then lists
        the other players' addresses. By default no player's address is in another's mail."""
        clock = round_.clocks.clock_of(game_id)
        return bool(clock and clock.rules.get("addresses") == "shown")

    def _bouncing(self, round_: Round, game: LoadedGame, reader: str) -> list[str]:
        """The names of the other players whose address is marked undeliverable: every other
        seat's mail says so, so that somebody can tell them before deadlines pass unheard."""
        names = []
        for seat, email in enumerate(game.emails):
            if email != reader and self.undeliverable(round_, email):
                names.append(game.names[seat])
        return names

    def undeliverable(self, round_: Round, email: str) -> bool:
        """Whether mail to ``email`` comes back (read once a round)."""
        if email not in round_.bouncing:
            round_.bouncing[email] = self.views.undeliverable(email)
        return round_.bouncing[email]

    @staticmethod
    def deliverable_again(round_: Round, email: str) -> None:
        """``email`` wrote to us and showed it was itself: mail to it works again from now on in
        this round, and its bounces are forgotten with what the round stores (``Queued.cleared``)."""
        round_.bouncing[email] = False
        if email not in round_.cleared:
            round_.cleared.append(email)

    def last_mailed(self, round_: Round, email: str, game_id: str) -> int | None:
        """The version of ``game_id`` that the last mail to ``email`` showed (None: no mail yet):
        from this round's mails, else from the queue."""
        self._recall(round_, email, game_id)
        return round_.mailed[(email, game_id)]

    def last_decision(self, round_: Round, email: str, game_id: str) -> Any:
        """The decision the newest mail to ``email`` about ``game_id`` showed (None: none)."""
        self._recall(round_, email, game_id)
        return round_.shown.get((email, game_id))

    def _recall(self, round_: Round, email: str, game_id: str) -> None:
        key = (email, game_id)
        if key in round_.mailed:
            return
        told = self.views.told(email, game_id)  # kept as each mail is queued: the queue is not read
        round_.mailed[key] = told[0] if told else None
        round_.shown[key] = told[1] if told else None

    def last_receipt(self, round_: Round, email: str, game_id: str) -> tuple[int | None, datetime | None]:
        """The size of the signed log the last receipt to ``email`` about ``game_id`` was proved
        in, and when it was queued (None, None: none yet): from this round's mails, else the
        queue (``receipts daily``)."""
        key = (email, game_id)
        if key not in round_.receipted:
            models = self.views.latest_models(email, json.dumps({"receipt_of": game_id})[1:-1], limit=1)
            receipt = (models[0].get("receipt") or {}) if models else {}
            at = receipt.get("at")
            round_.receipted[key] = (receipt.get("size"), datetime.fromisoformat(at) if isinstance(at, str) else None)
        return round_.receipted[key]

    def last_watched(self, round_: Round, email: str, game_id: str) -> tuple[int | None, datetime | None]:
        """The version of ``game_id`` the last observer's digest to ``email`` showed, and when
        it was queued (None, None: no digest yet): from this round's mails, else the queue."""
        key = (email, game_id)
        if key not in round_.watched:
            models = self.views.latest_models(email, json.dumps({"id": game_id})[1:-1])
            digests = [m for m in models if m.get("kind") == "watch" and (m.get("game") or {}).get("id") == game_id]
            newest = max(digests, key=lambda m: m["game"]["version"], default=None)
            at = (newest.get("extra") or {}).get("at") if newest else None
            round_.watched[key] = (
                newest["game"]["version"] if newest else None,
                datetime.fromisoformat(at) if isinstance(at, str) else None,
            )
        return round_.watched[key]

    # -- queuing -----------------------------------------------------------------------------
    def queue(
        self,
        round_: Round,
        key: str,
        to: str,
        model: dict[str, Any],
        sender: str | None = None,
        thread: Thread = NO_THREAD,
        attachment: dict[str, Any] | None = None,
        limited: str | None = None,
        conversation: bool = False,
    ) -> list[Mail]:
        """One mail to queue. ``limited`` names the rate-limit budget: "service" (answers to
        the service address), "game" (answers to mail at a game's address that is not the
        owner's live play), "notify" (refusal notices), "invite:INVITER" or "invite?:INVITER"
        (invitations), or "live:GAME" (answers to a player's own moves: only the flood guard),
        so mail forged in someone's name to one cannot use up the others; a limited mail to an
        address that never showed who it is (``MailRecords.verified``) also counts against the
        hourly cap of all such mail. Over a limit the mail is kept as "dropped" (visible in the
        queue), a line is logged, and the recipient gets one notice saying when
        replies resume. ``conversation``: a message's mail, threaded by its ``thread`` alone."""
        block = model.get("game") or {}
        game_id = block.get("id")
        model = (
            {"lang": self.language(round_, to, game_id), "service": self.settings.address}
            | model
            | {
                "envelope": {
                    "sender": sender or self.settings.address,
                    "in_reply_to": thread.in_reply_to,
                    "references": list(thread.references),
                    "attachment": attachment,
                    # a message threads with its conversation (its references), not the game's mails
                    "thread": thread_id(game_id, to, self.settings.domain) if game_id and not conversation else None,
                }
            }
        )
        tag = return_tag(self.service.keys.token_secret(), key)
        if self.undeliverable(round_, to):
            log.warning("undeliverable: dropped %s to %s (a bounce came back; it clears when they write)", key, to)
            return [Mail(key, to, model, limited or "", DROPPED, tag)]
        stranger = bool(limited) and not round_.clocks.records.verified(to)
        refused = round_.limits.refused(key, to, model, limited, tag, stranger)
        if refused is not None:
            return refused
        self._remember(round_, to, model)
        return [Mail(key, to, model, limited or "", return_tag=tag, stranger=stranger)]

    @staticmethod
    def _remember(round_: Round, to: str, model: dict[str, Any]) -> None:
        """What a queued mail showed ``to`` of its game, for the next mail of the round."""
        block = model.get("game") or {}
        game_id = block.get("id")
        if game_id and "version" in block and block.get("seat") is not None:
            round_.mailed[(to, game_id)] = block["version"]
            round_.shown[(to, game_id)] = block.get("decision")
        receipt = model.get("receipt") or {}
        if receipt.get("receipt_of") and receipt.get("at"):
            round_.receipted[(to, receipt["receipt_of"])] = (receipt.get("size"), datetime.fromisoformat(receipt["at"]))
        if game_id and model.get("kind") == "watch":
            at = (model.get("extra") or {}).get("at")
            round_.watched[(to, game_id)] = (block["version"], datetime.fromisoformat(at) if at else None)

    def quiet(self, round_: Round, game_id: str) -> bool:
        """A game played without mail (``pbem new --no-mail``): no invitations or notices;
        only a mail someone sends about it is answered."""
        if game_id not in round_.quiet:
            clock = round_.clocks.clock_of(game_id)
            round_.quiet[game_id] = bool(clock and clock.rules.get("mail") == "off")
        return round_.quiet[game_id]

    def notice(
        self, round_: Round, game: LoadedGame, seat: int, kind: str, extra: dict[str, Any], key: str | None = None
    ) -> list[Mail]:
        """A notice to one seat at the game's current version (reminders, missed deadlines,
        another player's vacation); ``key`` when more than one of a kind may come at a version."""
        if self.quiet(round_, game.id):
            return []
        email = game.emails[seat]
        block = self.game_block(round_, game, game.version, email)
        extra = {k: (when(v) if isinstance(v, datetime) else v) for k, v in extra.items()}
        return self.queue(
            round_,
            key or f"{kind}/{game.id}/{game.version}/{seat}",
            email,
            {"kind": kind, "game": block, "extra": extra},
            sender=block["address"],
        )
