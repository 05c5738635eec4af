"""Plain words for the stability percentile."""

from __future__ import annotations

from codequorum.render.findings import percentile_words


def test_percentile_words() -> None:
    assert percentile_words(8.0) == "less stable than 92 % of HumanEval functions"
    assert percentile_words(20.0) == "less stable than 80 % of HumanEval functions"
    assert percentile_words(60.4) == "more stable than 60 % of HumanEval functions"


def test_what_a_run_ran_on_counts_its_inputs_by_origin() -> None:
    from codequorum.render.findings import ran_on

    inputs = [{"source": "doctest", "origin": "doctest"}, {"source": "edge", "origin": "edge"},
              {"source": "edge", "origin": "edge"}, {"source": "model"}]  # older report
    assert ran_on(inputs) == "ran on 4 inputs: 1 doctest, 2 edge, 1 proposed"
    assert ran_on([{"source": "caller", "origin": "caller"}]) == "ran on 1 input: 1 caller"
    assert ran_on([{"source": "test", "origin": "test"}], "node 20.20.2") == \
        "ran on 1 input in node 20.20.2: 1 test"
    assert ran_on([]) is None
