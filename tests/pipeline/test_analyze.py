"""Version set -> stability report: pair means, typicality, clusters, verdicts, edge cases."""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest

from codequorum.behaviour.dynamic_analysis import CandidateDynamic, RuleFigures
from codequorum.core.errors import UserError
from codequorum.core.model import VersionSet
from codequorum.core.report import Verdict
from codequorum.judge.risk import load_model, stability_percentile
from codequorum.judge.structure import (
    StableLine,
    is_stable,
    percentile_words,
    shape_group,
    stable_line,
)
from codequorum.metrics.clustering import average_linkage, pair_means, symmetrise, typicality
from codequorum.metrics.semantic import Divergence
from codequorum.metrics.structural import structural_matrices
from codequorum.pipeline.analyze import ALL_EMPTY_NOTE, analyze
from codequorum.pipeline.config import AnalysisConfig

REPO = Path(__file__).resolve().parents[2]
FAST = AnalysisConfig(metrics=())
#: The stability line given as a constant (``--stable-jsd 0.8``).
CONSTANT_LINE = AnalysisConfig(metrics=(), stable_jsd=0.8)

# Three versions with the same shape (only names differ), two built differently.
LOOP = """
def total(xs):
    s = 0
    for x in xs:
        s += x
    return s
"""
LOOP_RENAMED = LOOP.replace("s", "acc").replace("xacc", "xs")
LOOP_OTHER_NAMES = LOOP.replace("x", "item").replace("itemitems", "items")
BUILTIN = """
def total(xs):
    return sum(xs)
"""
RECURSIVE = '''
class Summer:
    """Adds numbers, one at a time, recursively."""

    def total(self, xs):
        if not xs:
            return 0
        try:
            head, *rest = xs
        except ValueError:
            raise
        return head + self.total(rest)
'''


@pytest.fixture(scope="module")
def report_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((REPO / "shared" / "report.schema.json").read_text())
    return schema


def _validate_set(report_dict: dict[str, Any], schema: dict[str, Any]) -> None:
    doc = {"codequorum": "x", "schema_version": 2, "interrupted": False, "total": 1,
           "sets": [report_dict],
           "errors": []}
    jsonschema.validate(doc, schema)


# ----------------------------------------------------------------------------- pieces


def test_pair_means_by_hand() -> None:
    m = np.array([[1.0, 0.2, 0.4], [0.6, 1.0, 0.8], [0.0, 1.0, 1.0]])
    ordered, unordered = pair_means(m)
    assert ordered == pytest.approx((0.2 + 0.4 + 0.6 + 0.8 + 0.0 + 1.0) / 6)
    assert unordered == pytest.approx((0.2 + 0.4 + 0.8) / 3)


def test_pair_means_leave_out_nan_pairs() -> None:
    m = np.array([[1.0, 0.5, math.nan], [0.5, 1.0, math.nan], [math.nan, math.nan, 1.0]])
    assert pair_means(m) == pytest.approx((0.5, 0.5))
    assert all(math.isnan(x) for x in pair_means(np.ones((1, 1))))


def test_typicality_is_mean_similarity_to_the_others() -> None:
    s = np.array([[1.0, 0.9, 0.1], [0.7, 1.0, 0.3], [0.1, 0.3, 1.0]])
    sym = symmetrise(s)
    assert sym[0, 1] == pytest.approx(0.8)
    assert typicality(s).tolist() == pytest.approx([(0.8 + 0.1) / 2, (0.8 + 0.3) / 2, 0.2])


def test_average_linkage_two_groups_and_threshold_edges() -> None:
    # points on a line: 0, 0.25, 0.5 | 4, 4.125 (exact in binary floating point)
    x = np.array([0.0, 0.25, 0.5, 4.0, 4.125])
    d = np.abs(x[:, None] - x[None, :])
    assert average_linkage(d, 1.0) == [[0, 1, 2], [3, 4]]
    # {0,1} merge first (tie with {1,2}: lowest indices win); then 2 joins at
    # (0.5 + 0.25) / 2 = 0.375: merging happens at a distance equal to the threshold
    assert average_linkage(d, 0.375) == [[0, 1, 2], [3, 4]]
    assert average_linkage(d, 0.374) == [[0, 1], [3, 4], [2]]
    assert average_linkage(d, 0.0) == [[0], [1], [2], [3], [4]]
    assert average_linkage(d, 10.0) == [[0, 1, 2, 3, 4]]
    assert average_linkage(np.zeros((0, 0)), 0.1) == []
    with pytest.raises(ValueError):
        average_linkage(np.full((2, 2), math.nan), 0.1)


