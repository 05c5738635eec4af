"""JavaScript literals read without running anything: a tree-sitter node of a literal
expression (numbers, strings, template literals without substitutions, arithmetic of
number literals (``60 * 1000``), arrays, objects,
``new Map``/``new Set`` of literals, ``new Date`` of literals (``js_dates.py``), ``undefined``,
``NaN``, ``Infinity``, BigInts) -> its
canonical tree (``js_values.py``); and the arguments of a call, a tagged template's
included (``dedent`a${1}b` `` gives the tag its strings array, cooked and raw, then the
substitutions' values). Shared by the examples of a comment (``js_inputs.py``) and the
calls found in the workspace (``js_callers.py``)."""

from __future__ import annotations

import json
import math
import operator
import re
from collections.abc import Callable, Mapping
from typing import Any

from tree_sitter import Node

from codequorum.behaviour.runtimes import js_dates, js_values
from codequorum.behaviour.runtimes.js_outside import outside_names
from codequorum.behaviour.runtimes.ts_strip import NotStrippable, strip_types
from codequorum.core.parsing import node_text, parse


class NotLiteral(ValueError):
    """A node that is not a literal value."""


class Missing(NotLiteral):
    """A bound value read where it holds nothing (``row[2]`` of a row of two): JavaScript's
    ``undefined``, which a default (``row[2] || false``) replaces."""



#: How deep a literal may nest (arrays in arrays, objects in objects) before it is no input.
MAX_LITERAL_DEPTH = 64


def literal(node: Node, bound: Mapping[str, Any] | None = None) -> Any:
    """A literal expression node -> its canonical tree; :class:`NotLiteral` otherwise, and
    for a literal nested deeper than :data:`MAX_LITERAL_DEPTH` (a file of the workspace
    or a comment may hold one thousands deep). A name ``bound`` gives a value (a
    table-driven test's case: ``test.each``) reads as that value."""
    if bound and node.type == "identifier" and node_text(node) in bound:
        return bound[node_text(node)]
    if bound and node.type in ("member_expression", "subscript_expression"):
        return _read(node, bound)
    if bound and node.type == "binary_expression":
        defaulted = _defaulted(node, bound)
        if defaulted is not _NO_DEFAULT:
            return defaulted
    if _depth(node) > MAX_LITERAL_DEPTH:
        raise NotLiteral("nested too deep")
    return _literal(node)


#: What :func:`_defaulted` gives for an expression that is no default.
_NO_DEFAULT = object()
#: Canonical values JavaScript's ``||`` passes over (``-0`` is written ``0`` here).
_FALSY: tuple[Any, ...] = (None, False, 0, "", {"$": "undefined"}, {"$": "number", "v": "NaN"})


def _defaulted(node: Node, bound: Mapping[str, Any]) -> Any:
    """``row[2] || false``, ``opts.loose ?? false`` over a ``bound`` value: its value where
    it holds one JavaScript keeps (truthy for ``||``, not nullish for ``??``), else the
    default's; :data:`_NO_DEFAULT` for any other binary expression."""
    operator = node.child_by_field_name("operator")
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if operator is None or left is None or right is None \
            or node_text(operator) not in ("||", "??"):
        return _NO_DEFAULT
    try:
        value = literal(left, bound)
    except Missing:
        return literal(right, bound)
    kept = (value not in (None, {"$": "undefined"}) if node_text(operator) == "??"
            else not any(type(value) is type(f) and value == f for f in _FALSY))
    return value if kept else literal(right, bound)


def _read(node: Node, bound: Mapping[str, Any]) -> Any:
    """``t.output``, ``t["output"]``, ``tests[input]``, ``row[0]``, ``cases.length`` of a
    value a name is ``bound`` to: what it holds there; :class:`NotLiteral` where it holds
    nothing (JavaScript's ``undefined`` is no expected value a test means)."""
    base = literal(node.child_by_field_name("object"), bound)  # type: ignore[arg-type]
    prop = node.child_by_field_name("property")
    index = node.child_by_field_name("index")
    if prop is not None:
        key: Any = node_text(prop)
    elif index is not None:
        key = literal(index, bound)
    else:
        raise NotLiteral(node.type)
    if isinstance(base, dict) and base.get("$") == "object" and type(key) in (str, int):
        for k, v in base.get("v") or ():
            if k == str(key):
                return v
    if isinstance(base, list) and key == "length":
        return len(base)
    if isinstance(base, str) and key == "length":  # in UTF-16 units, as JavaScript counts
        return len(base.encode("utf-16-le")) // 2
    if isinstance(base, list) and type(key) is int and 0 <= key < len(base):
        return base[key]
    raise Missing(f"{node.type} of nothing")


