"""The import gate of ``make lint``: no circle among the modules of pbem/ and mailgateway/.

Every ``import`` counts, those under ``if TYPE_CHECKING:`` and inside functions too: a circle
that only type hints close is still two modules that cannot be read, changed or tested one
without the other. A module that needs a type of a module that imports it names what it needs
as a ``Protocol`` of its own (``pbem.service.summaries.GameSummaryQuery``), or is given the
parts it needs (``Work`` takes the game repository and the signer, not the service). Importing a package runs its
``__init__`` (its face), so ``from pbem.games import get_spec`` is an arrow to
``pbem/games/__init__.py``; ``from pbem.games import kingsburg`` is one to the subpackage
only, as every import of a module runs its packages' ``__init__`` first."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOTS = ("pbem", "mailgateway")


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(tree: ast.Module, name: str, is_package: bool) -> Iterator[str | tuple[str, str]]:
    """Each module an ``import`` names, and (module, name) for each name a ``from`` takes."""
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            yield from ((base, alias.name) for alias in node.names)


def graph(root: Path) -> dict[str, set[str]]:
    paths = {module_name(root, path): path for top in ROOTS for path in sorted((root / top).rglob("*.py"))}
    arrows: dict[str, set[str]] = {}
    for name, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        targets = {_target(found, paths) for found in imported(tree, name, path.name == "__init__.py")}
        arrows[name] = {target for target in targets if target in paths} - {name}
    return arrows


def _target(found: str | tuple[str, str], modules: dict[str, Path]) -> str:
    """The module an import reads: ``from package import module`` reads the module (running
    the package's ``__init__`` first, as every import of a submodule does, which is no arrow
    of its own), ``from module import name`` the module."""
    if isinstance(found, str):
        return found
    base, name = found
    return f"{base}.{name}" if f"{base}.{name}" in modules else base


def circles(arrows: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(arrows):
        if start in index:
            continue
        work = [(start, iter(sorted(arrows[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(arrows[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def main() -> int:
    arrows = graph(Path(__file__).resolve().parent.parent)
    found = circles(arrows)
    for group in found:
        ties = "; ".join(f"{a} -> {b}" for a in group for b in sorted(arrows[a]) if b in group)
        print(f"import circle of {len(group)} modules: {ties}", file=sys.stderr)
    if found:
        return 1
    print(f"imports: no circle among {len(arrows)} modules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
