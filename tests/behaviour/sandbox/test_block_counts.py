"""Counters compiled into the versions' bytecode (``counters``, 3.11) count exactly what
one opcode event per instruction counts (``settrace-opcodes``).

Each version runs in both modes in the same sandbox level; every test's status, output
and opcode histogram must be identical. Beside the control flow of
``test_tracer_runs.VERSIONS``: blocks cut short by exceptions (caught in the frame, by
a builtin, propagating, ``sys.exit``), generators suspended and never resumed, closed or
thrown into through ``yield from``, ``except*``, async generators, huge functions whose
jumps need EXTENDED_ARG, and versions that look at their own code and frames.
"""

from __future__ import annotations

import itertools
import json
import sys
import traceback
from pathlib import Path
from types import CodeType
from typing import Any

import pytest

from codequorum.behaviour.sandbox import block_counts
from codequorum.behaviour.sandbox.limits import Limits
from codequorum.behaviour.sandbox.supervisor import CandidateResult, run_candidates
from codequorum.behaviour.sandbox.tracer import OpcodeTracer, default_mode
from codequorum.core.model import TestCase as Case
from codequorum.ingest import humaneval
from tests.behaviour.sandbox.test_tracer_runs import VERSIONS

pytestmark = pytest.mark.skipif(
    sys.version_info[:2] != (3, 11), reason="counters are compiled into 3.11 bytecode"
)
LEVELS = ["strict", "portable"]
HUGE = ("def f(x):\n    t = 0\n"
        + "".join(f"    if x > {i}:\n        t += {i} * x\n    else:\n        t -= {i + 1000}\n"
                  for i in range(400)) + "    return t\n")
