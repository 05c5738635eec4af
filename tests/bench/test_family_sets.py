"""The sets of the family benchmarks scored again with a disputed example set aside
(``bench/family_sets.py``), and the maps ``bench/bench_family_risk.py`` measures."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from bench_family_risk import (
    fails_disputed,
    guarded_map,
    matrix_features,
    platt_map,
    worst_family_map,
)
from codequorum.judge.risk import RiskSignals
from family_sets import disputed_examples, disputed_of, signal_record, without_disputed
from fit_risk import log_loss
from fit_risk_families import (
    TARGET_GAP,
    expit,
    family_weights,
    level_shift,
    logit,
    plain_claims,
)


def test_an_example_every_version_fails_alike_is_disputed() -> None:
    # columns 0 and 2 are examples; every version returns "= 3" on column 0 and fails it
    keys: list[list[str | None]] = [["= 3", "= 1", "= 5"], ["= 3", "= 2", "= 5"],
                                    ["= 3", "= 1", "= 6"]]
    passes = [[False, True], [False, True], [False, False]]
    assert disputed_examples(keys, passes, [0, 2]) == [0]
    # one version passing it (the others return alike): not disputed
    assert disputed_examples(keys, [[True, True], [False, True], [False, False]], [0, 2]) == []
    # failed by all, but not alike (column 2 parts 5 / 6), or one version raising
    assert disputed_examples(keys, [[False, False]] * 3, [0, 2]) == [0]
    raising: list[list[str | None]] = [["= 3"], ["= 3"], [None]]
    assert disputed_examples(raising, [[False]] * 3, [0]) == []
    # a short row is a version without a result there
    assert disputed_examples([["= 3"], ["= 3"], []], [[False]] * 3, [0]) == []
    # too few versions to tell a wrong example from one shared mistake
    assert disputed_examples(keys[:2], passes[:2], [0, 2]) == []
    assert disputed_examples(keys[:2], passes[:2], [0, 2], fewest=2) == [0]
    assert disputed_examples(keys, passes, []) == []


def record(first_example: list[str | None], passes: list[list[bool]]) -> dict[str, Any]:
    """Four versions, columns 0 and 1 the examples, 2 and 3 drawn inputs; version 0 kept
    (it passes example 1 and agrees most beyond the examples)."""
    keys = [[first_example[v], ex2, b1, b2] for v, (ex2, b1, b2) in enumerate(
        [("= 2", "= 5", "= 7"), ("= 2", "= 5", "= 7"), ("= 2", "= 5", "= 8"),
         ("= 9", "= 6", "= 8")])]
    passed = [sum(row) for row in passes]
    signals = RiskSignals(versions=4, agreed=True, agreeing=2, examples=2,
                          passes_examples=False, passing=0)
    return {"set": "s", "family": "f", "task_id": "t/1", "draw": [0, 1, 2, 3], "n": 4,
            "truth": [True, True, False, False], "kept": 0,
            "signals": signal_record(signals), "keys": keys, "examples_passed": passed,
            "examples": 2, "example_cols": [0, 1], "example_pass": passes,
            "typicality": {"0": 0.5, "1": 0.4, "2": 0.3, "3": 0.2},
            "texts": ["a", "b", "c", "d"]}


def test_an_example_every_version_fails_alike_no_longer_counts_against_the_kept_one() -> None:
    rec = record(["= 3"] * 4, [[False, True], [False, True], [False, True], [False, False]])
    assert disputed_of(rec) == [0]
    got = without_disputed(rec)
    sig = RiskSignals(**got["signals"])
    assert (got["kept"], got["example_cols"], got["examples_passed"]) == (0, [1], [1, 1, 1, 0])
    assert (sig.kind, sig.examples, sig.passing, sig.agreeing) == ("examples", 1, 3, 2)
    assert got["disputed"] == [0]
    assert got["example_pass"] == [[True], [True], [True], [False]]
    assert fails_disputed(rec) == 1.0  # the feature the risk could read instead


def test_a_kept_version_failing_an_undisputed_example_too_is_not_excused() -> None:
    rec = record(["= 3"] * 4, [[False, False], [False, True], [False, True], [False, False]])
    assert disputed_of(rec) == [0]
    assert fails_disputed(rec) == 0.0
    assert fails_disputed({**rec, "example_pass": [[True, True]] * 4}) == 0.0


def test_an_example_versions_fail_apart_or_one_passes_stays() -> None:
    apart = record(["= 3", "= 3", "= 4", "= 3"], [[False, True]] * 3 + [[False, False]])
    assert disputed_of(apart) == []
    assert without_disputed(apart) == apart
    one_passes = record(["= 3"] * 4, [[True, True], [False, True], [False, True],
                                      [False, False]])
    assert without_disputed(one_passes)["signals"] == one_passes["signals"]


def families() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Held-out risks of two families: ``a`` told right, ``b`` given half its share wrong."""
    rng = np.random.default_rng(3)
    p = np.concatenate([rng.uniform(0.05, 0.6, 400), rng.uniform(0.05, 0.6, 400)])
    truth = np.concatenate([p[:400], np.minimum(1.0, 2 * p[400:])])
    y = (rng.uniform(size=800) < truth).astype(float)
    return p, y, np.array(["a"] * 400 + ["b"] * 400)


