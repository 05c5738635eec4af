"""The dynamic verdict rules, each on its own figures (no process is started)."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from codequorum.behaviour.dynamic_analysis import CandidateDynamic, RuleFigures
from codequorum.judge.dynamic_rules import (
    complexity_verdict,
    divergent_outputs_verdict,
    dynamic_verdicts,
    growth_text,
    no_version_passes_verdict,
    redundant_alternatives_verdict,
    runtime_instability_verdict,
)
from codequorum.metrics.semantic import first_divergence


def _cand(i: int, growth: float | None, unfinished: int | None = None) -> CandidateDynamic:
    # points whose measured slope is the class given (a million ns at n=8)
    points = [] if growth is None else [(n, round(1e6 * (n / 8) ** growth)) for n in (8, 64, 512)]
    return CandidateDynamic(
        i, "ok", "", 1.0, 1, 1, "graded tests", growth, points, unfinished, None, None
    )


def test_complexity_verdict_rules() -> None:
    v = complexity_verdict([_cand(0, 1.0), _cand(1, 1.05), _cand(2, 2.0), _cand(3, 0.95)], 0.6)
    assert v is not None and v.versions == (2,)
    assert v.message == ("version 3 grows about n², the others about n "
                         "(CPU time per call, n=8 to 512)")
    assert v.detail["measure"] == "CPU time per call"
    assert v.figure == 2.0 and v.detail["typical"] == 1.0
    assert complexity_verdict([_cand(0, 1.0), _cand(1, 2.0)], 0.6) is None  # no minority
    assert complexity_verdict([_cand(0, 1.0), _cand(1, 1.3), _cand(2, 0.9)], 0.6) is None
    # classes either side of a boundary from slopes 0.25 apart: one growth measured twice
    def measured(i: int, growth: float, slope: float) -> CandidateDynamic:
        points = [(n, round(1e6 * (n / 8) ** slope)) for n in (8, 64, 512)]
        return CandidateDynamic(i, "ok", "", 1.0, 1, 1, "graded tests", growth, points, None,
                                None, None)

    near = [measured(i, 1.0, 0.7) for i in range(3)] + [measured(3, 0.0, 0.45)]
    assert complexity_verdict(near, 0.6) is None
    far = [measured(i, 1.0, 1.0) for i in range(3)] + [measured(3, 0.0, 0.05)]
    assert complexity_verdict(far, 0.6) is not None
    slow = complexity_verdict([_cand(0, 1.0), _cand(1, 1.0), _cand(2, None, unfinished=512)], 0.6)
    assert slow is not None and slow.versions == (2,)
    assert slow.message == ("version 3 did not finish n=512 in time, the others about n "
                            "(CPU time per call, n=8 to 512)")
    flat = complexity_verdict([_cand(0, 0.0), _cand(1, 0.1), _cand(2, 0.05), _cand(3, 2.0),
                               _cand(4, 0.0)], 0.6)
    assert flat is not None
    assert flat.message == ("version 4 grows about n², the others do not grow with n "
                            "(CPU time per call, n=8 to 512)")


def test_growth_text_rounds_to_whole_exponents() -> None:
    assert [growth_text(x) for x in (-0.3, 0.2, 0.5, 1.1, 1.45, 1.6, 1.7, 2.2, 3.9, 5.0)] == [
        "constant", "constant", "n", "n", "n", "n", "n²", "n²", "n⁴", "n^5"]


def test_divergent_outputs_names_the_input_and_both_outcomes() -> None:
    rows = [[("1", None, None), ("2", None, None)],
            [("1", None, None), ("3", None, None)],
            [("1", None, None), ("2", None, None)]]
    div = first_divergence(rows)
    v = divergent_outputs_verdict(0.5, div, "f(2)", "hypothesis", 0.9, 0.5)
    assert v is not None
    assert (v.code, v.severity, v.versions, v.figure) == ("divergent-outputs", "warning",
                                                          (0, 1), 0.5)
    assert v.message == "versions 1 and 2 disagree on f(2): 2 vs 3"
    assert v.detail == {"input": "f(2)", "source": "hypothesis", "groups": [[0, 2], [1]],
                        "oer": 0.5, "oer_no_ex": 0.5}
    model = divergent_outputs_verdict(0.5, div, "f(2)", "model", 0.9)
    assert model is not None and "on f(2) (an input from the model):" in model.message
    assert divergent_outputs_verdict(0.95, div, "f(2)", "doctest", 0.9) is None  # above
    assert divergent_outputs_verdict(0.5, None, "", "", 0.9) is None
    assert divergent_outputs_verdict(None, div, "f(2)", "doctest", 0.9) is None


def test_bef_rules_fire_on_their_own_side_only() -> None:
    low = runtime_instability_verdict(0.01, 0.0, 0.2, 2, 0.1)
    assert low is not None and low.code == "runtime-instability" and low.figure == 0.01
    assert low.message == ("the versions look alike in bytecode but run differently "
                           "(BEF 0.01 < 0.1)")
    assert runtime_instability_verdict(0.01, 0.0, 0.0, 2, 0.1) is None  # no traced difference
    assert runtime_instability_verdict(0.01, 0.0, 0.2, 1, 0.1) is None  # one trace
    assert runtime_instability_verdict(5.0, 0.5, 0.1, 2, 0.1) is None
    high = redundant_alternatives_verdict(2e6, 0.2, 1e-7, 3, 1000.0)
    assert high is not None and high.severity == "information"
    assert high.message == ("the versions differ in bytecode but run the same way "
                            "(BEF 2e+06 > 1000)")
    assert redundant_alternatives_verdict(500.0, 0.2, 4e-4, 3, 1000.0) is None
    assert redundant_alternatives_verdict(None, 0.2, 0.0, 3, 1000.0) is None


def test_the_not_run_headline_names_the_shape_and_what_would_give_inputs() -> None:
    from codequorum.judge.dynamic_rules import NO_INPUTS_HINT, not_run_headline, not_run_verdict

    none = not_run_verdict("no inputs")
    assert none is not None and none.message == "behaviour not run: no inputs"
    assert not_run_headline(none, shape_stable=True).message == (
        f"shape stable; behaviour not run: no inputs ({NO_INPUTS_HINT})")
    assert not_run_headline(none, shape_stable=False).message == (
        f"behaviour not run: no inputs ({NO_INPUTS_HINT})")
    module = not_run_verdict("not run in its module")
    assert module is not None
    assert not_run_headline(module, shape_stable=True).message == (
        "shape stable; behaviour not run: not run in its module")
    assert not_run_headline(none, True).detail == {"reason": "no inputs"}


def _graded(i: int, passed: int, graded: int) -> CandidateDynamic:
    rate = passed / graded if graded else None
    return CandidateDynamic(i, "ok", "", rate, passed, graded, "graded tests", None, [], None,
                            None, None)


def test_no_version_passes_names_the_closest_version() -> None:
    v = no_version_passes_verdict([_graded(0, 1, 3), _graded(1, 2, 3), _graded(2, 2, 3)])
    assert v is not None and (v.code, v.severity) == ("no-version-passes", "warning")
    assert v.message == ("none of 3 versions passes all 3 graded inputs; the closest, "
                         "version 2, passes 2")
    assert v.versions == (1,) and v.detail == {"graded": 3, "closest": 1, "passed": 2}
    none = no_version_passes_verdict([_graded(0, 0, 1), _graded(1, 0, 1)])
    assert none is not None and none.message == "none of 2 versions passes the graded input"


def test_no_version_passes_is_quiet_when_one_passes_or_nothing_is_graded() -> None:
    assert no_version_passes_verdict([_graded(0, 3, 3), _graded(1, 0, 3)]) is None
    assert no_version_passes_verdict([_graded(0, 0, 0), _graded(1, 0, 0)]) is None
    assert no_version_passes_verdict([_graded(0, 1, 2)]) is None  # one version: no choice


def test_no_version_passes_is_never_beside_not_run() -> None:
    """Versions that never ran were not judged by the graded inputs: ``not-run`` alone."""
    rules = RuleFigures(None, "", "", 0, 0.0, 0.0, 0.9, 0.6, 0.1, 1000.0,
                        not_run="no version ran")
    run = SimpleNamespace(summary={}, candidates=[_graded(0, 0, 2), _graded(1, 0, 2)],
                          rules=rules)
    assert [v.code for v in dynamic_verdicts(run)] == ["not-run"]
    ran = SimpleNamespace(summary={}, candidates=run.candidates,
                          rules=dataclasses.replace(rules, not_run=None))
    assert [v.code for v in dynamic_verdicts(ran)] == ["no-version-passes"]
