"""The edge values of a parameter type, tried before any random draw.

Random draws seldom hit what breaks a function: an empty list, a single element, zero,
a negative number, ``inf``/``nan``/``-0.0`` for a float, a string with markup (``<>&'"``),
quotes, non-ASCII letters or only whitespace. Each type (a resolved annotation,
``test_inputs.TypeSpec``) lists its edge values here, in a fixed order; a call's argument
tuples vary one parameter at a time through its edges, the others held at their first
ordinary value, so ``n`` inputs cover every parameter's edges first.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from typing import Any

from codequorum.behaviour.sandbox.fixed_world import NOW
from codequorum.behaviour.sandbox.protocol import Lambda

#: A resolved annotation (``("int",)``, ``("list", ("str",))``...): see ``test_inputs``.
Spec = tuple[Any, ...]

#: Integers at the edges: zero, one, negative, large (past 2**63).
INT_EDGES: tuple[int, ...] = (0, 1, -1, 2**64 + 1)
#: Floats at the edges: zero, negative zero, inf, -inf, nan, a fraction, negative, huge.
FLOAT_EDGES: tuple[float, ...] = (0.0, -0.0, math.inf, -math.inf, math.nan, 0.5, -1.5, 1e308)
#: Edge inputs made for a function, at least (each parameter's edges, one at a time).
MIN_EDGE_INPUTS = 12
#: Strings at the edges: empty, one letter, markup, quotes, non-ASCII, whitespace only,
#: a line break inside, surrounding blanks.
STR_EDGES: tuple[str, ...] = (
    "", "a", "<a href='x'>&amp;\"</a>", "it's \"quoted\"", "naïve café ß 日本", "   ",
    "line one\nline two", "  padded  ",
)
#: The sandbox's "now" (``fixed_world.NOW``, naive as ``datetime.now()`` gives it in the
#: sandbox's UTC) and a day: code that compares a date with today (``naturalday``,
#: ``is_overdue``, ``age``) is told apart only on today and the days either side of it.
_NOW = dt.datetime(1970, 1, 1) + dt.timedelta(seconds=NOW)
_DAY = dt.timedelta(days=1)
#: datetime's values at the edges: zero, a second either side of it (a negative
#: ``timedelta`` keeps its days negative and its seconds positive), a day and more; today, a
#: leap day (the ordinary value the other parameters hold: a plain date), tomorrow and
#: yesterday (so a union's first three, ``date | datetime``, still reach one of them), the
#: ends of a year and of the range, a microsecond.
TIME_EDGES: dict[str, tuple[Any, ...]] = {
    "timedelta": (dt.timedelta(0), dt.timedelta(seconds=-1), dt.timedelta(seconds=1),
                  dt.timedelta(days=-1), dt.timedelta(days=1, seconds=3600),
                  dt.timedelta(days=400), dt.timedelta(microseconds=1)),
    "date": (_NOW.date(), dt.date(2024, 2, 29), (_NOW + _DAY).date(), (_NOW - _DAY).date(),
             dt.date(2000, 1, 1), dt.date(1999, 12, 31), dt.date(1970, 1, 1),
             dt.date(1, 1, 1), dt.date(9999, 12, 31)),
    "datetime": (_NOW, dt.datetime(2024, 2, 29, 23, 59, 59), _NOW + _DAY, _NOW - _DAY,
                 dt.datetime(2000, 1, 1), dt.datetime(1999, 12, 31, 12, 30),
                 dt.datetime(1970, 1, 1), dt.datetime(2000, 1, 1, 0, 0, 0, 1)),
}
#: The functions a ``Callable`` parameter is given, by the kind its functions return (a
#: ``None`` key: no return type said), for one parameter: each gives distinct values on
#: distinct arguments where its kind allows (a version that calls it again, or with other
#: arguments, gives other values), and takes more arguments than it reads. The identity
#: follows, which every argument type takes.
CALLABLE_SOURCES: dict[str | None, str] = {
    "int": "lambda x, *rest: x * 2 + 1",
    "float": "lambda x, *rest: x * 2 + 0.5",
    "str": "lambda x, *rest: f'<{x}>'",
    "bool": "lambda x, *rest: bool(x) and x != 2",
    "none": "lambda *args: None",
}
IDENTITY_SOURCE = "lambda x, *rest: x"
#: For a function of no parameters (``Callable[[], T]``): a value of the kind each time.
NO_ARGUMENT_SOURCES: dict[str | None, str] = {
    "int": "lambda: 7", "float": "lambda: 0.5", "str": "lambda: 'x'", "bool": "lambda: True",
    "none": "lambda: None",
}
#: How many edge values of an element type go into a container's edges.
_ELEMENTS = 2


def edge_values(spec: Spec) -> list[Any]:
    """The edge values of ``spec``, most telling first; ``[]`` for an unknown kind."""
    kind = spec[0]
    if kind == "int":
        return list(INT_EDGES)
    if kind == "float":
        return list(FLOAT_EDGES)
    if kind == "bool":
        return [False, True]
    if kind == "str":
        return list(STR_EDGES)
    if kind == "none":
        return [None]
    if kind in TIME_EDGES:
        return list(TIME_EDGES[kind])
    if kind in ("list", "tuple*", "set"):
        return _sequence_edges(kind, spec[1])
    if kind == "dict":
        keys, values = edge_values(spec[1])[:_ELEMENTS], edge_values(spec[2])[:1]
        return [{}] + [{k: v} for k in keys for v in values if _hashable(k)]
    if kind == "tuple":
        parts = [edge_values(s) or [None] for s in spec[1:]]
        return [tuple(p[0] for p in parts), tuple(p[-1] for p in parts)]
    if kind == "union":
        return [v for s in spec[1:] for v in edge_values(s)[:3]]
    if kind == "callable":
        return [Lambda(s) for s in callable_sources(spec)]
    return []


def callable_sources(spec: Spec) -> list[str]:
    """The texts of the functions a ``("callable", returns, arity)`` parameter is given:
    one made for what it returns, then the identity (a function of no parameters: a
    value only)."""
    returns = spec[1][0] if spec[1] is not None and spec[1][0] != "union" else None
    if spec[2] == 0:
        return [NO_ARGUMENT_SOURCES.get(returns, "lambda: 7")]
    made = CALLABLE_SOURCES.get(returns)
    return [made, IDENTITY_SOURCE] if made is not None else [IDENTITY_SOURCE]


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return not (isinstance(value, float) and math.isnan(value))  # nan keys never match


def _sequence_edges(kind: str, inner: Spec) -> list[Any]:
    """Empty, one element, two equal elements, the element type's edges together."""
    elements = [v for v in edge_values(inner) if kind != "set" or _hashable(v)]
    first = elements[:1] or [0]
    shapes: list[list[Any]] = [[], first, first * 2, elements[: _ELEMENTS + 2]]
    if kind == "set":
        return [set(s) for s in shapes[:2]] + [set(shapes[3])]
    if kind == "tuple*":
        return [tuple(s) for s in shapes]
    return shapes


