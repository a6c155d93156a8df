"""The mutation score per package, from mutmut's results (run after `mutmut run`).

Prints one line per package (the ledger, each game): mutants killed, survived, reached by no
test, timed out and not run yet, and the score, killed (timeouts included: the mutant made the
tests hang, so they noticed it) over every mutant that ran or had no test. The surviving
mutants are written to mutants/survivors.txt (`mutmut show NAME` prints one)."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

KILLED = {"killed", "timeout"}
COUNTED = KILLED | {"survived", "no tests"}


def package_of(mutant: str) -> str:
    """pbem.games.kingsburg.rules.x_f__mutmut_3 -> pbem.games.kingsburg; pbem.ledger.x -> pbem.ledger"""
    parts = mutant.split(".")
    return ".".join(parts[:3] if parts[1] == "games" else parts[:2])


def results() -> list[tuple[str, str]]:
    shown = subprocess.run(
        [str(Path(sys.executable).with_name("mutmut")), "results", "--all", "true"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = []
    for line in shown.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and name.startswith("pbem."):
            rows.append((name, status.strip()))
    return rows


def main() -> int:
    rows = results()
    by_package: dict[str, Counter[str]] = defaultdict(Counter)
    for name, status in rows:
        by_package[package_of(name)][status] += 1
    print(f"{'package':<32} {'killed':>7} {'survived':>9} {'no test':>8} {'timeout':>8} {'not run':>8} {'score':>7}")
    for package, counts in sorted(by_package.items()):
        ran = sum(counts[s] for s in COUNTED)
        killed = sum(counts[s] for s in KILLED)
        not_run = sum(n for s, n in counts.items() if s not in COUNTED)
        score = f"{100 * killed / ran:.1f} %" if ran else "-"
        print(
            f"{package:<32} {counts['killed']:>7} {counts['survived']:>9} {counts['no tests']:>8} "
            f"{counts['timeout']:>8} {not_run:>8} {score:>7}"
        )
    survivors = sorted(name for name, status in rows if status in ("survived", "no tests"))
    Path("mutants").mkdir(exist_ok=True)
    Path("mutants/survivors.txt").write_text("".join(f"{name}\n" for name in survivors))
    print(f"{len(survivors)} surviving mutants (survived or reached by no test) listed in mutants/survivors.txt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
