"""Opcode tracing: scope, both mechanisms, and the reference fixtures."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from codequorum.behaviour.sandbox.supervisor import CandidateResult, run_candidates
from codequorum.behaviour.sandbox.tracer import OpcodeTracer, code_objects, default_mode
from codequorum.core.model import TestCase as Case

NESTED = (
    "def helper(x):\n"
    "    return x + 1\n"
    "def f(n):\n"
    "    squares = [i * i for i in range(n)]\n"
    "    total = sum(v for v in squares)\n"
    "    key = sorted(squares, key=lambda v: -v)\n"
    "    return helper(total) + key[0]\n"
)


def _fixture_runs(
    reference_dir: Path, **kwargs: Any
) -> tuple[list[dict[str, Any]], list[CandidateResult]]:
    solutions = [
        json.loads(line) for line in (reference_dir / "dynamic" / "solutions.jsonl").open()
    ]
    by_problem: dict[str, list[int]] = {}
    for i, sol in enumerate(solutions):
        by_problem.setdefault(sol["problem_id"], []).append(i)
    results: list[CandidateResult | None] = [None] * len(solutions)
    for members in by_problem.values():
        tests = [
            Case("stdio", stdin=t["input"], expected=t["output"], has_expected=True)
            for t in solutions[members[0]]["private_tests"][:3]
        ]
        codes = [solutions[i]["generated_solution"] for i in members]
        for i, result in zip(
            members, run_candidates(codes, tests, None, jobs=2, **kwargs), strict=True
        ):
            results[i] = result
    return solutions, [r for r in results if r is not None]


def _reference_counts(reference_dir: Path, version: str) -> dict[tuple[str, int], Counter[str]]:
    path = reference_dir / "dynamic" / f"ref_py{version}" / "traces_pass.jsonl"
    out = {}
    for line in path.open():
        row = json.loads(line)
        out[(row["solution_id"], row["test_case_index"])] = Counter(row["opcodes"])
    return out


def _harness_vectors(
    solutions: list[dict[str, Any]],
    results: list[CandidateResult],
    reference: dict[tuple[str, int], Counter[str]],
    indices: tuple[int, ...],
) -> set[tuple[tuple[str, int], ...]]:
    """Reference minus ours, per test: what the reference's own harness executed."""
    vectors = set()
    for sol, result in zip(solutions, results, strict=True):
        for i in indices:
            diff = reference[(sol["solution_id"], i)].copy()
            diff.subtract(Counter(result.tests[i].opcodes))
            vectors.add(tuple(sorted((k, v) for k, v in diff.items() if v)))
    return vectors


def test_scope_is_the_candidates_own_code() -> None:
    (result,) = run_candidates(
        [NESTED], [Case("call", args=(4,), expected=24, has_expected=True)], "f"
    )
    (outcome,) = result.tests
    assert outcome.passed is True
    counts = outcome.opcodes or {}
    # The generator expression yields 4 times, the lambda runs 4 times inside sorted().
    assert counts["YIELD_VALUE"] == 4
    assert counts["RETURN_VALUE"] >= 1 + 4 + 1  # f, lambda x4, helper (plus the genexpr)
    assert "CACHE" not in counts
    assert outcome.opcode_total == sum(counts.values())


def test_fixtures_match_the_reference_up_to_its_harness(reference_dir: Path) -> None:
    """Ours = reference - a constant vector: the reference also counted its own harness.

    The published tracer counted every frame, so each of its traces includes the same
    550 opcodes of its harness (module exec, the adaptive solve() call, ...); we count
    only the candidate's code objects. The difference must therefore be one and the
    same per-opcode vector for every solution and every test.
    """
    if sys.version_info[:2] != (3, 11):
        pytest.skip("the default-interpreter comparison is against ref_py3.11.7")
    solutions, results = _fixture_runs(reference_dir)
    assert all(r.status == "ok" for r in results)
    assert all(t.passed for r in results for t in r.tests)
    vectors = _harness_vectors(
        solutions, results, _reference_counts(reference_dir, "3.11.7"), (0, 1, 2)
    )
    assert len(vectors) == 1
    (harness,) = vectors
    assert sum(n for _, n in harness) == 550
    assert all(n > 0 for _, n in harness)  # we never count more than the reference


@pytest.mark.parametrize("version", ["3.12", "3.13"])
def test_monitoring_and_settrace_agree(
    version: str, reference_dir: Path, request: pytest.FixtureRequest
) -> None:
    """Both mechanisms give identical counts on 3.12+, on every fixture test."""
    interpreter = request.getfixturevalue(f"python{version.replace('.', '')}")
    solutions, by_monitoring = _fixture_runs(
        reference_dir, interpreter=interpreter, trace_mode="monitoring"
    )
    _, by_settrace = _fixture_runs(reference_dir, interpreter=interpreter, trace_mode="settrace")
    assert all(r.python.startswith(version) for r in by_monitoring)
    for a, b in zip(by_monitoring, by_settrace, strict=True):
        assert a.status == b.status == "ok"
        assert [t.opcodes for t in a.tests] == [t.opcodes for t in b.tests]
        assert all(t.opcode_total > 0 for t in a.tests)
    # Against the reference: tests 1 and 2 differ by one constant harness vector. The
    # reference's test 0 traces are broken on 3.12/3.13 (before the first frame asks for
    # opcode events, settrace() does not switch them on), so they are left out.
    full = {"3.12": "3.12.1", "3.13": "3.13.0"}[version]
    vectors = _harness_vectors(
        solutions, by_monitoring, _reference_counts(reference_dir, full), (1, 2)
    )
    assert len(vectors) == 1


