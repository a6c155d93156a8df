"""``python -m benchmarks.intake [--mails N] [--profile FILE]``: the CPU time of one move mail
in ``Gateway.receive``, without SMTP (docs/benchmarks.md, issue 33's before and after).

A long Hidden Pig game on SQLite with ``PBEM_SQLITE_SYNCHRONOUS=normal``; 20 ``hold`` mails from
the seat to move warm the process up, then ``N`` more are received one after the other, as the
``mail`` section's streams send them (``benchmarks.measure._hold_mails``). Prints the process's
CPU time per mail (the mean, and the median mail's: a burst of load elsewhere moves the
mean more) and the wall time per mail; ``--profile`` writes a cProfile of the measured mails.

Only what ``benchmarks.measure`` and the gateway have had since before issue 33 is used, so the
file can be run against an older checkout too, taking turns with this one (from the older
checkout: ``PYTHONPATH=. python path/to/this/benchmarks/intake.py``)."""

from __future__ import annotations

import argparse
import cProfile
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.longgame import PLAYERS, register_games
from benchmarks.measure import SERVICE, _hold_mails, service_at
from mailgateway.gateway import Gateway
from pbem.mailroom.settings import MailSettings

WARM_UP = 20


class _Kept:
    """A transport that sends nothing (the replies are not what is measured)."""

    def send(self, key: str, to: str, message: bytes) -> None:
        pass


def measure(mails: int, profile: str | None = None) -> tuple[float, float, float]:
    """CPU seconds per move mail in ``Gateway.receive`` (the mean and the median mail) and wall
    seconds per mail."""
    register_games()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        svc = service_at(work, None, "normal")
        game_id = svc.create("long-pig", PLAYERS, {"rounds": "1000000"}, seed=b"\x0c" * 32)
        for player in PLAYERS:
            svc.join(game_id, player)
        settings = MailSettings(address=SERVICE, maildir=work / "maildir", replies_per_hour=10**9)
        gateway = Gateway(svc, settings, transport=_Kept())
        gateway.mailroom.follow()
        stream = _hold_mails(svc, game_id, WARM_UP + mails)
        for sender, to, raw in stream[:WARM_UP]:
            gateway.receive(raw, sender, (to,))
        profiler = cProfile.Profile()
        if profile:
            profiler.enable()
        each: list[float] = []
        wall = time.perf_counter()
        for sender, to, raw in stream[WARM_UP:]:
            started = time.process_time()
            if gateway.receive(raw, sender, (to,)) != "processed":
                raise RuntimeError("a move mail was not processed")
            each.append(time.process_time() - started)
        wall = time.perf_counter() - wall
        if profile:
            profiler.disable()
            profiler.dump_stats(profile)
        svc.close()
    return sum(each) / mails, statistics.median(each), wall / mails


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.intake", description=__doc__.splitlines()[0])
    parser.add_argument("--mails", type=int, default=600, help="move mails measured (after 20 to warm up)")
    parser.add_argument("--profile", help="write a cProfile of the measured mails to this file")
    args = parser.parse_args(argv)
    cpu, median, wall = measure(args.mails, args.profile)
    print(
        f"cpu {cpu * 1000:.3f} ms/mail (median mail {median * 1000:.3f} ms)  wall {wall * 1000:.3f} ms/mail"
        f"  ({args.mails} move mails)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
