"""``python -m benchmarks [--quick] [--only NAME ...]``: what pbem costs, next to the bare
libraries it stands on, as ratios measured in the same run. Run from the project root.

Rows (each names what is compared; "ratio" is baseline time / pbem time for speed-ups and
pbem time / baseline time for overheads, as the row says):

* past state: the state at a past turn through the service (snapshot + state cache) against
  replaying the whole history (every stored event, then folding every fact), for 10 to 10,000
  events; and the first state a new service and a new process (nothing kept) give, with
  their CPU time;
* storage: bytes stored per log entry (events, snapshots and kept states) at 100 to 10,000
  events, against the events alone;
* verify: ``pbem verify`` of an export against the bare cost of its hashes and signature checks;
* games: seeded random full games per second for each game type, bare engine against the same
  games played through the service (SQLite);
* mail: mail in -> parsed -> authenticated -> decided -> stored -> signed -> reply queued, per
  second, against a bare aiosmtpd handler receiving the same mails over the same loopback
  (SQLite, and PostgreSQL when reachable);
* replies: a move's reply latency at a real SMTP relay (the move's 250 to its reply, 8 players
  in 4 games at once) beside the intake latency, and replies out per second against move mails
  in per second for a sustained stream; gateways as processes, SQLite with one and PostgreSQL
  with three (benchmarks/replies.py);
* mail-pictures: a turn mail's board drawn as a PNG against composing the rest of that mail
  (its model and its message), for each game (benchmarks/pictures.py);
* tamper: detection, not speed: every kind of change to an export, truncation, rollback and
  fork, each checked as a player holding one receipt or checkpoint would;
* web: page latency p50 and p95 under 8 concurrent loopback clients (and one client alone) for
  a long finished game (game page, any turn, any history page, any entry, export.json), the games
  list of a store of 10,000 games and /health, each against a bare Flask route measured just
  before under the same load;
* status: ``status`` at the service address for a player in 10, 100 and 1,000 games, the
  answer alone and the whole mail, each against the same at 10 games (benchmarks/status.py);
* ratings: ``pbem ratings`` over 10,000 finished games (each export verified, then rated)
  against openskill alone rating the same results.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import measure, pictures, replies
from benchmarks.ratings import ratings_row
from benchmarks.status import status

SECTIONS = (
    "past-state",
    "storage",
    "verify",
    "games",
    "mail",
    "replies",
    "mail-pictures",
    "web",
    "status",
    "tamper",
    "ratings",
)


def machine() -> str:
    def run(*argv: str) -> str:
        try:
            return subprocess.run(argv, capture_output=True, text=True, timeout=5).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return "?"

    memory = run("free", "-h").splitlines()
    total = memory[1].split()[1] if len(memory) > 1 else "?"
    return (
        f"machine: {run('nproc')} CPUs, {total} memory, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs, under a minute")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, help="run only these sections")
    args = parser.parse_args(argv)
    sections = args.only or SECTIONS
    os.environ.pop("PBEM_DATABASE_URL", None)
    started = time.perf_counter()
    rows: list[measure.Row] = []
    print(machine(), flush=True)
    print(
        f"mode: {'quick' if args.quick else 'full'}; every ratio below compares two timings taken in this run",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="pbem-bench-") as folder:
        work = Path(folder)
        for section in sections:
            section_start = time.perf_counter()
            produced = (
                measure.SECTIONS
                | {
                    "replies": replies.replies,
                    "mail-pictures": pictures.mail_pictures,
                    "ratings": ratings_row,
                    "status": status,
                }
            )[section](work / section, args.quick)
            rows.extend(produced)
            print(
                f"  {section}: {len(produced)} rows in {time.perf_counter() - section_start:.1f} s",
                file=sys.stderr,
                flush=True,
            )
    print()
    print(measure.table(rows))
    print(f"\ntotal {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
