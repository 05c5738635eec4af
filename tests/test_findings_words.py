"""Plain words for the risk and the stability percentile."""

from __future__ import annotations

import pytest

from codequorum.findings import percentile_words, risk_words


@pytest.mark.parametrize(
    ("risk", "words"),
    [(0.34, "about 1 in 3"), (0.5, "about 1 in 2"), (0.1, "about 1 in 10"),
     (0.72, "about 7 in 10"), (0.004, "less than 1 in 100"), (0.995, "more than 99 in 100")],
)
def test_risk_words(risk: float, words: str) -> None:
    assert risk_words(risk) == words


def test_percentile_words() -> None:
    assert percentile_words(8.0) == "less stable than 92 % of HumanEval functions"
    assert percentile_words(20.0) == "less stable than 80 % of HumanEval functions"
    assert percentile_words(60.4) == "more stable than 60 % of HumanEval functions"
