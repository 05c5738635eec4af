"""The literals Python versions compare a parameter with (read with :mod:`ast`; nothing
runs): ``p == "admin"``, ``p in ("GET", "HEAD")``, ``match p: case 404:``, and for a bound
(``n > 100``, ``n <= 2``) the values either side of it, where versions writing ``>`` and
``>=`` part. A literal only some versions compare with comes first: there the versions
differ in what they check. Also the separators they split a text on (``s.split(",")``).
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from codequorum.behaviour.usage_scope import FunctionNode

_BOUNDS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_EQUALS = (ast.Eq, ast.NotEq)
_MEMBERS = (ast.In, ast.NotIn)
#: The longest string literal taken.
MAX_LITERAL_CHARS = 80


def compared_literals(fns: Sequence[FunctionNode], param: str) -> list[Any]:
    """The values the functions ``fns`` compare ``param`` with (see the module docstring),
    each once: those fewer functions compare with first, then in reading order."""
    return fewer_first([list(_values(fn, param)) for fn in fns])


def fewer_first(per_version: Sequence[Sequence[Any]]) -> list[Any]:
    """The values of every version, each once (by ``repr``): those fewer versions hold
    first (where the versions differ in what they check), then in reading order."""
    counts: Counter[str] = Counter()
    first: dict[str, tuple[int, Any]] = {}
    for values in per_version:
        for key, value in {repr(v): v for v in values}.items():
            counts[key] += 1
            first.setdefault(key, (len(first), value))
    order = sorted(first, key=lambda k: (counts[k] == len(per_version), first[k][0]))
    return [first[k][1] for k in order]


def _values(fn: FunctionNode, param: str) -> Iterator[Any]:
    """The values compared with ``param`` in ``fn``, in reading order."""
    nodes = [n for n in ast.walk(fn) if isinstance(n, (ast.Compare, ast.Match))]
    for node in sorted(nodes, key=lambda n: (n.lineno, n.col_offset)):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            for left, op, right in zip(sides, node.ops, sides[1:], strict=False):
                if _is_param(left, param):
                    yield from _compared(op, right, bound_on_left=True)
                elif _is_param(right, param) and not isinstance(op, _MEMBERS):
                    yield from _compared(op, left, bound_on_left=False)
        elif isinstance(node, ast.Match) and _is_param(node.subject, param):
            for case in node.cases:
                yield from _case_values(case.pattern)


def _compared(op: ast.cmpop, other: ast.AST, bound_on_left: bool) -> Iterator[Any]:
    if isinstance(op, _MEMBERS) and isinstance(other, (ast.Tuple, ast.List, ast.Set)):
        for item in other.elts:
            yield from _plain(item)
    elif isinstance(op, _EQUALS):
        yield from _plain(other)
    elif isinstance(op, _BOUNDS):
        for value in _plain(other):
            if isinstance(value, int):
                yield from (value - 1, value, value + 1)
            elif isinstance(value, float):
                yield value


def _case_values(pattern: ast.pattern) -> Iterator[Any]:
    if isinstance(pattern, ast.MatchValue):
        yield from _plain(pattern.value)
    elif isinstance(pattern, ast.MatchOr):
        for p in pattern.patterns:
            yield from _case_values(p)


def _plain(node: ast.AST) -> Iterator[Any]:
    """A string or number literal (``-3`` too), not a boolean; a string past
    :data:`MAX_LITERAL_CHARS` is left out."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) \
            and isinstance(node.operand, ast.Constant):
        value = node.operand.value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            yield -value
        return
    if isinstance(node, ast.Constant):
        value = node.value
        if type(value) in (int, float) or (isinstance(value, str)
                                          and len(value) <= MAX_LITERAL_CHARS):
            yield value


def _is_param(node: ast.AST, param: str) -> bool:
    return isinstance(node, ast.Name) and node.id == param


#: The methods whose first argument is a separator a text is split on or whose place in it
#: is looked for.
SPLITTING = frozenset({"split", "rsplit", "partition", "rpartition", "find", "rfind", "index",
                       "rindex"})


def split_separators(fns: Sequence[FunctionNode]) -> list[str]:
    """The string literals the functions ``fns`` split a text on or look for the place of
    (``s.split(",")``, ``pair.partition("=")``, ``s.find(":")``), in reading order over the
    functions, each once
    (:mod:`~codequorum.behaviour.separated_strings` makes texts of them)."""
    out: list[str] = []
    for fn in fns:
        calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call)
                 and isinstance(n.func, ast.Attribute) and n.func.attr in SPLITTING and n.args]
        for call in sorted(calls, key=lambda n: (n.lineno, n.col_offset)):
            first = call.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str) \
                    and first.value not in out:
                out.append(first.value)
    return out


__all__ = ["SPLITTING", "compared_literals", "fewer_first", "split_separators"]
