"""Growth from CPU time per call, in the real sandbox: functions of known complexity get
their class, work done in C included (opcode counts would call ``len(set(xs))`` constant).

Each size's cost is the least of repeated batches of CPU time, so these hold on a busy
machine; nothing here asserts a duration, only the growth class.
"""

from __future__ import annotations

from codequorum.behaviour.run import DynamicOptions, run_dynamic
from codequorum.behaviour.sandbox import run_candidate
from codequorum.core.model import SampleSet
from codequorum.core.model import TestCase as Case
from codequorum.judge.dynamic import dynamic_verdicts, growth_text

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


def _classes(header: str, bodies: list[tuple[str, str]]) -> list[str]:
    codes = [f"{header}\n    {body}\n" for body, _ in bodies]
    report = run_dynamic(SampleSet.from_codes("growth", codes, entry_point=header[4:5]),
                         OPTIONS)
    assert report.inputs_source == ["scaling"]
    assert all(c.status == "ok" for c in report.candidates), report.candidates
    assert all([n for n, _ in c.growth_points] == [8, 64, 512] for c in report.candidates)
    return [growth_text(c.growth) if c.growth is not None else "?" for c in report.candidates]


def test_functions_of_a_list_get_their_growth_class() -> None:
    assert _classes("def f(xs: list[int]):", OF_A_LIST) == [k for _, k in OF_A_LIST]


def test_functions_of_a_size_get_their_growth_class() -> None:
    assert _classes("def g(n: int):", OF_AN_INT) == [k for _, k in OF_AN_INT]


def test_work_in_c_is_no_longer_hidden_from_the_verdict() -> None:
    # how many distinct values: in C, in Python, and quadratic
    versions = [
        "def distinct(xs: list[int]) -> int:\n    return len(set(xs))\n",
        "def distinct(xs: list[int]) -> int:\n    return len({x: None for x in xs})\n",
        "def distinct(xs: list[int]) -> int:\n"
        "    return sum(1 for i, x in enumerate(xs)\n"
        "               if sum(1 for j, y in enumerate(xs) if j < i and y == x) == 0)\n",
    ]
    report = run_dynamic(SampleSet.from_codes("distinct", versions, entry_point="distinct"),
                         OPTIONS)
    [verdict] = [v for v in dynamic_verdicts(report) if v.code == "complexity-outlier"]
    assert verdict.versions == (2,)
    assert verdict.message == ("version 3 grows about n², the others about n "
                               "(CPU time per call, n=8 to 512)")
    assert verdict.detail["measure"] == "CPU time per call"


def test_each_call_is_timed_on_arguments_of_its_own() -> None:
    # it empties its list: timed again on the emptied list it would look constant
    drains = "def f(xs):\n    while xs:\n        xs.pop()\n    return 0\n"
    sizes = [Case("call", args=([1] * n,)) for n in (64, 512, 4096)]
    result = run_candidate(drains, sizes, "f", trace=False, series=["scaling"] * 3)
    assert result.status == "ok", result.detail
    costs = [t.cpu_ns for t in result.tests]
    assert all(c is not None for c in costs)
    assert costs[2] > 4 * costs[1] > 16 * costs[0] > 0  # type: ignore[operator]


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
