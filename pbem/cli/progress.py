"""A progress bar for the long commands (export-all, import, verify, autoplay).

It is drawn on standard error, and only when standard error is a terminal and the work is long
(``LONG`` steps or more): in a pipe, a log or a test the commands print exactly what they printed
before. The work reports itself through a plain callback, ``progress(done, total)``, so the
ledger and the service stay free of any terminal code."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable
from types import TracebackType
from typing import Protocol, TextIO

import click

# fewer steps than this finish before a bar would be worth reading
LONG = 200


class Bar(Protocol):
    """What of click's progress bar is used (its class is not part of click's public API)."""

    pos: int
    length: int | None

    def update(self, n_steps: int, /) -> None: ...

    def __enter__(self) -> object: ...

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None, /
    ) -> None: ...


# done, total (None when not known in advance, e.g. the moves of a game being played)
Progress = Callable[[int, int | None], None]


def is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class TerminalProgress:
    """``with TerminalProgress("verifying") as progress: work(progress=progress)``."""

    def __init__(self, label: str, stream: TextIO | None = None, long: int | None = None):
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.long = LONG if long is None else long
        self.shown = is_terminal(self.stream)
        self.bar: Bar | None = None  # made when the work turns out to be long

    def __call__(self, done: int, total: int | None) -> None:
        if not self.shown:
            return
        if self.bar is None:
            if max(done, total or 0) < self.long:
                return
            self.bar = self._start(total)
        self.bar.update(done - self.bar.pos)

    def _start(self, total: int | None) -> Bar:
        # click needs a length or an iterable; an endless one leaves the length open
        steps = None if total is None else max(1, total // 500)  # at most ~500 redraws
        bar = click.progressbar(
            itertools.repeat(None) if total is None else None,
            length=total,
            label=self.label,
            file=self.stream,
            show_pos=total is None,
            update_min_steps=steps or 1,
        )
        bar.__enter__()
        return bar

    def __enter__(self) -> TerminalProgress:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self.bar is not None:
            if kind is None and self.bar.length is not None:
                self.bar.update(self.bar.length - self.bar.pos)  # the work is done: a full bar
            self.bar.__exit__(kind, error, trace)
            self.bar = None
