"""Delivering queued mail: to the relay ``PBEM_SMTP_RELAY`` (smtplib, with retries and
exponential backoff), or into a maildir under ``PBEM_HOME`` when no relay is set.

Each mail is claimed by one sender (``pbem.mailroom.queue``). A crash after the relay accepted
a mail and before it was marked sent sends it once more when the claim runs out, with the same
Message-ID, so clients show it once. A maildir delivery writes a file named after the mail's
key, so a repeat overwrites itself.

One mail never stops the others: whatever a mail's sending raises besides a temporary failure
of the relay (an address the relay cannot take, a bug) makes it a dead letter with the error,
and the round goes on. International addresses travel with their domain in IDNA; a non-ASCII
local part needs SMTPUTF8, used only when the relay offers it (else the mail is a dead letter).
"""

from __future__ import annotations

import hashlib
import logging
import os
import smtplib
import socket
import ssl
import threading
import uuid
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from jinja2 import TemplateError

from mailgateway import compose
from pbem.logs import log_mail
from pbem.mailroom.queue import DEAD, QUEUED, SENT, MailViews, QueuedMail, Settled
from pbem.mailroom.settings import MailSettings
from pbem.service.failures import store_down
from pbem.service.inputs import ascii_domain, printable

log = logging.getLogger("pbem.mail")
# How long a claim holds a mail: longer than one relay conversation (30 s timeout), so only a
# sender that died lets its mail go to another one.
LEASE_SECONDS = 300
BATCH = 50  # mails a sender claims at a time
SHARED_BATCH = 16  # ... when the senders of several gateway processes are woken for the same mail


class TemporaryFailure(Exception):
    pass


class PermanentFailure(Exception):
    pass


class Transport(Protocol):
    def send(self, key: str, to: str, message: bytes) -> None: ...


class MaildirTransport:
    def __init__(self, path: Path):
        self.path = Path(path)

    def send(self, key: str, to: str, message: bytes) -> None:
        for sub in ("tmp", "new", "cur"):
            (self.path / sub).mkdir(mode=0o700, parents=True, exist_ok=True)
        name = hashlib.sha256(key.encode()).hexdigest()[:40] + ".eml"
        tmp = self.path / "tmp" / name
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # mail holds seat tokens
            with os.fdopen(fd, "wb") as file:
                file.write(message)
            os.replace(tmp, self.path / "new" / name)
        except OSError as error:  # a full or read-only disk: tried again later
            raise TemporaryFailure(f"{type(error).__name__}: {error}") from error