def test_average_linkage_matches_scipy_when_available() -> None:
    hierarchy = pytest.importorskip("scipy.cluster.hierarchy")
    distance = pytest.importorskip("scipy.spatial.distance")
    rng = np.random.default_rng(7)
    for _ in range(50):
        n = int(rng.integers(2, 30))
        pts = rng.random((n, 3))
        d = np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1))
        thr = float(rng.random() * 0.7)
        labels = hierarchy.fcluster(
            hierarchy.linkage(distance.squareform(d, checks=False), "average"), thr,
            "distance")
        groups: dict[int, list[int]] = {}
        for i, label in enumerate(labels):
            groups.setdefault(int(label), []).append(i)
        expected = sorted(groups.values(), key=lambda g: (-len(g), g[0]))
        assert average_linkage(d, thr) == expected


# ----------------------------------------------------------------------------- analyze


def _five() -> VersionSet:
    return VersionSet.from_codes("sum", [LOOP, LOOP_RENAMED, LOOP_OTHER_NAMES, RECURSIVE, BUILTIN])


def test_report_values_come_from_the_metric_matrices() -> None:
    s = _five()
    report = analyze(s, AnalysisConfig(metrics=("tsed",)))
    sm = structural_matrices(s.codes, "python")
    for name in ("sce_struct", "sce_value", "jsd_struct", "jsd_value"):
        np.testing.assert_allclose(report.matrices[name], getattr(sm, name))
        ordered, unordered = pair_means(getattr(sm, name))
        assert report.summary[name] == {"ordered": pytest.approx(ordered),
                                        "unordered": pytest.approx(unordered)}
    assert "tsed" in report.summary
    assert 0.0 < report.summary["tsed"]["ordered"] < 1.0
    assert report.n == report.n_total == 5
    assert report.indices == [0, 1, 2, 3, 4]
    assert report.syntax_errors == [0, 0, 0, 0, 0]


def test_shape_group_medoid_and_outlier_message() -> None:
    report = analyze(_five(), CONSTANT_LINE)
    assert report.status == "ok"
    # the renamed loops are structurally identical
    assert report.matrices["jsd_struct"][0, 1] == pytest.approx(1.0)
    assert report.clusters[0] == [0, 1, 2]
    assert report.medoid in (0, 1, 2)
    typ = report.typicality
    assert typ[3] < min(typ[0], typ[1], typ[2])
    verdict = report.verdicts[0]
    assert verdict.code == "unstable-structure"  # mean JSD about 0.7
    assert f"mean JSD {report.pair('jsd_struct'):.2f} < 0.80" in verdict.message
    assert "3 of 5 versions share one shape" in verdict.message
    assert (f"versions 4 and 5 are outliers: JSD {typ[3]:.2f}, {typ[4]:.2f} vs 1.00 mean"
            in verdict.message)
    assert verdict.detail["outliers"] == [3, 4]
    # the version in the editor is "the current code", the others keep their numbers
    mine = analyze(_five(), CONSTANT_LINE, current_index=4).verdicts[0]
    assert (f"the current code and version 4 are outliers: JSD {typ[4]:.2f}, {typ[3]:.2f} "
            "vs 1.00 mean" in mine.message)


def test_the_shape_count_and_the_clusters_are_one_group() -> None:
    # version 1 and the code in the editor share a shape, version 2 does not
    versions = VersionSet.from_codes("mine", [LOOP, RECURSIVE, LOOP_RENAMED]).versions
    versions[2] = dataclasses.replace(versions[2], origin="current")
    report = analyze(VersionSet("mine", versions), CONSTANT_LINE, current_index=2)
    assert report.clusters == [[0, 2], [1]]
    assert shape_group(report.clusters) == [0, 2]
    assert "2 of 2 versions + your code share one shape" in report.verdicts[0].message
    assert shape_group([[0], [1], [2]]) is None and shape_group([]) is None


