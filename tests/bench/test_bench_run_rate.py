"""The run level's choices (``bench/bench_run_rate.py``): the pseudo-count by the worst
family's ECE, the fewest sets from which moving gains at every larger size."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from bench_run_rate import NEVER, choose_min_sets, choose_pseudo_count


def test_the_pseudo_count_with_the_lowest_worst_ece_is_chosen_the_larger_on_a_tie() -> None:
    assert choose_pseudo_count({30: 0.088, 100: 0.068, 200: 0.057, 400: 0.049,
                                1000: 0.063}) == 400
    assert choose_pseudo_count({100: 0.05, 400: 0.05, 200: 0.06}) == 400


def _figures(per_size: dict[str, tuple[float, float]]) -> dict[str, dict[str, Any]]:
    """Two families alike: per run size, (log-loss, ECE)."""
    entry = {size: {"log_loss": loss, "ece": e} for size, (loss, e) in per_size.items()}
    return {"a": entry, "b": entry}


ALONE = _figures({"10": (0.30, 0.08), "30": (0.30, 0.08), "100": (0.30, 0.08),
                  "whole": (0.30, 0.08)})


def test_the_fewest_sets_is_the_smallest_size_from_which_every_larger_gains() -> None:
    gains = _figures({"10": (0.29, 0.07), "30": (0.28, 0.06), "100": (0.27, 0.05),
                      "whole": (0.26, 0.05)})
    assert choose_min_sets(ALONE, gains) == 10
    # runs of 10 lose on log-loss, of 30 on ECE: from 100 on every size gains
    late = _figures({"10": (0.31, 0.07), "30": (0.29, 0.09), "100": (0.27, 0.05),
                     "whole": (0.26, 0.05)})
    assert choose_min_sets(ALONE, late) == 100
    # whole runs lose: no size gains from which on every larger one does too
    never = _figures({"10": (0.29, 0.07), "30": (0.28, 0.06), "100": (0.27, 0.05),
                      "whole": (0.31, 0.05)})
    assert choose_min_sets(ALONE, never) == NEVER
