"""Risk model: signals, logistic fit and prediction, levels, words, AUROC, ECE, percentile,
shipped file."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from codequorum.judge.risk import (
    DID_NOT_RUN,
    FEATURES,
    LEVELS,
    NO_INPUTS,
    NOT_RUN,
    LogisticModel,
    RiskSignals,
    auroc,
    chance_words,
    ece,
    estimate,
    fit_logistic,
    load_model,
    missing_words,
    not_fitted,
    range_of,
    range_words,
    reliability,
    risk,
    stability_percentile,
    trust_words,
)


def test_signals_are_shares_of_the_set() -> None:
    s = RiskSignals(versions=5, agreed=True, agreeing=3, agreeing_texts=2, texts=4, share=0.6,
                    examples=3, passes_examples=True, passing=4, runner_up=1, behaviours=3)
    assert s.kind == "examples"
    assert s.values() == {
        "cluster_share": 0.6, "share": 0.6, "agreed": 1.0, "examples_consensus": 0.8,
        "examples_confirmed": 0.6, "purity": 0.75, "distinct_agreeing": 0.4,
        "distinct_share": 0.8, "margin": 0.4, "behaviours": 0.6, "examples_blind": 0.0,
        "coverage": 0.0, "returns": 0.0}
    assert s.vector(("purity", "share")).tolist() == [0.75, 0.6]
    assert s.vector().tolist() == [s.values()[f] for f in FEATURES["examples"]]
    # the same set drawn twice as large says the same
    assert RiskSignals(versions=10, agreed=True, agreeing=6, agreeing_texts=4, texts=8,
                       share=0.6, examples=3, passes_examples=True,
                       passing=8, runner_up=2, behaviours=6).values() == s.values()
    # a runner-up as large as the kept cluster leaves no margin (never a negative one)
    tie = RiskSignals(versions=4, agreed=True, agreeing=2, runner_up=2, behaviours=2)
    assert tie.values()["margin"] == 0.0
    assert RiskSignals(versions=4, agreed=True, agreeing=1, runner_up=3).values()[
        "margin"] == 0.0
    failed = RiskSignals(versions=5, agreed=True, agreeing=2, examples=2, passing=0)
    assert failed.kind == "examples_failed"
    assert failed.values()["examples_confirmed"] == failed.values()["purity"] == 0.0
    shape = RiskSignals(versions=4, agreed=False, agreeing=3, share=0.5)
    assert shape.kind == "outputs"
    assert shape.values()["cluster_share"] == 0.25 and shape.values()["share"] == 0.0
    assert shape.values()["margin"] == 0.25  # no cluster to compare: the kept version alone


def test_examples_passed_by_versions_behaving_otherwise_and_inputs_beyond_them() -> None:
    # 3 examples; 4 versions pass them, 1 of which returns otherwise beyond them; the kept
    # version returns on 6 of the 8 inputs beyond the examples
    s = RiskSignals(versions=5, agreed=True, agreeing=3, examples=3, passes_examples=True,
                    passing=4, inputs=11, beyond=6, passing_apart=1)
    v = s.values()
    assert v["examples_blind"] == 0.2
    assert v["coverage"] == 0.6 and v["returns"] == 0.75
    # ten inputs beyond the examples cover as much as more; a failing kept version's
    # examples say nothing of the others
    wide = RiskSignals(versions=5, agreed=True, examples=0, inputs=40, beyond=30)
    assert wide.values()["coverage"] == 1.0 and wide.values()["returns"] == 0.75
    failed = RiskSignals(versions=5, agreed=True, examples=3, passing=0, passing_apart=2)
    assert failed.values()["examples_blind"] == 0.0


def test_examples_confirmed_counts_passed_examples_up_to_five() -> None:
    def confirmed(count: int, passes: bool) -> float:
        return RiskSignals(versions=4, examples=count, passes_examples=passes,
                           passing=1).values()["examples_confirmed"]

    assert confirmed(1, True) == 0.2
    assert confirmed(4, True) == 0.8
    assert confirmed(5, True) == confirmed(9, True) == 1.0
    assert confirmed(4, False) == 0.0  # failing one example confirms nothing
    assert confirmed(0, True) == 0.0


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


def test_shipped_models_point_the_right_way() -> None:
    data = load_model()
    for kind in ("examples", "examples_failed", "outputs"):
        assert set(data["models"][kind]["features"]) <= set(FEATURES[kind])
        bins = data["levels"][kind]
        assert [b["below"] for b in bins] == sorted(b["below"] for b in bins)
        assert all(b["level"] in LEVELS for b in bins)
    q = data["stability"]["quantiles"]
    assert len(q) == 101 and all(a < b for a, b in itertools.pairwise(q))

    def at(**kw: object) -> float:
        return risk(RiskSignals(**kw))  # type: ignore[arg-type]

    # the examples' models: passing every example and agreeing make the kept version safer
    alone = at(versions=5, agreed=True, agreeing=1, examples=3, passes_examples=True,
               passing=1)
    agreed = at(versions=5, agreed=True, agreeing=5, agreeing_texts=5, examples=3,
                passes_examples=True, passing=5, share=1.0)
    failed = at(versions=5, agreed=True, agreeing=5, examples=3, passing=0, share=1.0)
    # (fitted on four model families, a lone version passing the examples that no other
    # version agrees with was wrong about half the time: no longer below one in two)
    assert agreed < 0.1 and agreed < alone < failed and failed > 0.5
    more = at(versions=5, agreed=True, agreeing=1, examples=5, passes_examples=True,
              passing=1)
    assert more <= alone  # five examples passed say more than three
    # without examples, agreeing outputs written apart are safer than scattered ones
    apart = at(versions=5, agreed=True, agreeing=5, agreeing_texts=5, texts=5, share=1.0)
    scattered = at(versions=5, agreed=True, agreeing=1, texts=5, share=0.1)
    assert apart < scattered
    # and the farther the run went beyond the examples, the safer
    covered = at(versions=5, agreed=True, agreeing=5, agreeing_texts=5, texts=5, share=1.0,
                 inputs=20, beyond=20)
    assert covered < apart


def test_estimate_says_its_step_and_what_it_meant() -> None:
    data = load_model()
    sure = estimate(RiskSignals(versions=5, agreed=True, agreeing=5, agreeing_texts=5,
                                texts=5, examples=3, passes_examples=True, passing=5,
                                share=1.0))
    assert sure.level == "likely right" and sure.measured
    assert sure.low is not None and sure.high is not None
    assert sure.low < sure.probability < sure.high <= 0.25
    assert trust_words(sure) == (
        f"likely right: {chance_words(sure.probability)} that it is wrong "
        f"({range_words(sure.low, sure.high)} on models it was not fitted on)")
    wrong = estimate(RiskSignals(versions=5, agreed=True, agreeing=5, examples=3, passing=0))
    assert wrong.level == "likely wrong" and wrong.low is not None and wrong.low >= 0.6
    # a model file without a measured range says its bins' held-out shares instead; a bin
    # whose held-out regimes disagree widely is said as a range, not a point
    data = {key: value for key, value in data.items() if key != "range"}
    wide = {**data, "levels": {**data["levels"], "examples": [
        {"below": 1.0, "level": "uncertain", "observed": [0.05, 0.45], "sets": 100}]}}
    vague = estimate(RiskSignals(versions=5, agreed=True, agreeing=5, examples=3,
                                 passes_examples=True, passing=5), wide)
    assert vague.level == "uncertain" and not vague.point
    assert trust_words(vague) == ("uncertain: 5–45 % of the versions judged alike were "
                                  "wrong in held-out tests, depending on the model")
    unknown = {**data, "levels": {**data["levels"], "examples": [
        {"below": 1.0, "level": "uncertain", "observed": None, "sets": 0}]}}
    bare = estimate(RiskSignals(versions=5, examples=3, passes_examples=True, passing=5),
                    unknown)
    assert trust_words(bare) == f"uncertain: {chance_words(bare.probability)} that it is wrong"
    assert trust_words(None) == NOT_RUN


def test_the_shipped_risk_held_on_every_model_family_left_out() -> None:
    # what bench/fit_risk_families.py measured and wrote: a refit that ranks worse, is
    # more than three points optimistic on a family, or whose ranges hold less often, is
    # not shipped unnoticed
    data = load_model()
    widths = data["range"]["logit_half_width"]
    assert set(widths) == {"examples", "examples_failed", "outputs"}
    assert all(0 <= w <= 3 for w in widths.values())
    families = data["held_out"]["families"]
    assert len(families) >= 4
    for name, f in families.items():
        assert f["auroc"] >= 0.85, name
        assert f["mean_risk"] >= f["share_wrong"] - 0.03, name
    held = data["range"]["held_out"].values()
    assert sum(f["covered"] for f in held) >= 0.85 * sum(f["cells"] for f in held)


def test_a_range_is_the_risk_moved_either_way_on_the_logit_scale() -> None:
    widths = dict.fromkeys(("examples", "examples_failed", "outputs"), math.log(3))
    data = {**load_model(), "range": {"logit_half_width": widths}}
    low, high = range_of(0.25, "outputs", data) or (0.0, 0.0)
    # odds 1:3 times and divided by 3: 1:9 and 1:1
    assert low == pytest.approx(0.1) and high == pytest.approx(0.5)
    assert range_of(0.25, "outputs", {**data, "range": {}}) is None
    assert range_words(0.1, 0.25) == "between 1 in 10 and 1 in 4"
    assert range_words(0.3, 0.7) == "between 1 in 3 and 7 in 10"
    assert range_words(0.001, 0.004) == "less than 1 in 100"
    est = estimate(RiskSignals(versions=5, agreed=True, agreeing=5, agreeing_texts=5,
                               texts=5, examples=3, passes_examples=True, passing=5,
                               share=1.0), data)
    assert est.measured and est.low is not None and est.high is not None
    assert est.low < est.probability < est.high
    assert trust_words(est) == (
        f"{est.level}: {chance_words(est.probability)} that it is wrong "
        f"({range_words(est.low, est.high)} on models it was not fitted on)")
    assert trust_words(est, language="python") == trust_words(est)
    assert trust_words(est, language="typescript") == (
        trust_words(est) + "; fitted on Python versions, not calibrated on TypeScript")
    assert trust_words(None, language="javascript") == NOT_RUN  # no estimate, no caveat


def test_a_language_the_model_was_not_fitted_on_is_said() -> None:
    assert not_fitted(None) == not_fitted("python") == ""
    assert not_fitted("javascript") == "; fitted on Python versions, not calibrated on JavaScript"
    assert not_fitted("go") == "; fitted on Python versions, not calibrated on go"


@pytest.mark.parametrize(
    ("risk_", "words"),
    [(0.34, "about 1 in 3"), (0.5, "about 1 in 2"), (0.1, "about 1 in 10"),
     (0.72, "about 7 in 10"), (0.004, "less than 1 in 100"), (0.995, "more than 99 in 100"),
     (0.94, "about 9 in 10"), (0.95, "about 19 in 20"), (0.96, "about 24 in 25"),
     (0.99, "about 99 in 100")],
)
def test_chance_words(risk_: float, words: str) -> None:
    assert chance_words(risk_) == words


def test_a_model_with_unknown_features_is_refused() -> None:
    data = load_model()
    bad = {**data, "models": {**data["models"], "outputs": {
        **data["models"]["outputs"], "features": ["share", "colour"],
        "mean": [0.0, 0.0], "scale": [1.0, 1.0], "coef": [0.0, 0.0]}}}
    with pytest.raises(ValueError, match="colour"):
        risk(RiskSignals(versions=3), bad)
    assert stability_percentile(0.3) < stability_percentile(0.9)


def test_weighted_fit_counts_rows_by_their_weight() -> None:
    x = np.array([[0.0], [0.0], [1.0], [1.0]])
    y = np.array([0.0, 1.0, 1.0, 1.0])
    doubled = fit_logistic(np.vstack([x, x[:1]]), np.append(y, 0.0), ("a",), l2=0.0)
    weighted = fit_logistic(x, y, ("a",), l2=0.0, weights=np.array([2.0, 1.0, 1.0, 1.0]))
    assert weighted.predict(x) == pytest.approx(doubled.predict(x), abs=1e-6)


def test_what_is_missing_depends_on_why_nothing_ran() -> None:
    assert missing_words(False) == NOT_RUN
    assert missing_words(False, "not run in its module") == NOT_RUN
    assert missing_words(True, "no inputs") == NO_INPUTS
    assert missing_words(True) == NO_INPUTS  # ran on tests only
    # a module that did not load, or versions that all stopped first: no example would help
    module = missing_words(True, "not run in its module")
    assert module == DID_NOT_RUN.format(why="not run in its module")
    assert module.startswith("not run in its module: ") and "docstring" not in module
    stopped = missing_words(True, "no version ran (TimeoutError)")
    assert stopped.startswith("no version ran (TimeoutError): ") and "type hints" not in stopped
    assert trust_words(None, ran=True, why="not run in its module") == module


@pytest.mark.parametrize("beyond", [1, 3, 10])
def test_versions_agreeing_without_examples_are_uncertain_in_a_range_every_family_saw(
        beyond: int) -> None:
    # a function whose docstring gives no example (most functions in a repository): five
    # versions written apart return alike on every input. On each model family's sets read
    # so (bench/bench_shipped_risk.py, plain views), the share wrong at such risks ran from
    # about 15 % (DeepSeek-Coder) to 80 % (Qwen3-0.6B): never "likely wrong", and a range
    # that says how far apart models are
    agree = RiskSignals(versions=5, agreed=True, agreeing=5, agreeing_texts=5, texts=5,
                        share=1.0, behaviours=1, inputs=beyond, beyond=beyond)
    est = estimate(agree)
    assert est.kind == "outputs" and est.level == "uncertain" and est.measured
    assert est.low is not None and est.high is not None
    assert est.high - est.low >= 0.5 and est.low <= 0.3 and est.high >= 0.7
    words = trust_words(est)
    assert words.startswith("uncertain: about ") and "on models it was not fitted on)" in words
    assert "10 in 10" not in words
    # and says what would narrow it, before the language's caveat
    assert words.endswith("; no example with an expected result to check it against (one in "
                          "its documentation would narrow this)")
    assert trust_words(est, language="javascript") == (
        words + "; fitted on Python versions, not calibrated on JavaScript")