def test_default_line_comes_from_the_humaneval_distribution() -> None:
    # mean JSD 0.70 lies at the 38th percentile of the HumanEval sets: above the line
    report = analyze(_five(), FAST)
    assert report.stability_percentile == pytest.approx(37.6)
    [verdict] = report.verdicts
    assert verdict.code == "stable"
    typ = report.typicality
    assert verdict.message == (
        "3 of 5 versions share one shape (mean JSD 0.70, less stable than 62 % of HumanEval "
        f"functions); versions 4 and 5 are outliers: JSD {typ[3]:.2f}, {typ[4]:.2f} vs 1.00 mean"
    )
    assert verdict.detail["stable_line_percentile"] == 25.0
    assert report.options["stable_jsd"] == pytest.approx(stable_line(FAST).jsd)
    assert report.options["stable_jsd_given"] is False
    # the same set against the constant line: unstable
    assert analyze(_five(), CONSTANT_LINE).verdicts[0].code == "unstable-structure"


def test_stable_line_from_the_reference_quantiles() -> None:
    quantiles = load_model()["stability"]["quantiles"]
    line = stable_line(FAST)
    assert line.jsd == pytest.approx(quantiles[25])
    assert line.percentile == 25.0
    assert stability_percentile(line.jsd) == pytest.approx(25.0)
    assert stable_line(AnalysisConfig(unstable_percentile=10)).jsd == pytest.approx(quantiles[10])
    assert stable_line(CONSTANT_LINE) == StableLine(0.8, None)
    # other structural settings than the reference's: the constant fallback
    assert stable_line(AnalysisConfig(jsd_log_base=math.e)) == StableLine(0.8, None)
    assert stable_line(AnalysisConfig(max_depth=5)) == StableLine(0.8, None)
    with pytest.raises(ValueError, match="unstable_percentile"):
        AnalysisConfig(unstable_percentile=101)


def test_is_stable_rule() -> None:
    line = StableLine(0.675, 25.0)
    assert is_stable(0.675, 0.1, line, 0.0)
    assert not is_stable(0.674, 1.0, line, 0.0)
    assert not is_stable(0.9, 0.4, line, 0.5)  # a majority asked for and missing
    assert is_stable(0.9, 0.5, line, 0.5)


def test_unstable_message_states_the_line_in_humaneval_words() -> None:
    mixed = VersionSet.from_codes("mixed", [LOOP, RECURSIVE, BUILTIN])
    report = analyze(mixed, FAST)
    assert report.stability_percentile == pytest.approx(1.7)
    [verdict] = report.verdicts
    assert verdict.code == "unstable-structure"
    assert verdict.message == (
        "Versions disagree in shape: mean JSD 0.56, less stable than 98 % of HumanEval "
        "functions (flagged when less stable than 75 % of them); no two of the 3 versions "
        "share a shape"
    )
    assert percentile_words(60.4) == "more stable than 60 % of HumanEval functions"


def test_one_outlier_in_a_stable_set() -> None:
    s = VersionSet.from_codes("t", [LOOP, LOOP_RENAMED, LOOP_OTHER_NAMES, LOOP, LOOP_RENAMED,
                                   LOOP, BUILTIN])
    report = analyze(s, FAST)
    verdict = report.verdicts[0]
    assert verdict.code == "stable"
    assert verdict.versions == (0, 1, 2, 3, 4, 5)
    assert verdict.message.startswith("6 of 7 versions share one shape (mean JSD ")
    assert verdict.message.endswith(
        f"; version 7 is an outlier: JSD {report.typicality[6]:.2f} vs 1.00 mean")


def test_stable_and_unstable_thresholds() -> None:
    same = VersionSet.from_codes("same", [LOOP, LOOP_RENAMED, LOOP_OTHER_NAMES, LOOP])
    report = analyze(same, FAST)
    assert [v.code for v in report.verdicts] == ["stable"]
    assert report.verdicts[0].severity == "information"
    assert report.verdicts[0].message.startswith("4 of 4 versions share one shape")
    assert report.verdicts[0].figure == pytest.approx(1.0)
    mixed = VersionSet.from_codes("mixed", [LOOP, RECURSIVE, BUILTIN])
    report = analyze(mixed, FAST)
    assert report.verdicts[0].code == "unstable-structure"
    assert report.verdicts[0].severity == "warning"
    assert "no two of the 3 versions share a shape" in report.verdicts[0].message
    strict = analyze(same, AnalysisConfig(metrics=(), stable_jsd=1.01))
    assert strict.verdicts[0].code == "unstable-structure"


