"""Delivering queued mail: to the relay ``PBEM_SMTP_RELAY`` (smtplib, with retries and
exponential backoff), or into a maildir under ``PBEM_HOME`` when no relay is set.

Delivery is at least once: a crash after the relay accepted a mail and before ``Sent`` was
stored sends it again, with the same Message-ID, so clients show it once. A maildir
delivery writes a file named after the mail's key, so a repeat overwrites itself.
"""

from __future__ import annotations

import hashlib
import os
import smtplib
import socket
import ssl
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from eventsourcing.persistence import RecordConflictError

from mailgateway.outbox import topic
from mailgateway.records import Outgoing
from pbem.logs import log_mail


class TemporaryFailure(Exception):
    pass


class PermanentFailure(Exception):
    pass


class Transport(Protocol):
    def send(self, key: str, to: str, message: bytes) -> None:
        ...


class MaildirTransport:
    def __init__(self, path: Path):
        self.path = Path(path)

    def send(self, key: str, to: str, message: bytes) -> None:
        for sub in ("tmp", "new", "cur"):
            (self.path / sub).mkdir(parents=True, exist_ok=True)
        name = hashlib.sha256(key.encode()).hexdigest()[:40] + ".eml"
        tmp = self.path / "tmp" / name
        tmp.write_bytes(message)
        os.replace(tmp, self.path / "new" / name)


class RelayTransport:
    """SMTP to a relay. The envelope sender is null (RFC 3834 section 3.3): bounces of our
    automatic mail never come back to be answered."""

    def __init__(self, host: str, port: int, timeout: float = 30.0, starttls: bool = False,
                 user: str | None = None, password: str | None = None):
        self.host, self.port, self.timeout = host, port, timeout
        self.starttls, self.user, self.password = starttls, user, password

    def send(self, key: str, to: str, message: bytes) -> None:
        try:
            with smtplib.SMTP(self.host, self.port, timeout=self.timeout) as smtp:
                if self.starttls:
                    smtp.starttls(context=ssl.create_default_context())
                if self.user:
                    smtp.login(self.user, self.password or "")
                smtp.sendmail("", [to], message)
        except smtplib.SMTPRecipientsRefused as error:
            codes = [code for code, _ in error.recipients.values()]
            if all(code >= 500 for code in codes):
                raise PermanentFailure(str(error)) from error
            raise TemporaryFailure(str(error)) from error
        except smtplib.SMTPResponseException as error:
            if error.smtp_code >= 500:
                raise PermanentFailure(f"{error.smtp_code} {error.smtp_error!r}") from error
            raise TemporaryFailure(f"{error.smtp_code} {error.smtp_error!r}") from error
        except (smtplib.SMTPException, OSError, socket.timeout) as error:
            raise TemporaryFailure(str(error) or type(error).__name__) from error


QUEUED = topic(Outgoing.Queued)


class Sender:
    """Sends what the outbox queued. Finds queued mail through the notification log; the
    scan position is kept in memory and restarts from the beginning of the log on start,
    which is cheap (a topic-filtered scan) and never misses a mail."""

    def __init__(self, gateway: Any, transport: Transport):
        self.gateway = gateway
        self.store = gateway.service.store
        self.settings = gateway.settings
        self.transport = transport
        self.position = 0
        self.pending: dict[Any, None] = {}

    def scan(self) -> None:
        while True:
            page = self.store.notification_log.select(self.position + 1, self.store.log_section_size, topics=[QUEUED])
            for notification in page:
                self.pending[notification.originator_id] = None
                self.position = notification.id
            if len(page) < self.store.log_section_size:
                return

    def backoff(self, attempts: int) -> timedelta:
        return timedelta(seconds=self.settings.retry_seconds * (2 ** min(attempts, 10)))

    def send_due(self, now: datetime | None = None) -> int:
        """Try every due mail once; returns how many were delivered."""
        now = now or self.gateway.clock()
        self.scan()
        delivered = 0
        for aggregate_id in list(self.pending):
            mail: Outgoing | None = self.gateway.get(aggregate_id)
            if mail is None or mail.status != "queued":
                self.pending.pop(aggregate_id, None)
                continue
            if datetime.fromisoformat(mail.next_try) > now:
                continue
            try:
                self.transport.send(mail.key, mail.to, mail.message.encode("utf-8", "surrogateescape"))
            except PermanentFailure as error:
                mail.failed(now.isoformat(), str(error))
            except TemporaryFailure as error:
                if mail.attempts + 1 >= self.settings.send_attempts:
                    mail.failed(now.isoformat(), str(error))
                else:
                    mail.deferred(now.isoformat(), (now + self.backoff(mail.attempts)).isoformat(), str(error))
            else:
                mail.sent(now.isoformat())
                delivered += 1
            try:
                self.store.save(mail)
            except RecordConflictError:  # another gateway process handled it meanwhile
                continue
            log_mail(mail.key, mail.status if mail.status != "queued" else "deferred", attempts=mail.attempts)
            if mail.status != "queued":
                self.pending.pop(aggregate_id, None)
        return delivered


def transport_for(settings: Any) -> Transport:
    if settings.relay:
        return RelayTransport(*settings.relay, starttls=settings.relay_starttls, user=settings.relay_user,
                              password=settings.relay_password)
    return MaildirTransport(settings.maildir)
