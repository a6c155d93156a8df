"""How much mail one address may get: the outbox's rate limits.

Budgets are counted from the durable mail table (``MailViews.recent``: the rows queued to an
address for a budget in a sliding window), plus what the current round of the follower has
queued, so every gateway sharing the database and every restart sees the same counts
(docs/security.md, "Rate limits are counted from the mail queue")."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from pbem.mailroom.addresses import return_tag
from pbem.mailroom.queue import DROPPED, Mail, MailViews
from pbem.mailroom.settings import MailSettings

INVITATIONS_PER_DAY = 5  # to one address, from anyone: the service address cannot be used to flood
# Replies to a player's own moves at their private address are not held to the hourly limit
# while the game runs; this guard per player and game only stops a runaway loop. Live play is
# far below it (a Kingsburg move by mail every 10 s is 360 an hour).
FLOOD_PER_HOUR = 720
LIVE = "live:"  # budget prefix of those replies: "live:GAME"
NOTICE = "notice:"  # budget prefix of the one "replies resume at ..." notice per limit and hour
log = logging.getLogger("pbem.mail")


def when(moment: datetime | None) -> str | None:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else None


class Limits:
    """The budgets as one follower round counts them (each round has its own)."""

    def __init__(
        self, settings: MailSettings, views: MailViews, now: Callable[[], datetime], secret: Callable[[], bytes]
    ):
        self.settings = settings
        self.views = views
        self.now = now
        self.secret = secret  # the key of the VERP return tags
        self.counted: dict[str, int] = {}  # mails counted against each budget in this round

    def refused(self, key: str, to: str, model: dict[str, Any], budget: str | None, tag: str) -> list[Mail] | None:
        """None when the mail ``key`` to ``to`` is within its budget; else what to queue
        instead: the mail kept as "dropped" (visible in the queue), with, for an hourly
        budget, the one notice saying when replies resume. ``budget`` names the budget:
        "invite" (a day's invitations to one address), "service", "game", "notify", or
        "live:GAME" (answers to a player's own moves: only the flood guard); None: no limit."""
        if not budget:
            return None
        if budget == "invite":  # a day's invitations to one address, from anyone: no notice to send
            if self._over(to, budget, INVITATIONS_PER_DAY, timedelta(days=1)):
                log.warning("invitation limit: dropped %s to %s", key, to)
                return [Mail(key, to, model, budget, DROPPED, tag)]
            return None
        cap = FLOOD_PER_HOUR if budget.startswith(LIVE) else self.settings.replies_per_hour
        if self._over(to, budget, cap):
            log.warning("rate limit: dropped %s to %s (%s budget, %d an hour)", key, to, budget, cap)
            return [Mail(key, to, model, budget, DROPPED, tag), *self._notice(to, budget, model)]
        return None

    def _over(self, to: str, budget: str, cap: int, window: timedelta = timedelta(hours=1)) -> bool:
        counted = f"{to}|{budget}"
        if counted not in self.counted:
            self.counted[counted] = self.views.recent(to, budget, self.now() - window)
        self.counted[counted] += 1
        return self.counted[counted] > cap

    def _notice(self, to: str, budget: str, dropped: dict[str, Any]) -> list[Mail]:
        """The one notice to a sender whose reply a limit dropped: when replies resume (at the
        latest an hour from now, when the oldest counted mail leaves the window). One per
        budget and hour: the notice counts against its own budget "notice:BUDGET"."""
        notice_budget = NOTICE + budget
        counted = f"{to}|{notice_budget}"
        if counted not in self.counted:
            self.counted[counted] = self.views.recent(to, notice_budget, self.now() - timedelta(hours=1))
        if self.counted[counted] > 0:
            return []
        self.counted[counted] = 1
        now = self.now()
        model = {
            "lang": dropped.get("lang", "en"),
            "service": self.settings.address,
            "kind": "limited",
            "game": dropped.get("game"),
            "extra": {
                "resume": when(now + timedelta(hours=1)),
                "resume_time": f"{now + timedelta(hours=1):%H:%M} UTC",
                "per_hour": self.settings.replies_per_hour,
                "live": budget.startswith(LIVE),
            },
            "envelope": dropped["envelope"] | {"attachment": None},
        }
        key = f"limited/{to}/{budget}/{now:%Y%m%dT%H%M%S}"
        return [Mail(key, to, model, notice_budget, return_tag=return_tag(self.secret(), key))]
