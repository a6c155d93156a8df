"""The gateway: raw mail in, parsed, handed to the message port, answered.

``Gateway.receive(raw, envelope_from, envelope_to)`` parses the message (bounded), checks DKIM
when configured, and calls ``MailDesk.handle`` — one transaction that stores the mail's whole
effect and its reply intent. When ``receive`` returns, that is durably stored: only then may
the SMTP server say 250. An exception means "try again later" (451, or exit 75).

Several SMTP conversations may call ``receive`` at once (each has its own thread,
``mailgateway.server``): reading a mail and its DKIM look-ups run side by side, while the part
that reaches the service (a bounce's mark, the port's transaction) runs for one mail at a time,
as the service's per-process caches expect of a writer.

``work()`` is one round of the background work: the mailroom follower queues the mails that new
events call for, due timers fire, and the sender delivers. Nothing here touches the store.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import Any

from mailgateway.auth import dkim_aligned
from mailgateway.parse import Inbound, parse_message
from mailgateway.sender import Sender, Transport, transport_for
from pbem.logs import log_mail
from pbem.mailroom.addresses import Target, chosen, parse_target, return_path, return_tag
from pbem.mailroom.deadlines import utcnow
from pbem.mailroom.desk import TEMPORARY, Letter, MailDesk
from pbem.mailroom.followers import Mailroom
from pbem.mailroom.settings import MailSettings
from pbem.service.service import GameService
from pbem.service.wakeup import Wakeup

log = logging.getLogger("pbem.mail")
INTERNAL_ERROR = (
    "This mail could not be processed because of an error in the server (it is logged for the "
    "operator); nothing was applied. Please try again later or in other words."
)


class Gateway:
    def __init__(
        self,
        service: GameService,
        settings: MailSettings | None = None,
        clock: Callable[[], datetime] = utcnow,
        dnsfunc: Callable[..., Any] | None = None,
        transport: Transport | None = None,
    ):
        self.service = service
        self.settings = settings or MailSettings.from_env(service.settings.home)
        self.clock = clock
        self.dnsfunc = dnsfunc
        self.desk = MailDesk(service, self.settings, clock)
        self.storing = threading.Lock()  # one mail at a time reaches the service
        self.mailroom = Mailroom(service, self.settings, clock)
        secret = service.keys.token_secret()
        bounces = partial(_return_path, self.settings.address, secret)
        self.sender = Sender(
            self.mailroom.views, self.settings, transport or transport_for(self.settings, bounces), clock
        )

    def accepts(self, address: str) -> bool:
        return self._target(address) is not None

    def _target(self, address: str) -> Target | None:
        return parse_target(address, self.settings.address)

    def commits(self) -> Wakeup:
        """What wakes the worker: rung after every commit to the store (``GameService.commits``)."""
        return self.service.commits()

    def next_due(self) -> datetime | None:
        """When the earliest timer or deferred mail comes due (None: nothing waits)."""
        return self.mailroom.next_due()

    def work(self, now: datetime | None = None) -> None:
        """One round of background work: queue replies, run deadlines, send."""
        self.mailroom.follow()
        if self.mailroom.fire(now):
            self.mailroom.follow()
        self.sender.send_due(now)

    def receive(
        self, raw: bytes, envelope_from: str | None = None, envelope_to: tuple[str, ...] | list[str] = ()
    ) -> str:
        """Process one message; returns "processed", "duplicate", "ignored" or "bounce"."""
        try:
            inbound = parse_message(
                raw, envelope_from, tuple(envelope_to), self.settings.address, self.settings.max_bytes
            )
        except Exception:  # a message the email package cannot read at all: retrying cannot help
            log.exception("ignored an unreadable message from %s", envelope_from)
            return "ignored"
        targets = [self._target(recipient) for recipient in inbound.recipients]  # parsed once, asked twice
        bounce = next((t.bounce for t in targets if t and t.bounce), None)
        if bounce:  # a bounce of one of our mails: marks its address, is never answered
            with self.storing:
                address = self.mailroom.views.bounced(bounce, self.clock())
            log.warning("bounce for %s: %s marked undeliverable", bounce, address or "(no such mail)")
            return "bounce"
        if inbound.auto:
            log.info("ignored %s: %s", inbound.key, inbound.auto)
            return "ignored"
        target = chosen(targets)
        if target is None:
            log.info("ignored %s: not addressed to us", inbound.key)
            return "ignored"
        letter = replace(self.letter(inbound, raw, target.game_id, target.token), conversation=target.conversation)
        with self.storing:
            status = self._handle(letter)
        log_mail(inbound.key, status, target.game_id)
        return status

    def _handle(self, letter: Letter) -> str:
        try:
            return self.desk.handle(letter)
        except TEMPORARY:
            raise  # the store is down or busy: the MTA delivers again later
        except Exception:  # a mail's content hit a bug: answer it, never ask for the same mail again
            log.exception("mail %s could not be processed; answered with an error", letter.key)
            return self.desk.handle(replace(letter, lines=(), turn_file=None, refusal=INTERNAL_ERROR))

    def letter(self, inbound: Inbound, raw: bytes, game_id: str | None, token: str | None) -> Letter:
        dkim = None
        if self.settings.dkim != "off" and game_id is not None:
            dkim = dkim_aligned(raw, inbound.sender, self.dnsfunc)
        return Letter(
            key=inbound.key,
            sender=inbound.sender,
            game_id=game_id,
            token=token,
            lines=inbound.lines,
            paragraphs=inbound.paragraphs,
            turn_file=inbound.turn_file,
            subject=inbound.subject,
            closing_at=inbound.closing_at,
            unread=inbound.unread,
            footers=inbound.footers,
            attachments=inbound.unread_attachments,
            message_id=inbound.message_id,
            references=inbound.references,
            dkim=dkim,
            too_large=inbound.too_large,
            fingerprint=inbound.fingerprint,
            size=inbound.size,
            refusal=inbound.refusal,
        )


def _return_path(service_address: str, secret: bytes, key: str) -> str:
    return return_path(service_address, return_tag(secret, key))