def test_outlier_current() -> None:
    s = _five()
    far = analyze(s, FAST, current_index=3)
    codes = [v.code for v in far.verdicts]
    assert "outlier-current" in codes
    v = far.verdicts[codes.index("outlier-current")]
    assert v.versions == (3,)
    assert v.figure == pytest.approx(far.typicality[3])
    assert f"version {far.medoid + 1} is the most typical" in v.message  # type: ignore[operator]
    near = analyze(s, FAST, current_index=1)
    assert "outlier-current" not in [v.code for v in near.verdicts]
    with pytest.raises(ValueError):
        analyze(s, FAST, current_index=5)
    pair = analyze(VersionSet.from_codes("two", [LOOP, RECURSIVE]), FAST, current_index=1)
    assert "outlier-current" not in [v.code for v in pair.verdicts]  # no consensus of one
    gap = analyze(VersionSet.from_codes("gap", [LOOP, "", LOOP, RECURSIVE]), FAST,
                  current_index=1)
    assert "outlier-current" not in [v.code for v in gap.verdicts]  # nothing to replace
    assert gap.notes[0].startswith("the current code is empty: scored as an empty answer")


def test_empty_answers_are_versions_with_a_note() -> None:
    from codequorum.metrics.opcodes import sctd, static_opcode_counts

    codes = [LOOP, "", LOOP_RENAMED, "   \n", BUILTIN]
    report = analyze(VersionSet.from_codes("t", codes), AnalysisConfig(metrics=("textual",)))
    assert report.n == report.n_total == 5 and report.indices == [0, 1, 2, 3, 4]
    assert report.empty == [1, 3] and report.skipped == []
    assert any(n.startswith("versions 2 and 4 are empty") for n in report.notes)
    assert report.matrices["jsd_struct"].shape == (5, 5)
    assert sorted(i for c in report.clusters for i in c) == [0, 1, 2, 3, 4]
    # token LCS from an empty answer is 0, LED to it is the other's token count
    assert report.matrices["lcs"][1, 0] == 0.0 and report.matrices["lcs"][0, 1] == 0.0
    assert report.matrices["led"][0, 1] == len(LOOP.split())
    # SCTD leaves empty answers out; the recommendation never picks one
    kept = sctd([static_opcode_counts(c) for c in (LOOP, LOOP_RENAMED, BUILTIN)])
    assert report.summary["sctd_jsd"] == kept.jsd
    assert report.recommended not in report.empty
    assert report.to_dict()["empty"] == [1, 3]


def test_an_empty_answer_against_one_function_is_scored() -> None:
    report = analyze(VersionSet.from_codes("t", [LOOP, ""]), FAST)
    assert report.status == "ok" and report.n == 2
    assert report.verdict is not None and report.verdict.code == "unstable-structure"
    assert report.recommended == 0


@pytest.mark.parametrize("codes", [[LOOP], [""], []])
def test_fewer_than_two_usable_samples_is_no_score(codes: list[str],
                                                   report_schema: dict[str, Any]) -> None:
    report = analyze(VersionSet.from_codes("one", codes), FAST)
    assert report.status == "insufficient"
    assert report.summary == {} and report.verdicts == [] and report.medoid is None
    assert report.message == (f"only {len(codes)} usable version{'s' if codes == [] else ''} "
                              f"of {len(codes)}; at least two are needed to compare")
    _validate_set(report.to_dict(), report_schema)


