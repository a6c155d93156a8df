"""A pbem command as its own OS process, with the test games registered (for kill -9 tests,
several-process tests and benchmarks): ``python -m tests.faults.gateway_proc serve-mail
--port PORT`` or ``... serve-web --port PORT``. Configuration comes from the environment."""

from __future__ import annotations

import sys

from benchmarks.longgame import register_games

if __name__ == "__main__":
    register_games()
    from pbem.cli import main

    main(sys.argv[1:], standalone_mode=True)
