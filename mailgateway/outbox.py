"""The outbox: outgoing mail is derived from stored events, never sent directly.

The feeder reads the store's notification log from a durable position (a ``Cursor``): a
``Receipt`` of a processed mail becomes the reply, a game's entries become the notices
(invitation, start, your turn, robot takeover, end, observer updates). Each notification's
mails are queued as ``Outgoing`` aggregates in the same transaction that advances the
cursor, so after a crash every reply is queued exactly once. The sender (``sender.py``)
delivers them.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from email import policy
from typing import Any

from eventsourcing.persistence import RecordConflictError
from jinja2 import TemplateError

from mailgateway import compose
from mailgateway.addresses import seat_address
from mailgateway.records import Correspondent, Cursor, GameClock, Outgoing, ReplyLog, Watchers
from pbem.games.base import GameError
from pbem.service.game import LoadedGame
from pbem.service.store import GameRecord, Receipt


def topic(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


TOPICS = [topic(GameRecord.Created), topic(GameRecord.Appended), topic(Receipt.Recorded)]
HUMAN_SOURCES = ("email", "turnfile", "deadline")
# Errors of composing (not of the store): the notification is skipped and logged. Store errors
# propagate, and the same notification is tried again in the next round.
COMPOSING_ERRORS = (GameError, TemplateError, KeyError, TypeError, ValueError, AttributeError, IndexError)
log = logging.getLogger("pbem.mail")


def when(moment: datetime | None) -> str | None:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else None


class Outbox:
    def __init__(self, gateway: Any):
        self.gateway = gateway
        self.service = gateway.service
        self.store = gateway.service.store
        self.settings = gateway.settings

    # -- feeding ---------------------------------------------------------------------------
    def feed(self, page_size: int = 100) -> int:
        """Queue the mails of every new notification; returns how many were queued."""
        queued = 0
        cursor = self.gateway.get(Cursor.create_id("feed")) or Cursor("feed")
        while True:
            page = self.store.notification_log.select(cursor.position + 1, min(page_size, self.store.log_section_size),
                                                      topics=TOPICS)
            if not page:
                return queued
            for notification in page:
                self.reply_logs: dict[str, ReplyLog] = {}
                event = self.store.mapper.to_domain_event(notification)
                try:
                    mails = self.mails_for(event, notification.id)
                except COMPOSING_ERRORS:  # a bug in a view or template must not stop every later mail
                    log.exception("no mail for notification %s", notification.id)
                    mails = []
                cursor.advance(notification.id)
                try:
                    self.store.save(cursor, *mails)
                except RecordConflictError:  # another gateway process queued these first
                    log.info("another outbox feeder is running; stopping this round")
                    return queued
                queued += sum(1 for m in mails if isinstance(m, Outgoing))

    def mails_for(self, event: Any, position: int) -> list[Any]:
        if isinstance(event, Receipt.Recorded):
            return self._for_receipt(event, position)
        if isinstance(event, GameRecord.Created):
            return self._invitations(event.game_id, position)
        if isinstance(event, GameRecord.Appended):
            return self._notices(event.entries, position)
        return []

    # -- building blocks -------------------------------------------------------------------
    def now(self) -> datetime:
        return self.gateway.clock()

    def language(self, email: str, game_id: str | None = None) -> str:
        """The address's chosen language, else the game's (``new ... lang=cs``), else English."""
        person = self.gateway.get(Correspondent.create_id(email))
        if person:
            return person.language
        clock = self.gateway.get(GameClock.create_id(game_id, {})) if game_id else None
        return clock.rules.get("lang", "en") if clock else "en"

    def game_block(self, game: LoadedGame, version: int, email: str | None) -> dict[str, Any]:
        seat = game.emails.index(email) if email in game.emails else None
        viewer = email if seat is not None else None
        summary = self.service.summary(game.id, version, viewer=viewer)
        base = self.service.settings.base_url
        waiting = []
        for item in summary["waiting_for"]:
            due = self.gateway.scheduler.deadline(game, version, item["seat"]) if summary["started"] else None
            waiting.append({"seat": item["seat"], "name": item["name"], "deadline": when(due)})
        block: dict[str, Any] = {
            "id": game.id, "title": game.spec.title, "version": version, "phase": summary["phase"],
            "started": summary["started"], "over": summary["over"], "seats": game.names, "waiting": waiting,
            "your_turn": seat is not None and any(w["seat"] == seat for w in waiting),
            "standings": [{"rank": s["rank"], "name": game.names[s["seat"]], "score": s["score"]}
                          for s in sorted(summary["standings"] or [], key=lambda s: s["rank"])],
            "view": game.spec.render_text(summary["view"], game.names) if summary["view"] is not None else "",
            "url": f"{base}/games/{game.id}", "seat": seat, "name": game.names[seat] if seat is not None else None,
            "seat_url": None, "address": None,
        }
        if seat is not None:
            token = self.service.seat_token(game.id, seat)
            block["seat_url"] = f"{base}/games/{game.id}/seat/{token}"
            block["address"] = seat_address(self.settings.address, game.id, token)
        return block

    def receipt(self, game_id: str, index: int, size: int) -> dict[str, Any]:
        proof = self.service.inclusion(game_id, index, size)
        return proof | {"keys": [str(key) for key in self.service.keys.verifiers()]}

    def queue(self, key: str, to: str, model: dict[str, Any], sender: str | None = None,
              reply: tuple[str | None, tuple[str, ...]] | None = None, attachment: dict[str, Any] | None = None,
              limited: str | None = None) -> list[Any]:
        """The aggregates that queue one mail (and count it against the rate limit), or
        nothing when ``to`` has had too many replies this hour. ``limited`` names the budget:
        "service" (answers to the service address), "game" (answers to moves) or "notify"
        (refusal notices), so mail forged in someone's name to one cannot use up the others."""
        now = self.now()
        saved: list[Any] = []
        if limited:
            logs = getattr(self, "reply_logs", {})
            budget = f"{to}|{limited}"
            log = logs.get(budget) or self.gateway.get(ReplyLog.create_id(budget)) or ReplyLog(budget)
            hour_ago = (now - timedelta(hours=1)).isoformat()
            if sum(1 for t in log.times if t > hour_ago) >= self.settings.replies_per_hour:
                return []
            log.replied(now.isoformat(), hour_ago)
            if budget not in logs:  # one aggregate per budget per save, however many mails
                logs[budget] = log
                saved.append(log)
        game_id = (model.get("game") or {}).get("id")
        model = {"lang": self.language(to, game_id), "service": self.settings.address} | model
        in_reply_to, references = reply or (None, ())
        msg = compose.build(model, key, to, sender or self.settings.address, now, in_reply_to, references, attachment)
        text = msg.as_bytes(policy=policy.SMTP).decode("utf-8", "surrogateescape")
        return saved + [Outgoing(key, to, text, now.isoformat())]

    def notice(self, game: LoadedGame, seat: int, kind: str, extra: dict[str, Any]) -> list[Any]:
        """A notice to one seat at the game's current version (reminders, missed deadlines)."""
        email = game.emails[seat]
        block = self.game_block(game, game.version, email)
        extra = {k: (when(v) if isinstance(v, datetime) else v) for k, v in extra.items()}
        return self.queue(f"{kind}/{game.id}/{game.version}/{seat}", email,
                          {"kind": kind, "game": block, "extra": extra}, sender=block["address"])

    # -- invitations and notices from game entries -----------------------------------------
    def _invitations(self, game_id: str, position: int) -> list[Any]:
        game = self.service.game(game_id)
        mails: list[Any] = []
        for seat, email in enumerate(game.emails):
            block = self.game_block(game, 1, email)
            mails += self.queue(f"n{position}/{seat}/invitation", email,
                                {"kind": "invitation", "game": block, "options": game.options},
                                sender=block["address"])
        return mails

    def _notices(self, entries: list[dict[str, Any]], position: int) -> list[Any]:
        game_id = entries[0]["game"]
        game = self.service.game(game_id)
        before, after = entries[0]["index"], entries[-1]["index"] + 1
        kinds = [e["kind"] for e in entries]
        robots = {e["seat"] for e in game.entries[:after] if e["kind"] == "resigned"}
        mails: list[Any] = []
        people = [(seat, email) for seat, email in enumerate(game.emails)]
        for entry in entries:
            if entry["kind"] == "resigned":
                for seat, email in people:
                    block = self.game_block(game, after, email)
                    mails += self.queue(f"n{position}/{seat}/robot/{entry['index']}", email,
                                        {"kind": "robot", "game": block,
                                         "extra": {"name": game.names[entry["seat"]], "reason": entry["reason"]}},
                                        sender=block["address"])
        if "ended" in kinds or "started" in kinds:
            kind = "ended" if "ended" in kinds else "started"
            for seat, email in people:
                if seat in robots and kind == "started":
                    continue
                block = self.game_block(game, after, email)
                mails += self.queue(f"n{position}/{seat}/{kind}", email, {"kind": kind, "game": block},
                                    sender=block["address"])
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
                mails += self.queue(f"n{position}/{seat}/turn", email, {"kind": "turn", "game": block},
                                    sender=block["address"])
        if any(k in kinds for k in ("started", "moved", "resigned", "ended")):
            watchers = self.gateway.get(Watchers.create_id(game_id))
            if watchers and watchers.emails:
                history = self.service.history(game_id)[before:after]
                lines = [f"{row['index']}: {row['entry']['kind']} " + "; ".join(row["lines"]) for row in history]
                block = self.game_block(game, after, None)
                for email in watchers.emails:
                    mails += self.queue(f"n{position}/watch/{email}", email,
                                        {"kind": "watch", "game": block, "extra": {"lines": lines}})
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
        game = self.service.game(game_id)
        email = game.emails[info["seat"]]
        version = outcome.get("version") or game.version
        block = self.game_block(game, version, email)
        extra = dict(info) | {"moves": [line["text"] for line in outcome.get("lines", []) if line["status"] == "applied"]}
        return self.queue(f"n{position}/deadline", email, {"kind": "deadline", "game": block, "extra": extra},
                          sender=block["address"])

    def _reply(self, outcome: dict[str, Any], context: dict[str, Any], position: int) -> list[Any]:
        mails: list[Any] = []
        game = None
        if context.get("game"):
            try:
                game = self.service.game(context["game"])
            except GameError:
                game = None
        for n, note in enumerate(context.get("notify") or []):
            block = self.game_block(game, game.version, note["to"]) if game and note["to"] in game.emails else None
            mails += self.queue(f"n{position}/notify/{n}", note["to"],
                                {"kind": "refused", "game": block, "extra": note},
                                sender=block["address"] if block else None, limited="notify")
        to = context.get("reply_to")
        if not to:
            return mails
        results = [self._enrich(result, to) for result in outcome.get("results", [])]
        model: dict[str, Any] = {"kind": "reply", "results": results, "game": None, "receipt": None,
                                 "subject": context.get("subject", "")}
        attachment = None
        if game is not None and to in game.emails:
            versions = [r["outcome"]["version"] for r in results if r.get("outcome")]
            version = max(versions) if versions else context.get("version") or game.version
            model["game"] = self.game_block(game, min(version, game.version), to)
            moved = [r["outcome"] for r in results if r.get("outcome") and r["outcome"]["ok"]
                     and r["outcome"]["version"] > r["outcome"]["version_before"]]
            if moved:
                attachment = self.receipt(game.id, moved[0]["version_before"], moved[-1]["version"])
                model["receipt"] = attachment
        sender = model["game"]["address"] if model["game"] else None
        mails += self.queue(f"n{position}/reply", to, model, sender=sender,
                            reply=(context.get("message_id"), tuple(context.get("references") or ())),
                            attachment=attachment, limited="game" if context.get("game") else "service")
        return mails

    def _enrich(self, result: dict[str, Any], email: str) -> dict[str, Any]:
        """Add what a reply shows for global commands, read now."""
        action = result.get("action")
        result = dict(result)
        try:
            if action == "catalog":
                result["games"] = self.service.catalog()
            elif action == "games":
                result["games"] = [self._line(game_id, email) for game_id in self.service.game_ids()[-50:]]
            elif action == "status" and not result.get("error"):
                if result.get("game"):
                    game = self.service.game(result["game"])
                    result["block"] = self.game_block(game, game.version, email)
                else:
                    mine = [g for g in self.service.game_ids() if email in self.service.game(g).emails]
                    result["games"] = [self._line(game_id, email) for game_id in mine]
            elif action == "history" and not result.get("error"):
                game = self.service.game(result["game"])
                rows = self.service.history(game.id, viewer=email if email in game.emails else None)
                result["lines"] = [
                    f"{row['index']}. {row['entry']['kind']}"
                    + (f" {game.names[row['entry']['seat']]}" if "seat" in row["entry"] else "")
                    + (f": {row['entry']['command']}" if row["entry"].get("command") else "")
                    + (f" ({'; '.join(row['lines'])})" if row["lines"] else "")
                    for row in rows[-40:]]
            elif action in ("template", "invite") and not result.get("error"):
                game = self.service.game(result["game"])
                result["block"] = self.game_block(game, game.version, email)
                if action == "template" and email in game.emails:
                    result["template"] = self.turn_file(game, game.emails.index(email))
        except GameError as error:
            result["error"] = error.to_dict()
        return result

    def turn_file(self, game: LoadedGame, seat: int) -> str:
        state = self.service.state(game)
        if state is None or seat not in game.spec.to_move(state):
            return ""
        head = [f"game: {game.id}", f"player: {game.emails[seat]}", f"version: {game.version}"]
        phase = game.spec.phase_label(state)
        if phase:
            head.append(f"phase: {phase}")
        return "\n".join(head) + "\n" + game.spec.turn_template(state, seat, game.names)

    def _line(self, game_id: str, email: str) -> dict[str, Any]:
        game = self.service.game(game_id)
        summary = self.service.summary(game_id)
        return {"id": game_id, "title": game.spec.title, "phase": summary["phase"], "over": summary["over"],
                "seats": game.names, "waiting": [w["name"] for w in summary["waiting_for"]],
                "mine": email in game.emails, "url": f"{self.service.settings.base_url}/games/{game_id}"}
