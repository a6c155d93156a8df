"""The complexity gate of ``make lint``: no function or method in pbem/ and mailgateway/ with a
cyclomatic complexity over 15, as radon measures it (``radon cc -s -n C pbem mailgateway``
lists the largest). A function over it is split into functions with names that explain them,
or its cases go into a table. There are no exceptions: the 33 functions that were over the
limit when the gate came (mostly the games' parsers and rules, and the mail reader) are split."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

from radon.complexity import add_inner_blocks, cc_visit
from radon.visitors import Function

LIMIT = 15
ROOTS = ("pbem", "mailgateway")


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
    for name, complexity in sorted(found.items()):
        print(f"{name}: cyclomatic complexity {complexity}, over {LIMIT}: split it", file=sys.stderr)
    if found:
        return 1
    print(f"complexity: no function over {LIMIT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
