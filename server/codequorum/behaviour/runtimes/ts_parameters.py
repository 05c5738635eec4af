"""The parameters' types of a TypeScript function (or of a JavaScript one, by its JSDoc).

The required parameters' types, in order; the optional ones after them on request (``n?:
number``, a parameter with a default, typed by its default's literal when it has no type);
the types the function's file declares, and its own and its class's type parameters
(``T`` is drawn as a number, ``D extends Date`` as a date).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from tree_sitter import Node

from codequorum.behaviour.runtimes import js_doc_types
from codequorum.behaviour.runtimes.js_literals import NotLiteral, literal, node_text
from codequorum.behaviour.runtimes.js_usage import functions_in, named_function, parameter_nodes
from codequorum.behaviour.runtimes.ts_draws import drawable, value_type
from codequorum.behaviour.runtimes.ts_types import declared_types, type_parameters
from codequorum.core.model import ModuleContext


def parameter_types(text: str, entry: str, optional: bool = False) -> list[str] | None:
    """The TypeScript types of ``entry``'s required parameters (None when one has none);
    optional and rest parameters are left out (a call may omit them), unless ``optional``:
    then the optional ones that follow, up to the first without a type or a rest one."""
    found = named_function(text, entry)
    fn, params = found if found is not None else (None, None)
    if fn is None or params is None:
        return None
    declared = _declared(params, optional)
    if declared is None and fn.docstring:  # JavaScript's types: its JSDoc's
        return js_doc_types.parameter_types(fn.docstring, params, optional)
    return declared


def _declared(params: Node, optional: bool) -> list[str] | None:
    """:func:`parameter_types` of one parameter list. A parameter with a default value
    (``sep = "-"``) is optional; without a type, its default's type is its type."""
    types: list[str] = []
    required = True
    for p in parameter_nodes(params):
        pattern = p.child_by_field_name("pattern")
        ann = p.child_by_field_name("type")
        default = p.child_by_field_name("value")
        if pattern is not None and pattern.type == "rest_pattern":
            break
        if p.type == "optional_parameter" or default is not None or not required:
            required = False
            declared = _declared_type(ann, default)
            if not optional or declared is None:
                break
            types.append(declared)
        elif p.type != "required_parameter" or ann is None:
            return None
        else:
            types.append(node_text(ann).lstrip(":").strip())
    return types


def _declared_type(annotation: Node | None, default: Node | None) -> str | None:
    """An optional parameter's type: its annotation's, else the type its default value
    shows (``n = 2``: number); None when neither tells."""
    if annotation is not None:
        return node_text(annotation).lstrip(":").strip()
    if default is None:
        return None
    try:
        return value_type(literal(default))
    except NotLiteral:
        return None


def optional_types(texts: Sequence[str], entry: str, required: Sequence[str]) -> list[str]:
    """The types of the optional parameters after ``required`` (the types drawn), from the
    first text that declares them."""
    for text in texts:
        whole = parameter_types(text, entry, optional=True) if text else None
        if whole is not None and len(whole) > len(required) \
                and whole[:len(required)] == list(required):
            return whole[len(required):]
    return []


def typed_parameters(texts: Sequence[str], entry: str, known: Mapping[str, str] | None = None
                     ) -> tuple[list[str], dict[str, str]] | None:
    """The first text's parameter types of ``entry`` that can all be drawn, with the
    types that text declares over those ``known`` (its module's: :func:`module_types`) and
    the function's type parameters (``T`` is ``number``, ``D extends Date`` a ``Date``,
    ``T extends IterableContainer`` what the imported ``IterableContainer`` stands for)."""
    fallback: tuple[list[str], dict[str, str]] | None = None
    for text in texts:
        types = parameter_types(text, entry) if text else None
        if types is None:
            continue
        aliases = {**(known or {}), **declared_types(text)}
        fn = next((f for f in functions_in(text)
                   if f.name.split(".")[-1] == entry.split(".")[-1]), None)
        cls = entry.rpartition(".")[0].rpartition(".")[2]
        for name, stands in {**(class_type_parameters(text, cls) if cls else {}),
                             **type_parameters(fn.signature if fn is not None else "")}.items():
            # a bound that can be drawn (``D extends Date``), else a number
            aliases.setdefault(name, stands if stands and drawable(stands, aliases)
                               else "number")
        if all(drawable(t, aliases) for t in types):
            return types, aliases
        fallback = fallback or (types, aliases)
    return fallback


def module_types(module: ModuleContext) -> dict[str, str]:
    """The types the function's own file declares (its text in the module's view), then
    those the view's other files declare (the files it imports, types only among them)
    under names its own file does not give."""
    found: dict[str, str] = {}
    own = [t for p, t in module.files if p == module.path]
    others = [t for p, t in module.files if p != module.path and p.endswith(_TYPED)]
    for text in [*own, *others]:
        for name, stands in declared_types(text).items():
            found.setdefault(name, stands)
    return found


#: The files whose declared types are read: TypeScript's.
_TYPED = (".ts", ".mts", ".cts", ".tsx")


def class_type_parameters(text: str, cls: str) -> dict[str, str]:
    """The type parameters of ``class cls<T, K extends string>`` in ``text`` and what
    each stands for (``ts_types.type_parameters``); empty when there are none."""
    m = re.search(rf"\bclass\s+{re.escape(cls)}\s*(<[^{{]*)\{{", text)
    return type_parameters(m.group(1)) if m is not None else {}


__all__ = ["class_type_parameters", "module_types", "optional_types", "parameter_types",
           "typed_parameters"]
