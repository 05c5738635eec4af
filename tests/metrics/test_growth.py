"""The growth exponent of CPU time per call against the input size."""

from __future__ import annotations

import numpy as np
import pytest

from codequorum.metrics.growth import (
    COST_FLOOR_NS,
    growth_class,
    growth_exponent,
    judged_class,
    local_slopes,
    undecided,
)

SIZES = np.array([8, 64, 512])


def test_power_laws_give_their_exponent() -> None:
    assert growth_exponent(SIZES, 5.0 * SIZES**2) == pytest.approx(2.0, abs=1e-12)
    assert growth_exponent(SIZES, 40.0 * SIZES) == pytest.approx(1.0, abs=1e-12)
    assert growth_exponent(np.array([8, 64]), np.array([1000, 8000])) == pytest.approx(1.0)


def test_the_slope_is_taken_where_the_fixed_cost_no_longer_hides_growth() -> None:
    # 2 µs of fixed cost per call and 10 ns per item: the small sizes look flat
    costs = 2000.0 + 10.0 * SIZES
    whole = float(np.polyfit(np.log(SIZES), np.log(costs), 1)[0])
    assert whole == pytest.approx(0.30, abs=0.01)
    assert growth_exponent(SIZES, costs) == pytest.approx(np.log(7120 / 2640) / np.log(8))
    # with five sizes the larger three count
    five = np.array([8, 64, 512, 4096, 32768])
    assert growth_exponent(five, 3.0 * five**2 + np.array([1e6, 1e6, 0, 0, 0])) == (
        pytest.approx(2.0, abs=0.01))


def test_noise_below_the_floor_is_not_growth() -> None:
    # a lookup: tens of nanoseconds whatever the size, give or take the clock's noise
    assert growth_exponent(SIZES, np.array([60, 20, 110])) == 0.0
    assert growth_exponent(SIZES, np.array([0, 0, 0])) == 0.0
    # one cost above the floor: the slope from the floor, a lower bound
    assert growth_exponent(SIZES, np.array([90, 0.8 * COST_FLOOR_NS, 8 * COST_FLOOR_NS])) == (
        pytest.approx(1.0))
    # a linear pass in C on a fast processor (sum of 8, 64, 512 ints at 2 ns an int) grows
    linear = growth_exponent(SIZES, np.array([30, 140, 1000]))
    assert linear is not None and growth_class(linear) == 1


def test_constant_work_above_the_floor_stays_near_zero_under_noise() -> None:
    rng = np.random.default_rng(1)
    for _ in range(200):
        costs = 5000.0 * rng.uniform(1.0, 1.15, size=3)  # a busy machine only adds
        k = growth_exponent(SIZES, costs)
        assert k is not None and abs(k) < 0.1


def test_too_few_sizes_give_none() -> None:
    assert growth_exponent(np.array([8]), np.array([100])) is None
    assert growth_exponent(np.array([8, 8]), np.array([100, 200])) is None
    assert growth_exponent(np.array([], dtype=int), np.array([])) is None
    assert growth_exponent(np.array([0, 64]), np.array([5, 500])) is None
    assert growth_exponent(np.array([8, 64]), np.array([np.nan, 500])) is None


def test_classes_are_whole_exponents_that_noise_does_not_move() -> None:
    assert [growth_class(k) for k in (-0.4, 0.0, 0.49, 0.5, 0.64, 1.24, 1.49, 1.5, 1.64,
                                      1.66, 2.1, 2.6, 3.7)] == [
        0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 4]  # above n, a slope past a half-way point by
    # less than the margin (a neighbour's load lifts the largest sizes) keeps the class
    # below


def test_a_quadratic_series_stays_quadratic_and_a_sort_linear() -> None:
    assert judged_class(SIZES, [3000, 100_000, 6_200_000]) == 2
    assert judged_class(SIZES, [600, 1600, 15_400]) == 1
    assert judged_class(SIZES, [100, 120, 90]) == 0  # below the floor: constant
    assert judged_class(np.array([8]), [100]) is None


def test_a_slope_near_where_the_class_changes_is_not_judged() -> None:
    assert [undecided(e) for e in (0.4, 1.2, 1.5, 1.6, 1.7, 1.8, 2.0, 2.6, 2.8)] == [
        False, False, False, True, True, False, False, True, False]
    # 64 -> 512 grows 8^1.62 times: between n and n², neither is claimed
    assert judged_class(SIZES, [1000, 10_000, 10_000 * 8**1.62]) is None


def test_a_slowed_middle_size_is_not_judged_rather_than_guessed() -> None:
    # a quadratic series whose 64 was timed twice too slow reads 1.67 from 64 to 512
    noisy = [3000, 200_000, 6_200_000]
    assert local_slopes(SIZES, noisy) == pytest.approx(
        [np.log(200_000 / 3000) / np.log(8), np.log(31) / np.log(8)])
    assert judged_class(SIZES, noisy) is None
    # fixed costs flatten the small sizes: a steeper top is growth, not noise
    assert judged_class(SIZES, [2000, 3000, 16_000]) == 1
