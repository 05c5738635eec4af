"""Risk model: features, logistic fit and prediction, AUROC, ECE, percentile, shipped file."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from codequorum.risk import (
    FEATURES,
    LogisticModel,
    RiskSignals,
    auroc,
    ece,
    fit_logistic,
    load_model,
    reliability,
    risk,
    stability_percentile,
)


def test_signals_vector_follows_the_model_features() -> None:
    s = RiskSignals(0.8, 0.85, 0.1, 0.2, behaviour=True, agreed=True, share=0.5,
                    examples=True, passes_examples=False, examples_consensus=0.3)
    assert s.kind == "examples"
    assert s.vector().tolist() == [0.8, 0.85, 0.1, 0.2, 1.0, 0.5, 0.0, 0.3, 0.0]
    assert s.vector(FEATURES["structure"]).tolist() == [0.8, 0.85, 0.1, 0.2]
    assert s.vector(("passes_examples", "share")).tolist() == [0.0, 0.5]
    ran = RiskSignals(0.8, 0.85, behaviour=True, agreed=True, share=0.5)
    assert ran.kind == "behaviour"
    assert ran.vector().tolist() == [0.8, 0.85, 0.0, 0.0, 1.0, 0.5]
    assert RiskSignals(0.5).kind == "structure"
    assert RiskSignals(0.5).vector().tolist() == [0.5, 0.0, 0.0, 0.0]


def test_examples_confirmed_counts_passed_examples_up_to_five() -> None:
    def confirmed(count: int, passes: bool) -> float:
        return RiskSignals(0.8, behaviour=True, examples=count > 0, passes_examples=passes,
                           example_count=count).examples_confirmed

    assert confirmed(1, True) == 0.2
    assert confirmed(4, True) == 0.8
    assert confirmed(5, True) == confirmed(9, True) == 1.0
    assert confirmed(4, False) == 0.0  # failing one example confirms nothing
    assert confirmed(0, False) == 0.0
    assert RiskSignals(0.8, behaviour=True, examples=True, passes_examples=True,
                       example_count=3).vector(("examples_confirmed",)).tolist() == [0.6]


def test_logistic_predict_is_the_formula() -> None:
    m = LogisticModel(("a", "b"), (1.0, 0.0), (2.0, 1.0), (0.5, -1.0), 0.25)
    z = 0.25 + 0.5 * (3.0 - 1.0) / 2.0 - 1.0 * 2.0
    assert m.predict(np.array([3.0, 2.0])) == pytest.approx(1 / (1 + math.exp(-z)))
    assert LogisticModel.from_dict(m.to_dict()) == m


def test_fit_logistic_recovers_a_known_model() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4000, 2))
    p = 1 / (1 + np.exp(-(0.5 + 2.0 * x[:, 0] - 1.0 * x[:, 1])))
    y = (rng.random(4000) < p).astype(float)
    m = fit_logistic(x, y, ("a", "b"), l2=0.0)
    # coefficients are on the standardised scale: undo it to compare
    raw = np.array(m.coef) / np.array(m.scale)
    assert raw == pytest.approx([2.0, -1.0], abs=0.15)
    assert m.intercept - float(np.dot(raw, m.mean)) == pytest.approx(0.5, abs=0.1)


def test_fit_logistic_constant_feature_does_not_break() -> None:
    x = np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0], [1.0, 3.0]])
    y = np.array([0.0, 0.0, 1.0, 1.0])
    m = fit_logistic(x, y, ("c", "v"))
    assert m.scale[0] == 1.0
    assert m.coef[0] == 0.0
    assert m.predict(x)[3] > 0.5 > m.predict(x)[0]


def test_auroc_counts_ties_half() -> None:
    assert auroc([0.1, 0.4, 0.35, 0.8], [False, False, True, True]) == pytest.approx(0.75)
    assert auroc([0.5, 0.5], [True, False]) == pytest.approx(0.5)
    assert auroc([1.0, 2.0], [True, True]) != auroc([1.0, 2.0], [True, True])  # NaN


def test_reliability_and_ece() -> None:
    probs = [0.05, 0.05, 0.95, 0.95, 0.55]
    labels = [False, False, True, False, True]
    assert reliability(probs, labels, bins=10) == [(0.05, 0.0, 2), (0.55, 1.0, 1),
                                                   (0.95, 0.5, 2)]
    expected = (2 * 0.05 + 1 * 0.45 + 2 * 0.45) / 5
    assert ece(probs, labels, bins=10) == pytest.approx(expected)
    assert math.isnan(ece([], []))


def test_stability_percentile_interpolates_the_quantiles() -> None:
    q = [0.2, 0.4, 0.6, 0.8, 1.0]  # 0, 25, 50, 75, 100 %
    assert stability_percentile(0.5, q) == 37.5
    assert stability_percentile(0.1, q) == 0.0
    assert stability_percentile(1.0, q) == 100.0


def test_shipped_model_has_both_kinds_and_sensible_direction() -> None:
    data = load_model()
    for kind in ("examples", "behaviour", "structure"):
        assert set(data["models"][kind]["features"]) <= set(FEATURES[kind])
    q = data["stability"]["quantiles"]
    assert len(q) == 101 and all(a < b for a, b in itertools.pairwise(q))
    alike = risk(RiskSignals(0.95, 0.95))
    apart = risk(RiskSignals(0.3, 0.35))
    assert 0.0 < alike < apart < 1.0
    agreed = risk(RiskSignals(0.7, 0.75, behaviour=True, agreed=True, share=0.9))
    scattered = risk(RiskSignals(0.7, 0.75, behaviour=True, agreed=True, share=0.1))
    assert agreed < scattered
    # outputs agreeing make a version safer than its shape alone says
    assert risk(RiskSignals(0.9, 0.95, behaviour=True, agreed=True, share=0.95)) < alike
    checked = risk(RiskSignals(0.7, 0.75, behaviour=True, agreed=True, share=0.5,
                               examples=True, passes_examples=True, examples_consensus=0.5,
                               example_count=2))
    failed = risk(RiskSignals(0.7, 0.75, behaviour=True, agreed=True, share=0.5,
                              examples=True, passes_examples=False, example_count=2))
    assert checked < 0.5 < failed
    more = risk(RiskSignals(0.7, 0.75, behaviour=True, agreed=True, share=0.5,
                            examples=True, passes_examples=True, examples_consensus=0.5,
                            example_count=4))
    assert more < checked  # four examples passed say more than two


def test_a_model_with_unknown_features_is_refused() -> None:
    data = load_model()
    bad = {**data, "models": {**data["models"], "structure": {
        **data["models"]["structure"], "features": ["mean_similarity", "colour"],
        "mean": [0.0, 0.0], "scale": [1.0, 1.0], "coef": [0.0, 0.0]}}}
    with pytest.raises(ValueError, match="colour"):
        risk(RiskSignals(0.5), bad)
    assert stability_percentile(0.3) < stability_percentile(0.9)
