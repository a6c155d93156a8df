"""The outbox: which mails stored events call for. A follower of the event store (``rounds``
in ``pbem.mailroom.followers``) hands each new notification to ``Outbox.mails_for``: a mail's
``Receipt`` becomes its reply (and refusal notices), a game's entries become the notices
(invitation, start, your turn, robot takeover, end, observer updates), a deadline's receipt the
deadline notice. A mail is queued as a *model* (JSON-plain data); the gateway's sender composes
its text with the templates when it sends, so a template error makes a dead letter that can be
retried after the fix, never a lost mail.

Games are loaded through ``Round``: once per game per round of the follower, however many
notifications of that game the round handles.
"""

from __future__ import annotations

import hashlib
import json
import logging
from datetime import datetime
from typing import Any

from pbem import i18n
from pbem.games.base import GameError
from pbem.games.text import pgettext
from pbem.mailroom.addresses import return_tag, seat_address
from pbem.mailroom.commands import plain_subject
from pbem.mailroom.deadlines import Clocks
from pbem.mailroom.limits import LIVE, Limits, when
from pbem.mailroom.news import breakdown, decision, name_seats, named_errors, since_lines
from pbem.mailroom.queue import DROPPED, Mail, MailViews
from pbem.mailroom.records import Correspondent, GameClock, Watchers
from pbem.mailroom.settings import MailSettings
from pbem.service.game import LoadedGame
from pbem.service.service import GameService
from pbem.service.store import GameRecord, Receipt

HUMAN_SOURCES = ("email", "turnfile", "deadline")
log = logging.getLogger("pbem.mail")


