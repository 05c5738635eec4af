"""The types a TypeScript file declares, as the parameter types that name them read, and
the callback a function type is given.

``type Shape = 'circle' | 'square'`` and ``interface User { name: string }`` are the
types they stand for; an ``enum`` is the union of its members' values (``'UP' | 'DOWN'``,
``0 | 1``), which is what a call passes. A function's type parameters (``<T>``) are
``number`` (a value of any type does). The structure of a type is read by small rules:
a union's members, a tuple's elements, an object type's required members, the element of
an array, the key and value of a ``Record``, ``Map`` or ``Set``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from tree_sitter import Node

from codequorum.behaviour.runtimes.js_literals import node_text
from codequorum.core.errors import UserError
from codequorum.core.limits import InputLimitError
from codequorum.core.parsing import parse

_WRAPPERS = re.compile(r"^(?:readonly\s+|Readonly<(.*)>$|ReadonlyArray<(.*)>$)")


def declared_types(text: str) -> dict[str, str]:
    """Each type alias, interface and enum ``text`` declares at its top level or in a
    namespace (exported or not) -> the type it stands for, as text. A namespace's are
    named through it (``Shapes.Kind``) and bare (``Kind``, as its own functions name them),
    a top-level declaration's bare name first."""
    try:
        root = parse(text, "typescript").root_node
    except (InputLimitError, UserError, ValueError):
        return {}
    out: dict[str, str] = {}
    spaced: dict[str, str] = {}
    blocks: list[tuple[Node, str]] = [(root, "")]
    while blocks:  # iterative: namespaces may nest deep
        block, space = blocks.pop(0)
        for node in block.named_children:
            decl = _declaration(node)
            if decl is None:
                continue
            name = decl.child_by_field_name("name")
            if name is None:
                continue
            if decl.type in _NAMESPACES:  # ``namespace A.B``: ``A.B.``
                body = decl.child_by_field_name("body")
                if body is not None and name.type != "string":
                    blocks.append((body, f"{space}{''.join(node_text(name).split())}."))
                continue
            stands = _stands_for(decl)
            if stands is not None:
                named = {node_text(name) + suffix: text for suffix, text in
                         (("", stands), (GENERIC_SUFFIX, _parameters_of(decl))) if text}
                for key, text in named.items():
                    if space:
                        spaced.setdefault(key, text)
                        out[space + key] = text
                    else:
                        out[key] = text
    for bare, stands in spaced.items():
        out.setdefault(bare, stands)
    return out


#: The key under which :func:`declared_types` keeps a generic declaration's type
#: parameters (``DateArg<>`` -> ``<DateType extends Date>``): no type is named so.
GENERIC_SUFFIX = "<>"


def _parameters_of(decl: Node) -> str:
    """A generic type alias's or interface's type parameters as written, else ""."""
    params = decl.child_by_field_name("type_parameters")
    return node_text(params) if params is not None else ""


def instantiated(name: str, args: list[str], aliases: Mapping[str, str]) -> str | None:
    """A generic alias or interface the file declares with its type arguments put in
    (``DateArg<Date>`` of ``type DateArg<D extends Date> = D | number`` -> ``Date | number``;
    a missing argument its default, else its bound); None when ``name`` is not generic."""
    params = aliases.get(name + GENERIC_SUFFIX)
    body = aliases.get(name)
    if params is None or body is None:
        return None
    bounds = type_parameters(params)
    if len(args) > len(bounds):
        return None
    given: dict[str, str] = {}
    for k, param in enumerate(bounds):  # a default may name the parameters before it
        given[param] = _put_in(args[k] if k < len(args) else bounds[param] or "unknown", given)
    return _put_in(body, given)


def _put_in(text: str, given: Mapping[str, str]) -> str:
    """``text`` with each type parameter of ``given`` replaced by its type."""
    if not given:
        return text
    pattern = re.compile(r"(?<![\w$.])(" + "|".join(map(re.escape, given)) + r")(?![\w$])")
    return pattern.sub(lambda m: f"({given[m.group(1)]})", text)