#: name -> (version defining ``f``, the arguments of each test)
CASES: dict[str, tuple[str, list[tuple[Any, ...]]]] = {
    "caught_mid_block": ("def f(x):\n    out = []\n    for v in x:\n        try:\n"
                         "            out.append(10 // v); out.append(1)\n"
                         "        except ZeroDivisionError:\n            out.append(-1)\n"
                         "    return out\n", [([1, 0, 2],), ([],)]),
    "propagates_mid_block": ("def g(x):\n    y = [1][x]; z = y + 1\n    return z\n"
                             "def f(x):\n    a = g(x); b = a * 2\n    return b\n", [(0,), (5,)]),
    "swallowed_by_a_builtin": ("class A:\n    def __getattr__(self, n):\n"
                               "        v = {}[n]; w = 2\n        return v\n"
                               "def f(x):\n    return hasattr(A(), 'q')\n", [(1,)]),
    "exit": ("import sys\ndef f(x):\n    if x: sys.exit(3)\n    return 1\n", [(1,), (0,)]),
    "suspended_never_resumed": ("def gen(n):\n    for i in range(n):\n        yield i\n"
                                "        n += 1\ndef f(n):\n    g = gen(n)\n    next(g)\n"
                                "    return 1\n", [(3,)]),
    "suspended_kept_across_tests": ("G = []\ndef gen(n):\n    try:\n        yield n\n"
                                    "        yield n + 1\n    finally:\n        G.append(n)\n"
                                    "def f(n):\n    g = gen(n)\n    G.append(g)\n"
                                    "    return next(g)\n", [(3,), (4,)]),
    "closed_in_try": ("def gen():\n    try:\n        yield 1\n        yield 2\n"
                      "    except GeneratorExit:\n        pass\n"
                      "def f(x):\n    g = gen(); next(g); g.close()\n    return 1\n", [(1,)]),
    "yield_from_throw": ("def inner():\n    try:\n        yield 1\n    except KeyError:\n"
                         "        yield 5\ndef outer():\n    r = yield from inner()\n    return r\n"
                         "def f(x):\n    g = outer(); next(g)\n    return g.throw(KeyError)\n",
                         [(1,)]),
    "nested_comprehension": ("def f(n):\n    return [[i * j for j in range(i) if j % 2]"
                             " for i in range(n)]\n", [(5,)]),
    "lambda_key": ("f = lambda xs: sorted(xs, key=lambda v: (v % 3, -v))\n", [([5, 3, 1, 2],)]),
    "class_method": ("class A:\n    def __init__(self, k):\n        self.k = k\n"
                     "    def m(self, x):\n        return [self.k * v for v in range(x)]\n"
                     "    @classmethod\n    def make(cls, k):\n        return cls(k)\n"
                     "def f(x):\n    return A.make(2).m(x)\n", [(3,)]),
    "super": ("class B:\n    def m(self, x):\n        return x + 1\nclass C(B):\n"
              "    def m(self, x):\n        try:\n            return super().m(x) * 2\n"
              "        except TypeError:\n            return -1\n"
              "def f(x):\n    return C().m(x)\n", [(1,), ("s",)]),
    "recursion_reraising": ("def f(n):\n    if n <= 0:\n        raise ValueError('bottom')\n"
                            "    try:\n        return f(n - 1)\n    except ValueError:\n"
                            "        if n % 2: raise\n        return n\n", [(5,), (6,)]),
    "except_star": ("def f(x):\n    try:\n        raise ExceptionGroup('g', [ValueError(x),"
                    " TypeError(x)])\n    except* ValueError:\n        a = 1\n"
                    "    except* TypeError:\n        b = 2\n    return 0\n", [(1,)]),
    "async_generator": ("async def ag(n):\n    for i in range(n):\n        yield i\n"
                        "async def main(n):\n    return [v async for v in ag(n)]\n"
                        "def f(n):\n    c = main(n)\n    try:\n        c.send(None)\n"
                        "    except StopIteration as e:\n        return e.value\n", [(3,)]),
    "return_in_finally_loop": ("def f(xs):\n    t = 0\n    for x in xs:\n        try:\n"
                               "            if x == 2: continue\n            t += 10 // x\n"
                               "        except ZeroDivisionError:\n            break\n"
                               "        finally:\n            t += 1\n    return t\n",
                               [([1, 2, 0, 5],)]),
    "huge": (HUGE, [(3,), (500,)]),
    # specialised after 8 calls: a PRECALL making the call itself, a superinstruction
    "specialised_call_raising": ("def f(xs):\n    return [int(x) for x in xs]\n",
                                 [(["1"],)] * 10 + [(["-"],)]),
    "unbound_in_a_superinstruction": ("def f(x):\n    if x > 5:\n        r = 1\n    y = 2\n"
                                      "    return r\n", [(6,)] * 10 + [(1,)]),
    "many_constants": ("def f(x):\n    return [" + ", ".join(f"'{i}s' + x" for i in range(300))
                       + "]\n", [("a",)]),
    "looks_at_itself": ("import sys\ndef f(x):\n    fr = sys._getframe()\n    co = f.__code__\n"
                        "    return (co.co_name, co.co_varnames, co.co_argcount, co.co_flags,\n"
                        "            fr.f_code.co_name, fr.f_lineno, co.co_firstlineno,\n"
                        "            sys._getframe(0).f_lineno, fr.f_back is not None)\n",
                        [(1,)]),
    "traceback_text": ("import traceback\ndef g(x):\n    return [1][x]\ndef f(x):\n    try:\n"
                       "        g(x)\n    except IndexError:\n"
                       "        return traceback.format_exc()\n", [(3,)]),
    "delegating_generator": ("def inner():\n    yield 1\ndef outer():\n    yield from inner()\n"
                             "def f(x):\n    g = outer(); next(g)\n"
                             "    return g.gi_yieldfrom is not None, g.gi_frame.f_lineno\n",
                             [(1,)]),
}


def _both(codes: list[str], tests: list[Case], entry: str, level: str
          ) -> tuple[list[CandidateResult], list[CandidateResult]]:
    kwargs: dict[str, Any] = {"jobs": 2, "sandbox": level}
    counted = run_candidates(codes, tests, entry, trace_mode="counters", **kwargs)
    events = run_candidates(codes, tests, entry, trace_mode="settrace-opcodes", **kwargs)
    return counted, events


def _differences(counted: list[CandidateResult], events: list[CandidateResult]) -> list[str]:
    """Tests whose outcome or histogram differ. A version that ran out of time or fuel in
    one mode only (counting per opcode costs more) is left out; so is a test that the
    reference could not count (a RecursionError ends its trace function)."""
    out = []
    for i, (a, b) in enumerate(zip(counted, events, strict=True)):
        if "timeout" in (a.status, b.status):
            continue
        assert a.status == b.status, (a.detail, b.detail)
        for ta, tb in zip(a.tests, b.tests, strict=True):
            if (ta.output, ta.exc_type, ta.passed) != (tb.output, tb.exc_type, tb.passed):
                out.append(f"version {i} test {ta.name}: {ta.output} != {tb.output}")
            elif tb.opcodes is not None and ta.opcodes != tb.opcodes:
                out.append(f"version {i} test {ta.name}: {ta.opcodes} != {tb.opcodes}")
    return out


