"""The aiosmtpd shell: a thin handler around ``Gateway.receive``, over SMTP or LMTP.

RCPT refuses addresses that are not ours (550). DATA answers 250 only after the gateway has
durably stored the result; a store that is down or busy answers 451 so the sending MTA retries.
Any other failure was answered by a reply mail already (``Gateway.receive``); if even that
could not be stored, 554 makes the sending MTA tell its sender (retrying would fail the same
way). Game rejections are never SMTP errors: they are reply mails. The server (``mailgateway.server``)
gives each conversation a thread of its own, so the handler works inline: a mail being read or
stored holds its own conversation only.
"""

from __future__ import annotations

import logging
import ssl
from typing import Any

from aiosmtpd.lmtp import LMTP

from mailgateway.gateway import Gateway
from mailgateway.server import ThreadedServer
from pbem.service.failures import StoreUnavailable

log = logging.getLogger("pbem.mail")


class Handler:
    def __init__(self, gateway: Gateway):
        self.gateway = gateway

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: list[str]) -> str:
        if not self.gateway.accepts(address):
            return "550 5.1.1 No such pbem address"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        raw = envelope.original_content or b""
        try:
            # inline, in this conversation's own thread (mailgateway.server)
            result = self.gateway.receive(raw, envelope.mail_from, list(envelope.rcpt_tos))
        except StoreUnavailable:
            log.exception("could not store a message from %s; asked to try again", envelope.mail_from)
            status = "451 4.3.0 Temporary failure, please try again later"
        except Exception:  # the mail's own answer failed: a permanent problem (RFC 5321, 4.2.1)
            log.exception("could not process or answer a message from %s", envelope.mail_from)
            status = "554 5.3.0 This message could not be processed; please write to the operator"
        else:
            log.info("message from %s: %s", envelope.mail_from, result)
            status = "250 2.0.0 OK"
        if isinstance(server, LMTP):  # LMTP answers once per recipient
            return "\r\n".join([status] * max(1, len(envelope.rcpt_tos)))
        return status

    def close(self) -> None:
        """Returns once no mail is being stored (the server's stop() waits for its conversations)."""
        with self.gateway.storing:
            pass


# Mail over the size limit is still taken, up to this much more, to answer it with a short reply;
# beyond that SMTP refuses it (552). aiosmtpd reads DATA line by line on the conversation's loop:
# 2 MiB of 3-byte lines held a conversation 2 s on a busy machine.
SIZE_MARGIN = 131_072


def smtp_size_limit(max_bytes: int) -> int:
    """The largest message the SMTP/LMTP server accepts (docs/mail.md, "Limits")."""
    return max_bytes + SIZE_MARGIN


def controller(gateway: Gateway, host: str, port: int, lmtp: bool = False) -> ThreadedServer:
    """The server. With ``PBEM_MAIL_TLS_CERT``/``PBEM_MAIL_TLS_KEY`` it offers STARTTLS (not
    required: other MTAs may still deliver in plain text, as on any MX)."""
    handler = Handler(gateway)
    extra: dict[str, Any] = {}  # aiosmtpd keyword arguments
    settings = gateway.settings
    if settings.tls_cert:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(str(settings.tls_cert), str(settings.tls_key) if settings.tls_key else None)
        extra["tls_context"] = context
    return ThreadedServer(
        handler,
        host,
        port,
        lmtp=lmtp,
        data_size_limit=smtp_size_limit(settings.max_bytes),
        idle_seconds=settings.idle_seconds,
        ident="pbem mail gateway",
        **extra,
    )