def test_a_set_whose_every_version_is_empty_is_an_outcome(
        report_schema: dict[str, Any]) -> None:
    """Every answer empty: token LCS 0 and LED 0, as the study's scripts give, and a note;
    no shape figure, verdict or pick (there is no code)."""
    report = analyze(VersionSet.from_codes("blank", ["", " ", "\n"]),
                     AnalysisConfig(metrics=("textual",)))
    assert report.status == "ok" and report.message is None
    assert report.n == 3 and report.empty == [0, 1, 2]
    none = {"ordered": None, "unordered": None}
    assert report.summary == {"sce_struct": none, "sce_value": none, "jsd_struct": none,
                              "jsd_value": none, "lcs_mean": 0.0, "lcs_worst": 0.0,
                              "led_mean": 0.0, "led_worst": 0.0, "lcs_pair_mean": 0.0,
                              "led_pair_mean": 0.0, "unified_diff": None, "tree_diff": None}
    assert report.pair("jsd_struct") is None
    assert report.notes == [ALL_EMPTY_NOTE]
    assert report.verdicts == [] and report.recommended is None and report.risk is None
    _validate_set(report.to_dict(), report_schema)
    kept = analyze(VersionSet.from_codes("blank", ["", " ", "\n"]),
                   AnalysisConfig(metrics=("textual",), keep_matrices=True))
    assert {k: m.tolist() for k, m in kept.matrices.items()} == {
        "lcs": [[0.0] * 3] * 3, "led": [[0.0] * 3] * 3}
    assert analyze(VersionSet.from_codes("blank", ["", " "]),
                   AnalysisConfig(metrics=("textual",), keep_matrices=False)).matrices == {}
    plain = analyze(VersionSet.from_codes("blank", ["", ""]), FAST)
    assert plain.status == "ok" and plain.notes == [ALL_EMPTY_NOTE]
    assert sorted(plain.summary) == ["jsd_struct", "jsd_value", "sce_struct", "sce_value"]


def test_syntax_errors_are_scored_and_flagged() -> None:
    broken = "def total(xs:\n    return sum(xs\n"
    report = analyze(VersionSet.from_codes("t", [LOOP, broken, BUILTIN]), FAST)
    assert report.status == "ok"
    assert report.syntax_errors[0] == 0 and report.syntax_errors[1] > 0
    assert any("version 2 has syntax errors (scored as parsed)" in n for n in report.notes)
    assert 0.0 < report.pair("jsd_struct") < 1.0  # type: ignore[operator]


def test_a_javascript_method_given_alone_is_no_syntax_error() -> None:
    """A method alone (``bump(by) { ... }``, as ``check`` holds a class's method) is a
    class's member, not broken code; a real error beside it is still flagged."""
    codes = ["bump(by: number): number {\n  this.n += by;\n  return this.n;\n}",
             "bump(by: number): number {\n  return (this.n = this.n + by);\n}",
             "bump(by: number): number {\n  return (this.n +=;\n}"]
    report = analyze(VersionSet.from_codes("t", codes, language="typescript"), FAST)
    assert report.syntax_errors[:2] == [0, 0] and report.syntax_errors[2] > 0
    assert report.notes == ["version 3 has syntax errors (scored as parsed)"]


def test_textual_figures_and_log_base() -> None:
    s = _five()
    report = analyze(s, AnalysisConfig(metrics=("textual",)))
    for key in ("lcs_mean", "lcs_worst", "led_mean", "led_worst", "lcs_pair_mean",
                "led_pair_mean"):
        assert isinstance(report.summary[key], float)
    assert report.matrices["lcs"].shape == (5, 5)
    ln = analyze(s, AnalysisConfig(metrics=(), jsd_log_base=math.e))
    sm = structural_matrices(s.codes, "python", jsd_log_base=math.e)
    assert ln.pair("jsd_struct") == pytest.approx(pair_means(sm.jsd_struct)[0])
    assert ln.pair("jsd_struct") != pytest.approx(report.pair("jsd_struct"))
    assert not analyze(s, AnalysisConfig(metrics=(), keep_matrices=False)).matrices


def test_reference_means_five_samples_and_real_sets(reference_dir: Path) -> None:
    """The summaries reproduce the published packages' means (natural-log JSD flavour)."""
    ref = json.loads((reference_dir / "structural.json").read_text())
    cases = [ref["five_samples"], *ref["real_sets"][:5]]
    opts = AnalysisConfig(metrics=(), jsd_log_base=math.e)
    for case in cases:
        report = analyze(VersionSet.from_codes(case["task_id"], case["samples"]), opts)
        for kind in ("ordered", "unordered"):
            expected = case[f"{kind}_mean"]
            assert report.pair("sce_struct", kind) == pytest.approx(expected["sce_struct"],
                                                                    rel=1e-9)
            assert report.pair("sce_value", kind) == pytest.approx(expected["sce_value"],
                                                                   rel=1e-9)
            assert report.pair("jsd_struct", kind) == pytest.approx(expected["jsd_struct_ln"],
                                                                    rel=1e-9)
            assert report.pair("jsd_value", kind) == pytest.approx(expected["jsd_value_ln"],
                                                                   rel=1e-9)
    five = ref["five_samples"]
    both = analyze(VersionSet.from_codes("five", five["samples"]),
                   AnalysisConfig(metrics=("tsed", "tsed_08")))
    assert both.pair("tsed", "unordered") == pytest.approx(
        five["unordered_mean"]["tsed_1_1_1"], rel=1e-9)
    assert both.pair("tsed_08", "unordered") == pytest.approx(
        five["unordered_mean"]["tsed_1_08_1"], rel=1e-9)


