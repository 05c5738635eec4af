"""A version's CPU budget in the portable sandbox, and which limit ended a guest.

Stdlib only: ``host.py`` loads this file by path. The strict child's CPU limit is CPU
*time* (``RLIMIT_CPU``), so the portable level's is too: the guest's own thread's CPU time
(``time.thread_time``, on every system), read at each epoch tick on the guest's thread
(:class:`CpuMeter`). Fuel is no clock: the WebAssembly instructions a CPU second runs
differ by workload more than tenfold (measured on one machine: 3.6e9 a second sorting
floats, 5e9 in a Python loop, 2.2e10 raising a big int to a power, 3.9e10 concatenating
strings), so a fuel budget made of seconds stopped a version sooner or later than the
strict sandbox would, whatever the rate. Fuel stays what is deterministic: the cost of a
call (``TestOutcome.fuel``), and a backstop far past any rate (:func:`backstop_fuel`) that
bounds the work should the clock not be read.
"""

from __future__ import annotations

import time

#: Fuel per second of CPU budget for the backstop: past the highest rate measured (3.9e10).
BACKSTOP_FUEL_PER_SECOND = 100_000_000_000
#: Fuel for a guest's own start (the interpreter and the harness: about 1.5e8), not counted
#: against the version's budget.
STARTUP_FUEL = 2_000_000_000
#: How often the guests' clocks are read (an epoch tick).
TICK_SECONDS = 0.02

#: How a guest's instance ended (:func:`ending`).
TEST, CPU, FUEL, TRAP = "test", "cpu", "fuel", "trap"


def backstop_fuel(cpu_seconds: float) -> int:
    """The fuel of a version with ``cpu_seconds`` of CPU left: never the limit that ends it
    (its CPU time is), only a bound on its work."""
    return max(1, int(max(0.0, cpu_seconds) * BACKSTOP_FUEL_PER_SECOND))


def ending(host_stop: str | None, test_elapsed: float | None, test_seconds: float | None,
           cpu_used: float, cpu_budget: float, fuel_out: bool) -> str:
    """Which limit ended a guest's instance, as the strict child's would have said it.

    ``host_stop``: why the host stopped it (``test``, ``output-limit``, ``protocol``,
    ``killed``; None: it did not); ``test_elapsed``: the wall seconds of the test running
    then (None: none was); ``cpu_used`` of ``cpu_budget``: the instance's CPU seconds;
    ``fuel_out``: its backstop fuel ran out. A test past its wall budget is that test's
    ``Timeout`` (``test``: the tests left go on), whatever else ran out in the same tick,
    since the strict child's per-test timer fires at that budget exactly; else a spent
    CPU budget ends the run (``cpu``: status ``timeout``, ``CPU limit``), then the
    backstop (``fuel``); anything else is a trap of the guest's own (``trap``).
    """
    if host_stop is not None and host_stop != TEST:
        return host_stop
    if test_elapsed is not None and test_seconds is not None and test_elapsed >= test_seconds:
        return TEST
    if cpu_used >= cpu_budget:
        return CPU
    if fuel_out:
        return FUEL
    return TEST if host_stop == TEST else TRAP


class CpuMeter:
    """One guest's CPU seconds against its budget, read on the guest's own thread (the
    thread that runs its WebAssembly): :meth:`start` there, then :meth:`spent` at each
    epoch tick and :meth:`read` at each write and at its end."""

    def __init__(self, budget: float) -> None:
        self.budget = budget
        self.origin: float | None = None
        self.used = 0.0

    def start(self) -> None:
        self.origin = time.thread_time()

    def read(self) -> float:
        """The CPU seconds this thread ran since :meth:`start` (kept in ``used``)."""
        if self.origin is not None:
            self.used = time.thread_time() - self.origin
        return self.used

    def spent(self) -> bool:
        """Whether the budget is used up."""
        return self.read() >= self.budget
