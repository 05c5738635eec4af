"""A group's risks moved to its own rate: the shift, the estimate, shrinkage, the minimum,
the words, and the properties every group keeps."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codequorum.judge.base_rate import (
    NEVER,
    BaseRate,
    GroupRate,
    adapt,
    estimate_rate,
    group_rate,
    rate_words,
    shift,
)
from codequorum.judge.risk import load_model


def em_rate(p: list[float], prior: float, k: float = 0.0, steps: int = 100_000) -> float:
    """Saerens et al.'s iteration, written out plainly, with ``k`` sets at the prior
    added to each step's count: the reference the bisection must reach."""
    rate = prior
    for _ in range(steps):
        moved = [x * rate / prior / (x * rate / prior + (1 - x) * (1 - rate) / (1 - prior))
                 for x in p]
        rate = (sum(moved) + k * prior) / (len(moved) + k)
    return rate


def test_shift_moves_a_posterior_to_another_rate() -> None:
    # odds 1:1 at a prior of 1/4 are odds 3:1 at a rate of 1/2; 0.2 becomes 3/7
    assert shift(np.array([0.5, 0.2]), 0.25, 0.5) == pytest.approx([0.75, 3 / 7], abs=1e-15)
    assert shift(np.array([0.5]), 0.5, 0.2)[0] == pytest.approx(0.2, abs=1e-15)
    # the same rate leaves every risk where it is
    p = np.array([0.01, 0.3, 0.97])
    assert shift(p, 0.4, 0.4) == pytest.approx(p, abs=1e-15)


def test_the_rate_is_the_fixed_point_of_expectation_maximisation() -> None:
    p = np.array([0.2, 0.8, 0.9])
    rate = estimate_rate(p, 0.5)
    assert rate == pytest.approx(0.8159607246715797, abs=1e-12)
    assert rate == pytest.approx(em_rate([0.2, 0.8, 0.9], 0.5), abs=1e-12)
    assert float(shift(p, 0.5, rate).mean()) == pytest.approx(rate, abs=1e-12)
    # risks all above the prior say the rate is 1, all below say 0 (the likelihood's ends)
    assert estimate_rate(np.full(5, 0.7), 0.5) == 1.0
    assert estimate_rate(np.full(5, 0.3), 0.5) == 0.0
    # a mean risk equal to the prior is the prior's own rate
    assert estimate_rate(np.array([0.9, 0.9, 0.1, 0.1]), 0.5) == pytest.approx(0.5, abs=1e-12)
    assert estimate_rate(np.array([]), 0.3) == 0.3
    # the order the sets came in does not matter, to the bit
    q = np.random.default_rng(1).uniform(0, 1, 200)
    assert estimate_rate(q, 0.4) == estimate_rate(q[::-1].copy(), 0.4)


def test_a_small_group_is_shrunk_to_the_prior_and_a_tiny_one_left_alone() -> None:
    p = np.array([0.2, 0.8, 0.9])
    moved, rate = adapt(p, BaseRate(0.5, 3.0, 2))
    # three sets that alone say 0.816, and three more at the prior: the mode is 0.591
    assert (rate.sets, rate.prior, rate.adapted) == (3, 0.5, True)
    assert rate.estimated == pytest.approx(0.8159607246715797, abs=1e-12)
    assert rate.used == pytest.approx(0.5911095971773842, abs=1e-12)
    assert rate.used == pytest.approx(em_rate([0.2, 0.8, 0.9], 0.5, 3.0), abs=1e-12)
    assert moved == pytest.approx([0.26546784, 0.85256332, 0.92862643], abs=1e-8)
    assert rate.mean_alone == pytest.approx(0.6333333333333333)
    assert rate.mean_moved == pytest.approx(float(moved.mean()), abs=1e-15)
    # the more sets at the prior, the closer to it; none, and it is the estimate
    assert estimate_rate(p, 0.5, 300.0) == pytest.approx(0.5, abs=2e-3)
    assert estimate_rate(p, 0.5, 0.0) == rate.estimated
    # risks all on one side no longer run off to 0 or 1
    assert 0.5 < estimate_rate(np.full(5, 0.7), 0.5, 5.0) < 1.0
    same, small = adapt(p, BaseRate(0.5, 3.0, 4))
    assert same.tolist() == p.tolist()
    assert not small.adapted and small.used == 0.5 and small.sets == 3
    assert small.mean_moved == small.mean_alone == pytest.approx(0.6333333333333333)
    assert group_rate(p, BaseRate(0.5, 0.0, 3)).used == pytest.approx(0.8159607246715797,
                                                                      abs=1e-12)


