"""Pass-rate spread and output equivalence (OER)."""

from __future__ import annotations

import pytest

from codequorum.metrics.semantic import (
    Outcome,
    agreement_matrix,
    first_divergence,
    oer,
    outcomes_equal,
    output_groups,
    pair_mean_oer,
    pass_rate_stats,
    pass_rates,
    show_outcome,
)


def ret(v: str) -> Outcome:
    return (v, None, None)


def exc(t: str, m: str) -> Outcome:
    return (None, t, m)


def test_pass_rates_and_population_variance() -> None:
    rates = pass_rates([[True, True, False, True], [True, False, False, False], [], [True] * 4])
    assert rates == [0.75, 0.25, None, 1.0]
    stats = pass_rate_stats(rates)
    assert stats is not None
    assert stats.n == 3
    assert stats.mean == pytest.approx(2.0 / 3.0, abs=1e-9, rel=0)
    m = 2.0 / 3.0
    assert stats.var == pytest.approx(
        ((0.75 - m) ** 2 + (0.25 - m) ** 2 + (1 - m) ** 2) / 3, abs=1e-9, rel=0
    )
    assert stats.max_diff == pytest.approx(0.75, abs=1e-9, rel=0)
    assert pass_rate_stats([None, None]) is None


def test_outcome_equality_rules() -> None:
    assert outcomes_equal(ret("3"), ret("3"))
    assert not outcomes_equal(ret("3"), ret("4"))
    assert outcomes_equal(exc("ValueError", "x"), exc("ValueError", "x"))
    assert not outcomes_equal(exc("ValueError", "x"), exc("ValueError", "y"))
    assert not outcomes_equal(exc("ValueError", "x"), exc("TypeError", "x"))
    assert not outcomes_equal(
        exc("ValueError", "x"), exc("ValueError", "x"), include_exceptions=False
    )
    assert not outcomes_equal(ret("None"), exc("ValueError", ""))
    assert not outcomes_equal(None, None)
    assert not outcomes_equal(ret("1"), None)


def test_oer_variants() -> None:
    outcomes: list[list[Outcome | None]] = [
        [ret("1"), exc("ZeroDivisionError", "division by zero"), ret("[1, 2]"), ret("5")],
        [ret("1"), exc("ZeroDivisionError", "division by zero"), ret("[2, 1]"), ret("5")],
        [ret("1"), exc("ZeroDivisionError", "division by zero"), ret("[1, 2]"), None],
    ]
    assert oer(outcomes) == pytest.approx(2 / 4, abs=1e-9, rel=0)
    assert oer(outcomes, include_exceptions=False) == pytest.approx(1 / 4, abs=1e-9, rel=0)
    # pairs (0,1): 3/4, (0,2): 3/4, (1,2): 2/4
    assert pair_mean_oer(outcomes) == pytest.approx((0.75 + 0.75 + 0.5) / 3, abs=1e-9, rel=0)
    assert pair_mean_oer(outcomes, include_exceptions=False) == pytest.approx(
        (0.5 + 0.5 + 0.25) / 3, abs=1e-9, rel=0
    )
    mat = agreement_matrix(outcomes)
    assert mat[0, 1] == mat[1, 0] == 0.75
    assert mat[2, 2] == 1.0
    assert oer([]) is None
    assert oer([[]]) is None
    assert pair_mean_oer([[ret("1")]]) is None
    assert oer([[ret("1"), ret("2")]]) == 1.0


def test_first_divergence_names_majority_and_first_dissenter() -> None:
    outcomes = [
        [ret("1"), ret("3")],
        [ret("1"), ret("4")],
        [ret("1"), ret("3")],
        [ret("1"), exc("IndexError", "list index out of range")],
    ]
    d = first_divergence(outcomes)
    assert d is not None
    assert d.input_index == 1
    assert (d.a, d.b) == (0, 1)
    assert (d.shown_a, d.shown_b) == ("3", "4")
    assert [g[1] for g in d.groups] == [(0, 2), (1,), (3,)]
    assert show_outcome(outcomes[3][1]) == "raises IndexError: list index out of range"
    assert show_outcome(None) == "no result"
    # a docstring example's printed value, as the docstring writes it (no line end)
    assert show_outcome(ret("[(1, 2), (3, 4)]\n")) == "[(1, 2), (3, 4)]"
    assert first_divergence([[ret("1")], [ret("1")]]) is None


def test_first_divergence_with_no_results() -> None:
    # no version has a result (none loaded): nothing parts them
    assert first_divergence([[None], [None]]) is None
    d = first_divergence([[None, None], [None, ret("1")]])
    assert d is not None and d.input_index == 1
    assert {d.shown_a, d.shown_b} == {"no result", "1"}


def test_output_groups_put_each_version_in_one_group() -> None:
    two = ("2", None, None)
    rows: list[list[tuple[str | None, str | None, str | None] | None]] = [
        [two, ("4", None, None)],
        [(None, "ValueError", "x"), None],
        [two, ("4", None, None)],
        [(None, "ValueError", "x"), None],
        [two],  # a short row: no result on the second input
        [two, ("5", None, None)],
    ]
    assert output_groups(rows) == [[0, 2], [1, 3], [4], [5]]
    assert output_groups([]) == []
    assert output_groups([[], []]) == [[0, 1]]
