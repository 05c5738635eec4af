"""The regular expressions JavaScript and TypeScript versions test a parameter against, as
Python patterns (read from the tree-sitter tree; nothing runs): ``/^\\d+$/.test(s)``,
``RE.exec(s)`` of ``const RE = /.../i`` in the version or its module, ``s.match(/.../)``,
``s.search(...)``, ``s.matchAll(...)``, a ``new RegExp("...", "i")`` of string literals.
:mod:`~codequorum.behaviour.pattern_strings` draws inputs from them.

A pattern is read as Python's ``re`` reads it after the few spellings that differ are
rewritten (named groups and their references, ``[^]``); ``\\d``, ``\\w`` and ``\\b`` are
ASCII as in JavaScript. A pattern Python cannot read the same way (``\\p{L}``, ``\\u{...}``)
is left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence

from tree_sitter import Node

from codequorum.behaviour.pattern_strings import safe_pattern
from codequorum.behaviour.runtimes.js_literals import NotLiteral, literal, node_text
from codequorum.behaviour.runtimes.js_usage import (
    REGEX_METHODS,
    named_function,
    parameter_nodes,
)
from codequorum.core.limits import InputLimitError
from codequorum.core.parsing import named_nodes, parse

#: A string's methods that search it with their first argument.
SEARCHING_METHODS = {"match", "matchAll", "search"}
_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}
Held = tuple[str, str]  # a pattern's source and flags, as JavaScript writes them


def as_python(source: str, flags: str = "") -> re.Pattern[str] | None:
    """A JavaScript pattern as Python's ``re`` reads it, or None where it would read it
    otherwise (see the module docstring) or :func:`safe_pattern` refuses it."""
    if "\\p{" in source or "\\P{" in source or "\\u{" in source or "\\c" in source:
        return None
    text = re.sub(r"\(\?<(?![=!])", "(?P<", source)
    text = re.sub(r"\\k<(\w+)>", r"(?P=\1)", text)
    text = text.replace("[^]", r"[\s\S]").replace("[]", "(?!)")
    value = re.ASCII
    for f in flags:
        value |= _FLAGS.get(f, 0)
    return safe_pattern(text, value)


def searched_patterns(texts: Sequence[str], entry: str,
                    module_texts: Sequence[str] = ()) -> dict[int, list[re.Pattern[str]]]:
    """Each parameter's patterns, by its position, over the functions named ``entry`` in
    ``texts``; a name bound to a pattern (``const RE = /.../``) is looked up in the
    version's text, then in ``module_texts``."""
    out: dict[int, list[re.Pattern[str]]] = {}
    module_names: dict[str, Held] = {}
    for text in module_texts:
        module_names = {**_bound(_root(text)), **module_names}
    for text in texts:
        root = _root(text)
        found = named_function(text, entry) if root is not None else None
        if found is None or found[1] is None or root is None:
            continue
        params = {node_text(p.child_by_field_name("pattern") or p): k
                  for k, p in enumerate(parameter_nodes(found[1]))}
        names = {**module_names, **_bound(root)}
        fn_node = found[1].parent or found[1]
        for param, held in _searches(fn_node, params, names):
            compiled = as_python(*held)
            at = params[param]
            if compiled is not None and compiled not in out.setdefault(at, []):
                out[at].append(compiled)
    return out


def _root(text: str) -> Node | None:
    try:
        tree = parse(text, "typescript")
    except InputLimitError:
        return None
    return tree.root_node


def _bound(root: Node | None) -> dict[str, Held]:
    """Names declared with a pattern as their value (``const RE = /^a+$/i``)."""
    out: dict[str, Held] = {}
    for node in named_nodes(root) if root is not None else ():
        if node.type == "variable_declarator":
            name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            held = _pattern_of(value, {}) if value is not None else None
            if name is not None and name.type == "identifier" and held is not None:
                out.setdefault(node_text(name), held)
    return out


def _pattern_of(node: Node, names: dict[str, Held]) -> Held | None:
    """A regex literal's source and flags, a name bound to one, or ``new RegExp(s, f)``
    (``RegExp(s, f)``) of string literals."""
    if node.type == "regex":
        pattern, flags = node.child_by_field_name("pattern"), node.child_by_field_name("flags")
        return (node_text(pattern) if pattern else "", node_text(flags) if flags else "")
    if node.type == "identifier":
        return names.get(node_text(node))
    if node.type in ("new_expression", "call_expression"):
        callee = node.child_by_field_name("constructor") or node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if callee is None or node_text(callee) != "RegExp" or args is None:
            return None
        try:
            values = [literal(a) for a in args.named_children]
        except NotLiteral:
            return None
        if values and all(isinstance(v, str) for v in values[:2]):
            return values[0], values[1] if len(values) > 1 else ""
    return None


def _searches(fn: Node, params: Mapping[str, int],
              names: dict[str, Held]) -> Iterator[tuple[str, Held]]:
    """(parameter, pattern) for each search of a parameter in ``fn``."""
    for node in named_nodes(fn):
        if node.type != "call_expression":
            continue
        func, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if func is None or args is None or func.type != "member_expression":
            continue
        holder, prop = func.child_by_field_name("object"), func.child_by_field_name("property")
        first = args.named_children[0] if args.named_children else None
        if holder is None or prop is None or first is None:
            continue
        method = node_text(prop)
        if method in REGEX_METHODS and node_text(first) in params:
            held = _pattern_of(holder, names)
            searched = node_text(first)
        elif method in SEARCHING_METHODS and node_text(holder) in params:
            held = _pattern_of(first, names)
            searched = node_text(holder)
        else:
            continue
        if held is not None:
            yield searched, held


__all__ = ["as_python", "searched_patterns"]