def test_the_guarded_map_leaves_no_family_optimistic() -> None:
    p, y, fam = families()
    assert y[fam == "b"].mean() - p[fam == "b"].mean() > 0.1
    q = guarded_map(p, y, fam)(p)
    for g in ("a", "b"):
        assert q[fam == g].mean() >= y[fam == g].mean() - TARGET_GAP - 1e-9
    assert np.all(np.diff(q[np.argsort(p)]) >= -1e-12)  # monotone: the order kept


def test_the_worst_family_map_serves_the_worst_family_better_than_platts() -> None:
    p, y, fam = families()
    q = worst_family_map(p, y, fam)(p)
    pooled = platt_map(p, y, fam)(p)

    def worst(r: np.ndarray) -> float:
        return float(max(log_loss(r[fam == g], y[fam == g]) for g in ("a", "b")))

    assert worst(q) < worst(pooled) < worst(p)
    before = y[fam == "b"].mean() - p[fam == "b"].mean()
    assert 0 < y[fam == "b"].mean() - q[fam == "b"].mean() < before  # raised, not all the way


def test_the_level_shift_moves_the_weighted_mean_risk_to_the_share_wrong() -> None:
    p, y, fam = families()
    d, slope = level_shift(p, y, fam)
    w = family_weights([{"family": f} for f in fam])
    assert slope == 1.0 and d > 0  # family b is given too little
    moved = expit(logit(p) + d)
    assert abs(np.average(moved, weights=w) - np.average(y, weights=w)) < 1e-9
    assert level_shift(p[:10], y[:10], fam[:10]) == (0.0, 1.0)  # too few to move


def test_how_often_the_versions_return_counts_every_cell_a_value_fills() -> None:
    keys: list[list[str | None]] = [["= 1", "= 2", None], ["= 1", None, None], ["= 1"]]
    got = matrix_features(keys, [0], 0, [1, 1, 1])
    assert got["set_returns"] == 4 / 9  # the short row counts as two empty cells
    assert matrix_features([], [], 0, None)["set_returns"] == 0.0


def _plain_rows(family: str, wrong_in_five: int, n: int) -> list[dict[str, Any]]:
    """``n`` sets of ``family`` without examples, ``wrong_in_five`` of every five kept
    wrong (version 0 kept, right or not)."""
    return [{"family": family, "kept": 0, "truth": [k % 5 >= wrong_in_five, True]}
            for k in range(n)]


def test_the_plain_views_claims_hold_on_every_family_not_the_pooled_one() -> None:
    # two families told 0.5 alike: one wrong 20 % of the time, the other 80 %
    rows = _plain_rows("strong", 1, 100) + _plain_rows("weak", 4, 100)
    claims = plain_claims(rows, np.full(len(rows), 0.5))
    # the bin holding 0.5 saw 20 % and 80 %: neither likely right nor likely wrong
    step = next(b for b in claims["levels"] if b["below"] == 0.7)
    assert step["level"] == "uncertain" and step["observed"] == [0.2, 0.8]
    assert step["sets"] == 200
    # a range of +-w around 0.5 holds both once it meets each cell's share within its
    # sampling error: 5 and 20 wrong of 25 have 90 % Wilson intervals up from 0.64 and down
    # from 0.36, met by expit(0.6) = 0.646 (expit(0.5) = 0.622 falls short)
    assert claims["half_width"] == 0.6
    # each family's cells under the half-width chosen on the other one alone: as far off
    assert claims["held_out"]["strong"] == {"half_width": 0.6, "cells": 4, "covered": 4}
    assert claims["held_out"]["weak"] == {"half_width": 0.6, "cells": 4, "covered": 4}
    # told 0.2 alike: right for the strong family, and no width chosen on it alone reaches
    # the weak one's 80 %; the weak one's needs logit(0.642) - logit(0.2) = 1.97
    low = plain_claims(rows, np.full(len(rows), 0.2))
    assert low["held_out"]["weak"] == {"half_width": 0.0, "cells": 4, "covered": 0}
    assert low["held_out"]["strong"] == {"half_width": 2.0, "cells": 4, "covered": 4}
    assert low["half_width"] == 2.0
    below = next(b for b in low["levels"] if b["below"] == 0.4)
    assert below["level"] == "uncertain" and below["observed"] == [0.2, 0.8]
    # told each its own share, the range needs no width
    told = np.array([0.2] * 100 + [0.8] * 100)
    exact = plain_claims(rows, told)
    assert exact["half_width"] == 0.0
    assert all(h["covered"] == h["cells"] == 4 for h in exact["held_out"].values())
