"""The terminal table: one row per sample set, pair means over ordered pairs, the verdict.

Colours only help reading (green at or above the report's stability threshold, red well
below it); every figure is printed as a number too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from codequorum.analysis import StabilityReport

#: (column title, summary key) of the pair-mean columns, in order.
COLUMNS: tuple[tuple[str, str], ...] = (
    ("SCE struct", "sce_struct"),
    ("SCE value", "sce_value"),
    ("JSD struct", "jsd_struct"),
    ("JSD value", "jsd_value"),
    ("TSED", "tsed"),
)
#: (column title, summary key) of scalar columns shown when a report has them (dynamic).
SCALAR_COLUMNS: tuple[tuple[str, str], ...] = (
    ("Pass", "pass_rate_mean"),
    ("OER", "oer"),
    ("BEF", "bef_jsd"),
)

#: Notes under the table (empty versions, sets too small to score) before they are counted.
MAX_NOTE_LINES = 8

_VERDICT_STYLE = {
    "stable": "green",
    "unstable-structure": "yellow",
    "outlier-current": "yellow",
    "insufficient": "dim",
}


def _cell(value: float | None, good: float | None = None) -> Text:
    """A figure with three decimals, coloured against ``good`` when given; a dash if none."""
    if value is None or value != value:
        return Text("—", style="dim")
    style = ""
    if good is not None:
        style = "green" if value >= good else ("red" if value < good - 0.15 else "yellow")
    text = f"{value:.3f}" if abs(value) < 1000 else f"{value:.2g}"
    return Text(text, style=style)


def build_table(reports: Sequence[StabilityReport], title: str | None = None,
                reasons: bool = False, overall: Mapping[str, Any] | None = None) -> Table:
    """A rich table of the reports. ``reasons`` adds the verdict message as a last column
    (wide terminals, few rows); ``overall`` (``analysis.overall``) adds a last row with the
    means over the sets and the verdict counts."""
    shown = [(t, k) for t, k in COLUMNS if any(r.pair(k) is not None for r in reports)]
    scalars = [(t, k) for t, k in SCALAR_COLUMNS if any(k in r.summary for r in reports)]
    table = Table(title=title, header_style="bold", show_lines=False, expand=False,
                  title_justify="left")
    table.add_column("Task", overflow="fold")
    table.add_column("n", justify="right")
    for title_, _ in (*shown, *scalars):
        table.add_column(title_, justify="right")
    table.add_column("Shape", justify="right")
    table.add_column("Verdict", no_wrap=overall is None or len(reports) <= 1)
    if reasons:
        table.add_column("Why", overflow="fold", ratio=1, min_width=40)
    for r in reports:
        good = r.options.get("stable_jsd") if r.options else None
        cells: list[Text | str] = [r.task_id, str(r.n)]
        for _, key in shown:
            cells.append(_cell(r.pair(key), float(good) if key.startswith("jsd") and good
                               else None))
        for _, key in scalars:
            value = r.summary.get(key)
            cells.append(_cell(float(value) if isinstance(value, int | float) else None))
        if r.status != "ok":
            cells.append(Text("—", style="dim"))
            cells.append(Text("insufficient", style=_VERDICT_STYLE["insufficient"]))
            if reasons:
                cells.append(Text(r.message or "", style="dim"))
        else:
            largest = len(r.clusters[0]) if r.clusters else 0
            cells.append(f"{largest}/{r.n}")
            verdict = r.verdict
            code = verdict.code if verdict else ""
            cells.append(Text(code, style=_VERDICT_STYLE.get(code, "")))
            if reasons:
                cells.append(verdict.message if verdict else "")
        table.add_row(*cells)
    if overall is not None and len(reports) > 1:
        table.add_section()
        table.add_row(*_overall_cells(overall, shown, scalars, reasons), style="bold")
    return table


def _overall_cells(overall: Mapping[str, Any], shown: Sequence[tuple[str, str]],
                   scalars: Sequence[tuple[str, str]], reasons: bool) -> list[Text | str]:
    """The last row: means over the sets and verdict counts."""
    summary = overall.get("summary", {})
    cells: list[Text | str] = [f"mean of {overall.get('scored', 0)}", ""]
    for _, key in shown:
        value = summary.get(key)
        cells.append(_cell(value.get("ordered") if isinstance(value, dict) else None))
    for _, key in scalars:
        value = summary.get(key)
        cells.append(_cell(float(value) if isinstance(value, int | float) else None))
    cells.append("")
    counts = overall.get("verdicts", {})
    cells.append(", ".join(f"{n} {code}" for code, n in sorted(counts.items(),
                                                                key=lambda kv: -kv[1])))
    if reasons:
        cells.append("")
    return cells


def print_table(reports: Sequence[StabilityReport], console: Console, title: str | None = None,
                reasons: bool = False, overall: Mapping[str, Any] | None = None) -> None:
    """Print the table, then one line per report note-worthy for the reader (skipped or
    insufficient sets)."""
    console.print(build_table(reports, title=title, reasons=reasons, overall=overall))
    lines: list[str] = []
    for r in reports:
        if r.status != "ok" and not reasons:
            lines.append(f"{r.task_id}: {r.message}")
        elif r.skipped:
            lines.append(f"{r.task_id}: " + "; ".join(n for n in r.notes if "left out" in n))
    if len(lines) > MAX_NOTE_LINES:
        empty = sum(len(r.skipped) for r in reports)
        lines = [*lines[: MAX_NOTE_LINES - 1],
                 f"... and {len(lines) - MAX_NOTE_LINES + 1} more sets with notes "
                 f"({empty} empty versions left out in all; --format json lists them)"]
    for line in lines:
        console.print(Text(line, style="dim"))