def _rules(divergence: Divergence | None = None) -> RuleFigures:
    """What the dynamic rules read of a run: nothing that fires, unless ``divergence``."""
    return RuleFigures(divergence=divergence, input_label="f(1)", input_source="hypothesis",
                       traced=0, sctd_jsd=0.0, dctd_jsd=0.0, oer_threshold=1.0,
                       growth_outlier_delta=0.6, bef_low=0.1, bef_high=1000.0)


@dataclass
class _Dynamic:
    """What the dynamic analysis hands over (summary, what the rules read, JSON form)."""

    summary: dict[str, float | None]
    candidates: list[CandidateDynamic] = field(default_factory=list)
    rules: RuleFigures = field(default_factory=lambda: _rules())

    def to_dict(self, verdicts: Sequence[Verdict] = ()) -> dict[str, Any]:
        return {"summary": dict(self.summary), "verdicts": [v.to_dict() for v in verdicts]}


def test_dynamic_figures_and_verdicts_merge(report_schema: dict[str, Any]) -> None:
    dyn = _Dynamic(
        summary={"sctd_jsd": 0.12, "oer": 0.5, "bef_jsd": None},
        rules=_rules(Divergence(0, 1, 2, "1", "2", ())),  # versions 2 and 3 part: OER 0.5
    )
    report = analyze(_five(), FAST, dynamic=dyn)
    assert report.summary["sctd_jsd"] == 0.12 and report.summary["oer"] == 0.5
    assert report.summary["bef_jsd"] is None
    assert "jsd_struct" in report.summary
    assert [v.code for v in report.verdicts][-1] == "divergent-outputs"
    assert report.verdict is not None and report.verdict.severity == "warning"
    d = report.to_dict()
    assert d["dynamic"]["summary"]["oer"] == 0.5
    _validate_set(d, report_schema)


def test_to_dict_is_json_and_matches_schema(report_schema: dict[str, Any]) -> None:
    report = analyze(_five(), AnalysisConfig(metrics=("tsed", "tsed_08", "textual")),
                     current_index=3)
    d = report.to_dict(include_matrices=True)
    text = json.dumps(d, allow_nan=False)
    back = json.loads(text)
    assert back["summary"]["jsd_struct"]["ordered"] == report.pair("jsd_struct")
    assert back["medoid"] == report.medoid
    assert len(back["matrices"]["jsd_struct"]) == 5
    _validate_set(back, report_schema)
    assert "matrices" not in report.to_dict()


