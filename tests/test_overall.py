"""``overall`` a set at a time equals ``analysis.overall`` of the held reports, bit for bit."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any, Literal

import pytest

from codequorum.analysis import AnalysisOptions, StabilityReport, analyze, overall
from codequorum.formats import ReadOptions, read_sample_sets
from codequorum.model import SampleSet, Verdict
from codequorum.overall import OverallAccumulator, RunningSum


def _report(task: str, summary: dict[str, Any], codes: tuple[str, ...] = ("stable",),
            status: Literal["ok", "insufficient"] = "ok") -> StabilityReport:
    return StabilityReport(
        task_id=task, language="python", status=status, n=3, n_total=3, indices=[0, 1, 2],
        summary=summary,
        verdicts=[Verdict(c, "information", f"{c} message") for c in codes])


def test_running_sum_is_the_builtin_sum_to_the_bit() -> None:
    rng = random.Random(7)
    cases = [[1e16, 1.0, -1e16], [0.1] * 10, [-0.0], [-0.0, -0.0], [1e308, 1e308, -1e308],
             [rng.uniform(-1, 1) * 10 ** rng.randint(-8, 8) for _ in range(500)],
             [rng.random() for _ in range(1000)]]
    for values in cases:
        total = RunningSum()
        for x in values:
            total.add(x)
        expected = sum(values)
        assert math.copysign(1, total.value) == math.copysign(1, expected)
        assert total.value == expected or (math.isinf(expected) and total.value == expected)
        assert total.mean() == expected / len(values)
    assert RunningSum().mean() is None


def _mixed_reports() -> list[StabilityReport]:
    """Pair means and scalars, a key missing or null, NaN, a key first seen late, BEF
    ratios spanning orders of magnitude, an insufficient set, repeated verdict codes."""
    return [
        _report("a", {"jsd_struct": {"ordered": 0.1, "unordered": 0.2}, "oer": 0.5,
                      "bef_jsd": 3.0}, ("unstable-structure", "unstable-structure")),
        _report("b", {"jsd_struct": {"ordered": 1e16, "unordered": None}, "oer": math.nan,
                      "bef_jsd": 1e-6}),
        _report("c", {}, (), status="insufficient"),
        _report("d", {"jsd_struct": {"ordered": -1e16, "unordered": 0.3}, "oer": 0.25,
                      "bef_jsd": 250.0, "pass_rate_mean": 1.0},
                ("divergent-outputs", "stable")),
        _report("e", {"jsd_struct": 0.7, "oer": True, "bef_jsd": None,
                      "pass_rate_mean": 0.0, "late": None}),
        _report("f", {"jsd_struct": {"ordered": 0.4, "unordered": 0.6}, "bef_jsd": 7.5}),
    ]


@pytest.mark.parametrize("count", [0, 1, 3, 6])
def test_accumulator_equals_the_held_computation(count: int) -> None:
    reports = _mixed_reports()[:count]
    got = OverallAccumulator.of(reports).result()
    assert got == overall(reports)
    assert json.dumps(got) == json.dumps(overall(reports))  # key order and float bits


def test_accumulator_values_by_hand() -> None:
    got = OverallAccumulator.of(_mixed_reports()).result()
    assert (got["sets"], got["scored"], got["insufficient"]) == (6, 5, 1)
    assert got["verdicts"] == {"unstable-structure": 1, "stable": 4, "divergent-outputs": 1}
    summary = got["summary"]
    assert list(summary) == ["jsd_struct", "oer", "bef_jsd", "pass_rate_mean", "late"]
    # 0.1 survives 1e16 - 1e16 where sum() compensates (Python 3.12 on), else it is lost
    assert summary["jsd_struct"]["ordered"] == sum([0.1, 1e16, -1e16, 0.4]) / 4
    assert summary["jsd_struct"]["ordered"] in (0.4 / 4, 0.5 / 4)
    assert summary["jsd_struct"]["unordered"] == pytest.approx(1.1 / 3)
    assert summary["oer"] == pytest.approx(0.375)
    assert summary["bef_jsd"] == pytest.approx(5.25)  # median of 1e-6, 3, 7.5, 250
    assert summary["pass_rate_mean"] == 0.5
    assert summary["late"] is None


def test_accumulator_equals_the_held_computation_on_real_sets(shared_dir: Path) -> None:
    data = shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl"
    sets = [s for s in read_sample_sets(data, ReadOptions(limit=12, max_samples=5))
            if isinstance(s, SampleSet)]
    reports = [analyze(s, AnalysisOptions(tsed=False, keep_matrices=False)) for s in sets]
    accumulator = OverallAccumulator()
    for r in reports:
        accumulator.add(r)
    assert json.dumps(accumulator.result()) == json.dumps(overall(reports))
    assert accumulator.result()["scored"] == 12
