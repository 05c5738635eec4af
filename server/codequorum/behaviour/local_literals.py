"""The literals a test holds in names before it calls the function (read, never run).

``txt = "This is a test ---"`` then ``r = slugify(txt)`` and ``self.assertEqual(r,
"this-is-a-test")``: the call's argument is the literal the name holds where the call
stands. A test's statements are read in order, into its blocks (``with``, ``for``, ``if``,
``try``): a name assigned a literal (or arithmetic of literals, or another name holding
one) holds it from there; assigned anything else, a loop's target, an augmented or
annotated assignment without a literal, it holds nothing; a name a block assigns holds
nothing after that block (which branch ran is not known).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Any

from codequorum.behaviour.expectations import literal

Held = dict[str, Any]

#: Statements whose blocks are read in turn.
_BLOCKS = ("body", "orelse", "finalbody", "handlers")


def held_literals(tree: ast.Module) -> dict[int, Held]:
    """``id(call)`` -> the names holding a literal where each call of a function of the
    file stands (only where one does)."""
    out: dict[int, Held] = {}
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            _statements(fn.body, {}, out)
    return out


def _assigned(node: ast.AST) -> set[str]:
    """The names ``node`` (a statement and what it holds) assigns."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Store)}


def _statements(body: Iterable[ast.stmt], held: Held, out: dict[int, Held]) -> None:
    for statement in body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        blocks = [b for field in _BLOCKS for b in _block(statement, field)]
        if blocks:
            head = [n for n in ast.iter_child_nodes(statement)
                    if isinstance(n, ast.expr | ast.withitem)]
            _calls(head, held, out)
            for name in {n for h in head for n in _assigned(h)}:  # a loop's target, ``as``
                held.pop(name, None)
            for block in blocks:
                _statements(block, held, out)
            for name in _assigned(statement):
                held.pop(name, None)
            continue
        _calls([statement], held, out)
        _assign(statement, held)


def _block(statement: ast.stmt, field: str) -> list[list[ast.stmt]]:
    value = getattr(statement, field, None)
    if not isinstance(value, list) or not value:
        return []
    if field == "handlers":
        return [h.body for h in value if isinstance(h, ast.ExceptHandler)]
    return [value] if isinstance(value[0], ast.stmt) else []


def _calls(nodes: Iterable[ast.AST], held: Held, out: dict[int, Held]) -> None:
    if not held:
        return
    for node in nodes:
        for call in ast.walk(node):
            if isinstance(call, ast.Call):
                out[id(call)] = dict(held)


def _assign(statement: ast.stmt, held: Held) -> None:
    """What ``statement`` makes the names hold from now on."""
    value: ast.expr | None = None
    targets: list[ast.expr] = []
    if isinstance(statement, ast.Assign):
        value, targets = statement.value, statement.targets
    elif isinstance(statement, ast.AnnAssign):
        value, targets = statement.value, [statement.target]
    for name in _assigned(statement):
        held.pop(name, None)
    if value is None:
        return
    ok, found = literal(value, held or None)
    if not ok:
        return
    for target in targets:
        if isinstance(target, ast.Name):
            held[target.id] = found
