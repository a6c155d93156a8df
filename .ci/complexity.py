"""The complexity gate of ``make lint``: no function or method in pbem/ and mailgateway/ with a
cyclomatic complexity over 15, as radon measures it (``radon cc -s -n C pbem mailgateway``
lists the largest). A function over it is split into functions with names that explain them,
or its cases go into a table.

``STILL_OVER`` lists the functions that were over the limit when the gate came and are still to
be split. It only shrinks: a listed function that is no longer over the limit must leave the
list, and no other function may go over."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

from radon.complexity import add_inner_blocks, cc_visit
from radon.visitors import Function

LIMIT = 15
ROOTS = ("pbem", "mailgateway")
STILL_OVER: set[str] = {
    "mailgateway/parse.py:_body",
    "mailgateway/parse.py:parse_message",
    "pbem/mailroom/reading.py:read_letter",
}


def functions(path: Path) -> Iterator[Function]:
    """Every function, method and nested function of a module."""
    for block in add_inner_blocks(cc_visit(path.read_text(encoding="utf-8"))):
        if isinstance(block, Function):
            yield block


def over_the_limit(root: Path) -> dict[str, int]:
    found: dict[str, int] = {}
    for top in ROOTS:
        for path in sorted((root / top).rglob("*.py")):
            for function in functions(path):
                if function.complexity > LIMIT:
                    name = f"{function.classname}.{function.name}" if function.classname else function.name
                    found[f"{path.relative_to(root).as_posix()}:{name}"] = function.complexity
    return found


def main() -> int:
    found = over_the_limit(Path(__file__).resolve().parent.parent)
    new = {name: n for name, n in found.items() if name not in STILL_OVER}
    done = sorted(STILL_OVER - set(found))
    for name, complexity in sorted(new.items()):
        print(f"{name}: cyclomatic complexity {complexity}, over {LIMIT}: split it", file=sys.stderr)
    for name in done:
        print(f"{name} is no longer over {LIMIT}: take it off STILL_OVER in .ci/complexity.py", file=sys.stderr)
    if new or done:
        return 1
    print(f"complexity: no function over {LIMIT} (still to split: {len(STILL_OVER)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
