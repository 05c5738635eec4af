"""Results the child consumes before showing them: a returned function by what its probe
calls give (its name and address are no part of it)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from codequorum.behaviour.sandbox import child, doctest_run
from codequorum.behaviour.sandbox.doctest_run import Returned, arity, consumed, is_made_function


def _once(remembers: bool) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def once(fn: Callable[..., Any]) -> Callable[..., Any]:
        kept: list[Any] = []

        def wrapper(*args: Any) -> Any:
            if not kept or not remembers:
                kept[:] = [fn(*args)]
            return kept[0]

        return wrapper

    return once


def test_a_returned_function_is_shown_by_what_its_probe_calls_give() -> None:
    right, again = _once(True), _once(False)
    double = lambda x: x * 2  # noqa: E731
    shown = child.canonical_repr(consumed(right(double)))
    assert shown == "<function: (1) -> 2, (2) -> 2, (1) -> 2>"
    assert child.canonical_repr(consumed(again(double))) == (
        "<function: (1) -> 2, (2) -> 4, (1) -> 2>")
    # the same behaviour under another name is the same value
    inner = _once(True)(double)
    inner.__name__ = inner.__qualname__ = "inner"
    assert child.canonical_repr(consumed(inner)) == shown


def test_each_parameter_without_a_default_gets_the_probe() -> None:
    def adder(a: int, b: int, c: int = 10) -> int:
        return a + b + c

    assert arity(adder) == 2
    assert arity(lambda *xs: len(xs)) == 1
    assert arity(lambda: 7) == 0
    assert arity(lambda a, b, c, d: 0) == doctest_run.MAX_ARITY
    assert arity(functools.partial(adder, 5)) == 1
    assert arity(Returned.text.__get__(Returned([]))) == 1  # bound: self is given
    probed = consumed(functools.partial(adder, 5))
    assert isinstance(probed, Returned)
    assert [call[1] for call in probed.calls] == [16, 17, 16]


def test_what_a_call_raises_is_its_class_and_a_value_that_is_a_function_is_only_that() -> None:
    def picky(x: int) -> Any:
        if x == 2:
            raise ValueError(f"{x} is not wanted by picky at {id(x):#x}")
        return lambda: x

    assert child.canonical_repr(consumed(picky)) == (
        "<function: (1) -> <function>, (2) -> raises ValueError, (1) -> <function>>")


def test_counters_generators_and_what_is_not_a_made_function() -> None:
    count = iter(range(100))
    assert child.canonical_repr(consumed(lambda: next(count))) == (
        "<function: () -> 0, () -> 1, () -> 2>")
    # a function whose value is an iterator: the iterator's items
    assert child.canonical_repr(consumed(lambda n: (i for i in range(n)))) == (
        "<function: (1) -> [0], (2) -> [0, 1], (1) -> [0]>")
    for value in (len, int, str.upper, Returned):
        assert not is_made_function(value)
        assert consumed(value) is value
