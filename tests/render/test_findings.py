"""Plain words for the stability percentile."""

from __future__ import annotations

from codequorum.render.findings import percentile_words


def test_percentile_words() -> None:
    assert percentile_words(8.0) == "less stable than 92 % of HumanEval functions"
    assert percentile_words(20.0) == "less stable than 80 % of HumanEval functions"
    assert percentile_words(60.4) == "more stable than 60 % of HumanEval functions"
