"""UnifiedDiff and TreeDiff similarity of pycode_similar 1.4, as the non-determinism study
of code generation used them.

Both compare the functions of a reference ``a`` with those of a candidate ``b`` after the
same normalisation of Python's ``ast`` (of the running interpreter):

- names, attribute names, argument names and annotations, constants, imports and
  docstrings (string statements in a body) are removed;
- a comparison ``x == y``, ``x < y``, ``x <= y`` (one operator) is written with the
  operand whose node type sorts first on the left, the operator mirrored;
- ``print(...)`` calls are kept (``keep_prints=True``, as in the study).

Then, for every function ``f`` of ``a`` (methods and nested functions included) and the
function ``g`` of ``b`` with the smallest ``diff(f, g)``::

    UnifiedDiff: diff(f, g) = lines of dump(f) outside the matching blocks of
                              difflib.SequenceMatcher(None, dump(f), dump(g))
                 total(f)   = lines of dump(f)
    TreeDiff:    diff(f, g) = tree edit distance f -> g over node type names
                              (delete 1, insert 0, rename 1; Zhang-Shasha)
                 total(f)   = nodes of f counted by the normaliser
    similarity(a -> b) = Σ_f (total(f) - diff(f, g)) / Σ_f total(f)   (0 when Σ total = 0;
                         a function of a with no counterpart in b adds total(f), 0 matched)

``dump`` is pycode_similar's pretty-printed AST (lines of at most 120 columns). When ``a``
has no function, both texts are wrapped in ``def main():`` (as the study's script does;
a text containing ``__main__`` is left as it is). A reference that is empty, does not parse
or has no function even then gives no value (the script's negative codes): NaN here.

Not symmetric: ``a`` (row ``i`` of a matrix) is the reference. The study averages all
ordered pairs ``i != j``.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from codequorum.core import pyast
from codequorum.metrics.tree_edit import (
    DEFAULT_MAX_NODES,
    TsedTree,
    _decompositions,
    tree_edit_distance,
)

__all__ = [
    "TREE_DIFF_COSTS",
    "PyFunction",
    "dump_lines",
    "normalized_functions",
    "pycode_similar_matrices",
    "tree_diff",
    "unified_diff",
]

#: (delete, insert, rename) costs of TreeDiff's edit distance.
TREE_DIFF_COSTS = (1.0, 0.0, 1.0)
_MAX_LINE = 120
_MAX_MERGED = 80
_INDENT = "    "


class _Normalizer(ast.NodeTransformer):
    """The normalisation above, counting the nodes it visits and collecting functions."""

    def __init__(self, keep_prints: bool) -> None:
        self.keep_prints = keep_prints
        self.count = 0
        self.classes: list[str] = []
        self.functions: list[PyFunction] = []

    def generic_visit(self, node: ast.AST) -> ast.AST:
        self.count += 1
        for name in ("body", "orelse"):
            body = getattr(node, name, None)
            if isinstance(body, list):
                for stmt in body:
                    if (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
                            and isinstance(stmt.value.value, str)):
                        stmt.is_docstring = True  # type: ignore[attr-defined]
        return super().generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        self.generic_visit(node)  # counted, then dropped

    def visit_Expr(self, node: ast.Expr) -> ast.AST | None:
        if getattr(node, "is_docstring", False):
            return None
        self.generic_visit(node)
        return node if hasattr(node, "value") else None

    def visit_arg(self, node: ast.arg) -> ast.AST:
        del node.arg
        del node.annotation
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        del node.id
        del node.ctx
        return self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        del node.attr
        del node.ctx
        return self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.AST | None:
        func = node.func
        if not self.keep_prints and isinstance(func, ast.Name) and func.id == "print":
            return None
        return self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        if len(node.ops) == 1 and len(node.comparators) == 1:
            op = type(node.ops[0])
            left, right = node.left, node.comparators[0]
            if op in _MIRRORED and type(left).__name__ > type(right).__name__:
                node.left, node.comparators = right, [left]
                node.ops = [_MIRRORED[op]()]
        return self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        return None

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        return None

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        self.classes.append(node.name)
        self.generic_visit(node)
        self.classes.pop()
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        function = PyFunction(".".join([*self.classes, node.name]), node, 0)
        self.functions.append(function)  # in the order they start
        before = self.count
        self.generic_visit(node)
        function.nodes = self.count - before
        return node


_MIRRORED: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.Eq, ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE,
}


def _fields(node: Any) -> list[tuple[Any, str]]:
    """(value, field name) of an AST node's present fields, or of a list's items."""
    if isinstance(node, ast.AST):
        return [(getattr(node, f), f) for f in node._fields if hasattr(node, f)]
    if isinstance(node, list):
        return [(v, "") for v in node]
    return []


def _dump(node: Any, name: str = "", indent: str = "") -> str:
    """pycode_similar's ``FuncInfo._dump``: one line when it fits in 120 columns, else
    one item a line, the first kept on the opening line when short."""
    level = indent + _INDENT
    label = f"{name}=" if name else ""
    values = _fields(node)
    if isinstance(node, list):
        prefix, suffix = label + "[", "]"
    elif values:
        prefix, suffix = f"{label}{type(node).__name__}(", ")"
    elif isinstance(node, ast.AST):
        prefix, suffix = label + type(node).__name__, ""
    else:
        return label + repr(node)
    parts = [_dump(v, f, level) for v, f in values if f != "ctx"]
    oneline = prefix + ", ".join(parts) + suffix
    if len(oneline) + len(indent) < _MAX_LINE:
        return oneline
    if parts and len(prefix) + len(parts[0]) < _MAX_MERGED:
        prefix = f"{prefix}{parts.pop(0)},"
    rest = (",\n" + level).join(parts).lstrip()
    return f"{prefix}\n{level}{rest}{suffix}"


def dump_lines(node: ast.AST) -> list[str]:
    """The dump of a normalised node, split into lines (ends kept)."""
    return _dump(node).splitlines(True)


@dataclass
class PyFunction:
    """One normalised function: its qualified name, node and node count."""

    name: str
    node: ast.FunctionDef
    nodes: int

    @cached_property
    def lines(self) -> list[str]:
        """Dump lines (UnifiedDiff)."""
        return dump_lines(self.node)

    @cached_property
    def tree(self) -> TsedTree:
        """The node-type tree (TreeDiff); ``too_large`` past the TSED node limit."""
        labels: list[str] = []
        parents: list[int] = []
        stack: list[tuple[ast.AST, int]] = [(self.node, -1)]
        while stack:
            node, parent = stack.pop()
            labels.append(type(node).__name__)
            parents.append(parent)
            if len(labels) > DEFAULT_MAX_NODES:
                return TsedTree(len(labels), 0, None, None, "tree too large")
            me = len(labels) - 1
            stack.extend((child, me) for child in reversed(list(ast.iter_child_nodes(node))))
        left, right = _decompositions(labels, parents)
        return TsedTree(len(labels), 0, left, right)


def normalized_functions(code: str, keep_prints: bool = True) -> list[PyFunction] | None:
    """The functions of ``code`` after normalisation, in the order they start; None when
    ``code`` does not parse."""
    try:
        root = pyast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    collector = _Normalizer(keep_prints)
    try:
        collector.visit(root)
    except RecursionError:
        return None
    for f in collector.functions:  # the dump leaves the name out
        f.node.__dict__.pop("name", None)
    return collector.functions


def _wrap(code: str) -> str:
    """The study's fallback for code without a function: the text as ``main``'s body."""
    body = "\n".join(_INDENT + line for line in code.split("\n"))
    return f"def main():\n{body}\n\nif __name__ == \"__main__\":\n{_INDENT}main()"


def _line_diff(f: PyFunction, g: PyFunction) -> int:
    matched = sum(b.size for b in SequenceMatcher(None, f.lines, g.lines).get_matching_blocks())
    return len(f.lines) - matched


def _tree_diff(f: PyFunction, g: PyFunction) -> float:
    return tree_edit_distance(f.tree, g.tree, TREE_DIFF_COSTS)


def _similarity(ref: Sequence[PyFunction], cand: Sequence[PyFunction], tree: bool) -> float:
    """Σ (total - smallest diff) / Σ total over the reference's functions."""
    matched = 0.0
    total = 0.0
    for f in ref:
        best: float | None = None
        for g in cand:
            d = _tree_diff(f, g) if tree else _line_diff(f, g)
            if math.isnan(d):
                return math.nan
            if best is None or d < best:
                best = d
            if d == 0:
                break
        size = f.nodes if tree else len(f.lines)
        total += size
        if best is not None:
            matched += size - best
    return 0.0 if total == 0 else matched / total


