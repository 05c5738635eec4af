"""The literals a JavaScript test holds in names where it calls the function (read with
tree-sitter, never run); the side of :mod:`codequorum.behaviour.local_literals`.

``const input = 'a b'; expect(slug(input)).toBe('a-b')``: the call's argument is the literal
the name holds where the call stands. The blocks around the call are read from the
outermost in, each up to the statement holding the call: ``const``/``let``/``var`` of a
literal (or arithmetic of literals, or a name holding one) and an assignment ``x = <literal>``
make the name hold it, and ``const [a, b] = <array>`` each of its items; a declaration or
assignment of anything else, and a name any other statement assigns (inside a loop or a
branch), make it hold nothing.
"""

from __future__ import annotations

import contextlib
from typing import Any

from tree_sitter import Node

from codequorum.behaviour.runtimes.js_literals import NotLiteral, literal, node_text

Held = dict[str, Any]

#: Nodes whose statements run in order.
_BLOCKS = frozenset({"statement_block", "program"})


def held_at(call: Node, case: Held | None = None) -> Held:
    """The names holding a literal where ``call`` stands; ``case``: what a table-driven
    test's row binds (``const [want, strict] = t.out`` reads it)."""
    chain: list[Node] = []
    at: Node | None = call
    while at is not None:
        parent = at.parent
        if parent is not None and parent.type in _BLOCKS:
            chain.append(at)
        at = parent
    held: Held = dict(case or {})
    for statement in reversed(chain):  # the outermost block first
        block = statement.parent
        assert block is not None
        for earlier in block.named_children:
            if earlier.start_byte >= statement.start_byte:
                break
            _statement(earlier, held)
    return held


def _statement(node: Node, held: Held) -> None:
    """What one statement before the call makes the names hold."""
    if node.type in ("lexical_declaration", "variable_declaration"):
        for declarator in node.named_children:
            if declarator.type == "variable_declarator":
                _bind(declarator.child_by_field_name("name"),
                      declarator.child_by_field_name("value"), held)
        return
    if node.type == "expression_statement" and node.named_children \
            and node.named_children[0].type == "assignment_expression":
        assignment = node.named_children[0]
        _bind(assignment.child_by_field_name("left"),
              assignment.child_by_field_name("right"), held)
        return
    for name in _assigned(node):
        held.pop(name, None)


def _bind(name: Node | None, value: Node | None, held: Held) -> None:
    if name is not None and name.type == "array_pattern" and value is not None:
        _unpack(name, value, held)
        return
    if name is None or name.type != "identifier":
        for word in _assigned(name) if name is not None else ():
            held.pop(word, None)
        return
    word = node_text(name)
    held.pop(word, None)
    if value is None:
        return
    with contextlib.suppress(NotLiteral, ValueError, RecursionError):
        held[word] = literal(value, held or None)


def _unpack(pattern: Node, value: Node, held: Held) -> None:
    """``const [a, b] = t.out``: each name the item of the literal array at its place;
    names past its end, or a value that is no array, hold nothing."""
    try:
        items = literal(value, held or None)
    except (NotLiteral, ValueError, RecursionError):
        items = None
    names = [c for c in pattern.named_children if c.type != "comment"]
    for k, part in enumerate(names):
        if part.type != "identifier":
            for word in _assigned(part):
                held.pop(word, None)
            continue
        word = node_text(part)
        held.pop(word, None)
        if isinstance(items, list) and k < len(items):
            held[word] = items[k]


def _assigned(node: Node) -> set[str]:
    """The names ``node`` declares or assigns anywhere inside it."""
    out: set[str] = set()
    stack = [node]
    while stack:
        cur = stack.pop()
        target = None
        if cur.type in ("assignment_expression", "augmented_assignment_expression"):
            target = cur.child_by_field_name("left")
        elif cur.type == "variable_declarator":
            target = cur.child_by_field_name("name")
        elif cur.type == "update_expression":
            target = _updated(cur.child_by_field_name("argument"))
        elif cur.type in ("for_in_statement",):
            target = cur.child_by_field_name("left")
        if target is not None:
            out.update(node_text(n) for n in _identifiers(target))
        stack.extend(cur.named_children)
    return out


def _updated(node: Node | None) -> Node | None:
    """The name ``x++``, ``--x`` or ``o.n++`` changes (``o``); None for anything else: a
    test's ``void ----...1`` nests 20,000 updates, and reading every name under each was
    quadratic in its length."""
    while node is not None and node.type in ("parenthesized_expression", "member_expression",
                                              "subscript_expression"):
        node = node.child_by_field_name("object") if node.type != "parenthesized_expression" \
            else (node.named_children[0] if node.named_children else None)
    return node if node is not None and node.type == "identifier" else None


def _identifiers(node: Node) -> list[Node]:
    found, stack = [], [node]
    while stack:
        cur = stack.pop()
        if cur.type in ("identifier", "shorthand_property_identifier_pattern"):
            found.append(cur)
        stack.extend(cur.named_children)
    return found


__all__ = ["held_at"]