def _depth(node: Node) -> int:
    """How deep ``node``'s named descendants go (iterative, bounded by the limit + 1)."""
    deepest, stack = 0, [(node, 0)]
    while stack:
        cur, d = stack.pop()
        deepest = max(deepest, d)
        if d <= MAX_LITERAL_DEPTH:
            stack.extend((c, d + 1) for c in cur.named_children)
    return deepest


def _literal(node: Node) -> Any:
    """A literal expression node -> its canonical tree; :class:`NotLiteral` otherwise."""
    t = node.type
    if t == "parenthesized_expression":
        return _literal(node.named_children[0])
    if t == "number":
        return _number(node_text(node))
    if t == "string":
        return "".join(node_text(c) if c.type == "string_fragment" else _escape(node_text(c))
                       for c in node.named_children)
    if t == "template_string":
        strings = template_parts(node)
        if len(strings) != 1 or strings[0][0] is None:
            raise NotLiteral("template")
        return strings[0][0]
    if t in ("true", "false"):
        return t == "true"
    if t == "null":
        return None
    if t in ("undefined", "identifier") and node_text(node) in _NAMED:
        return _NAMED[node_text(node)]
    if t == "unary_expression" and node.child_by_field_name("operator") is not None:
        op = node_text(node.child_by_field_name("operator"))  # type: ignore[arg-type]
        arg = node.child_by_field_name("argument")
        value = _literal(arg) if arg is not None else None
        if op == "-" and isinstance(value, (int, float)) and not isinstance(value, bool):
            return {"$": "number", "v": "-0"} if value == 0 else -value
        if op == "-" and value == {"$": "number", "v": "Infinity"}:
            return {"$": "number", "v": "-Infinity"}
        if op == "-" and isinstance(value, dict) and value.get("$") == "bigint":
            return {"$": "bigint", "v": str(-int(value["v"]))}
    if t == "binary_expression":
        return _arithmetic(node)
    if t == "array":
        return [_literal(c) for c in node.named_children if c.type != "comment"]
    if t == "object":
        return _object(node)
    if t == "new_expression":
        return _collection(node)
    if t in ("arrow_function", "function_expression", "function"):
        return {"$": "source", "v": _callback(node_text(node))}  # one an example passes
    if t == "call_expression":
        return _raw(node)
    raise NotLiteral(t)


def _raw(node: Node) -> str:
    """``String.raw`a\\/b``` without substitutions: the template's text as written."""
    fn, template = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if fn is None or node_text(fn) != "String.raw" or template is None \
            or template.type != "template_string" \
            or any(c.type == "template_substitution" for c in template.named_children):
        raise NotLiteral("call")
    return node_text(template)[1:-1]


def _callback(text: str) -> str:
    """A callback's source as the sandbox compiles it: a TypeScript file's types blanked
    (``(...items: number[]) => ...``, from a test of a ``.ts`` file); JavaScript as it is.
    :class:`NotLiteral` for one that reads a name of where it was written (``(x) => x ===
    n``, ``n`` a test's constant): compiled alone, it would raise on every version."""
    try:
        stripped = strip_types(f"({text});")
    except NotStrippable:
        stripped = f"({text});"
    source = stripped[1:-2] if stripped.startswith("(") and stripped.endswith(");") else text
    if outside_names(source):
        raise NotLiteral("a callback reading names of its own place")
    return source


_NAMED: dict[str, Any] = {
    "undefined": {"$": "undefined"},
    "NaN": {"$": "number", "v": "NaN"},
    "Infinity": {"$": "number", "v": "Infinity"},
}


#: The largest integer a JavaScript number holds exactly.
_SAFE = 2 ** 53
#: JavaScript's arithmetic on doubles (``%`` keeps the dividend's sign).
_OPERATORS: dict[str, Callable[[float, float], float]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "%": math.fmod, "**": operator.pow}


def _arithmetic(node: Node) -> Any:
    """``60 * 1000``, ``2 ** 10``, ``'a' + 'b'`` of literals, as JavaScript computes them
    (numbers are doubles; ``%`` keeps the dividend's sign); :class:`NotLiteral` for other
    operators or operands, and for a result that is not a finite number JavaScript holds
    exactly as an integer or a plain double."""
    op_node = node.child_by_field_name("operator")
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if op_node is None or left is None or right is None:
        raise NotLiteral("binary")
    op, a, b = node_text(op_node), _literal(left), _literal(right)
    if op == "+" and isinstance(a, str) and isinstance(b, str):
        return a + b
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b)):
        raise NotLiteral("arithmetic")
    compute = _OPERATORS.get(op)
    if compute is None:
        raise NotLiteral(op)
    try:
        value = compute(float(a), float(b))
    except (ZeroDivisionError, OverflowError, ValueError) as exc:
        raise NotLiteral("arithmetic") from exc
    if not isinstance(value, float) or not math.isfinite(value) or (
            value == 0 and math.copysign(1, value) < 0):
        raise NotLiteral("arithmetic")
    return int(value) if value.is_integer() and abs(value) <= _SAFE else value