def topic(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


TOPICS = [topic(GameRecord.Created), topic(GameRecord.Appended), topic(Receipt.Recorded)]


def reply_summary(results: list[dict[str, Any]]) -> str:
    """What a reply is, in one word for the subject and first line: "applied" (every move
    was), "refused" (something was refused; nothing applied) or "answer"."""
    outcomes = [r["outcome"] for r in results if r.get("outcome")]
    if any(r.get("error") or r.get("action") in ("refused", "unknown", "too-large") for r in results) or any(
        not o["ok"] for o in outcomes if not o.get("duplicate")
    ):
        return "refused"
    if any(o["version"] > o["version_before"] for o in outcomes):
        return "applied"
    return "answer"


def thread_id(game_id: str, email: str, domain: str) -> str:
    """The Message-ID every mail of one game to one player refers to in ``References``, so
    mail clients thread a game's mails together (it names no real message)."""
    digest = hashlib.sha256(f"{game_id}/{email}".encode()).hexdigest()[:16]
    return f"<{game_id}.{digest}@{domain}>"


class Round:
    """What one round of a follower has loaded: each game, each game's seat keys and each mail
    record once (a round is short; what other processes change meanwhile shows in the next)."""

    def __init__(self, service: GameService):
        self.service = service
        self.games: dict[str, LoadedGame] = {}
        self.records: dict[Any, Any] = {}
        self.keys: dict[str, Any] = {}

    def game(self, game_id: str) -> LoadedGame:
        if game_id not in self.games:
            self.games[game_id] = self.service.game(game_id)
        return self.games[game_id]

    def seat_token(self, game_id: str, seat: int) -> str:
        if game_id not in self.keys:
            self.keys[game_id] = self.service.seat_keys(game_id)
        return self.service.seat_token(game_id, seat, self.keys[game_id])


class Outbox:
    def __init__(self, service: GameService, settings: MailSettings, views: MailViews, clocks: Clocks):
        self.service = service
        self.settings = settings
        self.views = views
        self.clocks = clocks
        self.now = clocks.now
        self.round = Round(service)
        self.limits = Limits(settings, views, clocks.now, service.keys.token_secret)
        self.mailed: dict[tuple[str, str], int | None] = {}  # (email, game) -> version last mailed
        self.quiet_games: dict[str, bool] = {}  # games whose mail is off, as read in this round

    def begin(self, round_: Round) -> None:
        self.round = round_
        self.clocks.records = round_.records
        self.limits.begin()
        self.mailed = {}
        self.quiet_games = {}

    def end(self) -> None:
        """After a round: mail records are read afresh again."""
        self.clocks.records = None

    def mails_for(self, event: Any, position: int) -> list[Mail]:
        if isinstance(event, Receipt.Recorded):
            return self._for_receipt(event, position)
        if isinstance(event, GameRecord.Created):
            return self._invitations(event.game_id, position)
        if isinstance(event, GameRecord.Appended):
            return self._notices(event.entries, position)
        return []

    # -- building blocks -------------------------------------------------------------------
    def language(self, email: str, game_id: str | None = None) -> str:
        """The address's chosen language, else the game's (``new ... lang=cs``), else English."""
        person = self.clocks.find(Correspondent.create_id(email))
        if person:
            return str(person.language)
        clock = self.clocks.find(GameClock.create_id(game_id, {})) if game_id else None
        return clock.rules.get("lang", "en") if clock else "en"

    def speaking(self, email: str | None, game_id: str | None) -> Any:
        """The games' texts in the language of the mail to ``email`` (for no reader: the game's)."""
        if email:
            return i18n.speaking(self.language(email, game_id))
        clock = self.clocks.find(GameClock.create_id(game_id, {})) if game_id else None
        return i18n.speaking(clock.rules.get("lang", "en") if clock else "en")

    def game_block(self, game: LoadedGame, version: int, email: str | None) -> dict[str, Any]:
        """The per-game part of a model, as ``email`` may see it at ``version``: for a player
        also what happened since their last mail and, on their turn, the decision; the
        game's words in the language of ``email``'s mail."""
        with self.speaking(email, game.id):
            return self._game_block(game, version, email)

    def _game_block(self, game: LoadedGame, version: int, email: str | None) -> dict[str, Any]:
        seat = game.emails.index(email) if email in game.emails else None
        viewer = email if seat is not None else None
        summary = self.service.summary(game.id, version, viewer=viewer, game=game)
        base = self.service.settings.base_url
        names = game.names
        waiting = []
        for item in summary["waiting_for"]:
            due = self.clocks.deadline(game, version, item["seat"]) if summary["started"] else None
            waiting.append({"seat": item["seat"], "name": item["name"], "deadline": when(due)})
        your_turn = seat is not None and summary["started"] and any(w["seat"] == seat for w in waiting)
        block: dict[str, Any] = {
            "id": game.id,
            "title": game.spec.title,
            "version": version,
            "turn": version,
            "turn_url": f"{base}/games/{game.id}/turn/{version}",
            "phase": name_seats(summary["phase"], names),
            "started": summary["started"],
            "over": summary["over"],
            "seats": names,
            "waiting": waiting,
            "your_turn": your_turn,
            "deadline": next((w["deadline"] for w in waiting if w["seat"] == seat), None),
            "standings": [
                {
                    "rank": s["rank"],
                    "name": names[s["seat"]],
                    "score": s["score"],
                    "breakdown": breakdown(s.get("details") or {}, game.spec.score_label, game.spec.score_item),
                }
                for s in sorted(summary["standings"] or [], key=lambda s: s["rank"])
            ],
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
        }
        if seat is None:
            return block
        token = self.round.seat_token(game.id, seat)
        block["seat_url"] = f"{base}/games/{game.id}/seat/{token}"
        block["address"] = seat_address(self.settings.address, game.id, token)
        last = self.last_mailed(email or "", game.id)
        start = 1 if last is None else min(last, version)
        block["since_version"] = start
        block["first"] = last is None
        block["since"] = since_lines(
            game, start, version, seat, i18n.translations(self.language(email or "", game.id)).gettext
        )
        if your_turn and version == game.version:
            block["decision"] = decision(game, self.service.state(game, version), seat)
        return block

    def last_mailed(self, email: str, game_id: str) -> int | None:
        """The version of ``game_id`` that the last mail to ``email`` showed (None: no mail yet):
        from this round's mails, else from the queue."""
        key = (email, game_id)
        if key not in self.mailed:
            models = self.views.latest_models(email, json.dumps({"id": game_id})[1:-1])
            versions = [
                m["game"]["version"]
                for m in models
                if (m.get("game") or {}).get("id") == game_id and m["game"].get("seat") is not None
            ]
            self.mailed[key] = max(versions) if versions else None
        return self.mailed[key]

    def receipt(self, game: LoadedGame, index: int, size: int, viewer: str) -> dict[str, Any]:
        """A receipt that stands alone (``pbem check-receipt``), with the openings the player may see."""
        return self.service.receipt(game.id, index, size, viewer=viewer, game=game)

    def queue(
        self,
        key: str,
        to: str,
        model: dict[str, Any],
        sender: str | None = None,
        reply: tuple[str | None, tuple[str, ...]] | None = None,
        attachment: dict[str, Any] | None = None,
        limited: str | None = None,
    ) -> list[Mail]:
        """One mail to queue. ``limited`` names the rate-limit budget: "service" (answers to
        the service address), "game" (answers to mail at a game's address that is not the
        owner's live play), "notify" (refusal notices), or "live:GAME" (answers to a player's
        own moves: only the flood guard), so mail forged in someone's name to one cannot use
        up the others. Over the limit the mail is kept as "dropped" (visible in the queue), a
        line is logged, and the recipient gets one notice saying when replies resume."""
        block = model.get("game") or {}
        game_id = block.get("id")
        in_reply_to, references = reply or (None, ())
        thread = thread_id(game_id, to, self.settings.domain) if game_id else None
        model = (
            {"lang": self.language(to, game_id), "service": self.settings.address}
            | model
            | {
                "envelope": {
                    "sender": sender or self.settings.address,
                    "in_reply_to": in_reply_to,
                    "references": list(references),
                    "attachment": attachment,
                    "thread": thread,
                }
            }
        )
        budget = limited or ""
        tag = return_tag(self.service.keys.token_secret(), key)
        if self.views.undeliverable(to):
            log.warning("undeliverable: dropped %s to %s (a bounce came back; it clears when they write)", key, to)
            return [Mail(key, to, model, budget, DROPPED, tag)]
        refused = self.limits.refused(key, to, model, limited, tag)
        if refused is not None:
            return refused
        if game_id and "version" in block and block.get("seat") is not None:
            self.mailed[(to, game_id)] = block["version"]
        return [Mail(key, to, model, budget, return_tag=tag)]

    def quiet(self, game_id: str) -> bool:
        """A game played without mail (``pbem new --no-mail``): no invitations or notices;
        only a mail someone sends about it is answered."""
        if game_id not in self.quiet_games:
            clock = self.clocks.find(GameClock.create_id(game_id, {}))
            self.quiet_games[game_id] = bool(clock and clock.rules.get("mail") == "off")
        return self.quiet_games[game_id]

    def notice(self, game: LoadedGame, seat: int, kind: str, extra: dict[str, Any]) -> list[Any]:
        """A notice to one seat at the game's current version (reminders, missed deadlines)."""
        if self.quiet(game.id):
            return []
        email = game.emails[seat]
        block = self.game_block(game, game.version, email)
        extra = {k: (when(v) if isinstance(v, datetime) else v) for k, v in extra.items()}
        return self.queue(
            f"{kind}/{game.id}/{game.version}/{seat}",
            email,
            {"kind": kind, "game": block, "extra": extra},
            sender=block["address"],
        )

    # -- invitations and notices from game entries -----------------------------------------
    def _invitations(self, game_id: str, position: int) -> list[Any]:
        game = self.round.game(game_id)
        if self.quiet(game_id):
            return []
        clock = self.clocks.find(GameClock.create_id(game_id, {}))
        creator = clock.rules.get("invited_by") if clock else None  # games created by mail name their creator
        mails: list[Any] = []
        for seat, email in enumerate(game.emails):
            block = self.game_block(game, 1, email)
            model = {
                "kind": "invitation",
                "game": block,
                "options": game.options,
                "invited_by": creator if creator != email else None,
            }
            # only strangers are limited: invitations sent by mail to an address that never wrote
            stranger = creator is not None and email != creator and not self.views.has_written(email)
            mails += self.queue(
                f"n{position}/{seat}/invitation",
                email,
                model,
                sender=block["address"],
                limited="invite" if stranger else None,
            )
        return mails

    def _notices(self, entries: list[dict[str, Any]], position: int) -> list[Any]:
        game_id = entries[0]["game"]
        game = self.round.game(game_id)
        if self.quiet(game_id):
            return []
        before, after = entries[0]["index"], entries[-1]["index"] + 1
        kinds = [e["kind"] for e in entries]
        robots = {e["seat"] for e in game.entries[:after] if e["kind"] == "resigned"}
        mails: list[Any] = []
        people = [(seat, email) for seat, email in enumerate(game.emails)]
        for entry in entries:
            if entry["kind"] == "resigned":
                for seat, email in people:
                    block = self.game_block(game, after, email)
                    mails += self.queue(
                        f"n{position}/{seat}/robot/{entry['index']}",
                        email,
                        {
                            "kind": "robot",
                            "game": block,
                            "extra": {"name": game.names[entry["seat"]], "reason": entry["reason"]},
                        },
                        sender=block["address"],
                    )
        # the player whose join started the game hears of the start in the reply to that join
        # (and the player whose move ended it, in the reply to that move)
        answered = {
            e["seat"]
            for e in entries
            if e["kind"] == "joined" or (e["kind"] == "moved" and e.get("source") in ("email", "turnfile"))
        }
        if "ended" in kinds or "started" in kinds:
            kind = "ended" if "ended" in kinds else "started"
            for seat, email in people:
                if seat in answered or (kind == "started" and seat in robots):
                    continue
                block = self.game_block(game, after, email)
                mails += self.queue(
                    f"n{position}/{seat}/{kind}", email, {"kind": kind, "game": block}, sender=block["address"]
                )
        elif "moved" in kinds:
            old_state = self.service.state(game, before)
            waiting_before = set(game.spec.to_move(old_state)) if old_state is not None else set()
            movers = {e["seat"] for e in entries if e["kind"] == "moved"}
            replied = {e["seat"] for e in entries if e["kind"] == "moved" and e.get("source") in HUMAN_SOURCES}
            for seat in game.spec.to_move(self.service.state(game, after)):
                if seat in robots or seat in replied:
                    continue
                # already waited for, and only others who were also due moved (a simultaneous
                # phase): no new notice; it is news only when someone out of turn order moved
                if seat in waiting_before and not movers - {seat} - waiting_before:
                    continue
                email = game.emails[seat]
                block = self.game_block(game, after, email)
                mails += self.queue(
                    f"n{position}/{seat}/turn", email, {"kind": "turn", "game": block}, sender=block["address"]
                )
        if any(k in kinds for k in ("started", "moved", "resigned", "ended")):
            watchers = self.clocks.find(Watchers.create_id(game_id))
            if watchers and watchers.emails:
                history = self.service.history(game_id, game=game)[before:after]
                # numbered by turn (the state after the entry), as subjects and web pages are
                lines = [f"{row['index'] + 1}: {row['entry']['kind']} " + "; ".join(row["lines"]) for row in history]
                block = self.game_block(game, after, None)
                for email in watchers.emails:
                    mails += self.queue(
                        f"n{position}/watch/{email}", email, {"kind": "watch", "game": block, "extra": {"lines": lines}}
                    )
        return mails

    # -- replies ---------------------------------------------------------------------------
    def _for_receipt(self, event: Any, position: int) -> list[Any]:
        outcome = event.outcome or {}
        context = outcome.get("context") or {}
        if outcome.get("kind") == "mail":
            return self._reply(outcome, context, position)
        if context.get("deadline"):
            return self._deadline(event.game_id, outcome, context["deadline"], position)
        return []

    def _deadline(self, game_id: str, outcome: dict[str, Any], info: dict[str, Any], position: int) -> list[Any]:
        game = self.round.game(game_id)
        email = game.emails[info["seat"]]
        version = outcome.get("version") or game.version
        block = self.game_block(game, version, email)
        moves = [line["text"] for line in outcome.get("lines", []) if line["status"] == "applied"]
        extra = dict(info) | {"moves": moves}
        return self.queue(
            f"n{position}/deadline", email, {"kind": "deadline", "game": block, "extra": extra}, sender=block["address"]
        )

    def _reply(self, outcome: dict[str, Any], context: dict[str, Any], position: int) -> list[Any]:
        mails: list[Any] = []
        game = None
        if context.get("game"):
            try:
                game = self.round.game(context["game"])
            except GameError:
                game = None
        thread = (context.get("message_id"), tuple(context.get("references") or ()))
        for n, note in enumerate(context.get("notify") or []):
            block = self.game_block(game, game.version, note["to"]) if game and note["to"] in game.emails else None
            mails += self.queue(
                f"n{position}/notify/{n}",
                note["to"],
                {"kind": "refused", "game": block, "extra": note},
                sender=block["address"] if block else None,
                limited="notify",
            )
            mails += self._wrong_address(game, note, position, n, thread)
        to = context.get("reply_to")
        if not to:
            return mails
        self.views.deliverable_again(to)  # they wrote to us, so mail to them works again
        results = [self._enrich(result, to) for result in outcome.get("results", [])]
        if game is not None:
            results = [named_errors(result, game.names) for result in results]
        model: dict[str, Any] = {
            "kind": "reply",
            "results": results,
            "game": None,
            "receipt": None,
            "subject": plain_subject(context.get("subject", "")),
        }
        attachment = None
        if game is not None and to in game.emails:
            versions = [r["outcome"]["version"] for r in results if r.get("outcome") and r["outcome"]["version"]]
            version = max(versions) if versions else context.get("version") or game.version
            model["game"] = self.game_block(game, min(version, game.version), to)
            moved = [
                r["outcome"]
                for r in results
                if r.get("outcome") and r["outcome"]["ok"] and r["outcome"]["version"] > r["outcome"]["version_before"]
            ]
            if moved:
                attachment = self.receipt(game, moved[0]["version_before"], moved[-1]["version"], to)
                model["receipt"] = {"index": attachment.get("index"), "size": attachment.get("size")}
        model["summary"] = reply_summary(results)
        if model["game"] is None:  # e.g. "join GAME" at the service address: a mail about that game
            model["game"] = self._own_block_in(results)
        sender = model["game"]["address"] if model["game"] else None
        mails += self.queue(
            f"n{position}/reply",
            to,
            model,
            sender=sender,
            reply=thread,
            attachment=attachment,
            limited=self._reply_budget(game, to, results, context),
        )
        return mails

    @staticmethod
    def _reply_budget(game: LoadedGame | None, to: str, results: list[dict[str, Any]], context: dict[str, Any]) -> str:
        """Answers to a player's own mail at their private address, while the game is not
        over, count only against the flood guard: the hourly limit must not silence play."""
        if not context.get("game"):
            return "service"
        refused = any(r.get("action") == "refused" for r in results)
        if game is None or to not in game.emails or refused:
            return "game"
        # the game as it was when the mail came (a follower may be catching up on old mail)
        befores = [r["outcome"]["version_before"] for r in results if r.get("outcome")]
        arrived = min(befores) if befores else game.version
        ended = [e["index"] for e in game.entries[:arrived] if e["kind"] == "ended"]
        return "game" if ended else LIVE + game.id

    @staticmethod
    def _own_block_in(results: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The recipient's own game block among the results of a mail to the service address
        (``join GAME``, ``status GAME``): the answer is then a mail about that game, from the
        player's private address, so that "Reply" goes where moves count."""
        for result in results:
            block = result.get("block") or {}
            if block.get("address") and block.get("seat") is not None:
                return block
        return None

    def _wrong_address(
        self,
        game: LoadedGame | None,
        note: dict[str, Any],
        position: int,
        n: int,
        thread: tuple[str | None, tuple[str, ...]],
    ) -> list[Any]:
        """A player who wrote to another player's private address is answered (at their own
        registered address, so nothing leaks) with their own private address."""
        sender = note.get("sender")
        if game is None or note.get("reason") != "forged" or sender not in game.emails or sender == note["to"]:
            return []
        block = self.game_block(game, game.version, sender)
        extra = {"owner": game.names[game.emails.index(note["to"])], "subject": plain_subject(note.get("subject", ""))}
        return self.queue(
            f"n{position}/wrong-address/{n}",
            sender,
            {"kind": "wrong-address", "game": block, "extra": extra},
            sender=block["address"],
            reply=thread,
            limited="notify",
        )

    def _enrich(self, result: dict[str, Any], email: str) -> dict[str, Any]:
        with self.speaking(email, result.get("game")):
            return self._enriched(result, email)

    def _enriched(self, result: dict[str, Any], email: str) -> dict[str, Any]:
        """Add what a reply shows for global commands, read now."""
        if result.get("action") == "help" and result.get("game") and not result.get("error"):
            game = self.round.game(result["game"])
            result["game_commands"] = {"title": game.spec.title, "lines": game.spec.command_examples()}
        action = result.get("action")
        result = dict(result)
        try:
            if action == "catalog":
                result["games"] = self.service.catalog()
            elif action == "games":
                result["games"] = [self._line(game_id, email) for game_id in self.service.game_ids()[-50:]]
            elif action == "status" and not result.get("error"):
                if result.get("game"):
                    game = self.round.game(result["game"])
                    result["block"] = self.game_block(game, game.version, email)
                else:
                    mine = [g for g in self.service.game_ids() if email in self.round.game(g).emails]
                    result["games"] = [self._line(game_id, email) for game_id in mine]
            elif action == "new" and result.get("game") and not result.get("error"):
                game = self.round.game(result["game"])
                if email in game.emails:  # the creator plays: a mail about that game, "Reply" joins
                    result["block"] = self.game_block(game, game.version, email)
            elif action == "history" and not result.get("error"):
                game = self.round.game(result["game"])
                rows = self.service.history(game.id, viewer=email if email in game.emails else None, game=game)
                result["lines"] = [
                    f"{row['index'] + 1}. {row['entry']['kind']}"  # the turn, as in subjects and web pages
                    + (f" {game.names[row['entry']['seat']]}" if "seat" in row["entry"] else "")
                    + (f": {game.spec.say_command(row['entry']['command'])}" if row["entry"].get("command") else "")
                    + (f" ({'; '.join(row['lines'])})" if row["lines"] else "")
                    for row in rows[-40:]
                ]
            elif action == "legal" and not result.get("error"):
                game = self.round.game(result["game"])
                state = self.service.state(game)
                seat = game.emails.index(email) if email in game.emails else None
                if state is not None and seat is not None and seat in game.spec.to_move(state):
                    result["moves"] = game.spec.legal_texts(state, seat, limit=10_000)
                else:
                    result["moves"] = []
            elif action == "unknown" and result.get("sender") == email:
                result.update(self._where_moves_go(email))
            elif action in ("template", "invite") and not result.get("error"):
                game = self.round.game(result["game"])
                result["block"] = self.game_block(game, game.version, email)
                if action == "template" and email in game.emails:
                    result["template"] = self.turn_file(game, game.emails.index(email))
        except GameError as error:
            result["error"] = error.to_dict()
        return result

    def _where_moves_go(self, email: str) -> dict[str, Any]:
        """For a line sent to the service address that is no command there (a move, likely):
        the sender's private addresses of the games they play that are not over; with one such
        game, its block, so the answer comes from that address and "Reply" goes there."""
        games = [
            game
            for game in (self.round.game(game_id) for game_id in self.service.game_ids())
            if email in game.emails and not game.ended
        ]
        found: dict[str, Any] = {"games": []}
        for game in games[:5]:
            token = self.round.seat_token(game.id, game.emails.index(email))
            address = seat_address(self.settings.address, game.id, token)
            found["games"].append({"id": game.id, "title": game.spec.title, "address": address})
        if len(games) == 1:
            found["block"] = self.game_block(games[0], games[0].version, email)
        return found

    def turn_file(self, game: LoadedGame, seat: int) -> str:
        state = self.service.state(game)
        if state is None or seat not in game.spec.to_move(state):
            return ""
        # the header's words in the reader's language; pbem/service/turnfile.py reads them all
        words = (
            pgettext("turn file", "game"),
            pgettext("turn file", "player"),
            pgettext("turn file", "version"),
            pgettext("turn file", "phase"),
        )
        head = [f"{words[0]}: {game.id}", f"{words[1]}: {game.emails[seat]}", f"{words[2]}: {game.version}"]
        phase = game.spec.phase_label(state)
        if phase:
            head.append(f"{words[3]}: {phase}")
        return "\n".join(head) + "\n" + game.spec.turn_template(state, seat, game.names)

    def _line(self, game_id: str, email: str) -> dict[str, Any]:
        game = self.round.game(game_id)
        summary = self.service.summary(game_id, game=game)
        return {
            "id": game_id,
            "title": game.spec.title,
            "phase": summary["phase"],
            "over": summary["over"],
            "seats": game.names,
            "waiting": [w["name"] for w in summary["waiting_for"]],
            "mine": email in game.emails,
            "url": f"{self.service.settings.base_url}/games/{game_id}",
        }
