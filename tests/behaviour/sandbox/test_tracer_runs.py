"""Straight-run counting (3.11 ``settrace``) gives exactly the per-opcode counts.

Each version runs twice in the same sandbox level, under ``settrace`` (runs counted at
line events) and ``settrace-opcodes`` (one event per opcode); every test's histogram must
be identical. Hand-written versions cover the control flow that breaks runs (branches
inside a line, loops with break/continue/else, exceptions raised mid-line and caught in
the frame or by the caller, re-raises, generators, coroutines, ``with``, ``match``,
comprehensions, lambdas, recursion, EXTENDED_ARG); what models write is covered by the
bundled HumanEval versions in ``test_block_counts.py``, which runs the reference once for
both fast modes.
"""

from __future__ import annotations

import opcode
import sys
from types import CodeType
from typing import Any

import pytest

from codequorum.behaviour.sandbox.supervisor import CandidateResult, run_candidates
from codequorum.behaviour.sandbox.tracer import END, MAX_FIX, NO_RUN, RunTable
from codequorum.core.model import TestCase as Case

pytestmark = pytest.mark.skipif(
    sys.version_info[:2] != (3, 11), reason="runs are counted at 3.11's line events"
)
LEVELS = ["strict", "portable"]

LOOP = (
    "def f(n):\n"
    "    total = 0\n"
    "    seen = []\n"
    "    for i in range(n):\n"
    "        if i % 3 == 0:\n"
    "            total += i * 2\n"
    "        else:\n"
    "            total -= 1\n"
    "        if i % 1000 == 0:\n"
    "            seen.append(total)\n"
    "    return total, len(seen)\n"
)
BOOM = "def boom(x):\n    return 1 / x\n"
GEN = "def gen(n):\n    for i in range(n):\n        yield i * 2\n    yield from range(2)\n"
WIDE = "def f(x):\n    return [" + ", ".join(f"x + {i}" for i in range(300)) + "]\n"
LONG_BODY = "def f(xs):\n    return [x" + " + 1" * 300 + " for x in xs]\n"
#: name -> (version defining ``f``, the arguments of each test)
VERSIONS: dict[str, tuple[str, list[tuple[Any, ...]]]] = {
    "loop": (LOOP, [(0,), (7,), (2001,)]),
    "one_line": ("def f(x): return x\n", [(1,)]),
    "lambda": ("f = lambda y: y + 1\n", [(1,), ("s",)]),
    "conditional": ("def f(a, b):\n    return a if b else -a\n", [(1, 0), (1, 1)]),
    "and_or": ("def f(a, b, c):\n    x = a and b or c\n    if a and (b or c):\n"
               "        return 1\n    return x\n", [(0, 1, 2), (1, 0, 1), (1, 1, 0), (1, 0, 0)]),
    "while_else": ("def f(n):\n    i = 0\n    while i < n:\n        i += 1\n"
                   "        if i == 7:\n            break\n        if i % 2:\n"
                   "            continue\n    else:\n        i = -1\n    return i\n",
                   [(0,), (3,), (20,)]),
    "one_line_loops": ("def f(n):\n    t = 0\n    for i in range(n): t += i\n"
                       "    while n > 0: n -= 1\n    return t\n", [(0,), (5,)]),
    "recursion": ("def f(n):\n    return 1 if n < 2 else n * f(n - 1)\n", [(1,), (8,)]),
    "raised_mid_line": (BOOM + "def f(x):\n    v = boom(x) + boom(x + 1)\n    return v\n",
                        [(0,), (-1,), (2,)]),
    "try_finally": (BOOM + "def f(x):\n    try:\n        y = boom(x) + 1\n"
                    "    except ZeroDivisionError:\n        y = 0\n    finally:\n        y += 1\n"
                    "    return y\n", [(0,), (2,)]),
    "reraise": (BOOM + "def inner(x):\n    try:\n        return boom(x)\n"
                "    except ZeroDivisionError:\n        raise\n"
                "def f(x):\n    try:\n        return inner(x)\n    except ZeroDivisionError:\n"
                "        return 'caught'\n", [(0,), (1,)]),
    "one_line_statements": ("def f(x):\n    a = [1, 2]; b = a[x]; return b\n", [(1,), (5,)]),
    "nested": ("def f(n):\n    def inner(k):\n        return k * 2\n"
               "    return [inner(i) for i in range(n) if i % 2] + list(i for i in range(n))\n",
               [(0,), (5,)]),
    "comprehensions": ("def f(n):\n    return ({i: i * i for i in range(n)},"
                       " {i for i in range(n)}, sorted(range(n), key=lambda v: -v),"
                       " [x if x > 1 else -x for x in range(n)])\n", [(4,), (0,)]),
    "generator": (GEN + "def f(n):\n    return sum(gen(n))\n", [(0,), (4,)]),
    "generator_throw": (GEN + "def f(n):\n    g = gen(n)\n    next(g)\n    try:\n"
                        "        g.throw(ValueError)\n    except ValueError:\n        return 1\n",
                        [(3,)]),
    "coroutine": ("async def co(x):\n    return x\ndef f(x):\n    c = co(x)\n    try:\n"
                  "        c.send(None)\n    except StopIteration as e:\n        return e.value\n",
                  [(2,)]),
    "with": ("import contextlib\ndef f(n):\n    with contextlib.suppress(KeyError):\n"
             "        d = {}\n        return d[n]\n    return -1\n", [(1,)]),
    "match": ("def f(v):\n    match v:\n        case [a, b]:\n            return a + b\n"
              "        case {'k': k}:\n            return k\n        case int() if v > 3:\n"
              "            return v\n        case _:\n            return None\n",
              [([1, 2],), ({"k": 3},), (5,), ("x",)]),
    "assert": ("def f(x):\n    assert x > 0, 'negative'\n    return x\n", [(1,), (-1,)]),
    "early_return": ("def f(xs):\n    for x in xs:\n        if x < 0: return x\n    return None\n",
                     [([1, -2, 3],), ([1],)]),
    "chained_compare": ("def f(a, b, c):\n    return a < b < c\n", [(1, 2, 3), (3, 2, 1)]),
    "extended_arg": (WIDE, [(1,), ("s",)]),
    "long_skip": (LONG_BODY, [([],), ([1, 2],)]),
    "loops_break_continue": ("def f(xs):\n    out = 0\n    for x in xs:\n"
                             "        for y in xs:\n            if y > x: break\n"
                             "            if y == x:\n                continue\n"
                             "            out += y\n        else:\n            out -= 1\n"
                             "    while True:\n        out += 1\n        if out > 3: break\n"
                             "    return out\n", [([],), ([3, 1, 2],), ([1, 1, 0, 5],)]),
    "try_in_loop": ("def f(xs):\n    bad = 0\n    for x in xs:\n        try:\n"
                    "            bad += 10 // x\n        except ZeroDivisionError:\n"
                    "            bad -= 1\n            continue\n        bad += 1\n"
                    "    return bad\n", [([1, 0, 2, 0],), ([],)]),
    "walrus_and_any": ("def f(xs):\n    if (n := len(xs)) > 2 and any(x < 0 for x in xs):\n"
                       "        return n\n    return [y for x in xs if (y := x * 2) > 2]\n",
                       [([1, 2, -3],), ([1, 2, 3],)]),
    "iterator_class": ("class It:\n    def __init__(self, n):\n        self.n = n\n"
                       "    def __iter__(self):\n        return self\n    def __next__(self):\n"
                       "        if self.n <= 0:\n            raise StopIteration\n"
                       "        self.n -= 1\n        return self.n\n"
                       "def f(n):\n    t = 0\n    for v in It(n):\n        t += v\n    return t\n",
                       [(0,), (5,)]),
}


