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
