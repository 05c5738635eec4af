"""The cases of a table-driven JavaScript test, read with tree-sitter (nothing runs).

``test.each([[1, 1, 2], [2, 3, 5]])('add(%i, %i)', (a, b, want) => { expect(add(a,
b)).toBe(want); })`` makes one call per row: each row binds the callback's parameters to
its literal values, and a call in the callback (and what its assertion says it gives) is
read with those bindings (``js_literals.literal(node, bound)``).

Read: Jest's and Vitest's ``test.each``, ``it.each``, ``describe.each`` (``.only``/``.skip``
before ``each`` too: ``.skip`` is left out, it does not hold) with an array of rows: a row
that is an array binds the parameters in order; one that is an object binds a destructured
parameter (``({a, b, want}) =>``) by key; a value that is neither, with one parameter,
binds it. The tagged-template table form is not read. A value that is not a literal leaves
its name unbound in that row (a call using it is then not read). At most
:data:`MAX_CASES` rows a table.
"""

from __future__ import annotations

from typing import Any

from tree_sitter import Node

from codequorum.behaviour.runtimes.js_expectations import Key, key
from codequorum.behaviour.runtimes.js_literals import NotLiteral, literal, node_text

#: Rows of one table read, at most.
MAX_CASES = 64
#: What a table-driven test is called on.
_RUNNERS = frozenset({"test", "it", "describe"})
#: The nodes a test's callback is.
_FUNCTIONS = frozenset({"arrow_function", "function_expression", "function"})

Case = dict[str, Any]


def _each_table(callee: Node) -> Node | None:
    """For ``test.each(TABLE)`` (``it.only.each``...), ``TABLE``'s node when it is an array."""
    if callee.type != "call_expression":
        return None
    fn = callee.child_by_field_name("function")
    if fn is None or fn.type != "member_expression":
        return None
    prop = fn.child_by_field_name("property")
    if prop is None or node_text(prop) != "each":
        return None
    names = []
    obj = fn.child_by_field_name("object")
    while obj is not None and obj.type == "member_expression":
        word = obj.child_by_field_name("property")
        names.append(node_text(word) if word is not None else "")
        obj = obj.child_by_field_name("object")
    if obj is None or node_text(obj) not in _RUNNERS or "skip" in names:
        return None
    args = callee.child_by_field_name("arguments")
    table = args.named_children[0] if args is not None and args.named_children else None
    return table if table is not None and table.type == "array" else None


def _parameters(fn: Node) -> tuple[list[str], bool] | None:
    """The callback's parameter names, and whether it takes one destructured object."""
    params = fn.child_by_field_name("parameters") or fn.child_by_field_name("parameter")
    if params is None:
        return None
    if params.type == "identifier":
        return [node_text(params)], False
    found = [p.child_by_field_name("pattern") or p for p in params.named_children
             if p.type != "comment"]
    if len(found) == 1 and found[0].type == "object_pattern":
        keys = [node_text(c) for c in found[0].named_children
                if c.type == "shorthand_property_identifier_pattern"]
        return keys, True
    if all(p.type == "identifier" for p in found):
        return [node_text(p) for p in found], False
    return None


def _row(entry: Node, names: list[str], by_key: bool) -> Case:
    """What one row binds (its literal values only)."""
    if by_key and entry.type == "object":
        pairs = {}
        for pair in entry.named_children:
            k, v = pair.child_by_field_name("key"), pair.child_by_field_name("value")
            if pair.type == "pair" and k is not None and v is not None:
                pairs[node_text(k).strip("'\"")] = v
        items = [(n, pairs[n]) for n in names if n in pairs]
    elif entry.type == "array" and not by_key:
        items = list(zip(names, [e for e in entry.named_children if e.type != "comment"],
                         strict=False))
    elif len(names) == 1 and not by_key:
        items = [(names[0], entry)]
    else:
        items = []
    case: Case = {}
    for name, node in items:
        try:
            case[name] = literal(node)
        except (NotLiteral, ValueError, RecursionError):
            continue
    return case


def _cases(invocation: Node) -> tuple[Node, list[Case]] | None:
    """``test.each(TABLE)(title, callback)``: the callback and the rows' bindings."""
    callee = invocation.child_by_field_name("function")
    table = _each_table(callee) if callee is not None else None
    args = invocation.child_by_field_name("arguments")
    if table is None or args is None:
        return None
    callback = next((a for a in args.named_children if a.type in _FUNCTIONS), None)
    found = _parameters(callback) if callback is not None else None
    if callback is None or found is None:
        return None
    rows = [e for e in table.named_children if e.type != "comment"][:MAX_CASES]
    return callback, [_row(e, *found) for e in rows]


def case_bindings(root: Node) -> dict[Key, list[Case]]:
    """``js_expectations.key`` of each call inside a table-driven test's callback -> the
    rows that callback is run with (the innermost table's)."""
    out: dict[Key, list[Case]] = {}
    callbacks: dict[Key, list[Case]] = {}
    stack: list[tuple[Node, list[Case] | None]] = [(root, None)]
    while stack:
        node, cases = stack.pop()
        if node.type in _FUNCTIONS:
            cases = callbacks.get(key(node), cases)
        if node.type == "call_expression":
            if cases is not None:
                out[key(node)] = cases
            table = _cases(node)
            if table is not None:
                callbacks[key(table[0])] = table[1]
        stack.extend((c, cases) for c in node.children)
    return out


__all__ = ["MAX_CASES", "case_bindings"]
