"""Per-model calibration of the risk in a run: the kept version's graded outcome, the
model a set names, the accumulator ``overall`` uses."""

from __future__ import annotations

from typing import Any

import pytest

from codequorum.judge.calibration import UNNAMED, CalibrationAccumulator, kept_fails, model_of
from codequorum.judge.risk import auroc, ece


def _set(model: str | None, risk: float | None, rate: float | None,
         basis: str = "graded tests", rec: int | None = 1) -> dict[str, Any]:
    candidates = [{"index": 0, "pass_rate": 0.0, "pass_basis": basis},
                  {"index": 1, "pass_rate": rate, "pass_basis": basis}]
    return {"model": model, "risk": risk, "recommended": rec,
            "dynamic": {"candidates": candidates}}


def test_kept_fails_reads_the_kept_versions_graded_tests() -> None:
    assert kept_fails(_set("m", 0.2, 1.0)) is False
    assert kept_fails(_set("m", 0.2, 0.5)) is True
    # no graded tests (pass rate over inputs run without an exception): no outcome
    assert kept_fails(_set("m", 0.2, 1.0, basis="inputs run without an exception")) is None
    assert kept_fails(_set("m", 0.2, None)) is None
    assert kept_fails(_set("m", 0.2, 1.0, rec=None)) is None
    assert kept_fails({"recommended": 0, "dynamic": None}) is None


def test_model_of_names_what_the_versions_share() -> None:
    assert model_of(["a", "a", None]) == "a"
    assert model_of(["b", "a", "a"]) == "a + b"
    assert model_of([None, ""]) is None


def test_accumulator_measures_each_model_apart() -> None:
    acc = CalibrationAccumulator()
    a = [(0.1, 1.0), (0.2, 1.0), (0.8, 0.0), (0.9, 0.5), (0.3, 0.0)]
    for risk, rate in a:
        acc.add(_set("a", risk, rate))
    acc.add(_set("b", 0.4, 1.0))
    acc.add(_set("b", None, 1.0))  # not run: counted, no pair
    acc.add(_set(None, 0.5, None, basis="inputs run without an exception"))
    assert acc.models == ["a", "b", UNNAMED]
    out = acc.result()
    p = [r for r, _ in a]
    y = [rate < 1.0 for _, rate in a]
    assert out["a"]["sets"] == out["a"]["graded"] == 5
    assert out["a"]["kept_wrong"] == pytest.approx(3 / 5)
    assert out["a"]["mean_risk"] == pytest.approx(sum(p) / 5)
    assert out["a"]["auroc"] == pytest.approx(auroc(p, y))
    assert out["a"]["ece"] == pytest.approx(ece(p, y, 10))
    assert sum(row[2] for row in out["a"]["reliability"]) == 5
    assert out["b"] == {"sets": 2, "with_risk": 1, "graded": 1, "kept_wrong": 0.0,
                        "mean_risk": 0.4, "auroc": None, "ece": pytest.approx(0.4),
                        "reliability": [[0.4, 0.0, 1]]}
    assert out[UNNAMED] == {"sets": 1, "with_risk": 1, "graded": 0}
