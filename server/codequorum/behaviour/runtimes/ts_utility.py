"""TypeScript's utility types written as the plain types they make, so values can be drawn.

``Partial<User>`` is ``User``'s object type with every member optional, ``Required<T>``
with none, ``Pick<T, 'a' | 'b'>`` and ``Omit<T, 'c'>`` with some members, ``keyof T`` the
union of its members' names, ``NonNullable<T>``, ``Exclude<U, X>`` and ``Extract<U, X>``
a union with members left out or kept, ``Record<'a' | 'b', V>`` an object type with those
keys; ``ReadonlyMap``, ``ReadonlySet``,
``Iterable<T>``, ``ArrayLike<T>`` and ``ReadonlyArray<T>`` the map, set and array that
give them; a generic alias or interface of the file its body with the arguments put in
(``DateArg<Date>``), an intersection of object types one object type (``{}`` and
``unknown`` add nothing). A name is read through ``aliases``
(``ts_types.declared_types``). None for a type that is none of these, or whose parts are
not read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from codequorum.behaviour.runtimes.ts_types import (
    instantiated,
    object_members,
    split_top,
    unwrapped,
)

_GENERIC = re.compile(r"([A-Za-z_$][\w$]*)<(.+)>", re.S)
#: Types whose values an array, a ``Map`` or a ``Set`` gives, by the one they read as.
_AS = {"ReadonlyMap": "Map", "ReadonlySet": "Set", "Iterable": "Array",
       "ArrayLike": "Array", "ReadonlyArray": "Array", "IterableIterator": "Array"}


def plain(type_text: str, aliases: Mapping[str, str]) -> str | None:
    """The plain type a utility type makes (module docstring); None when it is none."""
    t = type_text.strip()
    if t.startswith("keyof "):
        members = _members(t[len("keyof "):], aliases)
        return None if not members else " | ".join(f"'{m[0]}'" for m in members)
    parts = split_top(t, "&")
    if len(parts) > 1:
        return _intersection(parts, aliases)
    m = _GENERIC.fullmatch(t)
    if m is None:
        return None
    name, args = m.group(1), split_top(m.group(2), ",")
    if name in _AS:
        return f"{_AS[name]}<{', '.join(args)}>"
    if name == "Record" and len(args) == 2:
        return _record(args[0], args[1], aliases)
    if name in ("NonNullable", "Exclude", "Extract"):
        return _filtered(name, args, aliases)
    if name in ("Partial", "Required", "Pick", "Omit") and args:
        return _reshaped(name, args, aliases)
    return instantiated(name, args, aliases)


#: Members of an intersection that add nothing to a value (``DateArg<Date> & {}``).
_NEUTRAL = frozenset({"{}", "unknown"})


def _intersection(parts: list[str], aliases: Mapping[str, str]) -> str | None:
    """``A & B``: its one member that is not :data:`_NEUTRAL`, else the object type with
    the members of each (``Options & { strict: boolean }``); None when one is no object."""
    kept = [p for p in (unwrapped(p) for p in parts) if p not in _NEUTRAL]
    if len(kept) == 1:
        return kept[0]
    merged: dict[str, tuple[str, bool]] = {}
    for part in kept:
        members = _members(part, aliases)
        if members is None:
            return None
        merged.update({name: (ty, optional) for name, ty, optional in members})
    return "{ " + "; ".join(f"{n}{'?' if o else ''}: {ty}" for n, (ty, o) in merged.items()) + " }"


def _resolved(t: str, aliases: Mapping[str, str]) -> str:
    """A type through its alias (one step at a time, a few steps at most)."""
    t = unwrapped(t)
    for _ in range(4):
        if t not in aliases:
            break
        t = unwrapped(aliases[t])
    return t


def _members(t: str, aliases: Mapping[str, str]) -> list[tuple[str, str, bool]] | None:
    """The members of an object type, through aliases and utility types
    (``Partial<Record<K, V>>``)."""
    body = _resolved(t, aliases)
    if not body.startswith("{"):
        body = plain(body, aliases) or body
    return object_members(body) if body.startswith("{") and body.endswith("}") else None


def _literals(t: str, aliases: Mapping[str, str]) -> list[str] | None:
    """The names a union of string literals holds (``'a' | "b"`` -> a, b); None else."""
    names = []
    for member in split_top(_resolved(t, aliases), "|"):
        member = _resolved(member, aliases)
        if len(member) < 2 or member[0] not in "'\"" or member[-1] != member[0]:
            return None
        names.append(member[1:-1])
    return names


def _record(key: str, value: str, aliases: Mapping[str, str]) -> str | None:
    if _resolved(key, aliases) == "string":
        return f"Record<string, {value}>"
    names = _literals(key, aliases)
    if not names:
        return None
    return "{ " + "; ".join(f"'{n}': {value}" for n in names) + " }"


def _filtered(name: str, args: list[str], aliases: Mapping[str, str]) -> str | None:
    members = [_resolved(m, aliases) for m in split_top(_resolved(args[0], aliases), "|")]
    if name == "NonNullable":
        kept = [m for m in members if m not in ("null", "undefined", "void")]
    elif len(args) == 2:
        out = {_resolved(m, aliases) for m in split_top(_resolved(args[1], aliases), "|")}
        kept = [m for m in members if (m in out) == (name == "Extract")]
    else:
        return None
    return " | ".join(kept) if kept else None


def _reshaped(name: str, args: list[str], aliases: Mapping[str, str]) -> str | None:
    members = _members(args[0], aliases)
    if members is None:
        return None
    if name in ("Pick", "Omit"):
        names = _literals(args[1], aliases) if len(args) == 2 else None
        if names is None:
            return None
        members = [m for m in members if (m[0] in names) == (name == "Pick")]
    optional = {"Partial": "?", "Required": ""}
    parts = [f"'{n}'{optional.get(name, '?' if opt else '')}: {t}" for n, t, opt in members]
    return "{ " + "; ".join(parts) + " }"


__all__ = ["plain"]
