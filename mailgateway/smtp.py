"""The aiosmtpd shell: a thin handler around ``Gateway.receive``, over SMTP or LMTP.

RCPT refuses addresses that are not ours (550). DATA answers 250 only after the gateway has
durably stored the result; any failure answers 451 so the sending MTA retries. Game
rejections are never SMTP errors: they are reply mails.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import ssl
import threading
from collections.abc import Callable
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP

from mailgateway.gateway import Gateway

log = logging.getLogger("pbem.mail")


class MailThread:
    """One worker thread that runs jobs one after another, off the event loop. It does what
    ``loop.run_in_executor`` with a one-thread pool does (exceptions reach the awaiting
    coroutine, ``close`` waits for the job at hand), with a plain queue and one
    ``call_soon_threadsafe`` per job instead of the pool's and asyncio's two futures chained
    by callbacks: the hand-off is paid on every mail. A daemon thread, as nothing else keeps
    it: an interpreter that exits without ``close`` leaves a mail in progress uncommitted,
    and so unanswered (the sending MTA delivers it again)."""

    def __init__(self, name: str):
        self.name = name
        self._jobs: queue.SimpleQueue[tuple[Any, ...] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._lock = threading.Lock()

    def run(self, fn: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
        """Queue ``fn(*args)``; the future (of the running loop) holds its result or exception."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the mail thread is closed")
            if self._thread is None:  # started at the first job, as a pool starts its threads
                self._thread = threading.Thread(target=self._work, name=self.name, daemon=True)
                self._thread.start()
            self._jobs.put((loop, future, fn, args))
        return future

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            loop, future, fn, args = job
            try:
                outcome: tuple[Any, BaseException | None] = (fn(*args), None)
            except BaseException as error:  # handed to the awaiting coroutine, as a pool does
                outcome = (None, error)
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody awaits this answer any more
                loop.call_soon_threadsafe(_settle, future, *outcome)

    def close(self) -> None:
        """Refuse new jobs, finish the queued ones and wait for the thread."""
        with self._lock:
            self._closed = True
            thread = self._thread
        self._jobs.put(None)
        if thread is not None:
            thread.join()


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():  # cancelled: the SMTP session went away meanwhile
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class Handler:
    def __init__(self, gateway: Gateway):
        self.gateway = gateway
        # one worker thread: messages are processed one after another, off the event loop
        self.worker = MailThread("pbem-mail-in")

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: list[str]) -> str:
        if not self.gateway.accepts(address):
            return "550 5.1.1 No such pbem address"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        raw = envelope.original_content or b""
        try:
            result = await self.worker.run(self.gateway.receive, raw, envelope.mail_from, list(envelope.rcpt_tos))
        except Exception:
            log.exception("could not process a message from %s", envelope.mail_from)
            status = "451 4.3.0 Temporary failure, please try again later"
        else:
            log.info("message from %s: %s", envelope.mail_from, result)
            status = "250 2.0.0 OK"
        if isinstance(server, LMTP):  # LMTP answers once per recipient
            return "\r\n".join([status] * max(1, len(envelope.rcpt_tos)))
        return status

    def close(self) -> None:
        self.worker.close()


# Mail over the size limit is still taken, up to this much more, to answer it with a short reply;
# beyond that SMTP refuses it (552). aiosmtpd reads DATA line by line on the event loop, which
# every conversation shares: 2 MiB of 3-byte lines held the other mails 2 s on a busy machine.
SIZE_MARGIN = 131_072


def smtp_size_limit(max_bytes: int) -> int:
    """The largest message the SMTP/LMTP server accepts (docs/mail.md, "Limits")."""
    return max_bytes + SIZE_MARGIN


class LMTPController(Controller):
    def factory(self) -> LMTP:
        return LMTP(self.handler, **self.SMTP_kwargs)


def controller(gateway: Gateway, host: str, port: int, lmtp: bool = False) -> Controller:
    """The server. With ``PBEM_MAIL_TLS_CERT``/``PBEM_MAIL_TLS_KEY`` it offers STARTTLS (not
    required: other MTAs may still deliver in plain text, as on any MX)."""
    handler = Handler(gateway)
    kind = LMTPController if lmtp else Controller
    extra: dict[str, Any] = {}  # aiosmtpd keyword arguments
    settings = gateway.settings
    if settings.tls_cert:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(str(settings.tls_cert), str(settings.tls_key) if settings.tls_key else None)
        extra["tls_context"] = context
    return kind(handler, hostname=host, port=port, data_size_limit=smtp_size_limit(settings.max_bytes),
                ident="pbem mail gateway", **extra)