def test_words_say_the_rates_or_why_not() -> None:
    moved = GroupRate(164, 0.22, 0.33, 0.31, True, 0.4, 0.306)
    assert rate_words("model X", moved, 20) == (
        "risk level set from this run's 164 sets of model X: about 31 % of kept versions "
        "wrong (each set alone: 40 %; the fit assumed 22 %)")
    assert rate_words("m", GroupRate(1, 0.5, 0.002, 0.003, True, 0.3, 0.004), 1) == (
        "risk level set from this run's 1 set of m: less than 1 % of kept versions wrong "
        "(each set alone: 30 %; the fit assumed 50 %)")
    assert rate_words("m", GroupRate(7, 0.5, 0.2, 0.5, False, 0.3, 0.3), 20) == (
        "risk per set for m: 7 sets with a risk, fewer than the 20 it takes to tell the "
        "model's own rate")
    # a rule that never moves says why each set keeps its own risk
    assert rate_words("m", GroupRate(70, 0.5, 0.2, 0.5, False, 0.3, 0.3), NEVER) == (
        "risk per set for m: 70 sets with a risk, each its own (a run's own rate did not "
        "hold on every model family left out of the fit)")


def test_the_shipped_model_carries_the_rule() -> None:
    rule = BaseRate.from_model(load_model())
    assert 0.0 < rule.prior < 1.0
    assert rule.pseudo_count >= 0.0
    assert rule.min_sets >= 1


risks = st.lists(st.floats(min_value=0.001, max_value=0.999), min_size=1, max_size=40)
priors = st.floats(min_value=0.05, max_value=0.95)
counts = st.sampled_from([0.0, 5.0, 20.0, 100.0])


@settings(max_examples=200, deadline=None)
@given(risks, priors, counts, st.data())
def test_every_moved_risk_rises_with_every_input_risk(p: list[float], prior: float,
                                                      k: float, data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(p) - 1))
    up = data.draw(st.floats(min_value=0.0, max_value=0.999 - p[i]))
    higher = list(p)
    higher[i] = p[i] + up
    rule = BaseRate(prior, k, 1)
    before, _ = adapt(np.array(p), rule)
    after, _ = adapt(np.array(higher), rule)
    assert np.all(after >= before - 1e-9)


@settings(max_examples=200, deadline=None)
@given(risks, counts)
def test_a_group_whose_mean_risk_is_the_prior_stays_where_it_is(p: list[float],
                                                                k: float) -> None:
    q = np.array(p)
    prior = float(q.mean())
    if not 0.01 < prior < 0.99:
        return
    moved, rate = adapt(q, BaseRate(prior, k, 1))
    # risks all close to the prior leave the likelihood nearly flat around it: its peak is
    # found to within rounding over that flatness (1e-8 at worst), not to the last bit
    assert rate.used == pytest.approx(prior, abs=1e-7)
    assert moved == pytest.approx(q, abs=1e-7)


@settings(max_examples=200, deadline=None)
@given(risks, priors, counts)
def test_moved_risks_are_probabilities_in_the_same_order(p: list[float], prior: float,
                                                        k: float) -> None:
    q = np.array(p)
    moved, rate = adapt(q, BaseRate(prior, k, 1))
    assert np.all((moved >= 0.0) & (moved <= 1.0))
    assert 0.0 <= rate.estimated <= 1.0 and 0.0 <= rate.used <= 1.0
    order = np.argsort(q, kind="stable")
    assert np.all(np.diff(moved[order]) >= -1e-12)
