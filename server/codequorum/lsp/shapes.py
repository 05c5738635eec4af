"""A command's arguments checked against its class as they arrived, before any conversion
or copy: a string where a list belongs, a list of ten million items or a 10 MB name is one
clear reason at once, never a conversion that walks (or copies) what it was sent.

Every field is checked for its JSON type, every string against its bound (a field's
``max_chars`` metadata, else :data:`~codequorum.core.limits.MAX_ARGUMENT_CHARS`), every list
against :data:`~codequorum.core.limits.MAX_ARGUMENT_ITEMS` and every object against
:data:`~codequorum.core.limits.MAX_ARGUMENT_KEYS`; the first problem is returned, with where
it is (``$.versions[3].code``).
"""

from __future__ import annotations

import types as pytypes
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import attrs

from codequorum.core.limits import MAX_ARGUMENT_CHARS, MAX_ARGUMENT_ITEMS, MAX_ARGUMENT_KEYS
from codequorum.core.words import json_kind


def shape_problem(cls: type, value: Any, where: str = "$") -> str | None:
    """Why ``value`` (raw JSON) cannot be an instance of the attrs class ``cls``; None when
    its shape fits."""
    return _problem(cls, value, where, MAX_ARGUMENT_CHARS)


def _problem(t: Any, value: Any, where: str, max_chars: int) -> str | None:
    origin = get_origin(t)
    if origin in (Union, pytypes.UnionType):
        found = [_problem(a, value, where, max_chars) for a in get_args(t)]
        problems = [p for p in found if p is not None]
        if len(problems) < len(found):
            return None
        return next((p for p in problems if not p.endswith(f"got {json_kind(value)}")),
                    f"{where}: expected {_expected(t)}, got {json_kind(value)}")
    if origin is Literal:
        return None if value in get_args(t) else f"{where}: expected one of " \
            f"{', '.join(map(str, get_args(t)))}"
    simple = _simple(t, value, where, max_chars)
    if simple != "":
        return simple
    if origin is list:
        return _list_problem(get_args(t)[0], value, where, max_chars)
    if isinstance(t, type) and attrs.has(t):  # ours, and lsprotocol's Position and Range
        return _object_problem(t, value, where)
    return None  # Any, dict: bounded by the object and list checks around them


def _simple(t: Any, value: Any, where: str, max_chars: int) -> str | None:
    """The check of a scalar type ("" when ``t`` is not one)."""
    wrong = f"{where}: expected {_expected(t)}, got {json_kind(value)}"
    if t is type(None):
        return None if value is None else wrong
    if t is bool:
        return None if isinstance(value, bool) else wrong
    if t is int:
        return None if isinstance(value, int) and not isinstance(value, bool) else wrong
    if t is float:
        return None if isinstance(value, int | float) and not isinstance(value, bool) else wrong
    if t is str:
        if not isinstance(value, str):
            return wrong
        if len(value) > max_chars:
            return f"{where}: {len(value):,} characters, at most {max_chars:,}"
        return None
    return ""


def _list_problem(item: Any, value: Any, where: str, max_chars: int) -> str | None:
    if not isinstance(value, list):
        return f"{where}: expected a list, got {json_kind(value)}"
    if len(value) > MAX_ARGUMENT_ITEMS:
        return f"{where}: {len(value):,} items, at most {MAX_ARGUMENT_ITEMS:,}"
    for k, element in enumerate(value):
        problem = _problem(item, element, f"{where}[{k}]", max_chars)
        if problem is not None:
            return problem
    return None


def _object_problem(cls: type, value: Any, where: str) -> str | None:
    """An object of an attrs class (or an LSP position or range): known keys checked,
    unknown ones only counted. A code string stands for a version (``{"code": ...}``)."""
    fields = {camel(a.name): a for a in attrs.fields(cls)}
    if isinstance(value, str) and "code" in fields:
        return _problem(str, value, where, fields["code"].metadata.get("max_chars",
                                                                        MAX_ARGUMENT_CHARS))
    if not isinstance(value, dict):
        wanted = "a code string or an object" if "code" in fields else "an object"
        return f"{where}: expected {wanted}, got {json_kind(value)}"
    if len(value) > MAX_ARGUMENT_KEYS:
        return f"{where}: {len(value):,} keys, at most {MAX_ARGUMENT_KEYS}"
    hints = get_type_hints(cls)
    for key, field in fields.items():
        if key not in value and field.name in value:
            key = field.name  # a snake_case key, as cattrs would miss it: checked all the same
        if key not in value:
            continue
        bound = field.metadata.get("max_chars", MAX_ARGUMENT_CHARS)
        problem = _problem(hints[field.name], value[key], f"{where}.{key}", bound)
        if problem is not None:
            return problem
    return None


def _expected(t: Any) -> str:
    """A type in words."""
    origin = get_origin(t)
    if origin in (Union, pytypes.UnionType):
        return " or ".join(_expected(a) for a in get_args(t))
    if origin is list:
        return "a list"
    return {type(None): "null", bool: "true or false", int: "a whole number",
            float: "a number", str: "a string"}.get(t, "an object")


def camel(name: str) -> str:
    """A field's key in the JSON: ``qualified_name`` -> ``qualifiedName``."""
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)
