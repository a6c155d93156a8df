"""The background loop started with the service: outbox feeder, deadline scheduler and
sender, every ``PBEM_MAIL_TICK_SECONDS``."""

from __future__ import annotations

import logging
import threading

from mailgateway.gateway import Gateway

log = logging.getLogger("pbem.mail")


class Worker(threading.Thread):
    def __init__(self, gateway: Gateway, interval: float | None = None):
        super().__init__(name="pbem-mail-worker", daemon=True)
        self.gateway = gateway
        self.interval = gateway.settings.tick_seconds if interval is None else interval
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                self.gateway.work()
            except Exception:  # keep the loop alive; the next round retries
                log.exception("mail worker round failed")
            self.stopping.wait(self.interval)

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=30)