def _both(codes: list[str], tests: list[Case], entry: str, level: str
          ) -> tuple[list[CandidateResult], list[CandidateResult]]:
    kwargs: dict[str, Any] = {"jobs": 2, "sandbox": level}
    runs = run_candidates(codes, tests, entry, trace_mode="settrace", **kwargs)
    events = run_candidates(codes, tests, entry, trace_mode="settrace-opcodes", **kwargs)
    return runs, events


def _differences(runs: list[CandidateResult], events: list[CandidateResult]) -> list[str]:
    """Tests whose histograms differ. A version that ran out of time or fuel in one mode
    only (counting per opcode costs more) is left out: its counts stop at the limit."""
    out = []
    for i, (a, b) in enumerate(zip(runs, events, strict=True)):
        if "timeout" in (a.status, b.status):
            continue
        assert a.status == b.status, (a.detail, b.detail)
        for ta, tb in zip(a.tests, b.tests, strict=True):
            if ta.opcodes != tb.opcodes:
                out.append(f"version {i} test {ta.name}: {ta.opcodes} != {tb.opcodes}")
    return out


@pytest.mark.parametrize("level", LEVELS)
def test_runs_count_the_hand_written_versions_exactly(level: str) -> None:
    for name, (code, args) in VERSIONS.items():
        tests = [Case("call", args=a) for a in args]
        runs, events = _both([code], tests, "f", level)
        assert runs[0].status == "ok", (name, runs[0].detail)
        assert all(t.opcode_total > 0 for t in runs[0].tests), name
        assert _differences(runs, events) == [], name


def _table(source: str) -> tuple[RunTable, dict[int, int], bytes]:
    """The run table of ``f`` in ``source``, its first offset per line, its bytes."""
    code = compile(source, "<t>", "exec")
    co = next(c for c in code.co_consts if isinstance(c, CodeType) and c.co_name == "f")
    firsts: dict[int, int] = {}
    for start, _end, line in co.co_lines():
        if line is not None:
            firsts.setdefault(line, start)
    return RunTable(co), firsts, co.co_code


