"""The cases of a parametrized Python test, read with :mod:`ast` (nothing runs).

``@pytest.mark.parametrize("text, want", [("a b", "a-b"), ("", "")])`` over ``def
test_slug(text, want): assert slug(text) == want`` makes one call per case, as does
``for text, want in CASES: assert slug(text) == want`` over a table (``CASES.items()``
of a dict, or its keys, ``TESTS[text]`` then read as the key's value): each case binds
the names to its literal values, and a call in the test (and what its assertion says it
gives) is read with those bindings (:func:`codequorum.behaviour.expectations.literal`).

Read: the names as one string (``"a, b"``) or a list or tuple of strings (a loop's: its
target names); the cases as a list or tuple of tuples (one value each for a single name),
written there or named by a ``CASES = [...]`` of the module or of the test around the
loop (a name its scope assigns twice names none), ``pytest.param(...)`` among
them (one marked ``xfail`` or ``skip`` is left out: it does not hold); stacked decorators,
and a class's decorators over its methods, multiply. A value that is not a literal leaves
its name unbound in that case (a call using it is then not read). ``indirect``
parametrization (fixtures) is not read. At most :data:`MAX_CASES` cases a test. A helper
of the file called with literals (``def check(text, want): ...`` then ``check('a b',
'a-b')``) binds its parameters per call, as a case does (:func:`helper_cases`).
"""

from __future__ import annotations

import ast
import itertools
from typing import Any

from codequorum.behaviour.expectations import literal

#: Cases of one test read, at most.
MAX_CASES = 64
#: Marks that say a case does not hold.
_FAILING_MARKS = frozenset({"xfail", "skip", "skipif"})

Case = dict[str, Any]
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def _is_parametrize(node: ast.Call) -> bool:
    return isinstance(node.func, ast.Attribute) and node.func.attr == "parametrize"


def _names(node: ast.expr) -> list[str] | None:
    ok, value = literal(node)
    if not ok:
        return None
    if isinstance(value, str):
        names = [n.strip() for n in value.split(",") if n.strip()]
    elif isinstance(value, (list, tuple)) and all(isinstance(n, str) for n in value):
        names = [n.strip() for n in value]
    else:
        return None
    return names or None


def _marked_failing(call: ast.Call) -> bool:
    marks = next((k.value for k in call.keywords if k.arg == "marks"), None)
    if marks is None:
        return False
    return any(isinstance(n, ast.Attribute) and n.attr in _FAILING_MARKS
               for n in ast.walk(marks))


def _values(entry: ast.expr, width: int) -> list[ast.expr] | None:
    """The value nodes of one case (``pytest.param(...)`` unwrapped); None when it does
    not hold ``width`` values or is marked failing."""
    if (isinstance(entry, ast.Call) and isinstance(entry.func, ast.Attribute)
            and entry.func.attr == "param"):
        if _marked_failing(entry) or any(isinstance(a, ast.Starred) for a in entry.args):
            return None
        items = list(entry.args)
    elif width == 1:
        items = [entry]
    elif isinstance(entry, (ast.Tuple, ast.List)):
        items = list(entry.elts)
    else:
        return None
    return items if len(items) == width else None


Tables = dict[str, ast.expr]


def _rows(names: list[str], table: ast.expr, tables: Tables) -> list[Case] | None:
    """The cases a table binds to ``names``: a list or tuple of rows written there, or
    named (a ``CASES = [...]`` of the file), or a dict's ``.items()`` (a row a key and
    its value); None when it is none of those."""
    if isinstance(table, ast.Name):
        table = tables.get(table.id, table)
    pairs = _items_of(table, tables)
    if pairs is not None:
        table = ast.List(elts=[ast.Tuple(elts=[k, v]) for k, v in pairs if k is not None])
    if not isinstance(table, (ast.List, ast.Tuple)):
        return None
    cases: list[Case] = []
    for entry in table.elts[:MAX_CASES]:
        items = _values(entry, len(names))
        if items is None:
            continue
        case: Case = {}
        for name, item in zip(names, items, strict=True):
            ok, value = literal(item)
            if ok:
                case[name] = value
        cases.append(case)
    return cases


def _decorator_cases(node: ast.Call, tables: Tables) -> list[Case] | None:
    """The cases one ``parametrize`` decorator gives; None when it cannot be read."""
    if len(node.args) < 2 or any(k.arg == "indirect" for k in node.keywords):
        return None
    names = _names(node.args[0])
    return None if names is None else _rows(names, node.args[1], tables)


def _loop_cases(loop: ast.For | ast.AsyncFor, tables: Tables) -> list[Case]:
    """``for x, want in [(1, 2), (3, 4)]:`` (or a module-level table): the cases its body
    runs with; ``[{}]`` for a loop over anything else."""
    target = loop.target
    if isinstance(target, ast.Name):
        names = [target.id]
    elif isinstance(target, (ast.Tuple, ast.List)) and all(
            isinstance(e, ast.Name) for e in target.elts):
        names = [e.id for e in target.elts if isinstance(e, ast.Name)]
    else:
        return [{}]
    rows = _rows(names, loop.iter, tables)
    if rows is not None and isinstance(target, (ast.Tuple, ast.List)) and len(names) == 1:
        rows = [{k: v[0] for k, v in row.items()  # ``for (x,) in [(1,)]``: x is 1
                 if isinstance(v, (tuple, list)) and len(v) == 1} for row in rows]
    if rows is None and len(names) == 1:
        rows = _key_rows(names[0], loop.iter, tables)
    return rows if rows else [{}]


