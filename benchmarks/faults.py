"""``python -m benchmarks.faults``: the fault suite in its long form. Runs tests/faults with
PBEM_FAULTS_LONG=1: every value path of every game's export tampered with, every byte of an
export changed, thousands of hypothesis examples per parser, 1,000 mails streamed while the
gateway is killed -9 at random moments, and 200 moves per process in the concurrency test.
Extra arguments go to pytest (e.g. ``-k kill``)."""

from __future__ import annotations

import os
import subprocess
import sys


def main(argv: list[str]) -> int:
    env = os.environ | {"PBEM_FAULTS_LONG": "1"}
    command = [sys.executable, "-m", "pytest", "tests/faults", "-q", "-p", "no:cacheprovider", *argv]
    return subprocess.call(command, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
