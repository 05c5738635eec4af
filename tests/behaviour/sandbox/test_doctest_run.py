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


def _memoize(caches: bool) -> Callable[[Callable[[int], int]], Callable[[int], int]]:
    def memoize(fn: Callable[[int], int]) -> Callable[[int], int]:
        cache: dict[int, int] = {}

        def wrapper(x: int) -> int:
            if x not in cache or not caches:
                cache[x] = fn(x)
            return cache[x]

        return wrapper

    return memoize


def test_what_an_input_function_is_called_with_while_probed_is_part_of_the_value() -> None:
    """A cache and a wrapper that caches nothing return the same values; what the input's
    function heard tells them apart. ``functools.lru_cache`` is probed as the function it
    wraps, and agrees with the hand-written cache."""
    double = doctest_run.recording(lambda x: x * 2)
    assert arity(double) == 1 and double.__wrapped__(4) == 8
    cached = child.canonical_repr(consumed(_memoize(True)(double)))
    assert cached == "<function: (1) -> 2, (2) -> 4, (1) -> 2; calls back (1), (2)>"
    assert child.canonical_repr(consumed(_memoize(False)(double))) == (
        "<function: (1) -> 2, (2) -> 4, (1) -> 2; calls back (1), (2), (1)>")
    assert child.canonical_repr(consumed(functools.lru_cache(maxsize=None)(double))) == cached
    # calls outside a probe are not written down, and a function not passed in is silent
    assert double(5) == 10 and doctest_run._heard is None
    assert child.canonical_repr(consumed(_memoize(True)(lambda x: x * 2))) == (
        "<function: (1) -> 2, (2) -> 4, (1) -> 2>")


def test_an_input_function_called_without_end_is_written_down_up_to_a_bound() -> None:
    hear = doctest_run.recording(lambda x: x)

    def spam(fn: Callable[[int], int]) -> Callable[[int], None]:
        def call(x: int) -> None:
            for i in range(500):
                fn(i)

        return call

    shown = consumed(spam(hear))
    assert isinstance(shown, Returned)
    assert len(shown.heard) == doctest_run.MAX_HEARD + 1 and shown.heard[-1] == (Ellipsis,)
    assert shown.heard[:2] == [(0,), (1,)]
    assert child.canonical_repr(shown).endswith("(98), (99), ...>")


def _debounce(kind: str) -> Callable[[Callable[..., Any], float], Callable[..., None]]:
    """``debounce`` with ``threading.Timer``: ``trailing`` cancels the last timer,
    ``every`` never does, ``leading`` calls at once on a burst's first call."""
    import threading

    def debounce(fn: Callable[..., Any], wait: float) -> Callable[..., None]:
        state: dict[str, Any] = {"timer": None}

        def call(*args: Any) -> None:
            timer = state["timer"]
            if kind == "leading" and timer is None:
                fn(*args)
            if timer is not None and kind != "every":
                timer.cancel()
            state["timer"] = threading.Timer(wait, (lambda *_: None) if kind == "leading"
                                             else fn, args)
            state["timer"].start()

        return call

    return debounce


def test_what_threading_timers_make_an_input_function_hear_is_heard_later() -> None:
    """The timers a probe's calls start do not run as threads: they wait in order of when
    they are due and run once the calls are made, on the probing thread, so a trailing
    ``debounce`` parts from one that never cancels and from a leading one, every run
    alike; a callback that raises is heard as what it raised."""
    import threading

    start = threading.Timer.start
    hear = doctest_run.recording(lambda x: x)
    said = {kind: child.canonical_repr(consumed(_debounce(kind)(hear, 42.0)))
            for kind in ("trailing", "every", "leading")}
    calls = "(1) -> None, (2) -> None, (1) -> None"
    assert said == {"trailing": f"<function: {calls}; calls back later (1)>",
                    "every": f"<function: {calls}; calls back later (1), (2), (1)>",
                    "leading": f"<function: {calls}; calls back (1)>"}
    assert threading.Timer.start is start  # as it was once the probes are done
    raising = doctest_run.recording(lambda x: 1 // 0)
    assert child.canonical_repr(consumed(_debounce("trailing")(raising, 0.5))) == (
        f"<function: {calls}; calls back later (1), raises ZeroDivisionError>")


def test_a_call_from_another_thread_is_not_heard() -> None:
    """A thread fires whenever it runs: what it calls is left out, so that what a probe
    heard never depends on timing."""
    import threading

    def later(fn: Callable[[int], int]) -> Callable[[int], None]:
        def call(x: int) -> None:
            worker = threading.Thread(target=fn, args=(x,))
            worker.start()
            worker.join()
            fn(-x)

        return call

    shown = consumed(later(doctest_run.recording(lambda x: x)))
    assert isinstance(shown, Returned) and shown.heard == [(-1,), (-2,), (-1,)]


def test_a_function_of_two_parameters_meets_a_call_that_shares_its_first_argument() -> None:
    """``(1, 2)``, ``(2, 3)``, ``(1, 5)``, ``(1, 2)``: a cache keyed on the first argument
    alone answers ``(1, 5)`` from the first call and parts from one keyed on both."""
    assert doctest_run.probe_rows(0) == [(), (), ()]
    assert doctest_run.probe_rows(1) == [(1,), (2,), (1,)]
    assert doctest_run.probe_rows(2) == [(1, 2), (2, 3), (1, 5), (1, 2)]
    assert doctest_run.probe_rows(3) == [(1, 2, 3), (2, 3, 4), (1, 2, 6), (1, 2, 3)]

    def memoize(by_first: bool) -> Callable[..., Any]:
        cache: dict[Any, int] = {}

        def wrapper(a: int, b: int) -> int:
            k = a if by_first else (a, b)
            if k not in cache:
                cache[k] = a * 10 + b
            return cache[k]

        return wrapper

    assert child.canonical_repr(consumed(memoize(False))) == (
        "<function: (1, 2) -> 12, (2, 3) -> 23, (1, 5) -> 15, (1, 2) -> 12>")
    assert child.canonical_repr(consumed(memoize(True))) == (
        "<function: (1, 2) -> 12, (2, 3) -> 23, (1, 5) -> 12, (1, 2) -> 12>")