def _ordinary(spec: Spec) -> Any:
    """The value a parameter keeps while another one goes through its edges: its type's
    second edge (one letter, one element, 1), seldom an edge of the function itself."""
    values = edge_values(spec)
    return values[1] if len(values) > 1 else (values[0] if values else None)


def ordinary_args(specs: Sequence[Spec]) -> tuple[Any, ...]:
    """Each parameter at its ordinary value (:func:`_ordinary`): what the others hold
    while an optional parameter goes through its values."""
    return tuple(_ordinary(s) for s in specs)


def edge_args(specs: Sequence[Spec], n: int) -> list[tuple[Any, ...]]:
    """Up to ``n`` argument tuples: each parameter in turn through its edge values, the
    others at an ordinary value (distinct tuples, in order)."""
    if n <= 0 or not specs:
        return []
    held = [_ordinary(s) for s in specs]
    out: list[tuple[Any, ...]] = []
    seen: set[str] = set()
    columns = [edge_values(s) for s in specs]
    for depth in range(max((len(c) for c in columns), default=0)):
        for i, column in enumerate(columns):
            if depth >= len(column):
                continue
            args = (*held[:i], column[depth], *held[i + 1:])
            key = repr(args)
            if key not in seen:
                seen.add(key)
                out.append(args)
            if len(out) >= n:
                return out
    return out


__all__ = ["FLOAT_EDGES", "INT_EDGES", "MIN_EDGE_INPUTS", "STR_EDGES", "TIME_EDGES",
           "edge_args",
           "edge_values", "ordinary_args"]
