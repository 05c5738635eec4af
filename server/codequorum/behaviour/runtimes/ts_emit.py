"""The JavaScript TypeScript emits for its two common kinds of syntax with run-time
meaning, written in place of the TypeScript by ``ts_strip.py``.

- ``enum E { A, B = 5, C = "c" }`` -> ``var E = (function (E) { E[E["A"] = 0] = "A"; ...
  return E; })({});``: numbers counted on from the last number (``A`` is 0), each
  numeric member mapped back from its value, string members not (as ``tsc`` emits it);
  a member's initializer that is not a literal is evaluated in the enum's scope, where
  earlier members are names (``B = A * 2``).
- ``constructor(private x: number, readonly y = 1)``: the modifiers blanked and
  ``this.x = x; this.y = y;`` at the start of the body (after a first ``super(...)``).
- ``namespace N { ... }`` (``module N``, ``namespace A.B``): ``var N; (function (N) {
  ... })(N || (N = {}));``, a nested one ``(C = N.C || (N.C = {}))``; an exported
  function, class, enum or namespace is set on ``N`` after its declaration (``N.f = f;``),
  an exported variable becomes a ``let`` that ``N`` reads and writes through a getter and a
  setter, so the namespace's own code and its users see one value, as TypeScript's
  rewrite of each use to ``N.x`` gives. Not modelled: a namespace declared twice reaches
  the other declaration's exports through the namespace (``N.area``), not by the bare name
  TypeScript rewrites.
"""

from __future__ import annotations

import json

from tree_sitter import Node

from codequorum.core.parsing import node_text
from codequorum.ingest.version_helpers import declared_names

#: A rewrite of the source: the bytes from start to end replaced by the text.
Rewrite = tuple[int, int, str]


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


def namespace_rewrites(node: Node, owner: str | None) -> list[Rewrite]:
    """The rewrites that make an ``internal_module``/``module`` node the JavaScript
    TypeScript emits (its body's statements keep their place; their types are blanked as
    anywhere else); ``owner`` is the namespace that exports it, if any. Raises ValueError
    for a namespace named by a string (an ambient module)."""
    name_node = node.child_by_field_name("name")
    body = node.child_by_field_name("body")
    if name_node is None or body is None or name_node.type == "string":
        raise ValueError("an ambient module has no run-time form")
    names = node_text(name_node).replace(" ", "").split(".")
    head: list[str] = []
    tail: list[str] = []
    parent = owner
    for k, name in enumerate(names):
        head.append(f"{'var' if parent is None else 'let'} {name}; (function ({name}) {{")
        held = f"{name} || ({name} = {{}})" if parent is None else (
            f"{name} = {parent}.{name} || ({parent}.{name} = {{}})")
        tail.insert(0, f"}})({held});")
        parent = name
        if k == 0 and owner is not None:
            owner = None  # the first part is the owner's member; the rest nest in it
    opening, closing = body.children[0], body.children[-1]
    out: list[Rewrite] = [(node.start_byte, opening.end_byte, " ".join(head)),
                          (closing.start_byte, closing.end_byte, " ".join(tail))]
    for statement in body.named_children:
        if statement.type == "export_statement":
            out.extend(_exported(statement, names[-1]))
    return out


def _exported(statement: Node, space: str) -> list[Rewrite]:
    """An ``export`` inside namespace ``space``: the keyword blanked, the names set on it."""
    declared = statement.child_by_field_name("declaration")
    if declared is None:
        declared = next((c for c in statement.named_children
                         if c.type in ("internal_module", "module")), None)
    if declared is None or declared.type in ("interface_declaration", "type_alias_declaration",
                                             "ambient_declaration"):
        return []
    out: list[Rewrite] = [(statement.start_byte, declared.start_byte, "")]
    if declared.type in ("internal_module", "module"):
        return out  # its own rewrite sets it on ``space`` (``namespace_rewrites``' owner)
    names = declared_names(declared, "typescript")
    if declared.type in ("lexical_declaration", "variable_declaration"):
        keyword = declared.children[0]
        out.append((keyword.start_byte, keyword.end_byte, "let"))
        setters = " ".join(_accessor(space, n) for n in names)
        return [*out, (declared.end_byte, declared.end_byte, " " + setters)]
    text = " ".join(f"{space}.{n} = {n};" for n in names)
    return [*out, (declared.end_byte, declared.end_byte, " " + text)]


#: The setter's parameter: a name no TypeScript program's variable takes.
_VALUE = "__codequorum_value"


def _accessor(space: str, name: str) -> str:
    """``space.name`` read and written through the namespace's own variable ``name``."""
    return (f"Object.defineProperty({space}, {json.dumps(name)}, {{ get() {{ return {name}; }}, "
            f"set({_VALUE}) {{ {name} = {_VALUE}; }}, enumerable: true, configurable: true }});")


def namespace_owner(node: Node) -> str | None:
    """The namespace that exports ``node`` (a namespace), if it is exported by one."""
    parent = node.parent
    if parent is None or parent.type != "export_statement":
        return None
    block = parent.parent
    outer = block.parent if block is not None and block.type == "statement_block" else None
    if outer is None or outer.type not in ("internal_module", "module"):
        return None
    name = outer.child_by_field_name("name")
    return node_text(name).replace(" ", "").split(".")[-1] if name is not None else None


__all__ = ["enum_object", "namespace_owner", "namespace_rewrites", "parameter_properties"]
