"""The portable level's CPU budget: CPU time as in the strict sandbox, fuel a backstop, and
one rule for which limit ended a guest."""

from __future__ import annotations

import time

import pytest

from codequorum.behaviour.sandbox.limits import Limits
from codequorum.behaviour.sandbox.portable import budget, channel
from codequorum.behaviour.sandbox.supervisor import run_candidate
from codequorum.core.model import TestCase as Case


@pytest.mark.parametrize(("host_stop", "elapsed", "cpu_used", "fuel_out", "why"), [
    # a test past its wall budget is its own Timeout, whatever else ran out in that tick
    ("test", 2.01, 0.5, False, budget.TEST),
    (None, 2.0, 7.2, False, budget.TEST),
    (None, 2.3, 7.0, True, budget.TEST),
    # else the version's CPU budget ends the run, then the backstop
    (None, 1.5, 7.0, False, budget.CPU),
    (None, None, 7.5, False, budget.CPU),
    (None, 1.0, 3.0, True, budget.FUEL),
    # a trap of the guest's own
    (None, 1.0, 3.0, False, budget.TRAP),
    (None, None, 0.1, False, budget.TRAP),
    # the host's own reasons stand
    ("output-limit", 2.5, 9.0, True, "output-limit"),
    ("killed", None, 0.0, False, "killed"),
    ("protocol", 0.1, 0.1, False, "protocol"),
])
def test_which_limit_ended_a_guest(host_stop: str | None, elapsed: float | None,
                                   cpu_used: float, fuel_out: bool, why: str) -> None:
    assert budget.ending(host_stop, elapsed, 2.0, cpu_used, 7.0, fuel_out) == why


def test_without_a_per_test_budget_only_cpu_and_fuel_end_a_guest() -> None:
    assert budget.ending(None, 100.0, None, 1.0, 7.0, False) == budget.TRAP
    assert budget.ending(None, 100.0, None, 7.0, 7.0, False) == budget.CPU


def test_the_backstop_is_past_every_rate_a_cpu_second_runs() -> None:
    assert budget.backstop_fuel(7.0) == 7 * budget.BACKSTOP_FUEL_PER_SECOND
    assert budget.backstop_fuel(7.0) > 7 * 39_000_000_000  # the highest rate measured
    assert budget.backstop_fuel(0.0) == budget.backstop_fuel(-1.0) == 1


def test_the_meter_counts_this_threads_cpu_not_its_sleep() -> None:
    meter = budget.CpuMeter(0.05)
    assert (meter.read(), meter.spent()) == (0.0, False)  # not started
    meter.start()
    time.sleep(0.1)
    assert not meter.spent()
    deadline = time.monotonic() + 5.0
    while not meter.spent() and time.monotonic() < deadline:
        sum(range(10_000))
    assert meter.spent()
    assert meter.used >= 0.05


#: A test that overruns its 1 s budget doing big-int work (several times the fuel a second
#: of the interpreter's loop burns), then one that returns, with 2 s of CPU: with fuel as
#: the CPU budget (2e9 a second) the portable level ended the run in the first ("CPU limit
#: of 2s (fuel)") where the strict sandbox gives that test its Timeout and runs the next.
OVERRUN = ("def f(n):\n    x = 3\n    while n == 0:\n        x = 12345 ** 20000\n"
           "    return n\n")


@pytest.mark.parametrize("level", ["strict", "portable", "portable-process"])
def test_a_test_that_overruns_doing_big_int_work_gets_the_strict_sandboxs_status(
        level: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if level == "portable-process":
        monkeypatch.setenv(channel.FORCE, channel.PROCESS)
        level = "portable"
    tests = [Case("call", args=(0,)), Case("call", args=(5,), expected=5, has_expected=True)]
    result = run_candidate(OVERRUN, tests, "f",
                           Limits(test_seconds=1.0, cpu_seconds=2.0, wall_seconds=30.0),
                           sandbox=level)
    assert (result.status, result.detail) == ("timeout", "per-test limit of 1s on 1 of 2 tests")
    assert [(t.exc_type, t.passed) for t in result.tests] == [("Timeout", None), (None, True)]