class _Texts:
    """Each text normalised at most once, plain and wrapped."""

    def __init__(self, codes: Sequence[str], keep_prints: bool) -> None:
        self.codes = list(codes)
        self.keep_prints = keep_prints
        self._plain: dict[int, list[PyFunction] | None] = {}
        self._wrapped: dict[int, list[PyFunction] | None] = {}

    def plain(self, k: int) -> list[PyFunction] | None:
        if k not in self._plain:
            self._plain[k] = normalized_functions(self.codes[k], self.keep_prints)
        return self._plain[k]

    def wrapped(self, k: int) -> list[PyFunction] | None:
        if "__main__" in self.codes[k]:
            return self.plain(k)
        if k not in self._wrapped:
            self._wrapped[k] = normalized_functions(_wrap(self.codes[k]), self.keep_prints)
        return self._wrapped[k]

    def pair(self, i: int, j: int) -> tuple[list[PyFunction], list[PyFunction]] | None:
        """The functions compared for reference ``i`` and candidate ``j``, or None."""
        if self.codes[i] == "":
            return None
        a, b = self.plain(i), self.plain(j)
        if a is None or b is None:
            return None
        if not a:
            a, b = self.wrapped(i), self.wrapped(j)
            if not a or b is None:
                return None
        return a, b


def _pair_value(texts: _Texts, i: int, j: int, tree: bool) -> float:
    pair = texts.pair(i, j)
    return math.nan if pair is None else _similarity(pair[0], pair[1], tree)


def unified_diff(a: str, b: str, keep_prints: bool = True) -> float:
    """UnifiedDiff similarity from reference ``a`` to candidate ``b`` in [0, 1] (NaN: no
    value, see the module docstring)."""
    return _pair_value(_Texts([a, b], keep_prints), 0, 1, tree=False)


def tree_diff(a: str, b: str, keep_prints: bool = True) -> float:
    """TreeDiff similarity from reference ``a`` to candidate ``b`` (at most 1; NaN: no value
    or a function tree past the TSED node limit)."""
    return _pair_value(_Texts([a, b], keep_prints), 0, 1, tree=True)


def pycode_similar_matrices(
    codes: Sequence[str], keep_prints: bool = True
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """``(unified, tree)``: n×n matrices, ``M[i, j]`` = similarity from reference ``i`` to
    candidate ``j`` (NaN where there is no value), each text parsed and normalised once."""
    texts = _Texts(codes, keep_prints)
    n = len(texts.codes)
    unified = np.full((n, n), np.nan)
    tree = np.full((n, n), np.nan)
    for i in range(n):
        for j in range(n):
            unified[i, j] = _pair_value(texts, i, j, tree=False)
            tree[i, j] = _pair_value(texts, i, j, tree=True)
    return unified, tree
