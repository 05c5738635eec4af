"""Which calls of a Python test file run in a plain state: before anything that could change
what the function gives, so what an assertion says of them holds for the function alone.

``humanize.i18n.activate("fr_FR")`` then ``assert humanize.ordinal(1) == "1er"`` says what
``ordinal`` gives under a French locale, not what it gives: such an assertion must not grade
the versions. A call is plain when, in its test, nothing ran before it but calls of the
function itself, assertions and a few builtins (:data:`HARMLESS`), and the test takes no
fixtures (its parameters are the names its ``parametrize`` decorators bind), sits in no class
with a set-up method, and the file holds no ``autouse`` fixture. Read with :mod:`ast`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from codequorum.behaviour.parametrized import helper_cases, parametrized_names, test_helpers

#: Calls that change nothing a function gives: builtins that make values (a dict's views
#: among them: a table's ``.items()``), and pytest's and unittest's assertion helpers
#: (every ``assert*`` method too).
HARMLESS = frozenset({"float", "int", "str", "bytes", "bool", "len", "list", "tuple", "dict",
                      "set", "frozenset", "sorted", "repr", "range", "abs", "round", "min",
                      "max", "sum", "isinstance", "type", "raises", "approx", "param",
                      "assertRaises", "assertRaisesRegex", "subTest", "enumerate", "zip",
                      "reversed", "items", "keys", "values"})
#: What a set-up method of a test class is named.
SETUPS = frozenset({"setUp", "setUpClass", "asyncSetUp", "setup_method", "setup_class",
                    "setup", "setup_function"})

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def _callee(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


class _Reader:
    """Walks one test's statements in order, keeping the calls reached before a foreign one."""

    def __init__(self, name: str, helpers: frozenset[str] = frozenset()) -> None:
        self.name = name
        self.helpers = helpers
        self.tainted = False
        self.plain: set[int] = set()

    def foreign(self, call: ast.Call) -> bool:
        callee = _callee(call)
        return not (callee == self.name or callee in HARMLESS or callee in self.helpers
                    or callee.startswith("assert"))

    def expr(self, node: ast.AST) -> None:
        calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
        if not self.tainted:
            self.plain.update(id(c) for c in calls)
        self.tainted = self.tainted or any(self.foreign(c) for c in calls)

    def statements(self, body: Iterable[ast.stmt]) -> None:
        for st in body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(st, (ast.With, ast.AsyncWith)):
                for item in st.items:
                    self.expr(item.context_expr)
                self.statements(st.body)
            elif isinstance(st, (ast.If, ast.While)):
                self.expr(st.test)
                self.statements([*st.body, *st.orelse])
            elif isinstance(st, (ast.For, ast.AsyncFor)):
                self.expr(st.iter)
                self.statements([*st.body, *st.orelse])
            elif isinstance(st, ast.Try):
                self.statements(st.body)
                for handler in st.handlers:
                    self.statements(handler.body)
                self.statements([*st.orelse, *st.finalbody])
            else:
                self.expr(st)


def _autouse(tree: ast.Module) -> bool:
    """Whether the file holds an ``autouse`` fixture (it runs before every test)."""
    return any(isinstance(n, ast.keyword) and n.arg == "autouse" for n in ast.walk(tree))


def _takes_fixtures(fn: FunctionNode, bound: set[str]) -> bool:
    params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]
    return any(p not in bound and p not in ("self", "cls") for p in params)


def _tests(tree: ast.Module) -> Iterable[tuple[FunctionNode, set[str], bool]]:
    """Each function of the file with the names its and its classes' decorators bind, and
    whether a class it is in sets up state."""
    stack: list[tuple[ast.AST, set[str], bool]] = [(tree, set(), False)]
    while stack:
        node, bound, set_up = stack.pop()
        if isinstance(node, ast.ClassDef):
            bound = bound | parametrized_names(node.decorator_list)
            set_up = set_up or any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                                   and s.name in SETUPS for s in node.body)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node, bound | parametrized_names(node.decorator_list), set_up
        stack.extend((child, bound, set_up) for child in ast.iter_child_nodes(node))


def _clean_helpers(tree: ast.Module, name: str) -> frozenset[str]:
    """The file's helpers (``def check(text, want): ...``) that call nothing but the
    function, assertions and harmless builtins: calling one changes nothing, and its body
    is read in the state of each call of it."""
    out = set()
    for helper, fn in test_helpers(tree).items():
        reader = _Reader(name)
        reader.statements(fn.body)
        if not reader.tainted:
            out.add(helper)
    return frozenset(out)


def plain_calls(tree: ast.Module, name: str) -> set[int]:
    """``id(call)`` of every call of the file made in a plain state (module docstring)."""
    if _autouse(tree):
        return set()
    helpers = _clean_helpers(tree, name)
    module = _Reader(name, helpers)
    module.statements(tree.body)
    plain = set(module.plain)
    helped = {name: {k for case in cases for k in case}
              for name, cases in helper_cases(tree).items() if name in helpers}
    for fn, bound, set_up in _tests(tree):
        if set_up or _takes_fixtures(fn, bound | helped.get(fn.name, set())):
            continue
        reader = _Reader(name, helpers)
        reader.statements(fn.body)
        plain |= reader.plain
    return plain


__all__ = ["HARMLESS", "SETUPS", "plain_calls"]
