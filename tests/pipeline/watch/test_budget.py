"""The watch's hourly budget."""

from __future__ import annotations

from codequorum.pipeline.watch.budget import HOUR, HourlyBudget


def test_at_most_limit_samplings_in_any_hour() -> None:
    now = [1000.0]
    budget = HourlyBudget(lambda: now[0])
    assert [budget.spend(3) for _ in range(4)] == [True, True, True, False]
    assert budget.left(3) == 0
    now[0] += HOUR - 1
    assert not budget.spend(3)
    now[0] += 1
    assert budget.left(3) == 3 and budget.spend(3)
    assert budget.left(5) == 4


def test_a_refused_sampling_is_not_counted() -> None:
    now = [0.0]
    budget = HourlyBudget(lambda: now[0])
    assert budget.spend(1)
    for _ in range(10):
        assert not budget.spend(1)
    now[0] += HOUR
    assert budget.spend(1)
    assert not budget.spend(0)
