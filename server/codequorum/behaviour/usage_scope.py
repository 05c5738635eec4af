"""What one version's function says about its own names, for :mod:`usage_types`: its
parameters, the loop variables that walk a parameter (``for x in q``), the names bound to
a compiled pattern (``pat = re.compile(...)``), the names that only ever hold a parameter
(``cur = start``), and which parameters it never reads."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import NamedTuple

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult)


class Element(NamedTuple):
    """An element of parameter ``param``: one it walks (``for x in q``) or, where
    ``indexed``, one taken by index (``q[i]``, a mapping's value)."""

    param: str
    indexed: bool


@dataclass(frozen=True)
class Scope:
    """One version's function and the facts about its names."""

    fn: FunctionNode
    params: frozenset[str]
    #: loop variable -> the parameter it walks, where it walks only that one
    loops: dict[str, str]
    #: names bound to ``re.compile(...)``
    patterns: frozenset[str]
    #: the parameters and the names the function assigns (no module is one of them)
    bound: frozenset[str]
    #: alias -> the parameter it holds, where every assignment of it is ``alias = param``
    aliases: dict[str, str]

    @classmethod
    def of(cls, fn: FunctionNode) -> Scope:
        args = fn.args
        params = frozenset(a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))
        stored = frozenset(n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
                           and isinstance(n.ctx, ast.Store))
        return cls(fn, params, _loops(fn, params), _patterns(fn), params | stored,
                   _aliases(fn, params))

    def aliases_of(self, name: str) -> list[str]:
        """The names that only ever hold parameter ``name``."""
        return [alias for alias, param in self.aliases.items() if param == name]

    def is_pattern(self, node: ast.AST) -> bool:
        """``re.compile(...)`` or a name bound to one."""
        if isinstance(node, ast.Name):
            return node.id in self.patterns
        return _is_compile(node)


def _aliases(fn: FunctionNode, params: frozenset[str]) -> dict[str, str]:
    """Names stored only by ``alias = param`` (one target, one parameter, every time)."""
    held: dict[str, set[str | None]] = {}
    plain: set[int] = set()  # the targets of ``name = value`` (read with their value)
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            value = node.value
            source = value.id if isinstance(value, ast.Name) and value.id in params else None
            held.setdefault(node.targets[0].id, set()).add(source)
            plain.add(id(node.targets[0]))
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) \
                and id(node) not in plain:
            held.setdefault(node.id, set()).add(None)  # a loop target, a tuple's part...
    return {alias: src for alias, sources in held.items() if len(sources) == 1
            for src in sources if src is not None and alias not in params}


def _is_compile(node: ast.AST) -> bool:
    func = node.func if isinstance(node, ast.Call) else None
    return isinstance(func, ast.Attribute) and func.attr == "compile" \
        and isinstance(func.value, ast.Name) and func.value.id == "re"


def _patterns(fn: FunctionNode) -> frozenset[str]:
    return frozenset(t.id for node in ast.walk(fn) if isinstance(node, ast.Assign)
                     and _is_compile(node.value) for t in node.targets
                     if isinstance(t, ast.Name))


def _loops(fn: FunctionNode, params: frozenset[str]) -> dict[str, str]:
    walked: dict[str, set[str | None]] = {}
    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) \
                and isinstance(node.target, ast.Name):
            it = node.iter
            source = it.id if isinstance(it, ast.Name) and it.id in params else None
            walked.setdefault(node.target.id, set()).add(source)
    return {var: src for var, sources in walked.items() if len(sources) == 1
            for src in sources if src is not None and var not in params}


def element_of(node: ast.AST, scope: Scope) -> Element | None:
    """The parameter ``node`` is an element of: ``x`` of ``for x in q``, ``q[i]``, or
    ``q[i] + q[j]``; None otherwise."""
    if isinstance(node, ast.Name):
        walked = scope.loops.get(node.id)
        return Element(walked, False) if walked is not None else None
    if isinstance(node, ast.Subscript):
        value = node.value
        if isinstance(value, ast.Name) and value.id in scope.params \
                and not isinstance(node.slice, ast.Slice):
            return Element(value.id, True)
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
        left = element_of(node.left, scope)
        return left if left is not None and left == element_of(node.right, scope) else None
    return None


def never_read(scope: Scope, name: str) -> bool:
    """Whether ``name`` is a parameter of the function that nothing in it reads."""
    return name in scope.params and not any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
        for n in ast.walk(scope.fn))


__all__ = ["Element", "Scope", "element_of", "never_read"]
