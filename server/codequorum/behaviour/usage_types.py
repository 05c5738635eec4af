"""A parameter's type guessed from how the versions use it, where nothing annotates it
(read with :mod:`ast`; nothing runs).

Each use is a vote for a kind, and the strongest kind any version's use asks for wins:

- a mapping: ``p.items()``, ``p.keys()``, ``p.values()``, ``p.get(...)``, ``p.setdefault``;
- a string: ``p.lower()``, ``p.split()``, ``p.startswith(...)`` and the other ``str``
  methods no list has, ``p + "..."``, an f-string or ``%`` format of it;
- a list: ``p[i]``, ``p[a:b]``, ``len(p)``, ``for x in p``, ``x in p``, ``p.append`` and
  the other list methods, ``sorted(p)``, ``sum(p)``...;
- a number: arithmetic with it (``p + 1``, ``p * q``, ``-p``; not ``p + q``, which joins
  strings and lists too), an order comparison with a number, ``range(p)``, ``int(p)``; a
  float when it meets a float literal or true division, or in ``float(p)``, ``math.isnan(p)``.

The result is a ``test_inputs.TypeSpec`` (``("list", ("int",))``), or None when the
versions do nothing telling with it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Any

Spec = tuple[Any, ...]
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

_MAPPING_METHODS = frozenset({"items", "keys", "values", "get", "setdefault", "popitem"})
_STR_METHODS = frozenset({
    "lower", "upper", "strip", "lstrip", "rstrip", "split", "rsplit", "splitlines",
    "startswith", "endswith", "replace", "find", "rfind", "isdigit", "isalpha", "isalnum",
    "isspace", "isupper", "islower", "title", "capitalize", "casefold", "encode", "format",
    "partition", "rpartition", "zfill", "center", "ljust", "rjust", "swapcase", "expandtabs",
    "translate", "isnumeric", "isdecimal", "isidentifier", "isprintable", "removeprefix",
    "removesuffix",
})
_LIST_METHODS = frozenset({"append", "extend", "insert", "pop", "sort", "reverse", "remove",
                           "index", "count", "copy", "clear"})
_SEQUENCE_CALLS = frozenset({"len", "sorted", "sum", "min", "max", "list", "tuple", "set",
                             "enumerate", "reversed", "any", "all", "zip", "iter", "aiter"})
_NUMBER_CALLS = frozenset({"range", "abs", "round", "divmod", "math.sqrt", "math.floor",
                           "math.ceil", "math.log", "bin", "hex", "chr", "int"})
_FLOAT_CALLS = frozenset({"float", "math.isnan", "math.isinf", "math.isfinite"})
#: The kinds in the order a stronger use overrides a weaker one.
_RANK = {"int": 1, "float": 2, "list": 3, "str": 4, "dict": 5}
_SPECS: dict[str, Spec] = {"int": ("int",), "float": ("float",), "list": ("list", ("int",)),
                           "str": ("str",), "dict": ("dict", ("str",), ("int",))}


def _is(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _called_name(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return f"{func.value.id}.{func.attr}"
    return ""


def _number_kind(other: ast.AST) -> str:
    return "float" if isinstance(other, ast.Constant) and isinstance(other.value, float) \
        else "int"


def _binop_votes(node: ast.BinOp, name: str) -> Iterable[str]:
    for mine, other in ((node.left, node.right), (node.right, node.left)):
        if not _is(mine, name):
            continue
        if isinstance(other, (ast.Constant, ast.JoinedStr)) and isinstance(
                getattr(other, "value", ""), str):
            yield "str"
        elif isinstance(node.op, ast.Mod) and mine is node.left:
            yield "int"
        elif isinstance(node.op, ast.Div):
            yield "float"
        elif isinstance(other, (ast.List, ast.ListComp)):
            yield "list"
        elif isinstance(node.op, ast.Add) and not isinstance(other, ast.Constant):
            continue  # ``a + b`` joins strings and lists as well as numbers
        else:
            yield _number_kind(other)


def _indexed_or_iterated(node: ast.AST, name: str) -> bool:
    """``name[...]``, ``for x in name``, ``async for x in name``, ``[... for x in name]``."""
    if isinstance(node, ast.Subscript):
        return _is(node.value, name)
    return isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and _is(node.iter, name)


def _votes(node: ast.AST, name: str) -> Iterable[str]:
    """The kinds one node's use of ``name`` asks for."""
    if isinstance(node, ast.Attribute) and _is(node.value, name):
        if node.attr in _MAPPING_METHODS:
            yield "dict"
        elif node.attr in _STR_METHODS:
            yield "str"
        elif node.attr in _LIST_METHODS:
            yield "list"
    elif _indexed_or_iterated(node, name):
        yield "list"
    elif isinstance(node, ast.Compare):
        for op, right in zip(node.ops, node.comparators, strict=True):
            if isinstance(op, (ast.In, ast.NotIn)) and _is(right, name):
                yield "list"
            elif isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) and _is(node.left, name) \
                    and isinstance(right, ast.Constant) and type(right.value) in (int, float):
                yield _number_kind(right)
    elif isinstance(node, ast.Call) and any(_is(a, name) for a in node.args):
        called = _called_name(node)
        if called in _SEQUENCE_CALLS:
            yield "list"
        elif called in _NUMBER_CALLS:
            yield "int"
        elif called in _FLOAT_CALLS:
            yield "float"
    elif isinstance(node, ast.BinOp):
        yield from _binop_votes(node, name)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and _is(node.operand,
                                                                                  name):
        yield "int"
    elif isinstance(node, ast.AugAssign) and _is(node.target, name):
        yield _number_kind(node.value)


def usage_spec(functions: Iterable[FunctionNode], name: str) -> Spec | None:
    """The type the uses of parameter ``name`` in ``functions`` (the versions) ask for."""
    best = ""
    for fn in functions:
        for node in ast.walk(fn):
            for kind in _votes(node, name):
                if _RANK[kind] > _RANK.get(best, 0):
                    best = kind
    return _SPECS.get(best)


__all__ = ["usage_spec"]