def test_real_samples_stable_and_unstable(shared_dir: Path) -> None:
    rows = {}
    with (shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl").open() as f:
        for line in f:
            row = json.loads(line)
            if row["task_id"] in ("HumanEval/7", "HumanEval/138"):
                rows[row["task_id"]] = row
    def version_set(task: str) -> VersionSet:
        row = rows[task]
        return VersionSet.from_codes(task, [row["prompt"] + c for c in row["samples"][:10]])
    stable = analyze(version_set("HumanEval/7"), FAST)
    unstable = analyze(version_set("HumanEval/138"), FAST)
    assert stable.verdicts[0].code == "stable"
    assert unstable.verdicts[0].code == "unstable-structure"
    assert stable.pair("jsd_struct") > unstable.pair("jsd_struct")  # type: ignore[operator]
    assert len(stable.clusters[0]) > len(unstable.clusters[0])


def test_too_many_samples_is_refused_with_the_reason() -> None:
    s = VersionSet.from_codes("big", [LOOP, BUILTIN, RECURSIVE, LOOP_RENAMED])
    with pytest.raises(UserError, match="4 usable versions; at most 3 are compared"):
        analyze(s, AnalysisConfig(metrics=(), max_versions=3))


def test_tsed_trees_are_built_once_for_both_costs(monkeypatch: pytest.MonkeyPatch) -> None:
    from codequorum.metrics import tree_edit

    s = _five()
    codes = [x.code for x in s.versions]
    built: list[list[str]] = []
    real = tree_edit.build_trees

    def counting(codes: list[str], language: str, *args: Any,
                 **kwargs: Any) -> list[tree_edit.TsedTree]:
        assert len(kwargs["parsed"]) == len(codes)  # the structural metrics' parse
        built.append(list(codes))
        return real(codes, language, *args, **kwargs)

    monkeypatch.setattr(tree_edit, "build_trees", counting)
    report = analyze(s, AnalysisConfig(metrics=("tsed", "tsed_08")))
    assert built == [codes]
    monkeypatch.undo()
    np.testing.assert_allclose(report.matrices["tsed"], tree_edit.tsed_matrix(codes, "python"))
    np.testing.assert_allclose(report.matrices["tsed_08"],
                               tree_edit.tsed_matrix(codes, "python", costs=(1.0, 0.8, 1.0)))
    assert not np.allclose(report.matrices["tsed"], report.matrices["tsed_08"])


def _reference_solutions(reference_dir: Path) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    with (reference_dir / "dynamic" / "solutions.jsonl").open() as fh:
        for line in fh:
            rec = json.loads(line)
            groups.setdefault(rec["problem_id"], []).append(rec["generated_solution"])
    return groups


@pytest.mark.parametrize("version", ["3.11.7", "3.12.1", "3.13.0"])
def test_static_sctd_without_a_run_matches_the_reference(reference_dir: Path,
                                                         version: str) -> None:
    import csv
    import shutil
    import sys

    interpreter: str | None = f"/root/.pyenv/versions/{version}/bin/python{version[:4]}"
    if version == ".".join(map(str, sys.version_info[:3])):
        interpreter = None  # this process: counted in place
    elif shutil.which(str(interpreter)) is None:
        pytest.skip(f"CPython {version} not installed at {interpreter}")
    path = reference_dir / "dynamic" / f"ref_py{version}" / "sctd.csv"
    with path.open() as fh:
        ref = {row["problem_id"]: row for row in csv.DictReader(fh)}
    opts = AnalysisConfig(metrics=(), interpreter=interpreter)
    for pid, codes in _reference_solutions(reference_dir).items():
        report = analyze(VersionSet.from_codes(pid, codes), opts)
        assert report.summary["sctd_jsd"] == pytest.approx(float(ref[pid]["SCTD_JSD"]),
                                                           abs=1e-9, rel=0)
        assert report.summary["sctd_tau"] == pytest.approx(float(ref[pid]["SCTD_TAU"]),
                                                           abs=1e-9, rel=0)


def test_static_sctd_leaves_out_empty_and_broken_versions_and_other_languages() -> None:
    from codequorum.metrics.opcodes import sctd, static_opcode_counts

    codes = [LOOP, "", "def f(:\n", BUILTIN]
    report = analyze(VersionSet.from_codes("t", codes), FAST)
    expected = sctd([static_opcode_counts(LOOP), static_opcode_counts(BUILTIN)])
    assert report.summary["sctd_jsd"] == expected.jsd > 0
    assert report.summary["sctd_tau"] == expected.tau > 0
    alone = analyze(VersionSet.from_codes("t", [LOOP, "def f(:\n"]), FAST)
    assert alone.summary["sctd_jsd"] is None and alone.summary["sctd_tau"] is None
    go = analyze(VersionSet.from_codes("t", ["func f() int { return 1 }",
                                             "func f() int { return 2 }"], "go"), FAST)
    assert "sctd_jsd" not in go.summary
    off = analyze(VersionSet.from_codes("t", [LOOP, BUILTIN]),
                  AnalysisConfig(metrics=(), sctd=False))
    assert "sctd_jsd" not in off.summary


def test_unified_and_tree_diff_are_ordered_pair_means_for_python_only() -> None:
    from codequorum.metrics.pycode_similar import tree_diff, unified_diff

    codes = [LOOP, BUILTIN, LOOP_RENAMED]
    report = analyze(VersionSet.from_codes("t", codes), AnalysisConfig(metrics=("textual",)))
    pairs = [(i, j) for i in range(3) for j in range(3) if i != j]
    expected_u = sum(unified_diff(codes[i], codes[j]) for i, j in pairs) / 6
    expected_t = sum(tree_diff(codes[i], codes[j]) for i, j in pairs) / 6
    assert report.summary["unified_diff"] == pytest.approx(expected_u, abs=1e-12)
    assert report.summary["tree_diff"] == pytest.approx(expected_t, abs=1e-12)
    assert report.matrices["unified_diff"][0, 2] == 1.0  # only names differ
    js = analyze(VersionSet.from_codes("t", ["function f() { return 1; }",
                                             "function f() { return 2; }"], "javascript"),
                 AnalysisConfig(metrics=("textual",)))
    assert js.summary["unified_diff"] is None and js.summary["tree_diff"] is None
    assert "unified_diff" not in analyze(VersionSet.from_codes("t", codes), FAST).summary


def test_the_metrics_are_one_choice_in_the_registry_order() -> None:
    a = AnalysisConfig(metrics=("textual", "tsed_08", "textual"))
    assert a.metrics == ("tsed_08", "textual") and a.textual
    assert a == AnalysisConfig(metrics=("tsed_08", "textual"))
    assert hash(a) == hash(AnalysisConfig(metrics=("tsed_08", "textual")))
    with pytest.raises(ValueError, match="unknown metric 'lcs'"):
        AnalysisConfig(metrics=("lcs",))


def test_reports_and_cache_keys_name_each_metric_choice_as_a_flag() -> None:
    """The report's options, and the text cache keys are made from, keep one flag per
    metric choice where they always stood (TSED's costs after TSED's flag)."""
    opts = AnalysisConfig(metrics=("tsed_08",))
    d = opts.to_dict()
    assert list(d)[:6] == ["max_depth", "jsd_log_base", "tsed", "tsed_costs", "tsed_08",
                           "textual"]
    assert (d["tsed"], d["tsed_costs"], d["tsed_08"], d["textual"]) == (
        False, [1.0, 1.0, 1.0], True, False)
    assert "metrics" not in d
    assert repr(opts).startswith(
        "AnalysisOptions(max_depth=30, jsd_log_base=2.0, tsed=False, tsed_costs=(1.0, 1.0, "
        "1.0), tsed_08=True, textual=False, cluster_threshold=0.1, stable_jsd=None, ")


def test_a_new_verdict_is_its_spec_and_its_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """The analysis applies every rule of the judge's tuples, in order: a rule added to
    them (with its spec) reaches the report with no change here."""
    from codequorum.judge import dynamic_rules, structure
    from codequorum.judge.verdicts import VerdictSpec

    shape_spec = VerdictSpec(code="toy-shape", severity="hint", title="A toy",
                             doc="Said of every shape.", source="structure")
    run_spec = VerdictSpec(code="toy-run", severity="hint", title="A toy",
                           doc="Said of every run.", source="behaviour")
    monkeypatch.setattr(structure, "SHAPE_RULES", (
        *structure.SHAPE_RULES,
        lambda facts: [shape_spec.verdict(f"{facts.compared} seen")]))
    monkeypatch.setattr(dynamic_rules, "DYNAMIC_RULES", (
        *dynamic_rules.DYNAMIC_RULES, lambda run: run_spec.verdict("a run seen")))
    report = analyze(_five(), FAST, dynamic=_Dynamic(summary={"oer": 0.0}))
    codes = [v.code for v in report.verdicts]
    assert codes[-2:] == ["toy-shape", "toy-run"]
    assert report.verdicts[-2].message == "5 versions seen"
    assert codes[0] in ("stable", "unstable-structure")


def test_the_kept_version_is_named_as_the_current_code_in_the_report_itself() -> None:
    """``score`` on an exported set (``current: 0``) says what ``check`` and the MCP tool
    say: the version kept is the file's code."""
    from codequorum.pipeline.analyze import current_named

    said = "keep version 1: passes the docstring example; 3 of 4 versions agree"
    assert current_named(said, 0, 0) == (
        "keep version 1 (the current code): passes the docstring example; 3 of 4 versions agree")
    assert current_named(said, 0, 2) == said
    assert current_named(said, 0, None) == said
