"""The parameter types a JSDoc comment declares, as the TypeScript types values are drawn of.

JavaScript declares its parameters' types in the comment above the function:
``@param {number[]} xs``, ``@param {string} [sep="-"]`` (optional), ``@param {?string} s``
(nullable). Each type is read into the TypeScript text ``js_inputs.type_values`` draws
from: ``?T`` is ``T | null``, ``T=`` optional, ``*`` ``any``, ``Array.<T>`` ``Array<T>``,
``Object.<K, V>`` ``Record<K, V>``, ``String`` ``string``, ``function(number): string`` a
callback. A name it does not know (``Object``, ``Function``, a class) is kept as it is, and
the caller falls back to the types the parameters' use suggests.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from codequorum.behaviour.runtimes.js_literals import node_text
from codequorum.behaviour.runtimes.js_usage import parameter_nodes

#: ``@param``, ``@arg`` and ``@argument``, then ``{`` (the type, braces balanced, follows).
_TAG = re.compile(r"@(?:param|arg|argument)\s*\{")
#: What follows a tag's type: ``name``, ``[name]`` or ``[name=default]``.
_NAME = re.compile(r"\s*(\[)?\s*([A-Za-z_$][\w$]*)(?:\s*=[^\]]*)?\s*(\])?")
#: Constructors JSDoc writes for primitive types.
_BOXED = re.compile(r"\b(String|Number|Boolean|BigInt)\b")
_FUNCTION = re.compile(r"function\s*\(.*?\)\s*(?::\s*(.+))?$", re.S)


def documented(doc: str) -> dict[str, tuple[str, bool]]:
    """Each ``@param`` of a comment -> (its type as TypeScript text, whether it is
    optional); a property (``@param {string} opts.name``) is not a parameter."""
    out: dict[str, tuple[str, bool]] = {}
    for tag in _TAG.finditer(doc):
        end = _closing_brace(doc, tag.end())
        if end is None:
            continue
        raw = doc[tag.end():end].strip()
        name = _NAME.match(doc, end + 1)
        if name is None or doc[name.end():name.end() + 1] == ".":
            continue
        optional = bool(name.group(1)) or raw.endswith("=")
        out.setdefault(name.group(2), (as_typescript(raw.rstrip("=")), optional))
    return out


def _closing_brace(text: str, start: int) -> int | None:
    """The index of the ``}`` that closes the brace opened just before ``start``."""
    depth = 1
    for k in range(start, min(len(text), start + 400)):  # a type is short
        depth += (text[k] == "{") - (text[k] == "}")
        if depth == 0:
            return k
    return None


def as_typescript(jsdoc: str) -> str:
    """A JSDoc type -> the TypeScript type it means (module docstring)."""
    t = jsdoc.strip()
    if t.startswith("!"):
        t = t[1:].strip()
    if t.startswith("?") and len(t) > 1:
        return f"{as_typescript(t[1:])} | null"
    if t in ("*", "?"):
        return "any"
    function = _FUNCTION.fullmatch(t)
    if function is not None:
        returns = as_typescript(function.group(1)) if function.group(1) else "void"
        return f"(x: any) => {returns}"
    t = t.replace("Object.<", "Record<").replace(".<", "<")
    t = re.sub(r"\bArray\b(?!\s*<)", "any[]", t)
    return _BOXED.sub(lambda m: m.group(1).lower(), t)


def parameter_types(doc: str, params: Node, optional: bool) -> list[str] | None:
    """The types of the required parameters (and, when ``optional``, of the optional ones
    that follow) as ``doc``'s ``@param`` tags declare them, by name; None when a required
    one is not a plain name or has no tag. A parameter with a default value is optional."""
    tags = documented(doc)
    types: list[str] = []
    required = True
    for p in parameter_nodes(params):
        pattern = p.child_by_field_name("pattern")
        if pattern is None or pattern.type != "identifier":  # destructured, or rest
            if not required or (pattern is not None and pattern.type == "rest_pattern"):
                break
            return None
        tag = tags.get(node_text(pattern))
        if not required or (tag is not None and tag[1]) or p.type == "optional_parameter" \
                or p.child_by_field_name("value") is not None:
            required = False
            if not optional or tag is None:
                break
        elif tag is None:
            return None
        types.append(tag[0])
    return types


__all__ = ["as_typescript", "documented", "parameter_types"]