class RelayTransport:
    """SMTP to a relay, over up to ``connections`` conversations at once (the sender's lanes),
    each kept open for the mails of a sender round (``close`` after it). The envelope sender is
    a VERP return path per mail (``pbem+bounce=TAG@domain``, given by ``return_path``): a
    bounce names the mail it is about, the gateway marks that address undeliverable and never
    answers the bounce. Without ``return_path`` the envelope sender is null (RFC 3834 section
    3.3)."""

    def __init__(
        self,
        host: str,
        port: int,
        timeout: float = 30.0,
        starttls: bool = False,
        user: str | None = None,
        password: str | None = None,
        return_path: Callable[[str], str] | None = None,
        connections: int = 1,
    ):
        self.host, self.port, self.timeout = host, port, timeout
        self.starttls, self.user, self.password = starttls, user, password
        self.return_path = return_path
        self.connections = connections
        self._idle: list[smtplib.SMTP] = []  # open conversations no lane uses now
        self._lock = threading.Lock()

    def send(self, key: str, to: str, message: bytes) -> None:
        recipient = smtp_address(to)
        try:
            self._deliver(key, recipient, message)
        except smtplib.SMTPRecipientsRefused as error:
            codes = [code for code, _ in error.recipients.values()]
            if all(code >= 500 for code in codes):
                raise PermanentFailure(str(error)) from error
            raise TemporaryFailure(str(error)) from error
        except smtplib.SMTPResponseException as error:
            if error.smtp_code >= 500:
                raise PermanentFailure(f"{error.smtp_code} {error.smtp_error!r}") from error
            raise TemporaryFailure(f"{error.smtp_code} {error.smtp_error!r}") from error
        except (TimeoutError, smtplib.SMTPException, OSError) as error:
            raise TemporaryFailure(str(error) or type(error).__name__) from error

    def _deliver(self, key: str, recipient: str, message: bytes) -> None:
        """Over an open conversation when there is one (a relay that closed it meanwhile gets a
        new one, once), else a new one; a conversation that failed is dropped."""
        smtp, kept = self._take()
        try:
            self._sendmail(smtp, key, recipient, message)
        except smtplib.SMTPServerDisconnected:
            _quit(smtp)
            if not kept:
                raise
        except Exception:
            _quit(smtp)
            raise
        else:
            self._give(smtp)
            return
        smtp = self._connect()
        try:
            self._sendmail(smtp, key, recipient, message)
        except Exception:
            _quit(smtp)
            raise
        self._give(smtp)

    def _take(self) -> tuple[smtplib.SMTP, bool]:
        """An idle open conversation (True), else a new one (False)."""
        with self._lock:
            if self._idle:
                return self._idle.pop(), True
        return self._connect(), False

    def _give(self, smtp: smtplib.SMTP) -> None:
        with self._lock:
            self._idle.append(smtp)

    def _connect(self) -> smtplib.SMTP:
        smtp = smtplib.SMTP(self.host, self.port, timeout=self.timeout)
        try:
            if self.starttls:
                smtp.starttls(context=ssl.create_default_context())
            if self.user:
                smtp.login(self.user, self.password or "")
            smtp.ehlo_or_helo_if_needed()
        except Exception:
            smtp.close()
            raise
        return smtp

    def _sendmail(self, smtp: smtplib.SMTP, key: str, recipient: str, message: bytes) -> None:
        options = []
        if not recipient.isascii():
            if not smtp.has_extn("smtputf8"):
                raise PermanentFailure(f"the relay does not offer SMTPUTF8, which {recipient!r} needs")
            options.append("SMTPUTF8")
        smtp.sendmail(self.return_path(key) if self.return_path else "", [recipient], message, options)

    def close(self) -> None:
        """End the conversations (after a round: a relay drops idle connections anyway)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for smtp in idle:
            _quit(smtp)


def _quit(smtp: smtplib.SMTP) -> None:
    try:
        smtp.quit()
    except (smtplib.SMTPException, OSError):
        smtp.close()


def smtp_address(address: str) -> str:
    """``address`` as it goes into the envelope: its domain in IDNA A-labels (``PermanentFailure``
    when it has none; the desk refuses such addresses, but older records may hold one)."""
    local, _, domain = address.rpartition("@")
    encoded = ascii_domain(domain)
    if encoded is None:
        raise PermanentFailure(f"{address!r} has no valid international domain name")
    return f"{local}@{encoded}"


COMPOSING_ERRORS = (TemplateError, KeyError, TypeError, ValueError, AttributeError, IndexError, LookupError)


def compose_mail(mail: QueuedMail) -> bytes:
    """The message's bytes from its queued model; the same mail always gets the same
    Message-ID and Date, so a repeated send folds into one in the player's client."""
    envelope = mail.model.get("envelope") or {}
    return compose.build(
        mail.model,
        mail.key,
        mail.to,
        envelope.get("sender") or mail.model.get("service", ""),
        mail.created,
        envelope.get("in_reply_to"),
        tuple(envelope.get("references") or ()),
        envelope.get("attachment"),
        envelope.get("thread"),
    )


