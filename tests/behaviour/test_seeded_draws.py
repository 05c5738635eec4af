"""Hypothesis draws from the seed alone."""

from __future__ import annotations

from hypothesis import strategies as st

from codequorum.behaviour.seeded_draws import distinct_draws


def test_draws_are_distinct_and_the_same_on_every_call() -> None:
    first = distinct_draws(st.integers(0, 1000), 5)
    assert len(first) == 5 and len(set(first)) == 5
    assert distinct_draws(st.integers(0, 1000), 5) == first


def test_fewer_values_than_asked_give_what_there_is() -> None:
    assert sorted(distinct_draws(st.booleans(), 5)) == [False, True]
    assert distinct_draws(st.integers(), 0) == []
