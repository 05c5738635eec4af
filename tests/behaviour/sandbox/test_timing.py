"""Growth from CPU time per call, in the real sandbox: functions of known complexity get
their class, work done in C included (opcode counts would call ``len(set(xs))`` constant).

Each size's cost is the least of repeated batches of CPU time, so these hold on a busy
machine; nothing here asserts a duration, only the growth class.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from codequorum.behaviour.dynamic_analysis import DynamicOptions, run_dynamic
from codequorum.behaviour.sandbox.supervisor import run_candidate
from codequorum.behaviour.sandbox.timing import MIN_ROUNDS, round_robin, settled
from codequorum.core.model import TestCase as Case
from codequorum.core.model import VersionSet
from codequorum.judge.dynamic_rules import dynamic_verdicts, growth_text
from codequorum.metrics.growth import COST_FLOOR_NS, judged_class

#: (body of ``f(xs: list[int])``, the growth class it must get)
OF_A_LIST = [
    ("return xs[0] if xs else None", "constant"),
    ("return len(set(xs)) <= 1", "n"),  # the walk happens inside set(): C
    ("return all(a == a for a in xs)", "n"),
    ("return sum(xs)", "n"),
    ("return xs.count(7)", "n"),
    ("return sorted(xs)", "n"),  # n log n: a slope of about 1.2 here
    ("return sum(1 for a in xs for b in xs if a < b)", "n²"),
]
#: (body of ``g(n: int)``, its growth class)
OF_AN_INT = [
    ("return n * (n - 1) // 2", "constant"),
    ("return sum(range(n))", "n"),
    ("return sum(i ^ j for i in range(n) for j in range(n))", "n²"),
]
#: No opcode tracing (growth does not need it) and room for the quadratic versions.
OPTIONS = DynamicOptions(jobs=2, use_hypothesis=False, trace=False, timeout_seconds=20.0,
                         test_timeout_seconds=10.0)


def _classes(header: str, bodies: list[tuple[str, str]],
             options: DynamicOptions = OPTIONS) -> list[str]:
    codes = [f"{header}\n    {body}\n" for body, _ in bodies]
    report = run_dynamic(VersionSet.from_codes("growth", codes, entry_point=header[4:5]),
                         options)
    assert report.inputs_source == ["scaling"]
    assert all(c.status == "ok" for c in report.candidates), report.candidates
    assert all([n for n, _ in c.growth_points] == [8, 64, 512] for c in report.candidates)
    return [growth_text(c.growth) if c.growth is not None else "?" for c in report.candidates]


def _measured_as(header: str, bodies: list[tuple[str, str]], tries: int = 3) -> list[str]:
    """The classes measured, again up to ``tries`` times while one differs from what is
    expected: CPU time is a measurement, and a machine busy with other work can read one
    size's time off by enough to move a class once (a class that is wrong reads so every
    time)."""
    expected = [k for _, k in bodies]
    for _ in range(tries):
        found = _classes(header, bodies)
        if found == expected:
            break
    return found


def test_functions_of_a_list_get_their_growth_class() -> None:
    assert _measured_as("def f(xs: list[int]):", OF_A_LIST) == [k for _, k in OF_A_LIST]


def test_functions_of_a_size_get_their_growth_class() -> None:
    assert _measured_as("def g(n: int):", OF_AN_INT) == [k for _, k in OF_AN_INT]


def test_work_in_c_is_no_longer_hidden_from_the_verdict() -> None:
    # how many distinct values: in C, in Python, and quadratic
    versions = [
        "def distinct(xs: list[int]) -> int:\n    return len(set(xs))\n",
        "def distinct(xs: list[int]) -> int:\n    return len({x: None for x in xs})\n",
        "def distinct(xs: list[int]) -> int:\n"
        "    return sum(1 for i, x in enumerate(xs)\n"
        "               if sum(1 for j, y in enumerate(xs) if j < i and y == x) == 0)\n",
    ]
    wanted = "version 3 grows about n², the others about n (CPU time per call, n=8 to 512)"
    for _ in range(3):  # a measurement: read again while a busy machine moved a class
        report = run_dynamic(VersionSet.from_codes("distinct", versions,
                                                   entry_point="distinct"), OPTIONS)
        [verdict] = [v for v in dynamic_verdicts(report) if v.code == "complexity-outlier"]
        if verdict.message == wanted:
            break
    assert verdict.versions == (2,)
    assert verdict.message == wanted
    assert verdict.detail["measure"] == "CPU time per call"


def _cpu_costs_on_lists(code: str, lengths: tuple[int, ...]) -> list[int]:
    """The CPU ns per call ``f(xs)`` of ``code`` takes on lists of ``lengths`` (a scaling
    series in the real sandbox, untraced), every one measured."""
    sizes = [Case("call", args=([1] * n,)) for n in lengths]
    result = run_candidate(code, sizes, "f", trace=False, series=["scaling"] * len(sizes))
    assert result.status == "ok", result.detail
    costs = [t.cpu_ns for t in result.tests]
    assert all(c is not None for c in costs), costs
    return [c for c in costs if c is not None]


def test_a_lookups_cost_is_its_own_not_the_calls() -> None:
    # the empty call taken off is wrapped as a test's call is: the wrapper's fixed cost per
    # call (hundreds of ns), left in, would flatten every slope
    lookup = "def f(xs):\n    return xs[0] if xs else None\n"
    costs = _cpu_costs_on_lists(lookup, (8, 64, 512))
    # CPU time: a busy machine can lift one size, never all three
    assert min(costs) < COST_FLOOR_NS, costs


def test_fuel_gives_the_same_classes_in_the_portable_sandbox() -> None:
    # instructions, not time: exact, so one run; the empty call taken off there is a bare
    # one (the meter's own marks cost more than the wrapper, and vary by more)
    portable = dataclasses.replace(OPTIONS, sandbox="portable")
    for header, bodies in (("def f(xs: list[int]):", OF_A_LIST), ("def g(n: int):", OF_AN_INT)):
        assert _classes(header, bodies, portable) == [k for _, k in bodies]


def test_each_call_is_timed_on_arguments_of_its_own() -> None:
    # it empties its list: timed again on the emptied list it would look constant
    drains = "def f(xs):\n    while xs:\n        xs.pop()\n    return 0\n"
    # sizes ten apart, so the call's fixed cost and a busy machine's noise stay small beside
    # the growth: timed on its own list each cost grows near tenfold, on the emptied one ~1
    costs = _cpu_costs_on_lists(drains, (500, 5_000, 50_000))
    assert all(c > 0 for c in costs)
    assert costs[2] > 3 * costs[1] > 9 * costs[0]


def test_only_a_series_is_timed_and_a_raising_repeat_drops_the_timing() -> None:
    once = ("calls = []\n"
            "def f(n):\n    calls.append(n)\n"
            "    if len(calls) > 2:\n        raise ValueError('again')\n    return n\n")
    result = run_candidate(once, [Case("call", args=(3,)), Case("call", args=(5,))], "f",
                           trace=False, series=[None, "scaling"])
    assert [(t.output, t.exc_type, t.cpu_ns) for t in result.tests] == [
        ("3", None, None),
        ("5", None, None),  # the traced call stands; its repeats raised, so no cost
    ]


def test_what_repeated_calls_print_is_dropped() -> None:
    # 100 kB a call: counted against the 1 MB output budget, the repeats would break it
    code = "def f(xs):\n    print('x' * 100_000)\n    return len(xs)\n"
    result = run_candidate(code, [Case("call", args=([1, 2],))], "f", trace=False,
                           series=["scaling"])
    assert result.status == "ok", result.detail
    [test] = result.tests
    assert (test.output, test.exc_type) == ("2", None)
    assert test.cpu_ns is not None and test.cpu_ns > 0


# --- the round-robin timing, on synthetic batch times (no clock) --------------------

def _least(measure: Callable[[int], float | None], n: int) -> list[float]:
    """:func:`round_robin` with no deadline, every input timed."""
    least = round_robin(measure, n, lambda: False)
    assert all(v is not None for v in least)
    return [v for v in least if v is not None]


def _synthetic(true: list[float], load: Callable[[int], float]) -> tuple[
        Callable[[int], float | None], list[int]]:
    """``measure(i)``: the true per-call time of input ``i`` slowed by ``load(t)``, ``t``
    the batch's place in time (batches of all inputs counted together); and how many
    batches each input got."""
    seen = [0] * len(true)

    def measure(i: int) -> float:
        factor = load(sum(seen))
        seen[i] += 1
        return true[i] * factor

    return measure, seen


SIZES = [8, 64, 512]
QUADRATIC = [3000.0, 100_000.0, 6_200_000.0]


def test_two_agreeing_minima_settle_an_input() -> None:
    assert settled([100.0, 104.0, 300.0])
    assert not settled([100.0, 150.0, 300.0])
    assert not settled([100.0])


def test_a_burst_while_one_size_is_timed_does_not_change_its_least_time() -> None:
    # a burst dying down over the 512 batches of the first 5 rounds (no two of them agree)
    burst = {2: 3.0, 5: 2.5, 8: 2.0, 11: 1.5, 14: 1.3}
    measure, seen = _synthetic(QUADRATIC, lambda t: burst.get(t, 1.0))
    least = _least(measure, 3)
    assert least == QUADRATIC
    assert seen == [MIN_ROUNDS, MIN_ROUNDS, 7]  # 512 went on until two of its batches agreed
    assert judged_class(SIZES, least) == 2


def test_load_that_lasts_slows_every_size_alike_and_keeps_the_class() -> None:
    # a busy neighbour for the first ten batches, then half as busy
    measure, _seen = _synthetic(QUADRATIC, lambda t: 2.0 if t < 10 else 1.5)
    least = _least(measure, 3)
    assert least == [1.5 * v for v in QUADRATIC] or least == [2.0 * v for v in QUADRATIC]
    assert judged_class(SIZES, least) == 2
    linear = [600.0, 1600.0, 15_400.0]  # a sort, about n log n
    measure, _seen = _synthetic(linear, lambda t: 3.0 if t % 4 == 0 else 1.2)
    assert judged_class(SIZES, _least(measure, 3)) == 1


def test_inputs_are_timed_in_turns_and_a_raising_one_is_dropped() -> None:
    order: list[int] = []

    def measure(i: int) -> float | None:
        order.append(i)
        return None if i == 1 else 10.0

    assert round_robin(measure, 3, lambda: False) == [10.0, None, 10.0]
    assert order[:3] == [0, 1, 2] and order[3:] == [0, 2] * (MIN_ROUNDS - 1)


def test_out_of_time_stops_after_the_first_round() -> None:
    measure, seen = _synthetic([5.0, 9.0], lambda t: 1.0)
    assert round_robin(measure, 2, lambda: True) == [5.0, 9.0]
    assert seen == [1, 1]
