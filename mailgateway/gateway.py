"""The gateway: raw mail in, parsed, handed to the message port, answered.

``Gateway.receive(raw, envelope_from, envelope_to)`` parses the message (bounded), checks DKIM
when configured, and calls ``MailDesk.handle`` — one transaction that stores the mail's whole
effect and its reply intent. When ``receive`` returns, that is durably stored: only then may
the SMTP server say 250. ``StoreUnavailable`` (the store is down or busy) is the one "try again
later" (451, or exit 75): any other failure a mail causes, in the parser or at the desk, is
answered with the internal-error text and never asked for again (``pbem.service.failures``).

Several SMTP conversations may call ``receive`` at once (each has its own thread,
``mailgateway.server``): reading a mail and its DKIM look-ups run side by side, while the part
that reaches the service (a bounce's mark, the port's transaction) runs for one mail at a time,
as the service's per-process caches expect of a writer.

``work()`` is one round of the background work: the mailroom follower queues the mails that new
events call for, due timers fire, and the sender delivers. Each stage runs even when another
one failed for a reason other than the store; nothing here touches the store.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import Any

from mailgateway.auth import dkim_aligned
from mailgateway.bounces import permanent_failure
from mailgateway.parse import ADDR_SPEC, MAX_ADDRESS, Inbound, parse_message
from mailgateway.sender import SHARED_BATCH, Sender, Transport, transport_for
from pbem.logs import log_mail
from pbem.mailroom.addresses import Target, chosen, parse_target, return_path, return_tag
from pbem.mailroom.deadlines import utcnow
from pbem.mailroom.desk import Letter, MailDesk
from pbem.mailroom.followers import Mailroom
from pbem.mailroom.queue import OUTBOX_CHANNEL
from pbem.mailroom.settings import MailSettings
from pbem.service.failures import StoreUnavailable, store_down, translated
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
        self.outbox = Wakeup()  # rung when this process queued mail: its sender starts at once
        self.mailroom.stored = self.outbox.ring
        secret = service.keys.token_secret()
        bounces = partial(_return_path, self.settings.address, secret)
        self.sender = Sender(
            self.mailroom.views, self.settings, transport or transport_for(self.settings, bounces), clock
        )

    def accepts(self, address: str) -> bool:
        return self._target(address) is not None

    def _target(self, address: str) -> Target | None:
        return parse_target(address, self.settings.address)

    def listen_outbox(self) -> None:
        """From now on, mail that other gateway processes queue wakes this one's sender too
        (PostgreSQL ``NOTIFY``, ``MailViews.notify``; on SQLite one process follows at a
        time and wakes its own). The senders then claim ``SHARED_BATCH`` mails at a time, so
        that they share a burst instead of the first one taking it all."""
        if not self.outbox.listening() and self.service.listen_to(self.outbox, OUTBOX_CHANNEL):
            self.sender.batch = SHARED_BATCH

    def commits(self) -> Wakeup:
        """What wakes the worker: rung after every commit to the store (``GameService.commits``)."""
        return self.service.commits()

    def next_due(self) -> datetime | None:
        """When the earliest timer or deferred mail comes due (None: nothing waits)."""
        return self.mailroom.next_due()

    def work(self, now: datetime | None = None) -> None:
        """One round of background work: queue replies, run deadlines, send. A stage that fails
        for a reason other than the store is logged and the next stage still runs (the follower
        and the timers isolate their items themselves; this is the backstop)."""
        self.queue_round(now)
        self.send_round(now)

    def queue_round(self, now: datetime | None = None) -> int:
        """The follower and the timers: the mails that new events and due timers call for are
        queued (``outbox`` is rung after each stored page, so a sender waiting on it starts)."""
        queued = self._stage("follower", self.mailroom.follow)
        fired = self._stage("timers", lambda: self.mailroom.fire(now))
        if fired:
            self.outbox.ring()
            queued += self._stage("follower", self.mailroom.follow)
        return queued + fired

    def send_round(self, now: datetime | None = None) -> int:
        return self._stage("sender", lambda: self.sender.send_due(now))

    @staticmethod
    def _stage(name: str, run: Callable[[], int]) -> int:
        try:
            with translated():
                return run()
        except StoreUnavailable:
            raise  # every stage needs the store: the round ends, the next one tries again
        except Exception:
            log.exception("mail worker: the %s failed; the other stages run", name)
            return 0

    def receive(
        self, raw: bytes, envelope_from: str | None = None, envelope_to: tuple[str, ...] | list[str] = ()
    ) -> str:
        """Process one message; returns "processed", "duplicate", "ignored" or "bounce". Raises
        ``StoreUnavailable`` only: the MTA delivers again later."""
        with translated():
            return self._receive(raw, envelope_from, envelope_to)

    def _receive(self, raw: bytes, envelope_from: str | None, envelope_to: tuple[str, ...] | list[str]) -> str:
        try:
            inbound = parse_message(
                raw, envelope_from, tuple(envelope_to), self.settings.address, self.settings.max_bytes
            )
        except Exception:  # the parser crashed on this mail: retrying cannot help, answering can
            log.exception("a message from %s could not be read; answered with an error", envelope_from)
            return self._unreadable(raw, envelope_from, envelope_to)
        targets = [self._target(recipient) for recipient in inbound.recipients]  # parsed once, asked twice
        bounce = next((t.bounce for t in targets if t and t.bounce), None)
        if bounce:  # a bounce of one of our mails: counted, is never answered
            permanent = permanent_failure(raw)
            with self.storing:
                address, marked = self.mailroom.views.bounced(bounce, self.clock(), permanent)
            log.warning(
                "bounce for %s (%s): %s%s",
                bounce,
                "permanent" if permanent else "temporary",
                address or "(no mail we sent)",
                " marked undeliverable" if marked else "",
            )
            return "bounce"
        if inbound.auto:
            log.info("ignored %s: %s", inbound.key, inbound.auto)
            return "ignored"
        target = chosen(targets)
        if target is None:
            log.info("ignored %s: not addressed to us", inbound.key)
            return "ignored"
        letter = self.letter(inbound, raw, target.game_id, target.token, target.conversation)
        with self.storing:
            status = self._handle(letter)
        log_mail(inbound.key, status, target.game_id)
        return status

    def _handle(self, letter: Letter) -> str:
        try:
            return self.desk.handle(letter)
        except Exception as error:
            if store_down(error):
                raise  # the store is down or busy: the MTA delivers again later
            # a mail's content hit a bug: answer it, never ask for the same mail again
            log.exception("mail %s could not be processed; answered with an error", letter.key)
            return self.desk.handle(replace(letter, lines=(), turn_file=None, refusal=INTERNAL_ERROR))

    def _unreadable(self, raw: bytes, envelope_from: str | None, envelope_to: tuple[str, ...] | list[str]) -> str:
        """A mail the parser crashed on: the internal-error text to its envelope sender (the
        only address read without the parser), keyed by its bytes so a repeat is a duplicate.
        A null or unusable envelope sender (bounces, automatic mail) is answered by nobody."""
        sender = (envelope_from or "").strip().strip("<>").lower()
        if not sender or not ADDR_SPEC.match(sender) or len(sender) > MAX_ADDRESS:
            return "ignored"
        target = chosen([self._target(recipient) for recipient in envelope_to])
        letter = Letter(
            key="unreadable/" + hashlib.sha256(raw).hexdigest()[:40],
            sender=sender,
            game_id=target.game_id if target else None,
            token=target.token if target else None,
            refusal=INTERNAL_ERROR,
            fingerprint=hashlib.sha256(raw).hexdigest(),
        )
        with self.storing:
            return self.desk.handle(letter)

    def letter(
        self, inbound: Inbound, raw: bytes, game_id: str | None, token: str | None, conversation: str | None = None
    ) -> Letter:
        dkim = None
        if self.settings.dkim != "off":  # at the service address too: a signed From is a verified one
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
            sender_name=inbound.sender_name,
            too_large=inbound.too_large,
            fingerprint=inbound.fingerprint,
            size=inbound.size,
            refusal=inbound.refusal,
            conversation=conversation,
        )


def _return_path(service_address: str, secret: bytes, key: str) -> str:
    return return_path(service_address, return_tag(secret, key))
