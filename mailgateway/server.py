"""The SMTP/LMTP server: aiosmtpd's protocol, one thread and event loop per connection.

aiosmtpd's ``Controller`` runs every conversation on one event loop, so a handler that stores a
mail before its 250 must hand each mail to a worker thread and wait for it: two thread wake-ups
per mail, which cost as much as a third of a bare SMTP transaction on a small virtual machine
(docs/benchmarks.md). Here each accepted connection gets a thread of its own running aiosmtpd's
``SMTP`` (or ``LMTP``) protocol on its own loop, and the handler works inline: a mail being read
or stored holds only its own conversation, which waits for that 250 anyway, and no other
client's greeting or commands. The number of conversations is bounded, in all and from one
address (as Postfix bounds its clients); one more is answered 421 (try again later) and closed,
as an MTA expects of a busy server.

This module is the one place that touches aiosmtpd beyond its public API: a conversation's
table of command handlers (``_smtp_methods``), whose DATA and BDAT entries are wrapped to tell
an idle conversation from one handing over mail. ``contract_problems()`` checks it against the
installed aiosmtpd (tests/mailgateway/test_aiosmtpd_contract.py), so an upgrade that changes it
fails there.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import logging
import socket
import threading
from typing import Any

from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP

log = logging.getLogger("pbem.mail")
MAX_CONNECTIONS = 256  # conversations at once; each holds a thread
# from one address: a client cannot take every place (an MTA in front, such as Postfix with its
# default 20 connections to a destination, stays well under it)
MAX_PER_PEER = 32
BUSY = b"421 4.3.2 Too many connections, try again later\r\n"
IDLE = b"421 4.4.2 Idle too long, closing connection\r\n"
STOP_WAIT = 30.0  # seconds stop() waits for a conversation that is storing a mail
# A conversation must hand over a mail (DATA) within PBEM_MAIL_IDLE_SECONDS of its start or of
# its last mail, whatever else it sends: 8 addresses once held all 256 places with a NOOP every
# few minutes, and EHLO, MAIL or RSET would serve as well. An MTA sends a mail's commands at
# once (Postfix keeps an idle connection for reuse 2 s by default).
MOVING = frozenset({"DATA", "BDAT"})
IDLE_SECONDS = 60.0  # default of PBEM_MAIL_IDLE_SECONDS


class _Watched:
    """Resolves ``closed`` when the connection is lost, so its thread knows when to end, and
    notes when the conversation last handed over a mail: ``active`` is the loop time the
    conversation began or its last DATA ended, ``busy`` counts the DATA commands running now
    (a mail being read and stored is never idle)."""

    closed: asyncio.Future[None]
    active: float = 0.0
    busy: int = 0
    _smtp_methods: dict[str, Any]  # aiosmtpd's table of command handlers

    def watch_commands(self, now: float) -> None:
        self.active = now
        for name, method in list(self._smtp_methods.items()):
            if name in MOVING:
                self._smtp_methods[name] = self._moving(method)

    def _moving(self, method: Any) -> Any:
        @functools.wraps(method)  # keeps aiosmtpd's syntax marks, which HELP reads
        async def moving(arg: str | None) -> None:
            self.busy += 1
            try:
                await method(arg)
            finally:
                self.busy -= 1
                self.active = asyncio.get_running_loop().time()

        return moving

    def idle_for(self, now: float) -> float:
        """Seconds since the conversation began or handed over its last mail (0 during DATA)."""
        return 0.0 if self.busy else now - self.active

    def connection_lost(self, error: Exception | None) -> None:
        super().connection_lost(error)  # type: ignore[misc]
        if not self.closed.done():
            self.closed.set_result(None)


class _SMTP(_Watched, SMTP):
    pass


class _LMTP(_Watched, LMTP):
    pass


class ThreadedServer:
    """Serves ``handler`` (aiosmtpd's handler hooks) on ``host:port``; ``start()`` returns once
    it listens, ``stop()`` closes the listener and every conversation and waits for their threads.
    ``smtp_options`` go to aiosmtpd's ``SMTP`` as they would through its ``Controller``. A
    conversation that has handed over no mail for ``idle_seconds`` (since it began or since its
    last DATA; NOOP, RSET, EHLO or MAIL do not count) is answered 421 and closed; aiosmtpd's
    own ``timeout`` (300 s from the DATA command) bounds a mail being sent."""

    def __init__(
        self,
        handler: Any,
        hostname: str,
        port: int,
        lmtp: bool = False,
        max_connections: int = MAX_CONNECTIONS,
        max_per_peer: int = MAX_PER_PEER,
        idle_seconds: float = IDLE_SECONDS,
        **smtp_options: Any,
    ):
        self.handler = handler
        self.hostname, self.port = hostname, port
        self.protocol = _LMTP if lmtp else _SMTP
        self.max_connections, self.max_per_peer = max_connections, max_per_peer
        self.idle_seconds = idle_seconds
        # the name in the greeting, looked up once (aiosmtpd asks the resolver for each connection)
        self.smtp_options: dict[str, Any] = {"enable_SMTPUTF8": True, "hostname": socket.getfqdn()} | smtp_options
        self._listener: socket.socket | None = None
        self._acceptor: threading.Thread | None = None
        self._lock = threading.Lock()
        self._stopping = False
        self._conversations: dict[threading.Thread, tuple[asyncio.AbstractEventLoop, asyncio.Task[None]] | None] = {}
        self._peers: dict[str, int] = {}  # conversations by the client's address

    def start(self) -> None:
        self._stopping = False
        family = socket.AF_INET6 if ":" in self.hostname else socket.AF_INET
        self._listener = socket.create_server((self.hostname, self.port), family=family, backlog=128)
        self.port = self._listener.getsockname()[1]  # the one the system chose, for port 0
        self._acceptor = threading.Thread(
            target=self._accept, args=(self._listener,), name="pbem-smtp-accept", daemon=True
        )
        self._acceptor.start()

    def stop(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)  # wakes the acceptor's accept()
            listener.close()
        if self._acceptor is not None:
            self._acceptor.join(STOP_WAIT)
        with self._lock:
            self._stopping = True  # a conversation starting from now is cancelled as it registers
            conversations = dict(self._conversations)
        for running in conversations.values():
            if running is not None:
                loop, task = running
                with contextlib.suppress(RuntimeError):  # its loop closed meanwhile
                    loop.call_soon_threadsafe(task.cancel)
        for thread in conversations:
            thread.join(STOP_WAIT)

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                connection, address = listener.accept()
            except OSError:  # the listener was closed: stop() was called
                return
            # replies of several lines are several small writes: without this, each waits for the
            # client's delayed ACK of the one before (40 ms an EHLO on Linux)
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            peer = str(address[0])
            with self._lock:
                busy = len(self._conversations) >= self.max_connections or self._peers.get(peer, 0) >= self.max_per_peer
                if not busy:
                    thread = threading.Thread(
                        target=self._converse, args=(connection, peer), name="pbem-smtp", daemon=True
                    )
                    self._conversations[thread] = None
                    self._peers[peer] = self._peers.get(peer, 0) + 1
            if busy:
                log.warning("refused a connection from %s: too many conversations", peer)
                with contextlib.suppress(OSError):
                    connection.sendall(BUSY)
                connection.close()
            else:
                thread.start()

    def _converse(self, connection: socket.socket, peer: str) -> None:
        loop = asyncio.new_event_loop()
        try:
            task = loop.create_task(self._conversation(connection))
            with self._lock:
                self._conversations[threading.current_thread()] = (loop, task)
                if self._stopping:
                    task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                loop.run_until_complete(task)
        except Exception:  # one broken conversation never stops the server
            log.exception("an SMTP conversation failed")
        finally:
            with self._lock:
                self._conversations.pop(threading.current_thread(), None)
                self._peers[peer] -= 1
                if not self._peers[peer]:
                    del self._peers[peer]
            loop.close()
            connection.close()

    async def _conversation(self, connection: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        protocol = self.protocol(self.handler, loop=loop, **self.smtp_options)
        protocol.closed = loop.create_future()
        protocol.watch_commands(loop.time())
        transport = None
        try:
            transport, _ = await loop.connect_accepted_socket(lambda: protocol, connection)
            await self._close_when_idle(protocol, transport, loop)
        finally:  # also when stop() cancels the conversation, at any point
            if transport is not None:
                transport.close()
            # aiosmtpd's own task for the conversation ends once it sees the connection lost
            others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)

    async def _close_when_idle(self, protocol: _Watched, transport: Any, loop: asyncio.AbstractEventLoop) -> None:
        """Wait for the conversation to end, closing it with a 421 once it has been idle for
        ``idle_seconds``."""
        while not protocol.closed.done():
            left = self.idle_seconds - protocol.idle_for(loop.time())
            if left <= 0:
                log.info("closed an SMTP conversation that sent no mail for %.0f s", self.idle_seconds)
                current = getattr(protocol, "transport", None) or transport  # the TLS one after STARTTLS
                with contextlib.suppress(Exception):
                    current.write(IDLE)
                current.close()
                await protocol.closed
                return
            await asyncio.wait([protocol.closed], timeout=left)


def contract_problems() -> list[str]:
    """What no longer holds of the aiosmtpd internal this module relies on (empty: all): each
    conversation keeps its command handlers in a dict ``_smtp_methods`` by command name, and
    looks each command up there, so a handler replaced in it is the one that runs."""
    problems: list[str] = []
    loop = asyncio.new_event_loop()
    try:
        for protocol in (SMTP, LMTP):
            methods = getattr(protocol(object(), loop=loop), "_smtp_methods", None)
            if not isinstance(methods, dict) or not all(callable(methods.get(name)) for name in ("DATA", "NOOP")):
                problems.append(f"{protocol.__qualname__} keeps no _smtp_methods table of its commands")
    finally:
        loop.close()
    if "self._smtp_methods.get(command)" not in inspect.getsource(SMTP._handle_client):
        problems.append("SMTP._handle_client no longer looks its commands up in _smtp_methods")
    return problems
