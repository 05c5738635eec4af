"""The shipped model's per-family figures (``bench/bench_shipped_risk.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from bench_shipped_risk import as_shipped, held, shipped_choice
from codequorum.judge.risk import RiskSignals, load_model, risk
from family_sets import signal_record
from fit_risk_families import steps_of


@pytest.mark.parametrize("signals", [
    RiskSignals(versions=5, agreed=True, agreeing=4, examples=2, passes_examples=True,
                passing=4),
    RiskSignals(versions=5, agreed=True, agreeing=2, examples=2, passes_examples=False,
                passing=1),
    RiskSignals(versions=5, agreed=True, agreeing=3),
], ids=lambda s: s.kind)
def test_the_shipped_file_read_as_is_gives_the_products_risk(signals: RiskSignals) -> None:
    rec = {"signals": signal_record(signals)}
    assert as_shipped([rec], load_model())[0] == pytest.approx(risk(signals), abs=1e-12)


def test_the_choice_is_the_shipped_files_features_and_l2() -> None:
    model = load_model()
    chosen = shipped_choice(model)
    assert set(chosen) == {"examples", "examples_failed", "outputs"}
    for kind, (features, l2) in chosen.items():
        assert list(features) == model["models"][kind]["features"]
        assert l2 == model["models"][kind]["l2"]


def test_a_group_holds_when_its_share_wrong_meets_its_range() -> None:
    n = 50
    fam, kinds = np.array(["f"] * n), np.array(["examples"] * n)
    told_right = held(np.full(n, 0.5), np.array([0.0, 1.0] * (n // 2)), fam, kinds,
                      {"examples": 0.0})
    assert told_right == (2, 2)
    all_wrong = held(np.full(n, 0.05), np.ones(n), fam, kinds, {"examples": 0.5})
    assert all_wrong == (0, 2)


def test_each_model_gets_the_steps_of_its_own_sets() -> None:
    # 30 sets passing their examples told 0.05, 30 failing one told 0.9, per family:
    # the first right in 29 of 30 (3 %), the others wrong in 27 of 30 (90 %)
    def rec(family: str, passes: bool, right: bool) -> dict[str, object]:
        signals = RiskSignals(versions=5, agreed=True, agreeing=3, examples=2,
                              passes_examples=passes, passing=3 if passes else 0)
        return {"family": family, "kept": 0, "truth": [right], "signals": signal_record(signals)}

    data = [rec(f, True, k > 0) for f in ("a", "b") for k in range(30)]
    data += [rec(f, False, k < 3) for f in ("a", "b") for k in range(30)]
    p = np.array([0.05] * 60 + [0.9] * 60)
    steps = steps_of(p, data)
    assert steps["examples"][0] == {"below": 0.1, "level": "likely right", "sets": 60,
                                    "observed": [0.0333, 0.0333]}
    assert steps["examples_failed"][-1] == {"below": 1.0, "level": "likely wrong",
                                            "sets": 60, "observed": [0.9, 0.9]}
    assert all(b["sets"] == 0 for b in steps["outputs"])
