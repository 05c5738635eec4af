"""Values drawn of TypeScript types, the inputs of a function whose parameters declare them.

Each type has its samples (``number``: 0, 1, -3, 7, 42, 2.5; ``string``: the empty string,
a letter, words, mixed case with doubled and outer spaces, digits and punctuation, letters
past ASCII), and a value is the ``i``-th of its type: a union's members in turn, ``null``
and ``undefined`` once each after the first value of the others; arrays, tuples, object
types, records, maps and sets of drawable types; literal types as themselves; a callback
for a function type; a name the file declares (an alias, an interface, an enum) as the
type it stands for. What types a value shows, and a value with its items repeated (ties,
the most common word, two keys with one value), are read here too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from codequorum.behaviour.runtimes import js_dates, js_values
from codequorum.behaviour.runtimes.js_literals import NotLiteral
from codequorum.behaviour.runtimes.ts_types import (
    callback_source,
    index_value,
    instantiated,
    object_members,
    split_top,
    unwrapped,
)
from codequorum.behaviour.runtimes.ts_utility import plain

_SAMPLES: dict[str, list[Any]] = {
    "number": [0, 1, -3, 7, 42, 2.5],
    # case, padding, doubled spaces, digits and punctuation, letters past ASCII, then only
    # digits (a string a version reads as a number: ``/^[0-9]+$/.test(s)``, ``Number(s)``)
    "string": ["", "a", "hello", "Hello World", "abcba", "x y", "  mIxEd  CASE, 42! ",
               "naïve Straße", "42"],
    "boolean": [True, False, True, False, True, False],
    "bigint": [{"$": "bigint", "v": v} for v in ("0", "1", "-3", "7", "42", "12345678901")],
    # truthy and falsy values of every kind, for what takes anything (an assertion)
    "any": [True, 0, "a", None, [1, 2], False, {"$": "undefined"}, 1, ""],
}
_SAMPLES["unknown"] = _SAMPLES["any"]
_SAMPLES["Date"] = list(js_dates.DRAWN)
#: The members of a union that are "no value": each is drawn once, right after the first
#: value of the others (``string | null``: ``""``, ``null``, ``"a"``, ...).
NULLISH_TYPES: dict[str, Any] = {"null": None, "undefined": js_values.UNDEFINED,
                                 "void": js_values.UNDEFINED}


def union_members(type_text: str) -> list[str]:
    """The members of a union type at its top level (``string | (() => string)`` -> two);
    one member for a type that is not a union."""
    members, depth, start = [], 0, 0
    for k, ch in enumerate(type_text):
        depth += ch in "([{<"
        depth -= ch in ")]}>" and type_text[k - 1:k] != "="  # ``=>`` closes nothing
        if ch == "|" and depth == 0:
            members.append(type_text[start:k].strip())
            start = k + 1
    members.append(type_text[start:].strip())
    return [m for m in members if m]


def type_values(type_text: str, i: int, aliases: Mapping[str, str] | None = None,
                depth: int = 0, step: int = 1) -> Any:
    """The ``i``-th drawn value of a TypeScript type, or NotLiteral when it is not drawn: a
    union draws from its members that can be drawn, in turn (a literal member is itself);
    a name the file declares (``aliases``: ``ts_types.declared_types``) is its type. The
    ``n``-th item of an array, tuple or object is the ``i + n * step``-th of its type:
    ``step`` 0 gives every item of one type one value (``[7, 7]``, ``{lo: 7, hi: 7}``)."""
    t = unwrapped(type_text)
    if depth > 8:
        raise NotLiteral(t)
    aliases = aliases or {}
    members = union_members(t)
    if len(members) > 1:
        return _union_value(t, members, i, aliases, depth, step)
    if t in NULLISH_TYPES:
        return NULLISH_TYPES[t]
    if t in aliases:  # a generic one named bare takes its parameters' defaults
        stands = instantiated(t, [], aliases) or aliases[t]
        return type_values(stands, i, aliases, depth + 1, step)
    if t in _SAMPLES:
        return _SAMPLES[t][i % len(_SAMPLES[t])]
    if t[:1] in "'\"" and t[-1:] == t[:1] and len(t) > 1:
        return t[1:-1]
    if re.fullmatch(r"-?\d+(?:\.\d+)?", t):
        return int(t) if "." not in t else float(t)
    callback = callback_source(t)
    if callback is not None:
        return {"$": "source", "v": callback}
    made = plain(t, aliases)  # a utility type: Partial<User>, keyof User, ReadonlyMap<K, V>
    if made is not None and made != t:
        return type_values(made, i, aliases, depth + 1, step)
    return _structured(t, i, aliases, depth, step)


def _union_value(t: str, members: Sequence[str], i: int, aliases: Mapping[str, str],
                 depth: int, step: int) -> Any:
    """The ``i``-th value of a union: its members that can be drawn in turn, and each
    nullish member (:data:`NULLISH_TYPES`) once, after the others' first value."""
    drawn = [m for m in members if drawable(m, aliases, depth)]
    nullish = [m for m in drawn if m in NULLISH_TYPES]
    others = [m for m in drawn if m not in NULLISH_TYPES]
    if not drawn:
        raise NotLiteral(t)
    if nullish and others:
        if 1 <= i <= len(nullish):
            return NULLISH_TYPES[nullish[i - 1]]
        drawn, i = others, (i - len(nullish) if i else 0)
    return type_values(drawn[i % len(drawn)], i // len(drawn), aliases, depth + 1, step)


def _structured(t: str, i: int, aliases: Mapping[str, str], depth: int, step: int) -> Any:
    """Arrays, tuples, object types, records, maps and sets of drawable types."""
    def draw(x: str, n: int) -> Any:
        return type_values(x, i + n * step, aliases, depth + 1, step)
    generic = re.fullmatch(r"(Array|Set|Map|Record)<(.+)>", t, re.S)
    if t == "[]":  # the empty tuple (``readonly []``), not an array of nothing
        return []
    inner = t[:-2] if t.endswith("[]") else (generic.group(2) if generic and generic.group(1)
                                            in ("Array", "Set") else None)
    size = i % 4 + (1 if i else 0)
    if inner is not None:
        items = [draw(inner, k) for k in range(size)]
        if generic is not None and generic.group(1) == "Set":
            return {"$": "set", "v": sorted({json.dumps(v): v for v in items}.values(),
                                            key=json.dumps)}
        return items
    if t.startswith("[") and t.endswith("]"):
        return [draw(re.sub(r"^[\w$]+\??\s*:\s*", "", e), k)
                for k, e in enumerate(split_top(t[1:-1], ","))]
    pair = split_top(generic.group(2), ",") if generic is not None else []
    if generic is not None and generic.group(1) == "Map" and len(pair) == 2 \
            and pair[0] != "string":  # keys of their own type: Map<number, string>
        drawn = {json.dumps(k): k for k in (draw(pair[0], n) for n in range(size))}
        return {"$": "map", "v": [[k, draw(pair[1], n)] for n, k in enumerate(drawn.values())]}
    value_type = pair[1] if len(pair) == 2 and pair[0] == "string" else (
        index_value(t) if t.startswith("{") else None)
    if value_type is not None:
        keys = ["a", "b", "c", "d"][:size]
        if generic is not None and generic.group(1) == "Map":
            return {"$": "map", "v": [[k, draw(value_type, n)] for n, k in enumerate(keys)]}
        return {"$": "object", "v": [[k, draw(value_type, n)] for n, k in enumerate(keys)]}
    members = object_members(t) if t.startswith("{") and t.endswith("}") else None
    if members is not None:
        return {"$": "object", "v": sorted([[name, draw(ty, n)]
                                            for n, (name, ty, optional) in enumerate(members)
                                            if not optional or i % 2], key=lambda p: p[0])}
    raise NotLiteral(t)


def drawable(type_text: str, aliases: Mapping[str, str] | None = None,
              depth: int = 0) -> bool:
    try:
        type_values(type_text, 0, aliases, depth + 1)
    except NotLiteral:
        return False
    return True



def value_type(tree: Any) -> str | None:
    """The type a value shows (``"a"`` string, ``[1, 2]`` number[]); None past these."""
    if isinstance(tree, bool):
        return "boolean"
    if isinstance(tree, (int, float)):
        return "number"
    if isinstance(tree, str):
        return "string"
    if isinstance(tree, dict) and tree.get("$") == "date":
        return "Date"
    if isinstance(tree, list):
        inner = {value_type(x) for x in tree}
        return f"{inner.pop()}[]" if len(inner) == 1 and None not in inner else None
    return None



def repeats(type_text: str, aliases: Mapping[str, str] | None = None) -> bool:
    """Whether a value of ``type_text`` is drawn again with its items repeated: an array, a
    string, or a map or record by string keys (a tuple, an object type or a number is
    not)."""
    t = unwrapped(type_text)
    t = unwrapped((aliases or {}).get(t, t))
    return (t == "string" or t.endswith("[]") or t.startswith("Array<")
            or re.fullmatch(r"(?:Map|Record)<\s*string\s*,.+>", t, re.S) is not None
            or (t.startswith("{") and index_value(t) is not None))


def repeated(value: Any) -> Any:
    """``value`` with its first half again after it, so that items repeat and their counts
    differ: an array's items ([-3, 7, 42] -> [-3, 7, 42, -3]), a string's words ("x y" ->
    "x y x"), a map's or a record's values under new keys ({a: 1, b: 2} -> {a: 1, a2: 1,
    b: 2}: two keys with one value); at least one item."""
    if isinstance(value, list):
        return value + value[:max(1, len(value) // 2)]
    if isinstance(value, str) and value:
        words = value.split(" ")
        return " ".join(words + words[:max(1, len(words) // 2)])
    if isinstance(value, dict) and value.get("$") in ("map", "object") and value.get("v"):
        entries = value["v"]
        more = [[f"{k}2", v] for k, v in entries[:max(1, len(entries) // 2)]]
        return {"$": value["$"], "v": sorted(entries + more, key=lambda e: e[0])}
    return value



def draw_count(types: Sequence[str], count: int,
               aliases: Mapping[str, str] | None = None) -> int:
    """How many calls are drawn of ``types``: ``count``, or more where a parameter's type
    has more samples than that (each of a string's is drawn); none when ``count`` is 0."""
    aliases = aliases or {}
    sizes = [len(_SAMPLES.get(unwrapped(aliases.get(unwrapped(t), t)), ())) for t in types]
    return max([count, *sizes]) if count > 0 else 0


__all__ = ["NULLISH_TYPES", "draw_count", "drawable", "repeated", "repeats", "type_values",
           "union_members", "value_type"]