#: A TypeScript namespace (``namespace N``, ``module N``, ``declare namespace N``).
_NAMESPACES = ("internal_module", "module")


def _declaration(node: Node) -> Node | None:
    """What a statement declares: itself, or the declaration an ``export``, a ``declare``
    or an expression statement (``namespace A.B``) holds (None: nothing named)."""
    if node.type == "export_statement":
        inner = node.child_by_field_name("declaration")
        return _declaration(inner) if inner is not None and inner.type != node.type else inner
    if node.type in ("ambient_declaration", "expression_statement"):
        return next((c for c in node.named_children if c.type in _NAMESPACES), None)
    return node


def _stands_for(decl: Node) -> str | None:
    """The type a type alias, interface or enum stands for, as text (None for others)."""
    value = decl.child_by_field_name("value")
    body = decl.child_by_field_name("body")
    if decl.type == "type_alias_declaration" and value is not None:
        return _without_comments(value)
    if decl.type == "interface_declaration" and body is not None:
        return _without_comments(body)
    if decl.type == "enum_declaration":
        values = enum_values(decl)
        return " | ".join(json.dumps(v) for v in values) if values else None
    return None


def _without_comments(node: Node) -> str:
    """``node``'s text with its comments left out (an interface's members documented one
    by one, ``/** The number of years */``, are read as members)."""
    data = node.text or b""
    cuts: list[tuple[int, int]] = []
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type == "comment":
            cuts.append((cur.start_byte - node.start_byte, cur.end_byte - node.start_byte))
        else:
            stack.extend(cur.children)
    for start, end in sorted(cuts, reverse=True):
        data = data[:start] + data[end:]
    return data.decode("utf-8", "replace")


def enum_values(decl: Node) -> list[str | int]:
    """The values of an enum's members whose values are literals (counted on from the
    last number, as TypeScript does); empty when one is computed."""
    body = decl.child_by_field_name("body")
    values: list[str | int] = []
    following = 0
    for member in body.named_children if body is not None else []:
        if member.type == "comment":
            continue
        value = member.child_by_field_name("value") if member.type == "enum_assignment" \
            else None
        if value is None:
            values.append(following)
        elif value.type == "string":
            values.append("".join(node_text(c) for c in value.named_children))
        elif value.type == "number" and re.fullmatch(r"-?\d+", node_text(value)):
            following = int(node_text(value))
            values.append(following)
        else:
            return []
        following = values[-1] + 1 if isinstance(values[-1], int) else following
    return values


def type_parameters(text: str) -> dict[str, str]:
    """A function's type parameters and the type each stands for: its bound, else its
    default, else "" (``<D extends Date, K extends keyof D, T = string>`` -> D: Date,
    K: keyof D, T: string)."""
    head = text.split("(", 1)[0]
    start = head.find("<")
    if start < 0:
        return {}
    depth, end = 0, -1
    for k in range(start, len(head)):
        depth += head[k] == "<"
        depth -= head[k] == ">" and head[k - 1:k] != "="
        if depth == 0:
            end = k
            break
    found: dict[str, str] = {}
    for part in split_top(head[start + 1:end], ",") if end > start else []:
        words = part.strip()
        name = re.match(r"(?:const\s+)?([A-Za-z_$][\w$]*)", words)
        if name is None:
            continue
        rest = words[name.end():].strip()
        bound, _, default = (p.strip() for p in _split_default(rest))
        found[name.group(1)] = bound.removeprefix("extends").strip() or default
    return found


def _split_default(rest: str) -> tuple[str, str, str]:
    """``extends X = Y`` -> ("extends X", "=", "Y"), at the top level (``=>`` is no ``=``)."""
    depth = 0
    for k, ch in enumerate(rest):
        depth += ch in "([{<"
        depth -= ch in ")]}>" and rest[k - 1:k] != "="
        if ch == "=" and depth == 0 and rest[k + 1:k + 2] != ">":
            return rest[:k], "=", rest[k + 1:]
    return rest, "", ""


