"""The per-test time limit, check harnesses in the module's namespace, no sandbox folder left."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from codequorum.behaviour.sandbox.limits import Limits
from codequorum.behaviour.sandbox.supervisor import (
    run_candidate,
    run_candidates,
)
from codequorum.core.model import TestCase as Case

HANGS_ON_TWO = (
    "import os, time\ndef f(n):\n    if n == 2:\n        {hang}\n    return [n * n, os.getpid()]\n"
)
FOUR = [Case("call", args=(n,), name=f"f({n})") for n in (1, 2, 3, 4)]


@pytest.mark.parametrize("hang", ["while True: pass", "time.sleep(60)"])
@pytest.mark.parametrize("python", ["default", "3.12"])
def test_a_test_that_hangs_times_out_and_the_child_goes_on(
    hang: str, python: str, request: pytest.FixtureRequest
) -> None:
    interpreter = request.getfixturevalue("python312") if python == "3.12" else None
    code = HANGS_ON_TWO.format(hang=hang)
    limits = Limits(wall_seconds=30.0, cpu_seconds=30.0, test_seconds=0.5)
    result = run_candidate(code, FOUR, "f", limits, interpreter=interpreter)
    assert [t.exc_type for t in result.tests] == [None, "Timeout", None, None]
    assert result.tests[1].exc_message == "test ran longer than 0.5s"
    # the limit's clock starts before the test's streams and seed are set up, the test's
    # own seconds after: a busy machine can spend some hundredths of the 0.5 s there
    assert 0.4 <= result.tests[1].seconds < 5.0
    outputs = [eval(t.output or "None") for t in result.tests if t.output is not None]
    assert [o[0] for o in outputs] == [1, 9, 16]
    assert len({o[1] for o in outputs}) == 1  # inputs 1, 3 and 4 ran in one child
    assert result.status == "timeout"
    assert result.detail == "per-test limit of 0.5s on 1 of 4 tests"
    # the tests after the timeout are traced as usual
    assert result.tests[2].opcodes == result.tests[0].opcodes


def test_a_swallowed_timeout_is_still_a_timeout() -> None:
    code = (
        "import time\n"
        "def f(n):\n"
        "    if n == 1:\n"
        "        try:\n"
        "            time.sleep(60)\n"
        "        except BaseException:\n"
        "            return 'late'\n"
        "    return n\n"
    )
    tests = [Case("call", args=(n,), expected=n, has_expected=True) for n in (1, 2)]
    result = run_candidate(code, tests, "f", Limits(wall_seconds=30.0, test_seconds=0.5))
    assert [(t.passed, t.output, t.exc_type) for t in result.tests] == [
        (False, None, "Timeout"),
        (True, "2", None),
    ]


def test_the_per_test_limit_is_off_by_default() -> None:
    code = "import time\ndef f():\n    time.sleep(1.2)\n    return 1\n"
    result = run_candidate(code, [Case("call")], "f", Limits(wall_seconds=30.0))
    assert (result.status, result.tests[0].output) == ("ok", "1")
    with pytest.raises(ValueError, match="test_seconds"):
        Limits(test_seconds=0.0)


DEFEATS = {
    # catches every Timeout in a loop and stops the clock
    "catches": (
        "import signal\n"
        "def f(n):\n"
        "    while True:\n"
        "        try:\n"
        "            while True:\n"
        "                pass\n"
        "        except BaseException:\n"
        "            signal.setitimer(signal.ITIMER_REAL, 0)\n"
    ),
    "blocks": (
        "import signal\n"
        "def f(n):\n"
        "    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\n"
        "    while True:\n"
        "        pass\n"
    ),
    "ignores": (
        "import signal\n"
        "def f(n):\n"
        "    signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
        "    while True:\n"
        "        pass\n"
    ),
}


def test_a_candidate_that_defeats_the_per_test_limit_meets_the_deadline() -> None:
    tests = [Case("call", args=(n,)) for n in (1, 2)]
    limits = Limits(wall_seconds=3.0, cpu_seconds=30.0, test_seconds=0.3)
    started = time.monotonic()
    results = run_candidates(list(DEFEATS.values()), tests, "f", limits, jobs=2)
    assert time.monotonic() - started < 20.0
    for name, result in zip(DEFEATS, results, strict=True):
        assert (result.status, result.detail) == ("timeout", "wall-clock limit of 3s"), name
        assert [t.exc_type for t in result.tests] == ["Timeout"], name  # test 2 never began


def test_a_series_stops_after_its_first_timeout() -> None:
    code = "import time\ndef f(n):\n    if n >= 2:\n        time.sleep(60)\n    return n\n"
    tests = [Case("call", args=(n,)) for n in (1, 2, 3, 4, 0)]
    series = ["scaling", "scaling", "scaling", "scaling", None]
    limits = Limits(wall_seconds=30.0, test_seconds=0.3)
    result = run_candidate(code, tests, "f", limits, series=series)
    assert [t.exc_type for t in result.tests] == [None, "Timeout", "Skipped", "Skipped", None]
    assert [t.output for t in result.tests] == ["1", None, None, None, "0"]
    assert result.detail == "per-test limit of 0.3s on 1 of 5 tests"
    with pytest.raises(ValueError, match="one entry per test"):
        run_candidate(code, tests, "f", limits, series=series[:2])


# ------------------------------------------------------------------ check harnesses


@pytest.mark.parametrize("task_id", ["HumanEval/32", "HumanEval/38"])
def test_humaneval_harness_uses_prompt_helpers(task_id: str) -> None:
    from codequorum.ingest import humaneval

    p = humaneval.problem(task_id)
    split = humaneval.tests_for(task_id)
    whole = humaneval.tests_for(task_id, split=False)
    checks = [t for t in split if t.kind == "check"]
    assert checks and all("__globals__" not in (t.source or "") for t in checks)
    helper = {"HumanEval/32": "poly(", "HumanEval/38": "encode_cyclic("}[task_id]
    assert all(helper in (t.source or "") for t in [*checks, *whole])
    # canonical solutions are reference code, yet they run in the sandbox like any other
    tests = [*split, *whole]
    good = run_candidate(p.prompt + p.canonical_solution, tests, p.entry_point)
    assert good.status == "ok", good.detail
    assert [(t.passed, t.exc_type) for t in good.tests] == [(True, None)] * len(tests)
    wrong = run_candidate(p.prompt + "    return 0\n", tests, p.entry_point)
    assert [t.passed for t in wrong.tests] == [False] * len(tests)
    assert {t.exc_type for t in wrong.tests} == {"AssertionError"}


def test_check_harness_runs_apart_from_the_version() -> None:
    """The harness runs in the grader: it sees its own names (the prompt's helpers come
    with its source) and the version only through calls, never the version's module."""
    code = "LIMIT = 3\ndef helper():\n    return 1\ndef f():\n    return helper() + LIMIT\n"
    check = (
        "def helper():\n"
        "    return 2\n"
        "def check(candidate):\n"
        "    assert helper() == 2\n"
        "    assert candidate() == 4, candidate()\n"
        "    assert f() == 4\n"
        "    assert 'LIMIT' not in globals()\n"
    )
    result = run_candidate(code, [Case("check", source=check), Case("call")], "f")
    assert [(t.passed, t.exc_type, t.output) for t in result.tests] == [
        (True, None, None),
        (None, None, "4"),
    ]


