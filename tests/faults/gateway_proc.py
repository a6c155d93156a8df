"""The mail gateway as its own OS process, with the test games registered (for kill -9 tests
and benchmarks): ``python -m tests.faults.gateway_proc PORT``. Configuration comes from the
environment, as for ``pbem serve-mail``."""

from __future__ import annotations

import sys

from benchmarks.longgame import register_games

if __name__ == "__main__":
    register_games()
    from pbem.cli import main

    main(["serve-mail", "--host", "127.0.0.1", "--port", sys.argv[1]], standalone_mode=True)