def unwrapped(type_text: str) -> str:
    """A type without ``readonly``, ``Readonly<...>`` and enclosing parentheses
    (``(number | null)``): the same values are passed."""
    t = type_text.strip()
    while True:
        if _parenthesized(t):
            t = t[1:-1].strip()
        elif (m := _WRAPPERS.match(t)) is not None:
            inner = m.group(1) or m.group(2)
            t = (inner if inner is not None else t[m.end():]).strip()
            if m.group(2) is not None:
                t = t + "[]"
        else:
            return t


def _parenthesized(text: str) -> bool:
    """Whether ``text`` is one parenthesized type (``(a | b)``, not ``(x) => (y)``)."""
    if not text.startswith("("):
        return False
    depth = 0
    for k, ch in enumerate(text):
        depth += ch in "([{<"
        depth -= ch in ")]}>" and text[k - 1:k] != "="
        if depth == 0:
            return k == len(text) - 1
    return False


def split_top(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside brackets (``=>`` closes nothing)."""
    parts, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        depth += ch in "([{<"
        depth -= ch in ")]}>" and text[k - 1:k] != "="
        if ch == sep and depth == 0:
            parts.append(text[start:k].strip())
            start = k + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def object_members(body: str) -> list[tuple[str, str, bool]] | None:
    """An object type's members (``{ a: number; b?: string }``) as (name, type,
    optional); None for a member that is not a plain property (a method, an index)."""
    inner = body.strip()[1:-1]
    members: list[tuple[str, str, bool]] = []
    for part in split_top(inner.replace(";", ","), ","):
        m = re.fullmatch(r"(?:readonly\s+)?([A-Za-z_$][\w$]*|'[^']*'|\"[^\"]*\")(\??)\s*:\s*(.+)",
                         part, re.S)
        if m is None:
            return None
        members.append((m.group(1).strip("'\""), m.group(3).strip(), bool(m.group(2))))
    return members


def index_value(body: str) -> str | None:
    """The value type of an index signature object type (``{ [k: string]: number }``)."""
    m = re.fullmatch(r"\{\s*\[\s*[\w$]+\s*:\s*string\s*\]\s*:\s*(.+?)\s*;?\s*\}", body.strip(),
                     re.S)
    return m.group(1) if m else None


#: A callback drawn for a function type, by what it returns: it uses its first argument,
#: so versions that call it differently part.
CALLBACKS = {
    "number": "(x) => Number(x) * 2 + 1", "boolean": "(x) => Number(x) % 2 === 0",
    "string": "(x) => String(x) + '!'", "void": "() => undefined",
    "undefined": "() => undefined",
}


def callback_source(type_text: str) -> str | None:
    """The text of a function to pass for a function type (``(x: number) => boolean``);
    None when the type is not one."""
    t = type_text.strip()
    while t.startswith("(") and _closes_at_end(t):
        t = t[1:-1].strip()
    rest = re.sub(r"^<[^>]*>\s*", "", t)  # a generic function type's own parameters
    # ``(x: T) => R``: the parameters' parenthesis closes right before the arrow (in
    # ``((x: T) => R)[]``, an array of functions, it closes after ``R``)
    m = re.fullmatch(r"\s*=>\s*(.+)", rest[_closing(rest) + 1:], re.S) \
        if rest.startswith("(") else None
    if m is None:
        return "(...args) => args[0]" if t == "Function" else None
    returned = m.group(1).strip()
    if returned.startswith("Promise<"):
        return "async (x) => x"
    return CALLBACKS.get(returned, "(x) => x")


def _closes_at_end(t: str) -> bool:
    """Whether the ``(`` at the start of ``t`` is closed by its last character."""
    return _closing(t) == len(t) - 1


def _closing(t: str) -> int:
    """Where the ``(`` at the start of ``t`` is closed (``len(t)`` when it is not)."""
    depth = 0
    for k, ch in enumerate(t):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return k
    return len(t)


__all__ = ["CALLBACKS", "GENERIC_SUFFIX", "callback_source", "declared_types", "enum_values",
           "index_value", "instantiated", "object_members", "split_top", "type_parameters",
           "unwrapped"]