def test_in_process_tracer_on_trusted_code() -> None:
    """The tracer module itself, on this test's own (trusted) code."""
    source = "def g(n):\n    t = 0\n    for i in range(n):\n        t += i\n    return t\n"
    code = compile(source, "<trusted>", "exec")
    assert len(code_objects(code)) == 2
    tracer = OpcodeTracer(default_mode())
    namespace: dict[str, Any] = {}
    exec(tracer.register(code), namespace)  # our own fixed snippet (``counters``: its copy)
    tracer.start()
    tracer.start()
    namespace["g"](3)
    tracer.stop()
    tracer.stop()
    first = tracer.take()
    assert first["FOR_ITER"] == 4  # three iterations and the exhausted one
    assert first["RETURN_VALUE"] == 1
    assert tracer.take() == {}
    namespace["g"](3)  # stopped: not counted
    assert tracer.take() == {}
    tracer.start()
    namespace["g"](6)
    tracer.stop()
    assert tracer.take()["FOR_ITER"] == 7
    tracer.close()


def test_equal_code_objects_compiled_apart_are_both_counted() -> None:
    """A version compiled on its own and again in its module gives equal code objects;
    the one that runs is counted whichever was registered first."""
    source = "def g(n):\n    return [i for i in range(n)]\n"
    first, second = (compile(source, "<trusted>", "exec") for _ in range(2))
    assert first == second and first is not second
    namespace: dict[str, Any] = {}
    tracer = OpcodeTracer(default_mode())
    tracer.register(first)
    exec(tracer.register(second), namespace)  # our own fixed snippet (``counters``: a copy)
    tracer.start()
    namespace["g"](3)
    tracer.stop()
    counts = tracer.take()
    tracer.close()
    assert counts["FOR_ITER"] == 4
    assert counts["RETURN_VALUE"] == 2  # the function and its comprehension


@pytest.mark.parametrize(
    ("mode", "interpreter_fixture"),
    [("settrace", None), ("monitoring", "python312"), ("monitoring", "python313")],
)
def test_counts_switched_off_by_the_candidate_are_dropped(
    mode: str, interpreter_fixture: str | None, request: pytest.FixtureRequest
) -> None:
    """A test during which counting was switched off reports no counts, not wrong ones."""
    interpreter = request.getfixturevalue(interpreter_fixture) if interpreter_fixture else None
    switch_off = (
        "import sys\n"
        "def f(off):\n"
        "    if off and hasattr(sys, 'monitoring'):\n"
        "        for tool in range(6):\n"
        "            if sys.monitoring.get_tool(tool) == 'codequorum-tracer':\n"
        "                sys.monitoring.free_tool_id(tool)\n"
        "    elif off:\n"
        "        sys.settrace(None)\n"
        "    return sum(range(5))\n"
    )
    tests = [Case("call", args=(True,)), Case("call", args=(False,))]
    result = run_candidates([switch_off], tests, "f", interpreter=interpreter, trace_mode=mode)[0]
    assert result.status == "ok", result.detail
    assert [t.output for t in result.tests] == ["10", "10"]
    assert (result.tests[0].opcodes, result.tests[0].opcode_total) == (None, 0)
    assert result.tests[1].opcode_total > 0  # the next test is counted again


def test_recursion_overflow_has_no_counts_under_settrace() -> None:
    result = run_candidates(
        ["def f(n):\n    return f(n + 1)\n"], [Case("call", args=(0,))], "f", trace_mode="settrace"
    )[0]
    assert result.status == "ok"
    assert result.tests[0].exc_type == "RecursionError"
    assert result.tests[0].opcodes is None


def test_unknown_modes_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown trace mode"):
        OpcodeTracer("perf")


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="the table read without dis is 3.11's")
def test_opname_table_without_dis_equals_dis() -> None:
    import dis

    from codequorum.behaviour.sandbox import tracer

    wide = "def g(x):\n    return [" + ", ".join(f"x + {i}.5" for i in range(400)) + "]\n"
    sources = [Path(tracer.__file__).read_text(), Path(dis.__file__).read_text(), wide, NESTED]
    checked = 0
    for source in sources:
        for code in code_objects(compile(source, "<t>", "exec")):
            expected = ["?"] * (len(code.co_code) + 2)
            for ins in dis.get_instructions(code):
                expected[ins.offset] = ins.opname
            assert tracer.opname_table(code) == expected
            checked += 1
    assert checked > 50