def test_a_one_line_function_is_one_run() -> None:
    table, _, _ = _table("def f(x): return x\n")
    # RESUME (0) is never counted; the line event after it starts the run.
    assert table.run(2) == [2, 4] and table.links[4] == END
    assert not table.counted[0]


def test_a_whole_loop_is_counted_in_runs() -> None:
    """Every line of the loop starts a run; the header's FOR_ITER assumes another turn
    (leaving, it corrects at the exit), the closing jump has no line (a connector, added
    at the header's line event)."""
    table, firsts, raw = _table(LOOP)
    assert all(table.straight[offset] for offset in firsts.values() if offset)
    assert len(table.run(firsts[6])) == 7  # total += i * 2, through the JUMP_FORWARD
    for_iter = raw.index(bytes([opcode.opmap["FOR_ITER"]]), firsts[4])
    assert table.run(for_iter) == [for_iter, for_iter + 2]  # FOR_ITER, STORE_FAST i
    assert table.fixes[firsts[11]] == (-(for_iter + 2),)  # the exit: no STORE_FAST
    closing = raw.index(bytes([opcode.opmap["JUMP_BACKWARD"]]))
    assert table.fixes[for_iter] == (closing,) == table.raised[closing]


def test_a_loop_left_by_break_and_by_exhaustion_is_counted_per_opcode_at_its_header() -> None:
    """Two ways out of a loop with different corrections: the header's run is dropped."""
    table, firsts, raw = _table("def f(xs):\n    for x in xs:\n        if x:\n            break\n"
                                "    return 1\n")
    for_iter = raw.index(bytes([opcode.opmap["FOR_ITER"]]))
    assert table.links[for_iter] == NO_RUN
    assert table.straight[firsts[3]] and table.straight[firsts[5]]


def test_a_jump_to_itself_is_counted_per_opcode() -> None:
    """``while True: pass`` is one JUMP_BACKWARD to itself: no line event fires on it, so
    it starts no run (a run from it would never end) and its turns are opcode events."""
    table, firsts, raw = _table("def f(n):\n    if n:\n        while True: pass\n"
                                "    return n\n")
    spin = raw.index(bytes([opcode.opmap["JUMP_BACKWARD"]]))
    assert spin == firsts[3] and table.links[spin] == NO_RUN
    assert table.run(spin) == [spin]


def test_a_hung_test_in_a_loop_on_itself_is_stopped_as_a_timeout() -> None:
    """The per-test limit ends the spinning test; the next tests run and are counted."""
    from codequorum.behaviour.sandbox.limits import Limits
    from codequorum.behaviour.sandbox.supervisor import run_candidate

    code = "def f(n):\n    if n == 2:\n        while True: pass\n    return n\n"
    tests = [Case("call", args=(n,), name=f"f({n})") for n in (1, 2, 3)]
    result = run_candidate(code, tests, "f", Limits(wall_seconds=30.0, test_seconds=0.5))
    assert [t.exc_type for t in result.tests] == [None, "Timeout", None]
    assert result.tests[2].opcodes == result.tests[0].opcodes


def test_a_comprehension_is_one_run_per_item_and_its_end_a_tail() -> None:
    """FOR_ITER and RETURN_VALUE share the comprehension's line: no event either way out,
    but leaving ends the frame, whose 'return' event corrects the assumed turn."""
    code = compile("def f(xs):\n    return [x * 2 for x in xs]\n", "<t>", "exec")
    f = next(c for c in code.co_consts if isinstance(c, CodeType))
    comp = next(c for c in f.co_consts if isinstance(c, CodeType))
    table, raw = RunTable(comp), comp.co_code
    for_iter = raw.index(bytes([opcode.opmap["FOR_ITER"]]))
    ret = len(raw) - 2
    assert table.straight[for_iter] and raw[ret] == opcode.opmap["RETURN_VALUE"]
    assert table.returns[ret] == (*(-o for o in table.run(for_iter)[1:]), ret)


@pytest.mark.parametrize(("terms", "run"), [(10, True), (MAX_FIX, False)])
def test_a_branch_skipping_too_much_has_no_run(terms: int, run: bool) -> None:
    """Leaving ``[x + 1 + ... for x in xs]`` skips the body, a correction applied per
    event and so kept short: beyond MAX_FIX opcodes the loop is counted per opcode."""
    source = "def f(xs):\n    return [x" + " + 1" * terms + " for x in xs]\n"
    f = next(c for c in compile(source, "<t>", "exec").co_consts if isinstance(c, CodeType))
    comp = next(c for c in f.co_consts if isinstance(c, CodeType))
    table = RunTable(comp)
    for_iter = comp.co_code.index(bytes([opcode.opmap["FOR_ITER"]]))
    assert bool(table.straight[for_iter]) is run
    assert (len(comp.co_code) - 2 in table.returns) is run