@pytest.mark.parametrize("level", LEVELS)
def test_counters_count_every_hand_written_version_exactly(level: str) -> None:
    for name, (code, args) in {**VERSIONS, **CASES}.items():
        tests = [Case("call", args=a) for a in args]
        counted, events = _both([code], tests, "f", level)
        assert counted[0].status == ("exit" if name == "exit" else "ok"), counted[0].detail
        assert all(t.opcode_total > 0 for t in counted[0].tests), name
        assert _differences(counted, events) == [], name


@pytest.mark.parametrize(("level", "samples", "every"), [("strict", 2, 1), ("portable", 1, 3)])
def test_counters_and_runs_count_the_humaneval_versions_exactly(
    level: str, samples: int, every: int, shared_dir: Path
) -> None:
    """Both fast modes (``counters``, and ``settrace``'s runs of opcodes) against one event
    per opcode, on every bundled HumanEval task (two versions each; every third task in the
    portable sandbox, whose each start costs more); the reference is run once for both."""
    data = shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl"
    compared = 0
    rows = list(map(json.loads, data.open()))[::every]
    for row in rows:
        tests = [t for t in humaneval.tests_for(row["task_id"]) if t.kind == "call"][:5]
        codes = [row["prompt"] + s for s in row["samples"][:samples]]
        counted, events = _both(codes, tests, row["entry_point"], level)
        runs = run_candidates(codes, tests, row["entry_point"], trace_mode="settrace",
                              jobs=2, sandbox=level)
        assert _differences(counted, events) == [], row["task_id"]
        assert _differences(runs, events) == [], row["task_id"]
        compared += sum(1 for r in events for t in r.tests if t.opcodes)
    assert compared > len(rows) * samples * 2  # most tests of most versions were compared


def test_counters_are_the_default_on_311() -> None:
    assert default_mode() == "counters"
    [result] = run_candidates(["def f(x):\n    return x\n"], [Case("call", args=(1,))], "f")
    assert result.tests[0].opcodes == {"LOAD_FAST": 1, "RETURN_VALUE": 1}


@pytest.mark.parametrize("level", LEVELS)
def test_a_test_spinning_in_a_loop_on_itself_is_stopped_as_a_timeout(level: str) -> None:
    """``while True: pass`` is one block, its counter advanced every turn: the per-test
    limit ends it and the next tests are counted as before."""
    code = "def f(n):\n    if n == 2:\n        while True: pass\n    return n\n"
    tests = [Case("call", args=(n,), name=f"f({n})") for n in (1, 2, 3)]
    [result] = run_candidates([code], tests, "f", Limits(wall_seconds=60.0, test_seconds=0.5),
                              sandbox=level, trace_mode="counters")
    assert [t.exc_type for t in result.tests] == [None, "Timeout", None]
    assert result.tests[2].opcodes == result.tests[0].opcodes


@pytest.mark.parametrize("level", LEVELS)
def test_a_version_that_tampers_with_its_counters_misstates_only_its_own(level: str) -> None:
    """The counters and fixers sit in the version's own code constants: it may advance
    them or corrupt what a fixer records, which misstates its own counts only; the harness
    reads them without failing and a neighbour's counts stay its own."""
    honest = "def f(n):\n    return n * n\n"
    tamper = ("import itertools\ndef f(n):\n    for c in f.__code__.co_consts:\n"
              "        if isinstance(c, itertools.repeat):\n"
              "            for _ in range(1000): next(c)\n"
              "        if callable(c) and getattr(c, '__closure__', None):\n"
              "            for cell in c.__closure__:\n"
              "                v = cell.cell_contents\n"
              "                if isinstance(v, dict): v['x'] = 'y'; v[2] = None\n"
              "    try:\n        1 / 0\n    except ZeroDivisionError:\n        pass\n"
              "    return n * n\n")
    tests = [Case("call", args=(n,), expected=n * n, has_expected=True) for n in (2, 3)]
    limits = Limits(wall_seconds=30.0)
    alone = run_candidates([honest], tests, "f", limits, sandbox=level, trace_mode="counters")
    beside = run_candidates([tamper, honest], tests, "f", limits, jobs=2, sandbox=level,
                            trace_mode="counters")
    assert [r.status for r in beside] == ["ok", "ok"], [r.detail for r in beside]
    assert all(t.passed for r in beside for t in r.tests)
    assert [t.opcodes for t in beside[1].tests] == [t.opcodes for t in alone[0].tests]
    assert all(t.opcode_total > 1000 for t in beside[0].tests)


