"""Which version to keep: outcome keys, the outcome matrix, agreement, ties, fallbacks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from codequorum.behaviour.dynamic_analysis import CandidateDynamic, RuleFigures
from codequorum.core.model import VersionSet
from codequorum.core.report import Verdict
from codequorum.core.values import canonical_output
from codequorum.judge.recommend import (
    agreement_scores,
    behaviours,
    constant_output,
    example_columns,
    example_passes,
    examples_from_dynamic,
    fell_through,
    is_example,
    is_test_input,
    keys_from_dynamic,
    outcome_key,
    outcome_matrix,
    output_clusters,
    output_rank,
    recommend,
)
from codequorum.judge.risk import NO_INPUTS, NOT_RUN, RiskEstimate, trust_words
from codequorum.metrics.semantic import Divergence
from codequorum.pipeline.analyze import analyze
from codequorum.pipeline.config import AnalysisConfig


def test_outcome_key_values_exceptions_and_no_result() -> None:
    assert outcome_key(("[1, 2]", None, None)) == "= [1, 2]"
    assert outcome_key(("None", None, None)) == "= None"
    assert outcome_key(("x", "ValueError", "bad 3")) is None
    assert outcome_key((None, "ValueError", "other message")) is None
    assert outcome_key((None, "Timeout", "")) is None
    assert outcome_key((None, "SyntaxError", "invalid")) is None
    assert outcome_key(None) is None
    assert outcome_key((None, None, None)) is None


def test_test_inputs_are_hidden_tests_and_graded_non_doctests() -> None:
    assert is_test_input("humaneval", True)
    assert is_test_input("tests", True)
    assert is_test_input("tests", False)
    assert not is_test_input("doctest", True)  # in the prompt: outputs may be compared
    assert not is_test_input("doctest", False)
    assert not is_test_input("hypothesis", False)
    assert not is_test_input("scaling", False)
    assert is_test_input("hypothesis", True)


def test_outcome_matrix_drops_test_inputs() -> None:
    inputs = [{"source": "humaneval", "graded": True}, {"source": "doctest", "graded": False},
              {"source": "hypothesis", "graded": False}, {"source": "scaling", "graded": False}]
    outcomes: list[list[tuple[str | None, str | None, str | None] | None]] = [
        [("1", None, None), ("2", None, None), None, (None, "Timeout", "")],
        [("9", None, None), ("2", None, None), (None, "KeyError", "'a'")],  # short row
    ]
    assert outcome_matrix(outcomes, inputs) == [
        ["= 2", None, None],
        ["= 2", None, None],
    ]


def test_falling_off_the_end_is_no_answer_where_the_version_answers_elsewhere() -> None:
    none = outcome_key(("None", None, None))
    undefined = outcome_key(('{"$":"undefined"}', None, None))  # the Node runtime's
    assert fell_through([none, "= 3", None]) == [None, "= 3", None]
    assert fell_through([undefined, "= [1]"]) == [None, "= [1]"]
    # a procedure returns None throughout: that is its answer
    assert fell_through([none, none, None]) == [none, none, None]
    # a string 'None' is a value
    assert fell_through(["= 'None'", "= 3"]) == ["= 'None'", "= 3"]


def test_versions_falling_through_alike_do_not_outvote_one_that_answers() -> None:
    # versions 1 and 2 return the right value on the example but fall off the end on the
    # two larger inputs (None); version 3 answers everywhere: before, the two agreeing on
    # None outscored it (2 + 2 + 2 against 2), now version 3's answers tie theirs and it
    # answers on more inputs
    inputs: list[dict[str, Any]] = [{"source": "doctest", "graded": False},
                                    {"source": "hypothesis"}, {"source": "hypothesis"}]
    outcomes = [[("2", None, None), ("None", None, None), ("None", None, None)],
                [("2", None, None), ("None", None, None), ("None", None, None)],
                [("2", None, None), ("13", None, None), ("89", None, None)]]
    keys = outcome_matrix(outcomes, inputs)
    assert keys == [["= 2", None, None], ["= 2", None, None], ["= 2", "= 13", "= 89"]]
    assert agreement_scores(keys).tolist() == [2, 2, 2]
    rec = recommend(keys, [0.9, 0.8, 0.1], [0, 1, 2])
    assert rec is not None and rec.index == 2


def test_agreement_scores_count_other_versions_per_input() -> None:
    keys: list[list[str | None]] = [["= 1", "= 2"], ["= 1", "= 3"], ["= 1", "= 2"],
                                    [None, "= 2"]]
    # input 0: three versions return 1 (2 others each); input 1: three return 2
    assert agreement_scores(keys).tolist() == [4, 2, 4, 2]
    assert agreement_scores([]).tolist() == []


def test_output_clusters_count_distinct_rows_with_a_result() -> None:
    keys: list[list[str | None]] = [["= 1", "= 2"], ["= 1", "= 2"], ["= 1", "= 3"],
                                    [None, None]]
    assert output_clusters(keys) == 2


def test_recommend_majority_behaviour_and_sentence() -> None:
    keys = [["= 0", "= 0"], ["= 1", "= 4"], ["= 1", "= 4"], ["= 1", "= 4"], ["= 1", "= 5"]]
    rec = recommend(keys, [0.9, 0.5, 0.6, 0.4, 0.8], [0, 1, 2, 3, 4])
    assert rec is not None
    # versions 1, 2, 3 score 3 + 2 = 5 each (4 only 3); the tie goes to the most typical
    assert agreement_scores(keys).tolist() == [0, 5, 5, 5, 3]
    assert rec.index == 2
    assert rec.by == "behaviour"
    assert rec.score == 5
    assert rec.agreeing == 3
    assert rec.inputs == 2
    assert rec.share == pytest.approx(5 / 8)
    assert rec.sentence == "keep version 3: 3 of 5 versions agree with it on 2 inputs"


def test_recommend_tie_on_typicality_goes_to_first() -> None:
    keys = [["= 1"], ["= 1"]]
    rec = recommend(keys, [0.7, 0.7], [0, 1])
    assert rec is not None and rec.index == 0
    assert rec.sentence == "keep version 1: 2 of 2 versions agree with it on 1 input"


def test_recommend_tie_on_agreement_goes_to_the_version_returning_more() -> None:
    # every version agrees with the others on the first input only; version 2 raises on
    # the second where the others return: the most typical of those returning is kept
    keys: list[list[str | None]] = [["= 1", "= 5"], ["= 1", None], ["= 1", "= 6"]]
    rec = recommend(keys, [0.5, 0.9, 0.4], [0, 1, 2])
    assert rec is not None and rec.index == 0 and rec.score == 2
    # where all return alike often, typicality decides as before
    rec = recommend([["= 1", "= 5"], ["= 1", "= 7"], ["= 1", "= 6"]], [0.5, 0.9, 0.4],
                    [0, 1, 2])
    assert rec is not None and rec.index == 1


def test_a_tie_in_behaviour_goes_to_the_current_code_before_typicality() -> None:
    """Versions 1 (the code in the file) and 2 return alike everywhere and pass the same
    example; version 2 is more typical, yet keeping it would be an edit the run cannot
    justify. The current code never wins over a version the run prefers."""
    keys = [["= 1", "= 5"], ["= 1", "= 5"], ["= 1", "= 6"]]
    typ = [0.4, 0.9, 0.5]
    rec = recommend(keys, typ, [0, 1, 2], [1, 1, 1], 1)
    assert rec is not None and rec.index == 1
    rec = recommend(keys, typ, [0, 1, 2], [1, 1, 1], 1, current=0)
    assert rec is not None and rec.index == 0 and rec.score == 3
    # the current code apart from the majority, or failing an example the others pass
    assert recommend(keys, typ, [0, 1, 2], current=2).index == 1  # type: ignore[union-attr]
    assert recommend(keys, typ, [0, 1, 2], [0, 1, 1], 1,
                     current=0).index == 1  # type: ignore[union-attr]


def test_constant_output_is_one_value_where_another_version_varies() -> None:
    keys: list[list[str | None]] = [["= 0", "= 0", "= 0", None],
                                    ["= 0", "= 1", "= 2", "= 3"],
                                    ["= 0", "= 0", "= 0", "= 0"]]
    assert constant_output(keys, 0)  # one value on its 3 inputs; version 2 varies there
    assert constant_output(keys, 2)
    assert not constant_output(keys, 1)
    # where every version returns the one value, the inputs do not tell them apart
    alike = [["= 0"] * 3, ["= 0"] * 3]
    assert not constant_output(alike, 0)
    # fewer inputs with a result than CONSTANT_LEAST: no constant answer is read
    assert not constant_output([["= 0", "= 0", None], ["= 0", "= 1", "= 2"]], 0)
    assert constant_output([["= 0", "= 0", None], ["= 0", "= 1", "= 2"]], 0, least=2)
    # another version varying only on inputs where this one has no result does not count
    assert not constant_output([["= 5", "= 5", "= 5", None],
                                ["= 5", "= 5", "= 5", "= 6"], ["= 5", "= 5", "= 5", "= 7"]], 0)


def test_output_rank_puts_constant_answers_between_varied_outputs_and_none() -> None:
    keys: list[list[str | None]] = [["= 1", "= 1", "= 1"], ["= 1", "= 2", "= 3"],
                                    [None, None, None], ["= 1", None, None]]
    assert [output_rank(keys, v) for v in range(4)] == [1, 0, 2, 0]
    assert output_rank(keys, 9) == 2


def test_recommend_puts_a_constant_answer_after_versions_whose_outputs_vary() -> None:
    # versions 1-3 return False on every input; version 4 varies and shares their value
    # on two inputs: the constant ones have more agreements (3 + 2 + 3 + 2 = 10 vs 6)
    false, true = "= False", "= True"
    keys = [[false, false, false, false], [false, false, false, false],
            [false, false, false, false], [false, true, false, true]]
    assert agreement_scores(keys).tolist() == [10, 10, 10, 6]
    rec = recommend(keys, [0.9, 0.8, 0.7, 0.1], [0, 1, 2, 3])
    assert rec is not None and rec.index == 3 and rec.by == "behaviour"
    # the docstring's examples still come first: a constant version passing more is kept
    rec = recommend(keys, [0.9, 0.8, 0.7, 0.1], [0, 1, 2, 3], [1, 1, 1, 0], 1)
    assert rec is not None and rec.index == 0
    # a constant answer still comes before a version returning nothing at all (versions
    # 3 and 4 are not candidates; version 3 varies, version 4 shares version 1's value)
    mixed: list[list[str | None]] = [["= 9"] * 3, [None] * 3, ["= 0", "= 1", "= 2"],
                                     ["= 9"] * 3]
    rec = recommend(mixed, [0.1, 0.9], [0, 1])
    assert rec is not None and rec.index == 0 and rec.by == "behaviour"


def test_recommend_only_among_candidates() -> None:
    # version 0 is empty (not a candidate) but its outputs still count for the others
    keys = [["= 1", "= 1"], ["= 1", "= 2"], ["= 3", "= 4"]]
    rec = recommend(keys, [0.2, 0.9], [1, 2])
    assert rec is not None
    assert rec.index == 1
    assert rec.by == "behaviour"
    assert rec.agreeing == 1
    assert rec.sentence.startswith("keep version 2: its outputs on 2 inputs are the most "
                                   "shared (25% of")


def test_recommend_falls_back_to_structure() -> None:
    typ = [0.5, 0.8, 0.7]
    none_ran = recommend([[None, None]] * 3, typ, [0, 1, 2])
    assert none_ran is not None
    assert (none_ran.index, none_ran.by, none_ran.share) == (1, "structure", 0.0)
    assert none_ran.sentence == ("keep version 2: the most typical in shape (mean similarity "
                                 "0.80 to the others); no outputs to compare")
    no_inputs = recommend(None, typ, [0, 1, 2])
    assert no_inputs is not None and no_inputs.index == 1 and no_inputs.by == "structure"
    all_differ = recommend([["= 1"], ["= 2"], ["= 3"]], typ, [0, 1, 2])
    assert all_differ is not None and all_differ.by == "structure"
    assert all_differ.sentence.endswith("no two versions return the same on any input")
    assert recommend(None, [], []) is None
    with pytest.raises(ValueError):
        recommend(None, [0.1], [0, 1])


def test_recommend_never_reads_hidden_tests() -> None:
    # the hidden test says version 0 is right; the non-test inputs side with versions 1-2
    inputs = [{"source": "humaneval", "graded": True}, {"source": "hypothesis", "graded": False}]
    outcomes = [[("ok", None, None), ("a", None, None)],
                [("bad", None, None), ("b", None, None)],
                [("bad", None, None), ("b", None, None)]]
    rec = recommend(outcome_matrix(outcomes, inputs), [0.9, 0.1, 0.2], [0, 1, 2])
    assert rec is not None and rec.index == 2 and rec.inputs == 1


def test_examples_are_docstring_inputs_with_an_expected_value() -> None:
    assert is_example({"source": "doctest", "graded": True, "checked": True})
    # beside a benchmark's tests an example is checked but does not count in pass rates
    assert is_example({"source": "doctest", "graded": False, "checked": True})
    assert not is_example({"source": "doctest", "graded": False, "checked": False})
    assert is_example({"source": "doctest", "graded": True})  # a report without "checked"
    assert not is_example({"source": "doctest", "graded": False})
    assert not is_example({"source": "humaneval", "graded": True, "checked": True})
    assert not is_example({"source": "tests", "graded": True})
    inputs = [{"source": "doctest", "graded": False, "checked": True},
              {"source": "humaneval", "graded": True},
              {"source": "doctest", "graded": True}, {"source": "hypothesis", "graded": False}]
    passes: list[list[bool | None]] = [[True, True, False, None], [True, False, True, None],
                                       [None, True, None, None], [True]]  # short row
    assert example_passes(passes, inputs) == [1, 2, 0, 1]
    assert example_passes(passes, inputs[1:2]) is None


def test_examples_come_before_agreement() -> None:
    # versions 0-2 agree with each other, but only version 3 passes both examples
    keys = [["= 1", "= 1"], ["= 1", "= 1"], ["= 1", "= 1"], ["= 2", "= 1"], ["= 2", "= 3"]]
    typ = [0.9, 0.8, 0.7, 0.5, 0.6]
    rec = recommend(keys, typ, [0, 1, 2, 3, 4], examples=[1, 1, 1, 2, 0], example_count=2)
    assert rec is not None
    assert (rec.index, rec.by) == (3, "behaviour")
    assert (rec.examples_passed, rec.examples, rec.passes_examples) == (2, 2, True)
    assert rec.examples_consensus == pytest.approx(1 / 5)
    # input 0: version 4 also returns 2 (1 point); input 1: versions 0-3 return 1 (3 points)
    assert rec.score == 4
    assert rec.sentence == ("keep version 4: passes both docstring examples; its outputs on "
                            "2 inputs are the most shared (50% of what the other versions "
                            "return agrees with it), though no other version matches it on "
                            "all of them")
    # among versions passing as many examples, agreement decides as before
    tie = recommend(keys, typ, [0, 1, 2, 3, 4], examples=[2, 2, 2, 2, 0], example_count=2)
    assert tie is not None and tie.index == 0
    assert tie.sentence == ("keep version 1: passes both docstring examples; 3 of 5 versions "
                            "agree with it on 2 inputs")
    assert tie.examples_consensus == pytest.approx(4 / 5)


def test_examples_decide_where_no_outputs_agree() -> None:
    keys = [["= 1"], ["= 2"], ["= 3"]]
    rec = recommend(keys, [0.9, 0.1, 0.5], [0, 1, 2], examples=[0, 1, 0], example_count=1)
    assert rec is not None and (rec.index, rec.by) == (1, "behaviour")
    assert rec.sentence == ("keep version 2: passes the docstring example; no other version "
                            "returns what it returns on any input")
    none_pass = recommend(keys, [0.9, 0.1, 0.5], [0, 1, 2], examples=[0, 0, 0],
                          example_count=1)
    assert none_pass is not None and none_pass.by == "structure" and none_pass.index == 0
    assert not none_pass.passes_examples
    # kept by shape, it still fails its example: the risk reads an example failed
    assert (none_pass.examples_passed, none_pass.examples) == (0, 1)
    assert none_pass.sentence.startswith("keep version 1: fails the docstring example; the "
                                         "most typical in shape")
    every_pass = recommend(keys, [0.9, 0.1, 0.5], [0, 1, 2], examples=[1, 1, 1],
                           example_count=1)
    assert every_pass is not None and every_pass.by == "structure"
    assert every_pass.passes_examples and every_pass.examples_consensus == 1.0


def test_every_version_raising_on_every_example_keeps_that_evidence() -> None:
    """Nothing returned (every version raised on both examples and the other inputs):
    the kept version, chosen by shape, fails both examples, and the risk reads so."""
    from codequorum.judge.risk import RiskSignals

    keys: list[list[str | None]] = [[None, None, None], [None, None, None]]
    rec = recommend(keys, [0.4, 0.6], [0, 1], examples=[0, 0], example_count=2)
    assert rec is not None and (rec.index, rec.by) == (1, "structure")
    assert (rec.examples_passed, rec.examples, rec.passes_examples) == (0, 2, False)
    assert rec.sentence == ("keep version 2: fails both docstring examples; the most "
                            "typical in shape (mean similarity 0.60 to the others); no "
                            "outputs to compare")
    assert RiskSignals(versions=2, agreed=False, agreeing=1, agreeing_texts=1, texts=2,
                       share=0.0, examples=rec.examples, passes_examples=False).kind == (
        "examples_failed")


def test_examples_without_runs_are_ignored() -> None:
    rec = recommend(None, [0.2, 0.9], [0, 1], examples=[1, 0], example_count=1)
    assert rec is not None and (rec.index, rec.by, rec.examples) == (1, "structure", 0)


@dataclass
class _Dynamic:
    inputs: list[dict[str, Any]] = field(default_factory=list)
    outcomes: list[list[Any]] = field(default_factory=list)


def test_keys_from_dynamic_reads_outcomes_when_present() -> None:
    dyn = _Dynamic([{"source": "doctest", "graded": True}], [[("1", None, None)], [None]])
    assert keys_from_dynamic(dyn) == [["= 1"], [None]]
    assert keys_from_dynamic(_Dynamic()) is None
    assert keys_from_dynamic(object()) is None


@dataclass
class _Graded:
    inputs: list[dict[str, Any]]
    passes: list[list[bool | None]]


def test_example_columns_are_positions_among_the_inputs_that_are_not_tests() -> None:
    inputs: list[dict[str, Any]] = [
        {"source": "tests", "graded": True}, {"source": "doctest", "checked": True},
        {"source": "hypothesis"}, {"source": "doctest", "checked": False},
        {"source": "humaneval", "graded": True}, {"source": "doctest", "graded": True}]
    # the key matrix holds inputs 1, 2, 3, 5: the examples are its columns 0 and 3
    assert example_columns(inputs) == [0, 3]
    assert example_columns([{"source": "hypothesis"}]) == []


def test_examples_from_dynamic_counts_graded_examples() -> None:
    dyn = _Graded([{"source": "doctest", "graded": True}, {"source": "doctest", "graded": False},
                   {"source": "humaneval", "graded": True}],
                  [[True, None, False], [False, None, True]])
    assert examples_from_dynamic(dyn) == ([1, 0], 1)
    assert examples_from_dynamic(_Graded([], [])) == (None, 0)
    assert examples_from_dynamic(object()) == (None, 0)


# ----------------------------------------------------------------------------- in the report

_ADD = "def add(a, b):\n    return a + b\n"
_ADD_SUM = "def add(a, b):\n    return sum([a, b])\n"
_SUB = "def add(a, b):\n    total = a\n    total -= b\n    return total\n"


def _rules(divergence: Divergence | None = None) -> RuleFigures:
    """What the dynamic rules read of a run: nothing that fires, unless ``divergence``."""
    return RuleFigures(divergence=divergence, input_label="f(1)", input_source="hypothesis",
                       traced=0, sctd_jsd=0.0, dctd_jsd=0.0, oer_threshold=1.0,
                       growth_outlier_delta=0.6, bef_low=0.1, bef_high=1000.0)


@dataclass
class _FakeDynamic:
    inputs: list[dict[str, Any]]
    outcomes: list[list[Any]]
    passes: list[list[bool | None]] = field(default_factory=list)
    summary: dict[str, float | None] = field(default_factory=dict)
    candidates: list[CandidateDynamic] = field(default_factory=list)
    rules: RuleFigures = field(default_factory=lambda: _rules())

    def to_dict(self, verdicts: Sequence[Verdict] = ()) -> dict[str, Any]:
        return {"inputs": self.inputs}


def test_report_recommends_by_structure_without_runs() -> None:
    ss = VersionSet.from_codes("t", [_ADD, _ADD, _SUB])
    report = analyze(ss, AnalysisConfig(metrics=()))
    assert report.recommended == report.medoid == 0
    assert report.recommended_by == "structure"
    assert report.recommendation is not None
    assert report.recommendation.startswith("keep version 1: the most typical in shape")
    # from shape alone no probability: the report says what is missing
    assert report.risk is None and report.risk_level is None and report.risk_range is None
    assert report.trust == NOT_RUN
    assert report.stability_percentile is not None
    d = report.to_dict()
    assert (d["recommended"], d["recommended_by"]) == (0, "structure")
    assert (d["risk"], d["risk_level"], d["risk_range"]) == (None, None, None)
    assert d["trust"] == ("not run yet: run the versions to estimate how likely the kept "
                          "version is wrong")


def test_report_recommends_by_behaviour_from_dynamic_outcomes() -> None:
    ss = VersionSet.from_codes("t", [_ADD, _ADD, _SUB, _ADD_SUM])
    inputs = [{"source": "humaneval", "graded": True}, {"source": "hypothesis", "graded": False},
              {"source": "hypothesis", "graded": False}]
    good = [("ok", None, None), ("3", None, None), ("0", None, None)]
    bad = [("no", None, None), ("-1", None, None), ("0", None, None)]
    dyn = _FakeDynamic(inputs, [bad, bad, good, good])
    report = analyze(ss, AnalysisConfig(metrics=()), dynamic=dyn)
    # every version has 4 agreements: the tie goes to the most typical, 0 or 1 (the same code)
    assert report.recommended_by == "behaviour"
    assert report.recommended in (0, 1)
    assert report.recommendation == (f"keep version {report.recommended + 1}: 2 of 4 versions "
                                     "agree with it on 2 inputs")
    assert report.risk is not None and report.risk_level is not None
    assert report.risk_range is not None and report.trust == trust_words(
        RiskEstimate(report.risk, report.risk_level,  # type: ignore[arg-type]
                     low=report.risk_range[0], high=report.risk_range[1], measured=True))
    # the range is the risk's 90 % range, around it
    assert report.risk_range[0] < report.risk < report.risk_range[1]
    # four versions written apart that all agree are safer than two of four
    apart = [_ADD, _ADD_SUM, "def add(a, b):\n    return b + a\n",
             "def add(a, b):\n    c = a + b\n    return c\n"]
    low = analyze(VersionSet.from_codes("t", apart), AnalysisConfig(metrics=()),
                  dynamic=_FakeDynamic(inputs, [good] * 4))
    assert low.risk is not None and low.risk < report.risk
    # four copies of one text agreeing never say more than four versions written apart
    # (the model fitted on model families left out counts texts only where that lowered
    # the held-out loss: bench/fit_risk_families.py)
    copies = analyze(VersionSet.from_codes("t", [_ADD] * 4),
                     AnalysisConfig(metrics=()),
                     dynamic=_FakeDynamic(inputs, [good] * 4))
    assert copies.risk is not None and low.risk <= copies.risk


def test_report_keeps_the_version_passing_the_docstring_examples() -> None:
    ss = VersionSet.from_codes("t", [_SUB, _ADD, _ADD, _ADD_SUM])
    inputs = [{"source": "doctest", "graded": True}, {"source": "hypothesis", "graded": False}]
    right = [("3", None, None), ("5", None, None)]
    wrong = [("-1", None, None), ("-3", None, None)]
    # the three agreeing versions fail the example; the subtraction alone passes it
    dyn = _FakeDynamic(inputs, [right, wrong, wrong, wrong],
                       passes=[[True, None], [False, None], [False, None], [False, None]])
    opts = AnalysisConfig(metrics=())
    report = analyze(ss, opts, dynamic=dyn)
    assert (report.recommended, report.recommended_by) == (0, "behaviour")
    assert report.recommendation == ("keep version 1: passes the docstring example; no other "
                                     "version returns what it returns on any input")
    agreed = analyze(ss, opts, dynamic=_FakeDynamic(
        inputs, [right, wrong, wrong, wrong],
        passes=[[False, None], [True, None], [True, None], [True, None]]))
    assert agreed.recommended in (1, 2, 3)
    # passing the example lowers the risk of the kept version
    assert agreed.risk is not None and report.risk is not None
    unchecked = analyze(ss, opts, dynamic=_FakeDynamic(inputs[1:], [r[1:] for r in
                                                                     [right, wrong, wrong, wrong]]))
    assert unchecked.risk is not None and agreed.risk < unchecked.risk


def test_report_ignores_outcomes_of_the_wrong_shape() -> None:
    ss = VersionSet.from_codes("t", [_ADD, _SUB])
    dyn = _FakeDynamic([{"source": "hypothesis", "graded": False}], [[("1", None, None)]])
    report = analyze(ss, AnalysisConfig(metrics=()), dynamic=dyn)
    assert report.recommended_by == "structure"


def test_insufficient_report_has_no_recommendation() -> None:
    report = analyze(VersionSet.from_codes("t", [_ADD]), AnalysisConfig(metrics=("textual",)))
    assert report.status == "insufficient"
    assert report.to_dict()["recommended"] is None and report.risk is None
    assert canonical_output("<object at 0x1>") == "<object>"  # not a literal; no address
    assert canonical_output(None) is None


def test_outcome_key_agrees_on_2_and_2_0() -> None:
    from codequorum.judge.recommend import outcome_key

    assert outcome_key(("2", None, None)) == outcome_key(("2.0", None, None))


# --------------------------------------------------------------------------- evidence

INPUTS = [
    {"label": "f(10 ** 3)", "source": "scaling", "graded": False},
    {"label": "f([3, 1])", "source": "doctest", "graded": False},
    {"label": "f([])", "source": "tests", "graded": True},
]


def test_parting_input_prefers_graded_then_documented_inputs() -> None:
    from codequorum.judge.recommend import evidence_sentence, parting_input

    Row = list[tuple[str | None, str | None, str | None] | None]
    outcomes: list[Row] = [
        [("1", None, None), ("None", None, None), ("[]", None, None)],
        [("2", None, None), ("None", None, None), ("[]", None, None)],
        [("1", None, None), ("[1, 3]", None, None), ("[]", None, None)],
        [("1", None, None), (None, "ValueError", "bad"), ("[]", None, None)],
        [("1", None, None), ("None", None, None), ("[]", None, None)],
    ]
    ev = parting_input(outcomes, INPUTS, 2)
    assert ev is not None
    assert (ev.input_index, ev.source, ev.shown) == (1, "doctest", "returns [1, 3]")
    assert ev.others == (("returns None", (0, 1, 4)), ("raises ValueError", (3,)))
    assert evidence_sentence(ev, 2) == (
        "on f([3, 1]) version 3 returns [1, 3]; versions 1, 2, 5 return None; "
        "version 4 raises ValueError"
    )
    graded = [[*row[:2], ("[0]" if v == 1 else "[]", None, None)]
              for v, row in enumerate(outcomes)]
    ev = parting_input(graded, INPUTS, 2)
    assert ev is not None and ev.input_index == 2 and ev.others == (("returns [0]", (1,)),)
    # a docstring example with an expected value (checked) ranks like a graded input
    examples = [{"label": "f(1)", "source": "doctest", "graded": False, "checked": False},
                {"label": "f(2)", "source": "doctest", "graded": False, "checked": True}]
    parting: list[Row] = [[("1", None, None), ("2", None, None)],
                          [("0", None, None), ("0", None, None)]]
    ev = parting_input(parting, examples, 0)
    assert ev is not None and (ev.input_index, ev.label) == (1, "f(2)")


def test_parting_input_never_calls_equal_values_different() -> None:
    from codequorum.judge.recommend import parting_input

    outcomes: list[list[tuple[str, None, None] | None]] = [
        [("2", None, None)], [("2.0", None, None)], [None]]
    assert parting_input(outcomes, INPUTS[:1], 0) is None
    assert parting_input(outcomes, INPUTS[:1], 2) is None  # it has no result
    assert parting_input(outcomes, INPUTS[:1], 7) is None


def test_evidence_sentence_names_the_current_code_and_bounds_the_groups() -> None:
    from codequorum.judge.recommend import Evidence, evidence_sentence

    ev = Evidence(0, "g(1)", "doctest", False, "returns 1",
                  (("returns 2", (0,)), ("returns 3", (1, 4)), ("returns 4", (2,)),
                   ("raises KeyError", (5,))))
    assert evidence_sentence(ev, 3, {3: "the current code"}, limit=2) == (
        "on g(1) the current code returns 1; version 1 returns 2; versions 2, 5 return 3; "
        "2 other outcomes"
    )
    assert evidence_sentence(ev, 3, limit=3).endswith("; 1 other outcome")


def test_a_version_parting_on_another_input_is_named_with_its_own() -> None:
    """radash's ``capitalize``: version 4 crashes on ``""`` (the input shown), version 3
    forgets to lower the rest, which only ``capitalize("Hello World")`` shows; version 3
    is named too, with that input."""
    from codequorum.judge.recommend import (
        elsewhere_sentence,
        parting_elsewhere,
        parting_input,
    )

    inputs = [{"label": 'capitalize("")', "source": "edge", "graded": False},
              {"label": 'capitalize("Hello World")', "source": "hint", "graded": False}]
    Row = list[tuple[str | None, str | None, str | None] | None]
    right: Row = [('""', None, None), ('"Hello world"', None, None)]
    outcomes: list[Row] = [right, right, [('""', None, None), ('"Hello World"', None, None)],
                [(None, "TypeError", "x"), ('"Hello world"', None, None)]]
    ev = parting_input(outcomes, inputs, 0)
    assert ev is not None and ev.others == (("raises TypeError", (3,)),)
    parted = parting_elsewhere(outcomes, inputs, 0, ev)
    assert [(v, e.label) for v, e in parted] == [(2, 'capitalize("Hello World")')]
    assert elsewhere_sentence(parted, 0, {0: "version 1 (the current code)"}) == (
        'version 3 parts from it too: on capitalize("Hello World") it returns "Hello World" '
        'where version 1 (the current code) returns "Hello world"')
    alone = outcomes[:2] + outcomes[3:]  # without version 3: the input shown says it all
    shown = parting_input(alone, inputs, 0)
    assert shown is not None and parting_elsewhere(alone, inputs, 0, shown) == []
    many = [(v, parted[0][1]) for v in (2, 4, 5, 6)]
    assert elsewhere_sentence(many, 0).endswith("; 2 other versions part from it elsewhere")
    assert elsewhere_sentence(many[:3], 0).endswith("; 1 other version parts from it elsewhere")


def test_examples_are_named_by_where_they_come_from() -> None:
    """A test's assertions are not "docstring examples" (decamelize's 16 ``t.is`` lines)."""
    from codequorum.judge.recommend import examples_named

    doc = {"source": "doctest", "checked": True}
    test = {"source": "test", "graded": True}
    assert examples_named([doc, {"source": "hint"}]) == (
        "docstring example", "docstring examples")
    assert examples_named([test, test]) == ("test assertion", "test assertions")
    assert examples_named([doc, test]) == ("example", "examples of the docstring and tests")
    keys = [[outcome_key(("1", None, None))] * 2, [outcome_key(("2", None, None))] * 2]
    rec = recommend(keys, [0.5, 0.5], [0, 1], [2, 0], 2, named=examples_named([test, test]))
    assert rec is not None and rec.sentence.startswith(
        "keep version 1: passes both test assertions;")
    rec = recommend(keys, [0.5, 0.5], [0, 1], [0, 1], 1, named=examples_named([test]))
    assert rec is not None and rec.sentence.startswith("keep version 2: passes the test "
                                                       "assertion;")


def test_risk_signals_count_the_kept_versions_output_cluster() -> None:
    from codequorum.judge.recommend import agreeing_versions
    from codequorum.pipeline.analyze import risk_signals

    keys: list[list[str | None]] = [["= 1", "= 2"], ["= 1", "= 2"], ["= 1", None],
                                    ["= 9", "= 2"], [None, None]]
    # version 2 returns nothing on the second input: it agrees wherever it returns
    assert agreeing_versions(keys, 2) == [0, 1, 2]
    assert agreeing_versions(keys, 0) == [0, 1]
    codes = [_ADD, _ADD + "\n", _ADD_SUM, _SUB, ""]
    rec = recommend(keys, [0.9, 0.9, 0.8, 0.5], [0, 1, 2, 3], [2, 2, 1, 1, 0], 2)
    assert rec is not None and rec.index == 0 and rec.passes_examples
    s = risk_signals(rec, keys, codes)
    # versions 1 and 2 are one text (blanks aside); five texts in all, "" among them
    assert (s.versions, s.agreed, s.agreeing, s.agreeing_texts, s.texts) == (5, True, 2, 1, 4)
    assert (s.examples, s.passes_examples, s.passing) == (2, True, 2)
    assert s.share == rec.share
    # behaviours of the versions returning wherever the kept one does: its own and
    # version 3's (version 2 returns nothing on the second input, version 4 nowhere)
    assert (s.runner_up, s.behaviours) == (1, 2)
    # told which column is an example: the kept version returns on one input beyond it,
    # and of the versions passing both examples (0, 1) none returns otherwise there
    s = risk_signals(rec, keys, codes, [2, 2, 1, 1, 0], [0])
    assert (s.inputs, s.beyond, s.passing_apart) == (2, 1, 0)
    # version 3 passes the example too but returns 9 on it: examples passed by a version
    # behaving otherwise beyond them count against the kept one
    apart: list[list[str | None]] = [["= 1", "= 2"], ["= 1", "= 2"], ["= 1", "= 5"]]
    rec = recommend(apart, [0.9, 0.9, 0.8], [0, 1, 2], [1, 1, 1], 1)
    assert rec is not None and rec.index == 0
    s = risk_signals(rec, apart, [_ADD, _ADD, _SUB], [1, 1, 1], [0])
    assert (s.inputs, s.beyond, s.passing_apart) == (2, 1, 1)


def test_behaviours_count_versions_returning_wherever_the_kept_one_does() -> None:
    keys: list[list[str | None]] = [["= 1", "= 0"], ["= 1", "= 0"], ["= 2", "= 0"],
                                    ["= 2", "= 0"], ["= 2", "= 0"], ["= 3", "= 0"],
                                    [None, None], ["= 4", None]]
    assert behaviours(keys, 0) == (3, 3)
    assert behaviours(keys, 2) == (3, 2)
    # a version slowed on one input is no behaviour of its own, whatever it returned
    assert behaviours([*keys[:6], [None, None], ["= 5", None]], 0) == (3, 3)
    assert behaviours([["= 1"], ["= 1"]], 0) == (1, 0)  # everyone agrees: nothing left
    # the kept version returns on the first input only: that is what counts
    assert behaviours([["= 1", None], ["= 1", "= 7"], ["= 1", "= 8"]], 0) == (1, 0)


def test_a_run_on_tests_alone_is_no_evidence() -> None:
    """Outcomes on hidden tests never enter: a run that had nothing else to run on gives
    no risk, and says what is missing."""
    ss = VersionSet.from_codes("t", [_ADD, _ADD, _SUB])
    inputs = [{"source": "humaneval", "graded": True}]
    dyn = _FakeDynamic(inputs, [[("3", None, None)], [("3", None, None)], [("1", None, None)]])
    report = analyze(ss, AnalysisConfig(metrics=()), dynamic=dyn)
    assert keys_from_dynamic(dyn) is None
    assert report.recommended_by == "structure" and report.risk is None
    assert report.trust == NO_INPUTS


def test_an_examples_printed_value_is_shown_as_the_docstring_writes_it() -> None:
    """A docstring example's outcome is the text it prints (``[(1, 2), (3, 4)]\\n`` for
    toolz's ``list(partition(2, [1, 2, 3, 4, 5]))``): the evidence shows it without the
    line end, which the editor would write out as ``\\n``."""
    from codequorum.judge.recommend import parting_input

    examples = [{"label": "list(partition(2, [1, 2, 3, 4, 5]))", "source": "doctest",
                 "graded": False, "checked": True}]
    outcomes: list[list[tuple[str | None, str | None, str | None] | None]] = [
        [("[(1, 2), (3, 4)]\n", None, None)], [("[(1, 2), (3, 4), (5, None)]\n", None, None)]]
    ev = parting_input(outcomes, examples, 0)
    assert ev is not None
    assert (ev.shown, ev.others) == ("returns [(1, 2), (3, 4)]",
                                     (("returns [(1, 2), (3, 4), (5, None)]", (1,)),))
