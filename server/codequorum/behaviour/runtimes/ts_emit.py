"""The JavaScript TypeScript emits for its two common kinds of syntax with run-time
meaning, written in place of the TypeScript by ``ts_strip.py``.

- ``enum E { A, B = 5, C = "c" }`` -> ``var E = (function (E) { E[E["A"] = 0] = "A"; ...
  return E; })({});``: numbers counted on from the last number (``A`` is 0), each
  numeric member mapped back from its value, string members not (as ``tsc`` emits it);
  a member's initializer that is not a literal is evaluated in the enum's scope, where
  earlier members are names (``B = A * 2``).
- ``constructor(private x: number, readonly y = 1)``: the modifiers blanked and
  ``this.x = x; this.y = y;`` at the start of the body (after a first ``super(...)``).
"""

from __future__ import annotations

import json

from tree_sitter import Node

from codequorum.behaviour.runtimes.js_literals import node_text


def _member_name(node: Node) -> str:
    if node.type == "string":
        return "".join(node_text(c) for c in node.named_children)
    return node_text(node)


def enum_object(node: Node) -> str:
    """The ``var`` an ``enum_declaration`` node is at run time, on one line."""
    name_node = node.child_by_field_name("name")
    body = node.child_by_field_name("body")
    name = node_text(name_node) if name_node is not None else "_"
    lines: list[str] = []
    known: list[str] = []
    following: int | None = 0
    for member in body.named_children if body is not None else []:
        if member.type == "comment":
            continue
        key_node = member.child_by_field_name("name") if member.type == "enum_assignment" \
            else member
        value_node = member.child_by_field_name("value") if member.type == "enum_assignment" \
            else None
        key = json.dumps(_member_name(key_node if key_node is not None else member))
        scope = "".join(f"const {k} = {name}[{json.dumps(k)}]; " for k in known)
        if value_node is None:
            value, numeric = str(following if following is not None else "undefined"), True
        elif value_node.type in ("string", "template_string"):
            value, numeric = node_text(value_node), False
        elif value_node.type == "number":
            value, numeric = node_text(value_node), True
        else:
            value, numeric = f"(() => {{ {scope}return ({node_text(value_node)}); }})()", True
        if numeric:
            lines.append(f"{name}[{name}[{key}] = {value}] = {key};")
        else:
            lines.append(f"{name}[{key}] = {value};")
        if json.loads(key).isidentifier():
            known.append(json.loads(key))
        following = _next(value_node, following)
    return (f"var {name} = (function ({name}) {{ {' '.join(lines)} return {name}; }})"
            f"({name} || {{}});")


def _next(value_node: Node | None, following: int | None) -> int | None:
    """The value an uninitialised member after this one takes (None: unknown here)."""
    if value_node is None:
        return None if following is None else following + 1
    text = node_text(value_node).strip()
    try:
        return int(text, 0) + 1
    except ValueError:
        return None


def parameter_properties(method: Node) -> list[tuple[int, int, str]]:
    """For a constructor with parameter properties, the rewrite of its body's ``{`` (or of
    the end of its first ``super(...)`` statement) that assigns them; else none."""
    name = method.child_by_field_name("name")
    params = method.child_by_field_name("parameters")
    body = method.child_by_field_name("body")
    if name is None or node_text(name) != "constructor" or params is None or body is None:
        return []
    assigned: list[str] = []
    for p in params.named_children:
        if any(c.type in ("accessibility_modifier", "readonly", "override_modifier")
               for c in p.children):
            pattern = p.child_by_field_name("pattern")
            if pattern is not None and pattern.type == "identifier":
                assigned.append(node_text(pattern))
    if not assigned:
        return []
    text = " ".join(f"this.{n} = {n};" for n in assigned)
    first = next((c for c in body.named_children if c.type != "comment"), None)
    if first is not None and node_text(first).startswith("super("):
        return [(first.end_byte, first.end_byte, " " + text)]
    brace = body.children[0]
    return [(brace.start_byte, brace.end_byte, "{ " + text)]


__all__ = ["enum_object", "parameter_properties"]
