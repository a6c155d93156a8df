"""The read port of the undeliverable marks (an address whose mail keeps bouncing, docs/mail.md
"Bounces") for the web site, which never reaches into the store: which of a game's addresses
are marked, and a value that changes whenever a mark is set or lifted (the kept pages' key)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

from pbem.mailroom.queue import MailViews, views_for


class UndeliverableMarks:
    def __init__(self, views: MailViews) -> None:
        self._views = views

    @classmethod
    def of(cls, store: Any) -> UndeliverableMarks:
        """The marks kept in the database of ``store`` (a ``PbemStore``)."""
        return cls(views_for(store))

    def marked(self, addresses: Iterable[str]) -> frozenset[str]:
        return self._views.undeliverable_among(addresses)

    def generation(self) -> Hashable:
        return self._views.undeliverable_generation()