# ------------------------------------------------------------------ sandbox folders


def test_runs_leave_no_sandbox_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    codes = ["def f():\n    return 1\n", "def f():\n    open('x', 'w').write('y')\n"]
    results = run_candidates(codes, [Case("call")], "f", start_method="exec", jobs=2)
    assert [r.status for r in results] == ["ok", "ok"]
    assert list(tmp_path.iterdir()) == []


def test_after_a_test_overruns_the_later_ones_get_half_its_budget_and_cheap_ones_still_run(
) -> None:
    """Six inputs that hang, then three cheap ones: at a fixed 0.5 s each the hangs would
    take 3 s of a 2.6 s run and the cheap inputs would never run; halved after each, down
    to 0.25 s (0.5, 0.25, ...: 1.75 s), they leave room for them."""
    code = "import time\ndef f(n):\n    if n < 0:\n        time.sleep(60)\n    return n * n\n"
    tests = [Case("call", args=(n,), name=f"f({n})") for n in (-1, -2, -3, -4, -5, -6, 1, 2, 3)]
    limits = Limits(wall_seconds=2.6, cpu_seconds=2.6, test_seconds=0.5)
    result = run_candidate(code, tests, "f", limits)
    assert [t.exc_type for t in result.tests] == ["Timeout"] * 6 + [None] * 3
    assert [t.exc_message for t in result.tests[:3]] == [
        "test ran longer than 0.5s", "test ran longer than 0.25s", "test ran longer than 0.25s"]
    assert [t.output for t in result.tests[6:]] == ["1", "4", "9"]
