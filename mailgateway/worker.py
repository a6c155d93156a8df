"""The background loops started with the service: the outbox feeder with the deadline
scheduler, and the sender, each in a thread of its own.

The feeder runs a round as soon as a commit gives it work (``GameService.commits``: this
process's saves at once, other processes' by PostgreSQL ``LISTEN`` or SQLite doorbells), when
the earliest timer comes due, and otherwise every ``PBEM_MAIL_TICK_SECONDS`` as a safety net.
The sender runs as soon as a feeder stored a page of mails (``Gateway.outbox``: this
process's at once, on PostgreSQL other processes' by ``LISTEN``), when a deferred mail comes
due, and at the tick: a reply leaves while the feeder turns the rest of a
burst into mail, not after it."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from mailgateway.gateway import Gateway
from pbem.service.wakeup import Wakeup

log = logging.getLogger("pbem.mail")
SHORTEST_PAUSE = 0.01  # seconds: something due in the past never makes the loop spin


class Loop(threading.Thread):
    """Runs ``step`` at every ring of ``wakeup``, when the next thing comes due, or at the tick."""

    def __init__(self, name: str, gateway: Gateway, wakeup: Wakeup, step: Callable[[], object], interval: float):
        super().__init__(name=name, daemon=True)
        self.gateway = gateway
        self.wakeup = wakeup
        self.step = step
        self.interval = interval
        self.stopping = threading.Event()
        self.rounds = 0  # rounds run (tests count them)

    def run(self) -> None:
        seen = self.wakeup.count()
        while not self.stopping.is_set():
            try:
                self.step()
            except Exception:  # keep the loop alive; the next round retries
                log.exception("mail worker round failed (%s)", self.name)
            self.rounds += 1
            seen = self.wakeup.wait(seen, self.pause())

    def pause(self) -> float:
        """Seconds until the next round unless a ring comes first: the tick, or less when
        a timer or a deferred mail comes due sooner."""
        try:
            due = self.gateway.next_due()
        except Exception:  # the store is down: the tick tries again
            log.exception("mail worker: the next due time could not be read")
            return self.interval
        if due is None:
            return self.interval
        wait = (due - self.gateway.clock()).total_seconds()
        return min(self.interval, max(SHORTEST_PAUSE, wait))

    def stop(self) -> None:
        self.stopping.set()
        self.wakeup.ring()
        self.join(timeout=30)


class Worker:
    """The feeder and the sender of one gateway process."""

    def __init__(self, gateway: Gateway, interval: float | None = None):
        interval = gateway.settings.tick_seconds if interval is None else interval
        self.gateway = gateway
        self.commits = gateway.commits()
        gateway.listen_outbox()
        self.feeder = Loop("pbem-mail-feeder", gateway, self.commits, gateway.queue_round, interval)
        self.sender = Loop("pbem-mail-sender", gateway, gateway.outbox, gateway.send_round, interval)

    @property
    def rounds(self) -> int:
        """Rounds both loops have run (at least one each once the first are over)."""
        return min(self.feeder.rounds, self.sender.rounds)

    def start(self) -> None:
        self.feeder.start()
        self.sender.start()

    def stop(self) -> None:
        self.feeder.stop()
        self.sender.stop()
        self.gateway.outbox.close()  # its listener, when it has one
