"""Docstring examples run whole in the sandbox, iterators consumed, neutral answers at
import (the host name) while the network stays refused."""

from __future__ import annotations

import doctest

from codequorum.behaviour.sandbox.outcome_grading import example_passed
from codequorum.behaviour.sandbox.supervisor import run_candidate
from codequorum.core.model import TestCase as Case

GEN = "def evens(n):\n    for i in range(n):\n        if i % 2 == 0:\n            yield i\n"


def _example(source: str, want: str | None = None, setup: tuple[str, ...] = (),
             flags: int = 0) -> Case:
    return Case("example", source=source, setup=setup, expected=want,
                has_expected=want is not None, flags=flags, name=source.strip())


def test_an_example_shows_what_it_prints_and_the_repr_of_its_value() -> None:
    tests = [_example("print(list(evens(5)))\n", "[0, 2, 4]\n"),
             _example("evens(7)\n", "[0, 2, 4, 6]\n"),  # an iterator shows its items
             _example("sorted(evens(n))[-1] > 2\n", "True\n", setup=("n = 9\n",)),
             _example("print(evens(3))\n", "[0, 2]\n")]  # print shows the generator itself
    result = run_candidate(GEN, tests, "evens")
    assert result.status == "ok", result.detail
    assert [t.output for t in result.tests][:3] == ["[0, 2, 4]\n", "[0, 2, 4, 6]\n", "True\n"]
    assert [t.passed for t in result.tests] == [True, True, True, False]


def test_setup_errors_pass_over_and_setup_output_is_not_shown() -> None:
    tests = [_example("evens(k)\n", "[0]\n", setup=("print('noise')\n", "1 / 0\n", "k = 2\n"))]
    result = run_candidate(GEN, tests, "evens")
    assert [(t.output, t.passed) for t in result.tests] == [("[0]\n", True)]


def test_an_expected_traceback_grades_by_the_exception() -> None:
    code = "def f(x):\n    if x < 0:\n        raise ValueError('negative: %d' % x)\n    return x\n"
    want = "Traceback (most recent call last):\n  ...\nValueError: negative: -1\n"
    tests = [_example("print(f(-1))\n", want), _example("print(f(-2))\n", want),
             _example("print(f(1))\n", want)]
    result = run_candidate(code, tests, "f")
    assert [t.passed for t in result.tests] == [True, False, False]
    assert example_passed(want, None, doctest.IGNORE_EXCEPTION_DETAIL, ("ValueError", "x"))
    assert not example_passed(want, None, 0, ("KeyError", "negative: -1"))
    assert example_passed("[1, ...]\n", "[1, 2, 3]\n", doctest.ELLIPSIS, None)
    assert not example_passed("[1, ...]\n", "[1, 2, 3]\n", 0, None)


def test_a_call_whose_result_is_a_generator_compares_its_items() -> None:
    result = run_candidate(GEN, [Case("call", args=(5,), expected=[0, 2, 4],
                                      has_expected=True)], "evens")
    assert [(t.output, t.passed) for t in result.tests] == [("[0, 2, 4]", True)]


#: ``async def`` functions as asyncstdlib writes them: a coroutine, an async generator,
#: and one that waits on an event loop's future.
ASYNC = """import asyncio


async def double(x):
    await asyncio.sleep(0)
    return 2 * x


async def countdown(n):
    while n > 0:
        yield n
        n -= 1


class Pending:
    def __await__(self):
        yield self  # what an event loop's future gives its loop


async def waits(x):
    await Pending()
"""


def test_an_async_functions_result_is_what_it_returns_or_yields() -> None:
    """A coroutine compared by its repr (``<coroutine object double at 0x...>``) made
    every pair of versions differ: it is driven to its value, an async generator to its
    items."""
    double = run_candidate(ASYNC, [Case("call", args=(3,), expected=6, has_expected=True),
                                   _example("double(4)\n", "8\n")], "double")
    assert [(t.output, t.passed) for t in double.tests] == [("6", True), ("8\n", True)]
    count = run_candidate(ASYNC, [Case("call", args=(3,))], "countdown")
    assert count.tests[0].output == "[3, 2, 1]"
    waits = run_candidate(ASYNC, [Case("call", args=(1,))], "waits")
    assert waits.tests[0].output is None
    assert waits.tests[0].exc_type == "RuntimeError"


def test_the_host_name_is_neutral_and_the_network_still_refused() -> None:
    code = ("import socket\n"
            "def f():\n"
            "    name = socket.gethostname()\n"
            "    try:\n"
            "        socket.gethostbyname('example.org')\n"
            "    except OSError as exc:\n"
            "        return name, type(exc).__name__\n")
    result = run_candidate(code, [Case("call")], "f")
    assert result.tests[0].output == "('localhost', 'PermissionError')"
    assert result.status.startswith("forbidden: network")


def test_the_portable_sandbox_runs_examples_and_consumes_iterators_too() -> None:
    tests = [_example("print(list(evens(5)))\n", "[0, 2, 4]\n"), Case("call", args=(5,))]
    result = run_candidate(GEN, tests, "evens", sandbox="portable")
    assert result.status == "ok", result.detail
    assert [(t.output, t.passed) for t in result.tests] == [("[0, 2, 4]\n", True),
                                                             ("[0, 2, 4]", None)]


def test_an_example_that_runs_an_event_loop_runs_and_the_network_stays_refused() -> None:
    """``>>> asyncio.run(double(4))``, as async functions' docstrings are written: the
    loop's socket pair is allowed in the strict sandbox; a socket reaching out after the
    loop exists is still refused."""
    result = run_candidate(ASYNC, [_example("asyncio.run(double(4))\n", "8\n")], "double")
    assert result.status == "ok", result.detail
    assert [(t.output, t.passed) for t in result.tests] == [("8\n", True)]
    reach = ASYNC + ("\n\nimport socket\n\n\ndef reach(x):\n    asyncio.run(double(x))\n"
                     "    return socket.socket(socket.AF_INET)\n")
    hostile = run_candidate(reach, [Case("call", args=(1,))], "reach")
    assert hostile.status == "forbidden: network"
    assert hostile.tests[0].exc_type == "PermissionError" and hostile.tests[0].output is None