class Sender:
    """Sends what the mailroom queued. Each round claims the due mails (a lease, so exactly
    one gateway process holds each), composes, hands them to the transport and records what
    became of each: sent, deferred with exponential backoff, or dead (kept, with the error,
    for ``pbem mail-dead``).

    A claimed batch goes out over up to ``lanes`` relay conversations at once (the transport's
    ``connections``; a maildir or a test's transport has one): a lane holds every mail of its
    recipients, in the order claimed, and sends each after the relay took the one before (over
    whichever of the open conversations is free), so one player's mails keep their order. What became of
    the batch is recorded in one transaction after it (a crash before that sends the batch's
    mails once more when their claim runs out, with the same Message-IDs, as for one mail)."""

    def __init__(self, views: MailViews, settings: Any, transport: Transport, clock: Any):
        self.views = views
        self.settings = settings
        self.transport = transport
        self.clock = clock
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.lanes = max(1, int(getattr(transport, "connections", 1)))
        self.batch = BATCH
        # the lanes' threads live as long as the sender: a thread keeps its picture renderer
        self.pool = ThreadPoolExecutor(self.lanes, thread_name_prefix="pbem-mail-lane") if self.lanes > 1 else None

    def backoff(self, attempts: int) -> timedelta:
        return timedelta(seconds=self.settings.retry_seconds * (2 ** min(attempts, 10)))

    def send_due(self, now: datetime | None = None, limit: int | None = None) -> int:
        """Claim and try every due mail once, ``limit`` (default ``batch``) at a time; returns
        how many were delivered."""
        now = now or self.clock()
        limit = limit or self.batch
        lease = now + timedelta(seconds=LEASE_SECONDS)
        delivered = 0
        try:
            while True:
                claimed = self.views.claim(self.owner, now, lease, limit)
                delivered += self._batch(claimed, now)
                if len(claimed) < limit:
                    return delivered
        finally:
            close = getattr(self.transport, "close", None)  # a relay's conversations end with the round
            if close is not None:
                close()

    def _batch(self, claimed: list[QueuedMail], now: datetime) -> int:
        """Send a claimed batch over the lanes, then settle it in one transaction."""
        lanes: list[list[QueuedMail]] = [[] for _ in range(min(self.lanes, len(claimed)))]
        for mail in claimed:
            lanes[zlib.crc32(mail.to.encode("utf-8", "replace")) % len(lanes)].append(mail)
        if self.pool is not None and len(lanes) > 1:
            settled = [item for lane in self.pool.map(self._lane, lanes, [now] * len(lanes)) for item in lane]
        else:
            settled = [item for lane in lanes for item in self._lane(lane, now)]
        lost = set(self.views.settle_all([item for _, item in settled], self.owner, now))
        for mail, item in settled:
            self._record(mail, item, item.key in lost)
        return sum(1 for _, item in settled if item.status == SENT)

    def _lane(self, mails: list[QueuedMail], now: datetime) -> list[tuple[QueuedMail, Settled]]:
        return [(mail, self._isolated(mail, now)) for mail in mails]

    def _isolated(self, mail: QueuedMail, now: datetime) -> Settled:
        """Send one mail; whatever else it raises makes it a dead letter."""
        try:
            return self._send(mail, now)
        except Exception as error:
            if store_down(error):
                raise
            log.error("mail %s to %s could not be sent: %r", mail.key, mail.to, error, exc_info=True)
            return self._outcome(mail, DEAD, f"sending: {type(error).__name__}: {error}")

    def _send(self, mail: QueuedMail, now: datetime) -> Settled:
        try:
            message = compose_mail(mail)
        except COMPOSING_ERRORS as error:
            log.error("mail %s to %s could not be composed: %r", mail.key, mail.to, error, exc_info=True)
            return self._outcome(mail, DEAD, f"composing: {type(error).__name__}: {error}")
        try:
            self.transport.send(mail.key, mail.to, message)
        except PermanentFailure as error:
            return self._outcome(mail, DEAD, str(error))
        except TemporaryFailure as error:
            if mail.attempts + 1 >= self.settings.send_attempts:
                return self._outcome(mail, DEAD, str(error))
            return self._outcome(mail, QUEUED, str(error), now + self.backoff(mail.attempts))
        return self._outcome(mail, SENT)

    @staticmethod
    def _outcome(mail: QueuedMail, status: str, error: str | None = None, next_try: datetime | None = None) -> Settled:
        error = printable(error) if error else error  # a relay's or a bug's words may hold a NUL
        return Settled(mail.key, status, error, next_try)

    @staticmethod
    def _record(mail: QueuedMail, settled: Settled, lost: bool) -> None:
        if lost:
            log.warning("mail %s: the claim ran out before it was settled", mail.key)
        if settled.status == DEAD:
            log.error("mail %s to %s is a dead letter: %s", mail.key, mail.to, settled.error)
        outcome = {QUEUED: "deferred", SENT: "sent", DEAD: "failed"}[settled.status]
        log_mail(mail.key, outcome, attempts=mail.attempts + 1)


def transport_for(settings: MailSettings, return_path: Callable[[str], str] | None = None) -> Transport:
    if settings.relay:
        return RelayTransport(
            *settings.relay,
            starttls=settings.relay_starttls,
            user=settings.relay_user,
            password=settings.relay_password,
            return_path=return_path,
            connections=settings.relay_connections,
        )
    if settings.maildir is None:
        raise ValueError("outgoing mail needs a relay (PBEM_SMTP_RELAY) or a maildir")
    return MaildirTransport(settings.maildir)
