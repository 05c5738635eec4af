"""The table fits the terminal: no line wider than it, task ids whole, columns left out in
the documented order."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len

from codequorum.core.report import SkippedVersion, StabilityReport, Verdict
from codequorum.render.table import COUNTS, DROP_ORDER, fit_columns, print_table
from codequorum.render.terminal import color_enabled, make_console, output_width

IDS = [f"HumanEval/{k}" for k in (0, 5, 37, 163)] + ["bigcode/task-with-a-long-name/17"]
REASON = ("Versions disagree in shape: mean JSD 0.72 < 0.80; only 3 of 10 versions share "
          "one shape (7 groups); version 8 is an outlier: JSD 0.52 vs 0.66 mean")


def _report(task_id: str, dynamic: bool) -> StabilityReport:
    summary: dict[str, Any] = {key: {"ordered": 0.7123, "unordered": 0.7} for key in
                               ("sce_struct", "sce_value", "jsd_struct", "jsd_value", "tsed")}
    if dynamic:
        summary.update(pass_rate_mean=0.5, oer=0.25, bef_jsd=1234.5)
    return StabilityReport(
        task_id=task_id, language="python", status="ok", n=10, n_total=11, indices=list(range(10)),
        skipped=[SkippedVersion(10, "empty sample")], summary=summary, medoid=0,
        clusters=[[0, 1, 2], [3, 4, 5, 6, 7, 8, 9]],
        verdicts=[Verdict("unstable-structure", "warning", REASON)],
        notes=["version 11 left out: empty"], options={"stable_jsd": 0.8},
    )


OVERALL = {"scored": 5, "verdicts": {"unstable-structure": 3, "stable": 2},
           "summary": {"jsd_struct": {"ordered": 0.7}}}


def _render(width: int, reasons: bool, dynamic: bool) -> list[str]:
    stream = io.StringIO()
    console = make_console(stream, color=False, width=width)
    print_table([_report(t, dynamic) for t in IDS], console, title="a title that is long "
                "enough to wrap on a narrow terminal", reasons=reasons, overall=OVERALL)
    return stream.getvalue().splitlines()


@pytest.mark.parametrize("width", [200, 120, 80, 60, 45])
@pytest.mark.parametrize("reasons", [False, True])
@pytest.mark.parametrize("dynamic", [False, True])
def test_no_line_wider_than_the_console_and_ids_whole(width: int, reasons: bool,
                                                      dynamic: bool) -> None:
    lines = _render(width, reasons, dynamic)
    assert max(cell_len(line) for line in lines) <= width
    for task_id in IDS:
        # each id whole on the row that starts with it
        assert any(line.startswith(f"│ {task_id} ") for line in lines), task_id
    if reasons:  # in the table or under it, the reason is never lost
        assert "outlier" in " ".join(lines)


def test_columns_are_left_out_in_the_stated_order() -> None:
    reports = [_report(t, dynamic=True) for t in IDS]
    previous: list[str] = []
    for width in range(200, 30, -5):
        dropped = fit_columns(reports, width, reasons=True, overall=OVERALL)
        present = [t for t in DROP_ORDER if t in dropped]
        assert dropped == present  # in DROP_ORDER
        assert dropped[: len(previous)] == previous  # narrower leaves out more, never others
        previous = dropped
    assert "Verdict" not in fit_columns(reports, 60, overall=OVERALL)
    assert fit_columns(reports, 200, overall=OVERALL) == []


def test_a_line_says_which_columns_were_left_out() -> None:
    lines = _render(80, reasons=False, dynamic=True)
    note = " ".join(line for line in lines[-3:])
    assert "left out to fit 80 columns: SCE value, SCE struct" in note


def test_task_ids_are_never_cut_even_when_nothing_else_fits() -> None:
    lines = _render(20, reasons=False, dynamic=False)
    assert any("bigcode/task-with-a-long-name/17" in line for line in lines)


def test_width_and_colour_from_the_environment() -> None:
    stream = io.StringIO()  # not a terminal
    assert output_width(stream, {"COLUMNS": "72"}) == 72
    assert output_width(stream, {"COLUMNS": "wide"}) is None
    assert output_width(stream, {}) is None
    assert color_enabled("always", stream, {"NO_COLOR": "1"}) is True
    assert color_enabled("never", stream, {}) is False
    assert color_enabled("auto", stream, {}) is False  # not a terminal


def test_no_color_is_respected_on_a_terminal() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert color_enabled("auto", Terminal(), {}) is True
    assert color_enabled("auto", Terminal(), {"NO_COLOR": "1"}) is False
    assert color_enabled("auto", Terminal(), {"NO_COLOR": ""}) is True  # set but empty
    assert color_enabled("auto", Terminal(), {"TERM": "dumb"}) is False


def test_docs_state_the_order_columns_are_left_out_in() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text()
    section = docs.split("### The table on a narrow terminal", 1)[1].split("\n###", 1)[0]
    positions = [section.index("verdict counts") if name == COUNTS else
                 section.index(f"`{name}`") for name in DROP_ORDER]
    assert positions == sorted(positions)


@pytest.mark.parametrize("width", [120, 80, 60])
def test_every_verdict_is_shown_most_severe_first_within_the_width(width: int) -> None:
    from codequorum.render.table import verdict_codes

    report = _report(IDS[0], dynamic=True)
    report.verdicts = [
        Verdict("stable", "information", "alike"),
        Verdict("divergent-outputs", "warning", "versions 1 and 2 disagree"),
        Verdict("runtime-instability", "information", "BEF 0.05"),
        Verdict("outlier-current", "warning", "far"),
    ]
    # The shape's "stable" is left out beside outputs that part ways (judge.verdicts).
    assert verdict_codes(report) == ["divergent-outputs", "outlier-current",
                                     "runtime-instability"]
    stream = io.StringIO()
    print_table([report], make_console(stream, color=False, width=width))
    lines = stream.getvalue().splitlines()
    assert max(cell_len(line) for line in lines) <= width
    shown = [code for code in verdict_codes(report)
             for line in lines if f" {code} " in line]
    assert shown == verdict_codes(report)  # one a line, in that order