def _escape(text: str) -> str:
    try:
        return str(text.encode("latin-1", "backslashreplace").decode("unicode_escape"))
    except UnicodeDecodeError:
        raise NotLiteral("escape") from None


def _number(text: str) -> Any:
    """A number literal's value as JavaScript reads it (a Number past a double's range is
    ``Infinity``); :class:`NotLiteral` for a bigint too long to write as text (a file may
    hold one of 5,000 digits)."""
    clean = text.replace("_", "")
    try:
        if clean.endswith("n"):
            return {"$": "bigint", "v": str(int(clean[:-1], 0))}
        if re.fullmatch(r"0[xXoObB][0-9a-fA-F]+", clean):
            whole = int(clean, 0)
            if whole < 2**53:
                return whole
            value = float(whole)
        else:
            value = float(clean)
    except ValueError:
        raise NotLiteral("a number too long") from None
    except OverflowError:
        return _NAMED["Infinity"]
    if math.isinf(value):
        return _NAMED["Infinity"]
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def _object(node: Node) -> Any:
    """An object literal: its own keys, sorted; a key written twice keeps its last value,
    as JavaScript does (``{"a": 1, "a": 2}`` is ``{"a": 2}``)."""
    pairs: dict[str, Any] = {}
    for child in node.named_children:
        if child.type == "comment":
            continue
        if child.type != "pair":
            raise NotLiteral(child.type)
        key, value = child.child_by_field_name("key"), child.child_by_field_name("value")
        if key is None or value is None:
            raise NotLiteral("pair")
        name = _literal(key) if key.type in ("string", "number") else node_text(key)
        if key.type == "computed_property_name":
            raise NotLiteral("computed key")
        pairs[str(js_values.show(name)) if not isinstance(name, str) else name] = \
            _literal(value)
    return {"$": "object", "v": [[k, pairs[k]] for k in sorted(pairs)]}


def _collection(node: Node) -> Any:
    ctor = node.child_by_field_name("constructor")
    args = node.child_by_field_name("arguments")
    kind = node_text(ctor) if ctor is not None else ""
    # a comment among them is none: ``new Date(2012, 6 /* Jul */, 2)``
    items = [_literal(a) for a in args.named_children
             if a.type != "comment"] if args is not None else []
    if kind == "Date":
        try:
            return js_dates.date_value(items)
        except js_dates.NotADate as exc:
            raise NotLiteral(str(exc)) from None
    if kind not in ("Map", "Set") or len(items) > 1 or (items and not isinstance(items[0], list)):
        raise NotLiteral("new")
    entries = items[0] if items else []
    if kind == "Set":
        unique = {json.dumps(e, sort_keys=True): e for e in entries}
        return {"$": "set", "v": [unique[k] for k in sorted(unique)]}
    if not all(isinstance(e, list) and len(e) == 2 for e in entries):
        raise NotLiteral("map entries")
    by_key = {json.dumps(e[0], sort_keys=True): e for e in entries}
    return {"$": "map", "v": [by_key[k] for k in sorted(by_key)]}


def template_parts(node: Node) -> list[tuple[str | None, str]]:
    """A template literal's strings between its substitutions, each (cooked, raw) as the
    tag function receives them: the raw text with its line breaks made ``\\n``, cooked
    with its escapes read (None for an escape a tagged template leaves undefined)."""
    data = node.text or b""
    cuts = [(c.start_byte - node.start_byte, c.end_byte - node.start_byte)
            for c in node.named_children if c.type == "template_substitution"]
    starts = [1, *(end for _, end in cuts)]
    ends = [*(start for start, _ in cuts), len(data) - 1]
    out: list[tuple[str | None, str]] = []
    for a, b in zip(starts, ends, strict=True):
        raw = data[a:b].decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
        out.append((cooked(raw), raw))
    return out


_SIMPLE = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_TEMPLATE_ESCAPE = re.compile(r"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|u\{([0-9a-fA-F]+)\}"
                              r"|(0)(?![0-9])|([\n\u2028\u2029])|([^xu0-9])|(.?))", re.S)