def _function(source: str, name: str = "f") -> CodeType:
    module = compile(source, "<t>", "exec")
    return next(c for c in module.co_consts if isinstance(c, CodeType) and c.co_name == name)


def test_a_straight_function_is_one_block_of_its_opcodes_after_resume() -> None:
    code = _function("def f(x):\n    y = x + 1\n    return y\n")
    [rewrite] = block_counts.instrument(code)[1]
    offsets = [x.start for x in block_counts.decode(code.co_code)][1:]  # RESUME is not counted
    assert rewrite.blocks == [offsets]


def test_the_copy_sends_every_exception_to_a_handler_that_sees_it() -> None:
    """Every byte after the first RESUME is covered: the version's own handlers where it
    had them, the added one (which re-raises) elsewhere; a fixer's call by a stub that drops
    what the call raised (a RecursionError at the deepest frame) and goes on."""
    code = _function("def f(x):\n    try:\n        return 1 / x\n    except ZeroDivisionError:\n"
                     "        return 0\n")
    copy, _ = block_counts.instrument(code)
    entries = block_counts.exception_entries(copy)
    covered = sorted((s, e) for s, e, _t, _d, _l in entries)
    added = next(t for s, _e, t, _d, _l in entries if s == 2)  # before the try: the added
    assert covered[0][0] == 2 and covered[-1][0] == added  # ... whose fixer call is covered
    assert all(a[1] == b[0] for a, b in itertools.pairwise(covered))  # no gap
    assert len(entries) > len(block_counts.exception_entries(code))


def test_the_copy_raises_where_the_original_does() -> None:
    """Tracebacks read the original instructions' lines and columns."""
    source = "def f(x):\n    a = [1]\n    return a[0] + a[x]\n"
    module = compile(source, "<t>", "exec")
    texts: list[tuple[Any, ...]] = []
    for code in (module, block_counts.instrument(module)[0]):
        space: dict[str, Any] = {}
        exec(code, space)
        try:
            space["f"](3)
        except IndexError as exc:
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            texts.append((frame.lineno, frame.end_lineno, frame.colno, frame.end_colno))
    assert texts[0] == texts[1] == (3, 3, 18, 22)  # a[x]


def test_a_version_catching_its_own_recursion_error_gets_as_deep_as_uncounted() -> None:
    """The fixers' calls need a frame: at the deepest frame theirs fails, is dropped, and
    the version's handler runs where it would uncounted."""
    source = ("def f(n):\n    try:\n        return f(n + 1)\n    except RecursionError:\n"
              "        return n\n")
    depths = []
    for counted in (False, True):
        tracer = OpcodeTracer("counters")
        code = compile(source, "<t>", "exec")
        space: dict[str, Any] = {}
        exec(tracer.register(code) if counted else code, space)
        tracer.start()
        depths.append(space["f"](0))
        assert tracer.stop()
    assert depths[0] == depths[1] > 100


@pytest.mark.parametrize("name", ["huge", "many_constants", "caught_mid_block",
                                  "recursion_reraising", "yield_from_throw"])
def test_in_process_counts_equal_opcode_events(name: str) -> None:
    """Trusted code counted in this process both ways: the same histograms (a long jump's
    EXTENDED_ARG grows in the copy; the counts stay the original's)."""
    source, calls = CASES[name]
    module = compile(source, "<t>", "exec")
    found = []
    for mode in ("settrace-opcodes", "counters"):
        tracer = OpcodeTracer(mode)
        space: dict[str, Any] = {}
        exec(tracer.register(module), space)
        for args in calls:
            tracer.start()
            try:
                value: Any = space["f"](*args)
            except Exception as exc:  # the version's own exception is a value
                value = type(exc).__name__
            assert tracer.stop()
            found.append((value, tracer.take()))
    half = len(found) // 2
    assert found[:half] == found[half:]
    assert all(counts for _v, counts in found)


def test_a_counter_that_runs_out_loses_its_counts_not_the_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A counter counts ``sys.maxsize`` turns; past that its block runs on uncounted and
    the tracer says the counts broke (reported as none, never as wrong ones)."""
    monkeypatch.setattr(block_counts, "_TIMES", 3)
    tracer = OpcodeTracer("counters")
    space: dict[str, Any] = {}
    exec(tracer.register(compile(VERSIONS["loop"][0], "<t>", "exec")), space)
    tracer.start()
    value = space["f"](10)
    assert not tracer.stop()
    assert value == (30, 1)  # (0 + 3 + 6 + 9) * 2 - 6
