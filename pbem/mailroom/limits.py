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

INVITATIONS_PER_DAY = 5  # to one address that never wrote, from all inviters who never showed who they are
INVITATIONS_PER_INVITER = 3  # to one address that never wrote, from one inviter, a day
INVITE = "invite:"  # budget of invitations from a verified inviter: "invite:INVITER"
INVITE_UNVERIFIED = "invite?:"  # from an inviter who never showed who they are: "invite?:INVITER"
# Replies to a player's own moves at their private address are not held to the hourly limit
# while the game runs; the flood guard per player and game (``MailSettings.flood_per_hour``,
# PBEM_MAIL_FLOOD_PER_HOUR, default 720) only stops a runaway loop. Live play is far below it
# (a Kingsburg move by mail every 10 s is 360 an hour).
LIVE = "live:"  # budget prefix of those replies: "live:GAME"
NOTICE = "notice:"  # budget prefix of the one "replies resume at ..." notice per limit and hour
# The loop brake: answers to mails in which nothing was read as a command, per address and hour.
# A person who wrote no command needs one answer; an auto-responder without any automatic-mail
# marker answers every reply with another such mail, and would otherwise loop at the flood
# guard's pace. No "replies paused" notice either: the responder would answer that too.
NOTHING = "nothing"
NOTHING_PER_HOUR = 5
STRANGERS = "*strangers"  # the round's count of mail to addresses that never wrote
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

    def refused(
        self, key: str, to: str, model: dict[str, Any], budget: str | None, tag: str, stranger: bool = False
    ) -> list[Mail] | None:
        """None when the mail ``key`` to ``to`` is within its budget; else what to queue
        instead: the mail kept as "dropped" (visible in the queue), with, for an hourly
        budget, the one notice saying when replies resume.
        ``budget`` names the budget: "invite:INVITER" or "invite?:INVITER" (a day's
        invitations to one address, see ``_invitation_over``), "service", "game", "notify",
        or "live:GAME" (answers to a player's own moves: only the flood guard); None: no
        limit. A ``stranger`` (an address that never wrote) also counts against the hourly
        cap of all mail to strangers, so forged mail in invented names cannot make the
        service mail the world."""
        if not budget:
            return None
        if budget.startswith((INVITE, INVITE_UNVERIFIED)):  # no notice to send: the invited never asked
            if self._invitation_over(to, budget):
                log.warning("invitation limit: dropped %s to %s", key, to)
                return [Mail(key, to, model, budget, DROPPED, tag)]
        elif budget == NOTHING:
            if self._over(to, budget, NOTHING_PER_HOUR):
                log.warning(
                    "loop brake: dropped %s to %s (%d answers an hour to mail without a command)",
                    key,
                    to,
                    NOTHING_PER_HOUR,
                )
                return [Mail(key, to, model, budget, DROPPED, tag)]
        else:
            cap = self.settings.flood_per_hour if budget.startswith(LIVE) else self.settings.replies_per_hour
            if self._over(to, budget, cap):
                log.warning("rate limit: dropped %s to %s (%s budget, %d an hour)", key, to, budget, cap)
                return [Mail(key, to, model, budget, DROPPED, tag), *self._notice(to, budget, model, stranger)]
        if stranger and self._strangers_over():
            cap = self.settings.strangers_per_hour
            log.warning(
                "stranger limit: dropped %s to %s (%d mails an hour to addresses that never wrote)", key, to, cap
            )
            return [Mail(key, to, model, budget, DROPPED, tag)]
        return None

    def _invitation_over(self, to: str, budget: str) -> bool:
        """Invitations to one address that never wrote: at most ``INVITATIONS_PER_INVITER`` a
        day from one inviter, and from inviters who never showed who they are (whose From
        anyone can forge) at most ``INVITATIONS_PER_DAY`` a day in all, so junk invitations
        in invented names cannot use up the invitations a real friend sends."""
        day = timedelta(days=1)
        if self._over(to, budget, INVITATIONS_PER_INVITER, day):
            return True
        return budget.startswith(INVITE_UNVERIFIED) and self._over(to, INVITE_UNVERIFIED, INVITATIONS_PER_DAY, day)

    def _over(self, to: str, budget: str, cap: int, window: timedelta = timedelta(hours=1)) -> bool:
        """Count one more mail in ``budget`` to ``to`` (a name ending in ":" counts every
        budget it starts)."""
        counted = f"{to}|{budget}"
        if counted not in self.counted:
            prefix = budget.endswith(":")
            self.counted[counted] = self.views.recent(to, budget, self.now() - window, prefix=prefix)
        self.counted[counted] += 1
        return self.counted[counted] > cap

    def _strangers_over(self) -> bool:
        """Count one more mail to an address that never wrote, against the hourly cap of all such."""
        if STRANGERS not in self.counted:
            self.counted[STRANGERS] = self.views.to_strangers(self.now() - timedelta(hours=1))
        self.counted[STRANGERS] += 1
        return self.counted[STRANGERS] > self.settings.strangers_per_hour

    def _notice(self, to: str, budget: str, dropped: dict[str, Any], stranger: bool) -> list[Mail]:
        """The one notice to a sender whose reply a limit dropped: when replies resume (at the
        latest an hour from now, when the oldest counted mail leaves the window). One per
        budget and hour: the notice counts against its own budget "notice:BUDGET", and, to
        an address that never wrote, against the hourly cap of mail to strangers."""
        notice_budget = NOTICE + budget
        counted = f"{to}|{notice_budget}"
        if counted not in self.counted:
            self.counted[counted] = self.views.recent(to, notice_budget, self.now() - timedelta(hours=1))
        if self.counted[counted] > 0 or (stranger and self._strangers_over()):
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
        return [Mail(key, to, model, notice_budget, return_tag=return_tag(self.secret(), key), stranger=stranger)]