def cooked(raw: str) -> str | None:
    """A template's raw text with its escapes read as JavaScript reads them; None for one
    it cannot read (``\\x``, ``\\u`` malformed, an octal one), undefined to a tag and an
    error in an untagged template. A lone surrogate is None too (no value of ours)."""
    bad = False

    def one(m: re.Match[str]) -> str:
        nonlocal bad
        hex2, hex4, braced, zero, line, plain, _ = m.groups()
        code = int(hex2 or hex4 or braced or "0", 16) if (hex2 or hex4 or braced) else None
        if code is not None and code <= 0x10FFFF:
            return chr(code)
        if zero:
            return "\0"
        if line:
            return ""
        if plain:
            return _SIMPLE.get(plain, plain)
        bad = True
        return ""

    text = _TEMPLATE_ESCAPE.sub(one, raw)
    if bad:
        return None
    try:
        return text.encode("utf-16", "surrogatepass").decode("utf-16")
    except UnicodeDecodeError:
        return None


def template_strings(node: Node) -> Any:
    """The strings array a tagged template gives its tag (``TemplateStringsArray``): its
    canonical tree ``{"$": "template", "v": cooked, "raw": raw}``, a cooked string that
    is undefined written ``{"$": "undefined"}``."""
    parts = template_parts(node)
    return {"$": "template", "v": [c if c is not None else _NAMED["undefined"] for c, _ in parts],
            "raw": [r for _, r in parts]}


def call_arguments(call: Node, bound: Mapping[str, Any] | None = None) -> tuple[Any, ...]:
    """The literal arguments of a call node: ``f(1, 'a')`` its arguments (a name ``bound``
    gives a value read as it), an array spread into them its items (``f(...row)`` in a loop
    over a table's rows, ``f(...[1, 2])``), a tagged template ``f`a${1}` `` its strings
    array then its substitutions' values; :class:`NotLiteral` when one is not a literal."""
    args = call.child_by_field_name("arguments")
    if args is None:
        return ()
    if args.type != "template_string":
        values: list[Any] = []
        for a in args.named_children:
            if a.type == "spread_element":
                values.extend(_spread_items(a, bound))
            elif a.type != "comment":
                values.append(literal(a, bound))
        return tuple(values)
    values = []
    for sub in (c for c in args.named_children if c.type == "template_substitution"):
        if len(sub.named_children) != 1:
            raise NotLiteral("substitution")
        values.append(literal(sub.named_children[0]))
    return (template_strings(args), *values)


def _spread_items(spread: Node, bound: Mapping[str, Any] | None) -> list[Any]:
    """The items ``...X`` gives a call when ``X`` is a literal array; :class:`NotLiteral`
    for anything else."""
    inner = spread.named_children[0] if spread.named_children else None
    value = literal(inner, bound) if inner is not None else None
    if not isinstance(value, list):
        raise NotLiteral("spread of what is not an array")
    return value


def parse_expression(text: str) -> Node | None:
    """The first expression of ``text`` parsed as JavaScript, or None."""
    tree = parse(text, "javascript")
    root = tree.root_node
    if root.has_error or not root.named_children:
        return None
    first = root.named_children[0]
    if first.type != "expression_statement" or not first.named_children:
        return None
    return first.named_children[0]


def literal_text(text: str) -> tuple[Any] | None:
    """The literal ``text`` is, in a 1-tuple (a literal may be ``None``: JSON's ``null``),
    or None when it is no literal (an example's value, an argument written in prose)."""
    node = parse_expression("(" + text.strip() + ")")
    if node is None:
        return None
    try:
        return (literal(node),)
    except NotLiteral:
        return None


#: What a test that cannot tell ``null`` from ``undefined`` expects of either: a Python
#: test's ``None`` (JavaScript answers ``null`` or ``undefined``), a loose
#: ``assert.deepEqual``'s ``null`` or ``undefined``.
NULLISH = js_values.NULLISH


def from_python(value: Any, none: Any = None) -> Any:
    """A Python literal -> the canonical tree of the JavaScript value it reads as (``None``
    as ``none``: ``null``, or :data:`NULLISH` for a Python test's expected value)."""
    if value is None:
        return none
    if isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")) or (
                value == 0 and str(value).startswith("-")):
            return {"$": "number", "v": {"nan": "NaN", "inf": "Infinity",
                                         "-inf": "-Infinity"}.get(str(value), "-0")}
        return value
    if isinstance(value, (list, tuple)):
        return [from_python(v, none) for v in value]
    if isinstance(value, (set, frozenset)):
        return {"$": "set", "v": sorted((from_python(v, none) for v in value), key=repr)}
    if isinstance(value, dict):
        return {"$": "object", "v": sorted([[str(k), from_python(v, none)]
                                            for k, v in value.items()], key=lambda p: p[0])}
    raise NotLiteral(type(value).__name__)


__all__ = ["NULLISH", "NotLiteral", "call_arguments", "cooked", "from_python", "literal",
           "literal_text", "node_text", "parse_expression", "template_parts",
           "template_strings"]
