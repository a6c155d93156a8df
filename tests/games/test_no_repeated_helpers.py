"""No helper is written twice across games: shared jobs live in the games' toolkit
(pbem/games/text.py, tables.py, svg.py, base.py), not in one copy per game.

Two functions count as the same when their bodies are equal after every local name,
argument and called name is replaced by its order of first appearance and docstrings are
dropped: renaming ``_who`` to ``_name`` or ``seat`` to ``s`` does not hide a copy. Bodies below
``MIN_NODES`` syntax nodes are left out, since one-line delegations such as
``return moves.format_move(move)`` are how every game fills the contract, not a helper.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pbem.games

GAMES_DIR = Path(pbem.games.__file__).parent
MIN_NODES = 12


class _Normaliser(ast.NodeTransformer):
    """Names become ``v0``, ``v1``, ... in order of first appearance."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def _rename(self, name: str) -> str:
        return self.names.setdefault(name, f"v{len(self.names)}")

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.copy_location(ast.Name(self._rename(node.id), ast.Load()), node)

    def visit_arg(self, node: ast.arg) -> ast.AST:
        return ast.copy_location(ast.arg(self._rename(node.arg)), node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        node.attr = self._rename(node.attr)
        node.ctx = ast.Load()
        return node


def _without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return body[1:]
    return body


def fingerprint(function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, int]:
    """(normalised dump of the arguments and body, number of syntax nodes in the body).
    Annotations, decorators and the function's own name do not count."""
    copy = ast.parse(ast.unparse(function)).body[0]
    assert isinstance(copy, ast.FunctionDef | ast.AsyncFunctionDef)
    body = _without_docstring(copy.body)
    arguments = [*copy.args.posonlyargs, *copy.args.args, *copy.args.kwonlyargs]
    for argument in arguments:
        argument.annotation = None
    normaliser = _Normaliser()
    shape = [normaliser.visit(argument) for argument in arguments] + [normaliser.visit(stmt) for stmt in body]
    size = sum(1 for stmt in body for _ in ast.walk(stmt))
    return "\n".join(ast.dump(node, annotate_fields=False) for node in shape), size


def functions(source: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function of a module; under mutation testing (``make mutation``) not mutmut's own
    copies of them (``x_<name>__mutmut_<n>``), of which two games' can be alike by chance."""
    return [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and "__mutmut_" not in node.name
    ]


def repeats(packages: dict[str, dict[str, str]]) -> list[list[str]]:
    """Groups of functions with one body found in more than one game package.

    ``packages`` maps a game to its modules' sources (module name -> source)."""
    seen: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for game, modules in packages.items():
        for module, source in modules.items():
            for function in functions(source):
                key, size = fingerprint(function)
                if size >= MIN_NODES:
                    seen[key].append((game, f"{game}/{module}:{function.lineno} {function.name}"))
    return [[where for _, where in found] for found in seen.values() if len({game for game, _ in found}) > 1]


def game_sources() -> dict[str, dict[str, str]]:
    return {
        folder.name: {path.name: path.read_text(encoding="utf-8") for path in sorted(folder.glob("*.py"))}
        for folder in sorted(GAMES_DIR.iterdir())
        if (folder / "__init__.py").exists()
    }


def test_no_helper_is_repeated_across_games():
    assert repeats(game_sources()) == []


def test_the_check_sees_every_game():
    assert set(game_sources()) == {"kingdom_builder", "kingsburg", "ruse_and_bruise", "warriors_traders"}


COPY_A = '''
def fold_text(text):
    """Lower case without accents."""
    decomposed = unicodedata.normalize("NFKD", text.strip().lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))
'''
COPY_B = """
def _fold(word: str) -> str:
    plain = unicodedata.normalize("NFKD", word.strip().lower())
    return "".join(c for c in plain if not unicodedata.combining(c))
"""


def test_a_helper_copied_into_two_games_under_other_names_is_caught():
    found = repeats({"game_a": {"moves.py": COPY_A}, "game_b": {"cards.py": COPY_B}})
    assert found == [["game_a/moves.py:2 fold_text", "game_b/cards.py:2 _fold"]]


def test_the_same_helper_twice_in_one_game_is_left_to_that_game():
    assert repeats({"game_a": {"moves.py": COPY_A, "cards.py": COPY_B}}) == []


def test_different_bodies_are_not_a_repeat():
    other = COPY_B.replace('"NFKD"', '"NFC"')
    assert repeats({"game_a": {"moves.py": COPY_A}, "game_b": {"cards.py": other}}) == []
