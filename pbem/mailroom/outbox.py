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

import logging
from datetime import datetime, timedelta
from typing import Any

from pbem.games.base import GameError
from pbem.mailroom.addresses import return_tag, seat_address
from pbem.mailroom.deadlines import Clocks
from pbem.mailroom.queue import DROPPED, Mail, MailViews
from pbem.mailroom.records import Correspondent, GameClock, Watchers
from pbem.mailroom.settings import MailSettings
from pbem.service.game import LoadedGame
from pbem.service.service import GameService
from pbem.service.store import GameRecord, Receipt

HUMAN_SOURCES = ("email", "turnfile", "deadline")
INVITATIONS_PER_DAY = 5  # to one address, from anyone: the service address cannot be used to flood
log = logging.getLogger("pbem.mail")


def topic(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


TOPICS = [topic(GameRecord.Created), topic(GameRecord.Appended), topic(Receipt.Recorded)]


def when(moment: datetime | None) -> str | None:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else None


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
        self.budgets: dict[str, int] = {}  # mails counted against each budget in this round

    def begin(self, round_: Round) -> None:
        self.round = round_
        self.clocks.records = round_.records
        self.budgets = {}

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

    def game_block(self, game: LoadedGame, version: int, email: str | None) -> dict[str, Any]:
        seat = game.emails.index(email) if email in game.emails else None
        viewer = email if seat is not None else None
        summary = self.service.summary(game.id, version, viewer=viewer, game=game)
        base = self.service.settings.base_url
        waiting = []
        for item in summary["waiting_for"]:
            due = self.clocks.deadline(game, version, item["seat"]) if summary["started"] else None
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
            token = self.round.seat_token(game.id, seat)
            block["seat_url"] = f"{base}/games/{game.id}/seat/{token}"
            block["address"] = seat_address(self.settings.address, game.id, token)
        return block

    def receipt(self, game: LoadedGame, index: int, size: int, viewer: str) -> dict[str, Any]:
        """A receipt that stands alone (``pbem check-receipt``), with the openings the player may see."""
        return self.service.receipt(game.id, index, size, viewer=viewer, game=game)

    def queue(self, key: str, to: str, model: dict[str, Any], sender: str | None = None,
              reply: tuple[str | None, tuple[str, ...]] | None = None, attachment: dict[str, Any] | None = None,
              limited: str | None = None) -> list[Mail]:
        """One mail to queue. ``limited`` names the rate-limit budget: "service" (answers to
        the service address), "game" (answers to moves) or "notify" (refusal notices), so mail
        forged in someone's name to one cannot use up the others. Over the limit the mail is
        kept as "dropped" (visible in the queue) and a line is logged."""
        game_id = (model.get("game") or {}).get("id")
        in_reply_to, references = reply or (None, ())
        model = {"lang": self.language(to, game_id), "service": self.settings.address} | model | {
            "envelope": {"sender": sender or self.settings.address, "in_reply_to": in_reply_to,
                         "references": list(references), "attachment": attachment}}
        budget = limited or ""
        tag = return_tag(self.service.keys.token_secret(), key)
        if self.views.undeliverable(to):
            log.warning("undeliverable: dropped %s to %s (a bounce came back; it clears when they write)", key, to)
            return [Mail(key, to, model, budget, DROPPED, tag)]
        if limited and self._over_budget(to, budget):
            log.warning("rate limit: dropped %s to %s (%s budget, %d an hour)", key, to, budget,
                        self.settings.replies_per_hour)
            return [Mail(key, to, model, budget, DROPPED, tag)]
        return [Mail(key, to, model, budget, return_tag=tag)]

    def _over_budget(self, to: str, budget: str) -> bool:
        window, limit = (timedelta(days=1), INVITATIONS_PER_DAY) if budget == "invite" else (
            timedelta(hours=1), self.settings.replies_per_hour)
        counted = f"{to}|{budget}"
        if counted not in self.budgets:
            self.budgets[counted] = self.views.recent(to, budget, self.now() - window)
        self.budgets[counted] += 1
        return self.budgets[counted] > limit

    def notice(self, game: LoadedGame, seat: int, kind: str, extra: dict[str, Any]) -> list[Any]:
        """A notice to one seat at the game's current version (reminders, missed deadlines)."""
        email = game.emails[seat]
        block = self.game_block(game, game.version, email)
        extra = {k: (when(v) if isinstance(v, datetime) else v) for k, v in extra.items()}
        return self.queue(f"{kind}/{game.id}/{game.version}/{seat}", email,
                          {"kind": kind, "game": block, "extra": extra}, sender=block["address"])

    # -- invitations and notices from game entries -----------------------------------------
    def _invitations(self, game_id: str, position: int) -> list[Any]:
        game = self.round.game(game_id)
        clock = self.clocks.find(GameClock.create_id(game_id, {}))
        creator = clock.rules.get("invited_by") if clock else None  # games created by mail name their creator
        mails: list[Any] = []
        for seat, email in enumerate(game.emails):
            block = self.game_block(game, 1, email)
            model = {"kind": "invitation", "game": block, "options": game.options,
                     "invited_by": creator if creator != email else None}
            mails += self.queue(f"n{position}/{seat}/invitation", email, model, sender=block["address"],
                                limited="invite")
        return mails

    def _notices(self, entries: list[dict[str, Any]], position: int) -> list[Any]:
        game_id = entries[0]["game"]
        game = self.round.game(game_id)
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
            watchers = self.clocks.find(Watchers.create_id(game_id))
            if watchers and watchers.emails:
                history = self.service.history(game_id, game=game)[before:after]
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
        game = self.round.game(game_id)
        email = game.emails[info["seat"]]
        version = outcome.get("version") or game.version
        block = self.game_block(game, version, email)
        moves = [line["text"] for line in outcome.get("lines", []) if line["status"] == "applied"]
        extra = dict(info) | {"moves": moves}
        return self.queue(f"n{position}/deadline", email, {"kind": "deadline", "game": block, "extra": extra},
                          sender=block["address"])

    def _reply(self, outcome: dict[str, Any], context: dict[str, Any], position: int) -> list[Any]:
        mails: list[Any] = []
        game = None
        if context.get("game"):
            try:
                game = self.round.game(context["game"])
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
        self.views.deliverable_again(to)  # they wrote to us, so mail to them works again
        results = [self._enrich(result, to) for result in outcome.get("results", [])]
        model: dict[str, Any] = {"kind": "reply", "results": results, "game": None, "receipt": None,
                                 "subject": context.get("subject", "")}
        attachment = None
        if game is not None and to in game.emails:
            versions = [r["outcome"]["version"] for r in results if r.get("outcome") and r["outcome"]["version"]]
            version = max(versions) if versions else context.get("version") or game.version
            model["game"] = self.game_block(game, min(version, game.version), to)
            moved = [r["outcome"] for r in results if r.get("outcome") and r["outcome"]["ok"]
                     and r["outcome"]["version"] > r["outcome"]["version_before"]]
            if moved:
                attachment = self.receipt(game, moved[0]["version_before"], moved[-1]["version"], to)
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
                    game = self.round.game(result["game"])
                    result["block"] = self.game_block(game, game.version, email)
                else:
                    mine = [g for g in self.service.game_ids() if email in self.round.game(g).emails]
                    result["games"] = [self._line(game_id, email) for game_id in mine]
            elif action == "history" and not result.get("error"):
                game = self.round.game(result["game"])
                rows = self.service.history(game.id, viewer=email if email in game.emails else None, game=game)
                result["lines"] = [
                    f"{row['index']}. {row['entry']['kind']}"
                    + (f" {game.names[row['entry']['seat']]}" if "seat" in row["entry"] else "")
                    + (f": {row['entry']['command']}" if row["entry"].get("command") else "")
                    + (f" ({'; '.join(row['lines'])})" if row["lines"] else "")
                    for row in rows[-40:]]
            elif action in ("template", "invite") and not result.get("error"):
                game = self.round.game(result["game"])
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
        game = self.round.game(game_id)
        summary = self.service.summary(game_id, game=game)
        return {"id": game_id, "title": game.spec.title, "phase": summary["phase"], "over": summary["over"],
                "seats": game.names, "waiting": [w["name"] for w in summary["waiting_for"]],
                "mine": email in game.emails, "url": f"{self.service.settings.base_url}/games/{game_id}"}
