"""``overall``: counts, means and medians across sets, taken a set at a time."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pytest

from codequorum.core.model import VersionSet
from codequorum.core.report import StabilityReport, Verdict
from codequorum.ingest.version_files import ReadOptions, read_version_sets
from codequorum.judge.overall import OverallAccumulator, RunningSum, overall
from codequorum.pipeline.analyze import analyze
from codequorum.pipeline.config import AnalysisConfig
from tests.pipeline.test_analyze import BUILTIN, FAST, LOOP, LOOP_RENAMED, RECURSIVE


def _report(task: str, summary: dict[str, Any], codes: tuple[str, ...] = ("stable",),
            status: Literal["ok", "insufficient"] = "ok") -> StabilityReport:
    return StabilityReport(
        task_id=task, language="python", status=status, n=3, n_total=3, indices=[0, 1, 2],
        summary=summary,
        verdicts=[Verdict(c, "information", f"{c} message") for c in codes])


def test_running_sum_compensates_its_rounding() -> None:
    rng = random.Random(7)
    exact_cases = {(1e16, 1.0, -1e16): 1.0, (0.1,) * 10: 1.0, (1e308, 1e308, -1e308): math.inf}
    for case, expected in exact_cases.items():
        total = RunningSum()
        for x in case:
            total.add(x)
        assert total.value == expected
    for values in ([rng.uniform(-1, 1) * 10 ** rng.randint(-8, 8) for _ in range(500)],
                   [rng.random() for _ in range(1000)]):
        total = RunningSum()
        for x in values:
            total.add(x)
        assert total.value == pytest.approx(math.fsum(values), rel=1e-15, abs=1e-15)
        assert total.mean() == total.value / len(values)
    assert RunningSum().mean() is None


def _reference(reports: list[StabilityReport]) -> dict[str, Any]:
    """The definition, from every report at once (exact sums, numpy's median)."""
    scored = [r for r in reports if r.status == "ok"]
    keys = list(dict.fromkeys(k for r in scored for k in r.summary))

    def finite(values: list[Any]) -> list[float]:
        return [float(v) for v in values if isinstance(v, int | float)
                and not isinstance(v, bool) and math.isfinite(v)]

    def mean(values: list[Any]) -> float | None:
        xs = finite(values)
        return math.fsum(xs) / len(xs) if xs else None

    summary: dict[str, Any] = {}
    for key in keys:
        values = [r.summary.get(key) for r in scored]
        if any(isinstance(v, dict) for v in values):
            summary[key] = {kind: mean([v.get(kind) for v in values if isinstance(v, dict)])
                            for kind in ("ordered", "unordered")}
        elif key.startswith("bef"):
            xs = finite(values)
            summary[key] = float(np.median(xs)) if xs else None
        else:
            summary[key] = mean(values)
    verdicts: dict[str, int] = {}
    for r in scored:
        for code in dict.fromkeys(v.code for v in r.verdicts):
            verdicts[code] = verdicts.get(code, 0) + 1
    return {"sets": len(reports), "scored": len(scored),
            "insufficient": len(reports) - len(scored), "verdicts": verdicts,
            "summary": summary}


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
def test_accumulator_equals_the_definition(count: int) -> None:
    reports = _mixed_reports()[:count]
    got = OverallAccumulator.of(reports).result()
    assert got == _reference(reports)
    assert list(got["summary"]) == list(_reference(reports)["summary"])  # first-seen order
    assert got == overall(reports)


def test_accumulator_values_by_hand() -> None:
    got = OverallAccumulator.of(_mixed_reports()).result()
    assert (got["sets"], got["scored"], got["insufficient"]) == (6, 5, 1)
    assert got["verdicts"] == {"unstable-structure": 1, "stable": 4, "divergent-outputs": 1}
    summary = got["summary"]
    assert list(summary) == ["jsd_struct", "oer", "bef_jsd", "pass_rate_mean", "late"]
    # 0.1 survives 1e16 - 1e16: the running sum compensates its rounding
    assert summary["jsd_struct"]["ordered"] == 0.5 / 4
    assert summary["jsd_struct"]["unordered"] == pytest.approx(1.1 / 3)
    assert summary["oer"] == pytest.approx(0.375)
    assert summary["bef_jsd"] == pytest.approx(5.25)  # median of 1e-6, 3, 7.5, 250
    assert summary["pass_rate_mean"] == 0.5
    assert summary["late"] is None


def test_accumulator_equals_the_held_computation_on_real_sets(shared_dir: Path) -> None:
    data = shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl"
    sets = [s for s in read_version_sets(data, ReadOptions(limit=12, max_versions=5))
            if isinstance(s, VersionSet)]
    reports = [analyze(s, AnalysisConfig(metrics=("textual",), keep_matrices=False)) for s in sets]
    accumulator = OverallAccumulator()
    for r in reports:
        accumulator.add(r)
    got = accumulator.result()
    expected = _reference(reports)
    assert got["scored"] == 12 and got["verdicts"] == expected["verdicts"]
    for key, value in expected["summary"].items():
        if isinstance(value, dict):
            for kind in ("ordered", "unordered"):
                assert got["summary"][key][kind] == pytest.approx(value[kind], rel=1e-15)
        else:
            assert got["summary"][key] == pytest.approx(value, rel=1e-15)


def test_overall_means_and_counts() -> None:
    same = analyze(VersionSet.from_codes("same", [LOOP, LOOP_RENAMED, LOOP]), FAST)
    mixed = analyze(VersionSet.from_codes("mixed", [LOOP, RECURSIVE, BUILTIN]), FAST)
    lone = analyze(VersionSet.from_codes("lone", [LOOP]), FAST)
    result = overall([same, mixed, lone])
    assert (result["sets"], result["scored"], result["insufficient"]) == (3, 2, 1)
    assert result["verdicts"] == {"stable": 1, "unstable-structure": 1}
    for kind in ("ordered", "unordered"):
        expected = (same.pair("jsd_struct", kind) + mixed.pair("jsd_struct", kind)) / 2  # type: ignore[operator]
        assert result["summary"]["jsd_struct"][kind] == pytest.approx(expected)
    assert "tsed" not in result["summary"]
    for report, bef, oer in ((same, 1e9, 1.0), (mixed, 2.0, 0.5), (lone, 7.0, 0.0)):
        report.summary.update(bef_jsd=bef, oer=oer)
    three = analyze(VersionSet.from_codes("third", [LOOP, BUILTIN]), FAST)
    three.summary.update(bef_jsd=4.0, oer=None)
    result = overall([same, mixed, lone, three])
    assert result["summary"]["bef_jsd"] == 4.0  # median: one huge ratio does not swamp it
    assert result["summary"]["oer"] == pytest.approx(0.75)  # None left out, lone not scored
    assert overall([]) == {"sets": 0, "scored": 0, "insufficient": 0, "verdicts": {},
                           "summary": {}}



def test_overall_counts_every_verdict_of_a_set_once() -> None:
    a = analyze(VersionSet.from_codes("a", [LOOP, LOOP_RENAMED]), FAST)
    b = analyze(VersionSet.from_codes("b", [LOOP, BUILTIN]), FAST)
    b.verdicts += [Verdict("divergent-outputs", "warning", "x"),
                   Verdict("divergent-outputs", "warning", "y")]
    assert overall([a, b])["verdicts"] == {"stable": 1, "unstable-structure": 1,
                                           "divergent-outputs": 1}


def test_overall_measures_the_risk_per_model_when_the_run_holds_several() -> None:
    def kept(model: str | None, risk: float, passed: bool) -> StabilityReport:
        r = _report("t", {"jsd_struct": {"ordered": 0.5, "unordered": 0.5}})
        r.model, r.risk, r.recommended = model, risk, 0
        r.dynamic = {"candidates": [{"index": 0, "pass_rate": 1.0 if passed else 0.0,
                                     "pass_basis": "graded tests"}]}
        return r

    one = [kept("a", 0.2, True), kept("a", 0.7, False)]
    assert "by_model" not in overall(one)  # one model: nothing to set apart
    both = overall([*one, kept("b", 0.4, True), kept(None, 0.9, False)])
    by_model = both["by_model"]
    assert list(by_model) == ["a", "b", "(no model named)"]
    assert by_model["a"]["kept_wrong"] == 0.5 and by_model["a"]["auroc"] == 1.0
    assert by_model["a"]["mean_risk"] == pytest.approx(0.45)
    assert by_model["b"]["graded"] == 1 and by_model["b"]["kept_wrong"] == 0.0
