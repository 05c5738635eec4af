"""Renderers lay out report values as they are: table cells, CSV columns, JSON document."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest
from rich.console import Console

from codequorum.core.report import SkippedVersion, StabilityReport, Verdict
from codequorum.ingest.version_files import ReadError
from codequorum.judge.risk import NOT_RUN
from codequorum.render.csv_out import CSV_COLUMNS, csv_columns, write_csv
from codequorum.render.json_out import report_document, write_json
from codequorum.render.table import build_table, model_lines, print_table

REPO = Path(__file__).resolve().parent.parent.parent


def _report(task: str = "T/1", **summary: Any) -> StabilityReport:
    base: dict[str, Any] = {
        "sce_struct": {"ordered": 0.61234, "unordered": 0.6},
        "sce_value": {"ordered": 0.5, "unordered": 0.49},
        "jsd_struct": {"ordered": 0.91, "unordered": 0.9},
        "jsd_value": {"ordered": 0.7, "unordered": 0.69},
    }
    base.update(summary)
    return StabilityReport(
        task_id=task,
        language="python",
        status="ok",
        n=3,
        n_total=4,
        indices=[0, 1, 3],
        skipped=[SkippedVersion(2, "empty sample")],
        empty=[2],
        syntax_errors=[0, 2, 0],
        summary=base,
        typicality=[0.9, 0.8, math.nan],
        medoid=0,
        clusters=[[0, 1], [3]],
        verdicts=[
            Verdict(
                "stable",
                "information",
                "2 of 3 versions share one shape",
                versions=(0, 1),
                figure=0.91,
            )
        ],
        notes=["version 3 is empty: scored as an empty answer"],
        options={"stable_jsd": 0.8},
    )


def _insufficient() -> StabilityReport:
    return StabilityReport(
        task_id="T/2",
        language="python",
        status="insufficient",
        n=1,
        n_total=1,
        indices=[0],
        message="only 1 usable sample of 1",
    )


def _render(*reports: StabilityReport, reasons: bool = False) -> str:
    console = Console(file=io.StringIO(), width=200, color_system=None)
    print_table(list(reports), console, title="scores", reasons=reasons)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(out, str)
    return out


def test_table_cells_are_the_report_values() -> None:
    out = _render(_report(), _insufficient())
    header = next(line for line in out.splitlines() if "Task" in line)
    for title in ("SCE struct", "SCE value", "JSD struct", "JSD value", "Shape", "Verdict"):
        assert title in header
    assert "TSED" not in header  # no report has it
    row = next(line for line in out.splitlines() if "T/1" in line)
    for cell in ("0.612", "0.500", "0.910", "0.700", "2/3", "stable"):
        assert cell in row
    row2 = next(line for line in out.splitlines() if "T/2" in line)
    assert "insufficient" in row2 and "—" in row2
    assert "T/2: only 1 usable sample of 1" in out
    assert "T/1: version 3 is empty: scored as an empty answer" in out


@pytest.mark.parametrize("behaviour", [
    Verdict("divergent-outputs", "warning", "versions 1 and 2 disagree on f(1): 1 vs 2",
            versions=(0, 1), figure=0.5),
    Verdict("not-run", "information", "shape stable; behaviour not run: no inputs"),
])
def test_the_verdict_column_does_not_call_stable_what_ran_apart_or_not_at_all(
        behaviour: Verdict) -> None:
    report = _report()
    report.verdicts.append(behaviour)
    lines = _render(report).splitlines()
    at = next(k for k, line in enumerate(lines) if "T/1" in line)
    cells = [line.split("│")[-2].strip() for line in lines[at:] if line.startswith("│")]
    assert cells == [behaviour.code]  # a row's codes are one a line
    assert [v["code"] for v in report_document([report])["sets"][0]["verdicts"]] == [
        "stable", behaviour.code]  # the JSON keeps both


def test_the_last_row_counts_the_verdicts_the_rows_above_it_show() -> None:
    """A set whose Verdict column shows ``divergent-outputs`` without the shape's
    ``stable`` is not counted as stable in the last row either; ``overall`` keeps both."""
    from codequorum.judge.overall import overall

    apart = _report("T/1")
    apart.verdicts.append(Verdict("divergent-outputs", "warning",
                                  "versions 1 and 2 disagree on f(1): 1 vs 2",
                                  versions=(0, 1), figure=0.5))
    reports = [apart, _report("T/2")]
    summary = overall(reports)
    assert summary["verdicts"] == {"stable": 2, "divergent-outputs": 1}
    console = Console(file=io.StringIO(), width=200, color_system=None)
    print_table(reports, console, overall=summary)
    lines = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    at = next(k for k, line in enumerate(lines) if "mean of 2" in line)
    cells = [line.split("│")[-2].strip() for line in lines[at:] if line.startswith("│")]
    assert cells == ["1 divergent-outputs", "1 stable"]
    narrow = Console(file=io.StringIO(), width=40, color_system=None)
    print_table(reports, narrow, overall=summary)
    said = narrow.file.getvalue()  # type: ignore[attr-defined]
    assert "verdicts: " in said and "2 stable" not in said and "1 stable" in said


def test_a_stable_set_whose_versions_never_ran_is_said_to_be_stable_in_shape_only() -> None:
    from codequorum.render.table import SHAPE_ONLY

    shape_only = _report("T/1")
    shape_only.recommended, shape_only.recommended_by = 0, "structure"
    out = " ".join(_render(shape_only).split())
    assert "not run" in out and " ".join(SHAPE_ONLY.split()) in out
    ran = _report("T/2")
    ran.recommended, ran.recommended_by, ran.risk = 0, "behaviour", 0.2
    assert "agree in shape" not in _render(ran)
    console = Console(file=io.StringIO(), width=200, color_system=None)
    print_table([shape_only], console, explain_shape=False)  # the demo says it its own way
    assert "agree in shape" not in console.file.getvalue()  # type: ignore[attr-defined]


def test_table_names_versions_with_syntax_errors_as_json_does() -> None:
    from codequorum.core.model import VersionSet
    from codequorum.pipeline.analyze import analyze
    from codequorum.pipeline.config import AnalysisConfig

    codes = ["def f(x):\n    return x + 1\n", "def f(x):\n    return 1 + x\n",
             "def f(x:\n    return x\n"]
    report = analyze(VersionSet.from_codes("T/3", codes), AnalysisConfig(metrics=()))
    said = "version 3 has syntax errors (scored as parsed)"
    assert said in report.to_dict()["notes"]
    assert f"T/3: {said}" in _render(report)
    left_out = StabilityReport(task_id="T/4", language="python", status="ok", n=2, n_total=3,
                               indices=[0, 1], skipped=[SkippedVersion(2, "not text")])
    assert "T/4: version 3 left out: not text" in _render(left_out)


def test_table_optional_columns() -> None:
    r = _report(tsed={"ordered": 0.4444, "unordered": 0.4}, oer=0.25, pass_rate_mean=0.5)
    table = build_table([r], reasons=True)
    titles = [str(c.header) for c in table.columns]
    from codequorum.render.table import COLUMNS, SCALAR_COLUMNS

    figures = [label for label, key in (*COLUMNS, *SCALAR_COLUMNS) if key in r.summary]
    assert titles == ["Task", "n", *figures, "Shape", "Keep", "Risk", "Verdict", "Why"]
    assert figures[:5] == ["SCE struct", "SCE value", "JSD struct", "JSD value", "TSED"]
    assert set(figures[5:]) == {"Pass", "OER"}
    out = _render(r, reasons=True)
    assert "0.444" in out and "0.250" in out and "2 of 3 versions share one shape" in out


def test_csv_header_is_the_same_whatever_was_computed() -> None:
    r = _report(tsed={"ordered": None, "unordered": None}, lcs_mean=0.75, oer=None)
    headers = set()
    for reports in ([r, _insufficient()], [_insufficient()], [_report()], []):
        buf = io.StringIO()
        write_csv(reports, buf)
        headers.add(buf.getvalue().split("\n", 1)[0])
    assert headers == {",".join(CSV_COLUMNS)}
    assert csv_columns() == list(CSV_COLUMNS)
    assert CSV_COLUMNS[:8] == (
        "task_id",
        "language",
        "status",
        "n",
        "n_total",
        "skipped",
        "syntax_error_versions",
        "empty_versions",
    )
    assert CSV_COLUMNS[8:10] == ("sce_struct_ordered", "sce_struct_unordered")
    assert {"tsed_ordered", "tsed_08_unordered", "lcs_mean", "oer", "bef_jsd", "sctd_jsd",
            "unified_diff", "tree_diff"} <= set(CSV_COLUMNS)
    assert CSV_COLUMNS[-6:] == (
        "medoid",
        "groups",
        "largest_group",
        "verdict",
        "verdict_message",
        "message",
    )
    assert len(set(CSV_COLUMNS)) == len(CSV_COLUMNS)


def test_recommendation_in_table_and_csv() -> None:
    r = _report()
    r.recommended, r.recommended_by, r.risk = 3, "behaviour", 0.25
    r.stability_percentile = 40.0
    r.recommendation = "keep version 4: 2 of 4 versions agree with it on 5 inputs"
    row = next(line for line in _render(r).splitlines() if "T/1" in line)
    assert "v4 outputs" in row and "0.250" in row
    buf = io.StringIO()
    write_csv([r, _insufficient()], buf)
    rows = list(csv.DictReader(io.StringIO(buf.getvalue())))
    assert (rows[0]["recommended"], rows[0]["recommended_by"], rows[0]["risk"]) == (
        "3", "behaviour", "0.25")
    assert rows[0]["stability_percentile"] == "40.0"
    assert rows[0]["recommendation"] == r.recommendation
    assert (rows[1]["recommended"], rows[1]["risk"]) == ("", "")
    assert rows[0]["risk_level"] == rows[0]["trust"] == rows[0]["model"] == ""


def test_risk_words_level_range_and_model_in_table_and_csv() -> None:
    r = _report()
    r.recommended, r.recommended_by, r.model = 3, "behaviour", "m-7b"
    r.recommendation = "keep version 4: 2 of 4 versions agree with it on 5 inputs"
    r.trust = NOT_RUN
    row = next(line for line in _render(r).splitlines() if "T/1" in line)
    assert "not run" in row  # nothing ran: no figure from shape alone
    r.risk, r.risk_level, r.risk_range = 0.08, "likely right", [0.01, 0.13]
    r.trust = "likely right: about 1 in 12 that it is wrong (1–13 % in held-out tests)"
    buf = io.StringIO()
    write_csv([r], buf)
    [row_] = list(csv.DictReader(io.StringIO(buf.getvalue())))
    assert (row_["risk"], row_["risk_level"], row_["risk_low"], row_["risk_high"]) == (
        "0.08", "likely right", "0.01", "0.13")
    assert (row_["trust"], row_["model"]) == (r.trust, "m-7b")


def test_table_says_per_model_how_the_risk_held() -> None:
    overall = {"by_model": {
        "m-7b": {"sets": 164, "with_risk": 160, "graded": 150, "kept_wrong": 0.25,
                 "mean_risk": 0.3, "auroc": 0.9, "ece": 0.052, "reliability": []},
        "(no model named)": {"sets": 2, "with_risk": 1, "graded": 0}}}
    lines = [t.plain for t in model_lines(overall)]
    assert lines == [
        "m-7b: 164 sets; kept version wrong in 25 % of the 150 sets with graded tests, mean "
        "risk 30 %; AUROC 0.900, ECE 0.052",
        "(no model named): 2 sets; 1 with a risk, none with graded tests"]
    assert model_lines({}) == []


def test_csv_columns_cover_the_dynamic_summary() -> None:
    dynamic = pytest.importorskip("codequorum.behaviour.dynamic_analysis")
    assert set(dynamic.SUMMARY_KEYS) <= set(CSV_COLUMNS)


def test_csv_values() -> None:
    r = _report(tsed={"ordered": None, "unordered": None}, lcs_mean=0.75, oer=None,
                pass_rate_mean=np.float64(0.5), inputs=np.int64(7))
    buf = io.StringIO()
    write_csv([r, _insufficient()], buf)
    rows = list(csv.DictReader(io.StringIO(buf.getvalue())))
    assert float(rows[0]["sce_struct_ordered"]) == 0.61234
    assert float(rows[0]["jsd_value_unordered"]) == 0.69
    assert rows[0]["tsed_ordered"] == "" and rows[0]["oer"] == ""
    assert rows[0]["lcs_mean"] == "0.75"
    assert (rows[0]["pass_rate_mean"], rows[0]["inputs"]) == ("0.5", "7")
    assert rows[0]["skipped"] == "2" and rows[0]["syntax_error_versions"] == "1"
    assert rows[0]["empty_versions"] == "2"
    assert (rows[0]["medoid"], rows[0]["groups"], rows[0]["largest_group"]) == ("0", "2", "2")
    assert rows[0]["verdict"] == "stable"
    assert rows[1]["status"] == "insufficient" and rows[1]["sce_struct_ordered"] == ""
    assert rows[1]["message"] == "only 1 usable sample of 1"


def test_json_document_matches_schema() -> None:
    schema = json.loads((REPO / "shared" / "report.schema.json").read_text())
    errors = [ReadError("in.jsonl", 3, "broken JSON: Expecting value at column 1")]
    doc = report_document([_report(), _insufficient()], errors, interrupted=True, total=5)
    buf = io.StringIO()
    write_json(doc, buf)
    back = json.loads(buf.getvalue())
    jsonschema.validate(back, schema)
    assert back["interrupted"] is True and back["total"] == 5
    assert back["errors"] == [
        {
            "source": "in.jsonl",
            "line": 3,
            "task_id": None,
            "message": "broken JSON: Expecting value at column 1",
        }
    ]
    first = back["sets"][0]
    assert first["summary"]["sce_struct"] == {"ordered": 0.61234, "unordered": 0.6}
    assert first["typicality"] == [0.9, 0.8, None]  # NaN becomes null
    assert first["verdicts"][0]["versions"] == [0, 1]


def test_many_notes_are_counted_not_listed() -> None:
    reports = [_report(task=f"T/{k}") for k in range(12)]
    out = _render(*reports)
    assert "T/0: version 3 is empty" in out
    assert "T/6: version 3 is empty" in out
    assert "T/7: version 3 is empty" not in out
    assert "... and 5 more sets with notes (12 empty versions in all" in out
    assert "mean of" not in out  # no overall row unless given
    table = build_table(
        reports,
        overall={
            "scored": 12,
            "verdicts": {"stable": 12},
            "summary": {"jsd_struct": {"ordered": 0.91}},
        },
    )
    console = Console(file=io.StringIO(), width=200, color_system=None)
    console.print(table)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    last = next(line for line in text.splitlines() if "mean of 12" in line)
    assert "0.910" in last and "12 stable" in last


@pytest.mark.parametrize("reasons", [False, True])
def test_table_from_rows_is_the_table_from_reports(reasons: bool) -> None:
    """A streamed run keeps only each set's row values: the same table, in colour too."""
    from codequorum.render.table import table_row

    reports = [_report(), _insufficient(), _report("T/3", pass_rate_mean=0.5, oer=0.25)]
    across = {"scored": 2, "verdicts": {"stable": 2}, "summary": {}}
    out = []
    for items in (reports, [table_row(r) for r in reports]):
        console = Console(file=io.StringIO(), width=120, color_system="truecolor",
                          force_terminal=True)
        print_table(items, console, reasons=reasons, overall=across)
        out.append(console.file.getvalue())  # type: ignore[attr-defined]
    assert out[0] == out[1]
    assert "mean of 2" in out[1] and "Pass" in out[1] and "0.250" in out[1]
    row = table_row(reports[0])
    assert (row.task_id, row.n, row.largest, row.codes, row.empty) == ("T/1", 3, 2,
                                                                      ("stable",), 1)
    assert row.pairs["jsd_struct"] == 0.91 and row.stable_jsd == 0.8
