"""The background loop started with the service: outbox feeder, deadline scheduler and sender.

A round runs as soon as a commit gives it work (``GameService.commits``: this process's saves at
once, other processes' by PostgreSQL ``LISTEN`` or SQLite doorbells), when the earliest timer or
deferred mail comes due, and otherwise every ``PBEM_MAIL_TICK_SECONDS`` as a safety net."""

from __future__ import annotations

import logging
import threading

from mailgateway.gateway import Gateway

log = logging.getLogger("pbem.mail")
SHORTEST_PAUSE = 0.01  # seconds: something due in the past never makes the loop spin


class Worker(threading.Thread):
    def __init__(self, gateway: Gateway, interval: float | None = None):
        super().__init__(name="pbem-mail-worker", daemon=True)
        self.gateway = gateway
        self.interval = gateway.settings.tick_seconds if interval is None else interval
        self.stopping = threading.Event()
        self.commits = gateway.commits()
        self.rounds = 0  # rounds run (tests count them)

    def run(self) -> None:
        seen = self.commits.count()
        while not self.stopping.is_set():
            try:
                self.gateway.work()
            except Exception:  # keep the loop alive; the next round retries
                log.exception("mail worker round failed")
            self.rounds += 1
            seen = self.commits.wait(seen, self.pause())

    def pause(self) -> float:
        """Seconds until the next round unless a commit comes first: the tick, or less when
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
        self.commits.ring()
        self.join(timeout=30)