def _key_rows(name: str, iterated: ast.expr, tables: Tables) -> list[Case] | None:
    """``for text in TESTS:`` over a dict table: a case per key, the dict by its name too,
    so that ``TESTS[text]`` reads the key's value."""
    if not isinstance(iterated, ast.Name) or not isinstance(tables.get(iterated.id), ast.Dict):
        return None
    ok, whole = literal(tables[iterated.id])
    if not ok or not isinstance(whole, dict):
        return None
    return [{name: k, iterated.id: whole} for k in list(whole)[:MAX_CASES]]


def _items_of(node: ast.expr, tables: Tables) -> list[tuple[ast.expr | None, ast.expr]] | None:
    """The pairs of ``TABLE.items()`` over a dict written there or named; None otherwise."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "items" and not node.args and not node.keywords):
        return None
    table = node.func.value
    if isinstance(table, ast.Name):
        table = tables.get(table.id, table)
    return list(zip(table.keys, table.values, strict=True)) if isinstance(table, ast.Dict) \
        else None


def module_tables(tree: ast.Module) -> Tables:
    """The module's own ``NAME = [...]`` (a tuple, a dict) assignments: the tables a test
    may name."""
    return scope_tables(tree.body, {})


def scope_tables(body: list[ast.stmt], outer: Tables) -> Tables:
    """The tables a scope sees: ``outer`` (the module's), and those its own statements
    assign (into its blocks, not into the functions it defines), which shadow them. A name
    the scope assigns twice, or assigns something else, names no table there (which value
    a test reads would be a guess)."""
    own: dict[str, ast.expr | None] = {}
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            table = isinstance(node.value, ast.List | ast.Tuple | ast.Dict)
            own[name] = node.value if table and name not in own else None
        stack.extend(ast.iter_child_nodes(node))
    seen = {**outer, **own}
    return {name: value for name, value in seen.items() if value is not None}


def decorated_cases(decorators: list[ast.expr], tables: Tables | None = None) -> list[Case]:
    """The cases a definition's ``parametrize`` decorators give (their product), ``[{}]``
    when it has none that can be read; ``tables``: the module's named tables."""
    found = [c for c in (_decorator_cases(d, tables or {}) for d in decorators
                         if isinstance(d, ast.Call) and _is_parametrize(d))
             if c is not None]
    if not found:
        return [{}]
    product = itertools.islice(itertools.product(*found), MAX_CASES)
    return [{k: v for part in combo for k, v in part.items()} for combo in product]


def parametrized_names(decorators: list[ast.expr]) -> set[str]:
    """The names a definition's ``parametrize`` decorators bind."""
    out: set[str] = set()
    for d in decorators:
        if isinstance(d, ast.Call) and _is_parametrize(d) and d.args:
            out.update(_names(d.args[0]) or ())
    return out


def _combined(outer: list[Case], inner: list[Case]) -> list[Case]:
    if inner == [{}]:
        return outer
    if outer == [{}]:
        return inner
    pairs = itertools.islice(itertools.product(outer, inner), MAX_CASES)
    return [{**a, **b} for a, b in pairs]


def test_helpers(tree: ast.Module) -> dict[str, FunctionNode]:
    """The file's own functions that are not tests nor fixtures (no ``test`` prefix, no
    decorator), by name: helpers a test calls (``def check(text, want): ...``)."""
    return {n.name: n for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and not n.name.startswith("test") and not n.decorator_list}


def helper_cases(tree: ast.Module, plain: set[int] | None = None) -> dict[str, list[Case]]:
    """The file's helpers (:func:`test_helpers`; a method ``self.check(...)`` too) called in
    it with literal arguments (``check('a b', 'a-b')``; with ``plain``, only the calls made
    in a plain state): by name, per call its parameters bound to the call's values (one
    given no literal stays unbound in that case); at most :data:`MAX_CASES` calls a
    helper."""
    helpers = test_helpers(tree)
    out: dict[str, list[Case]] = {}
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
             and (plain is None or id(n) in plain)] if helpers else []
    for node in calls:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if (
            isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and func.value.id == "self") else None
        if name is None or name not in helpers or len(out.get(name, ())) >= MAX_CASES:
            continue
        fn = helpers[name]
        params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)
                  if a.arg not in ("self", "cls")]
        case: Case = {}
        for param, value in [*zip(params, node.args, strict=False),
                             *((k.arg, k.value) for k in node.keywords if k.arg is not None)]:
            ok, read = literal(value)
            if ok:
                case[param] = read
        out.setdefault(name, []).append(case)
    return out


def case_bindings(tree: ast.Module, plain: set[int] | None = None) -> dict[int, list[Case]]:
    """``id(node)`` -> the cases its innermost parametrized test or table loop binds, for
    every node inside one (class decorators multiplying its methods', a loop its test's,
    the calls of a helper with literals its body's: with ``plain``, those made in a plain
    state)."""
    module = module_tables(tree)
    helpers = helper_cases(tree, plain)
    out: dict[int, list[Case]] = {}
    stack: list[tuple[ast.AST, list[Case], Tables]] = [(tree, [{}], module)]
    while stack:
        node, cases, tables = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in helpers:
            cases = _combined(cases, helpers[node.name])
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            cases = _combined(cases, decorated_cases(node.decorator_list, module))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            tables = scope_tables(node.body, module)
        if cases != [{}]:
            out[id(node)] = cases
        if isinstance(node, (ast.For, ast.AsyncFor)):  # its body runs once per row
            inner = _combined(cases, _loop_cases(node, tables))
            stack.extend((child, inner, tables) for child in node.body)
            stack.extend((child, cases, tables)
                         for child in (node.target, node.iter, *node.orelse))
            continue
        stack.extend((child, cases, tables) for child in ast.iter_child_nodes(node))
    return out


__all__ = ["MAX_CASES", "case_bindings", "decorated_cases", "helper_cases", "module_tables",
           "parametrized_names", "scope_tables", "test_helpers"]
