"""The regular expressions the versions test a parameter against (read with :mod:`ast`;
nothing runs): ``re.match(r"^\\d+$", s)`` and :mod:`re`'s other searching functions, a
compiled pattern's methods (``EMAIL.fullmatch(s)`` of ``EMAIL = re.compile(...)`` in the
version or its module, ``re.compile(...).search(s)``), a pattern held in a name
(``PATTERN = r"..."``), with the flags the call or the compilation gives (``re.I``).
:mod:`~codequorum.behaviour.pattern_strings` draws inputs from them."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping, Sequence

from codequorum.behaviour.pattern_strings import safe_pattern
from codequorum.behaviour.usage_scope import FunctionNode, called_name, imported_names

#: :mod:`re`'s functions that search a string: where the string is, where the flags are.
RE_FUNCTIONS = {"match": (1, 2), "fullmatch": (1, 2), "search": (1, 2), "findall": (1, 2),
                "finditer": (1, 2), "split": (1, 3), "sub": (2, 4), "subn": (2, 4)}
#: A compiled pattern's methods that search a string, and where the string is.
PATTERN_METHODS = {"match": 0, "fullmatch": 0, "search": 0, "findall": 0, "finditer": 0,
                   "split": 0, "sub": 1, "subn": 1}

Held = tuple[str, int]  # a pattern's text and its flags


def module_patterns(trees: Iterable[ast.AST]) -> dict[str, Held]:
    """The names the top levels of ``trees`` bind to a pattern's text (``PATTERN = r"..."``)
    or a compiled pattern (``EMAIL = re.compile(r"...", re.I)``); a later tree's win."""
    out: dict[str, Held] = {}
    for tree in trees:
        body = tree.body if isinstance(tree, ast.Module) else []
        out.update(_bound(body, out))
    return out


def searched_patterns(fns: Sequence[FunctionNode], param: str, names: Mapping[str, Held],
                    imports: Mapping[str, str] | None = None) -> list[re.Pattern[str]]:
    """The patterns the functions ``fns`` search ``param`` with, compiled, in order, each
    once; a pattern :func:`~codequorum.behaviour.pattern_strings.safe_pattern` refuses is
    left out. ``names``: :func:`module_patterns` of the module and the versions;
    ``imports``: the names their imports bind (``from re import match``)."""
    out: list[re.Pattern[str]] = []
    for fn in fns:
        imported = {**(imports or {}), **imported_names(fn)}
        local = {**names, **_bound(ast.walk(fn), names)}
        for node in ast.walk(fn):
            if not isinstance(node, ast.Call):
                continue
            held = _searched(node, param, local, imported)
            compiled = safe_pattern(*held) if held is not None else None
            if compiled is not None and compiled not in out:
                out.append(compiled)
    return out


def _bound(nodes: Iterable[ast.AST], names: Mapping[str, Held]) -> dict[str, Held]:
    """Names assigned a pattern's text or a compiled pattern among ``nodes``."""
    out: dict[str, Held] = {}
    for node in nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            held = _pattern_value(node.value, {**names, **out})
            if held is not None:
                out[node.targets[0].id] = held
    return out


def _pattern_value(node: ast.AST, names: Mapping[str, Held]) -> Held | None:
    """A pattern's text and flags: a string literal, a name holding one, or
    ``re.compile(text, flags)``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, 0
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.Call) and called_name(node) == "re.compile" and node.args:
        text = _pattern_value(node.args[0], names)
        flags = _flags(_argument(node, 1, "flags"))
        return (text[0], text[1] | flags) if text is not None else None
    return None


def _searched(call: ast.Call, param: str, names: Mapping[str, Held],
              imports: Mapping[str, str]) -> Held | None:
    """The pattern a call searches ``param`` with, or None."""
    func = call.func
    name = called_name(call)
    head, _dot, attr = name.rpartition(".")
    if (head and imports.get(head, head) == "re") or imports.get(name, "").startswith("re."):
        attr = attr or imports[name].removeprefix("re.")
        pattern = _argument(call, 0, "pattern")
        if attr in RE_FUNCTIONS and pattern is not None:
            at, flags_at = RE_FUNCTIONS[attr]
            if not _is_param(_argument(call, at, "string"), param):
                return None
            held = _pattern_value(pattern, names)
            flags = _flags(_argument(call, flags_at, "flags"))
            return (held[0], held[1] | flags) if held is not None else None
        return None
    if isinstance(func, ast.Attribute) and func.attr in PATTERN_METHODS:
        if not _is_param(_argument(call, PATTERN_METHODS[func.attr], "string"), param):
            return None
        return _pattern_value(func.value, names)
    return None


def _argument(call: ast.Call, position: int, keyword: str) -> ast.AST | None:
    if position < len(call.args):
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def _is_param(node: ast.AST | None, param: str) -> bool:
    return isinstance(node, ast.Name) and node.id == param


def _flags(node: ast.AST | None) -> int:
    """The value of ``re.I | re.M``, ``re.IGNORECASE`` and the like; 0 for anything else."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _flags(node.left) | _flags(node.right)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
            and node.value.id == "re" and node.attr.isupper():
        flag = getattr(re.RegexFlag, node.attr, None)
        return int(flag) if isinstance(flag, re.RegexFlag) else 0
    return 0


__all__ = ["module_patterns", "searched_patterns"]
