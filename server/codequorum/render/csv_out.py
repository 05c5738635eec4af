"""The ``--format csv`` table: one row per sample set, one column per figure.

Pairwise metrics give two columns, ``<metric>_ordered`` and ``<metric>_unordered``; scalar
figures (textual, dynamic) one column each. Sample indices are 0-based, as in JSON.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from typing import Any, TextIO

from codequorum.analysis import PAIR_METRICS, StabilityReport

_LEADING = ("task_id", "language", "status", "n", "n_total", "skipped", "syntax_error_samples")
_TRAILING = ("medoid", "groups", "largest_group", "verdict", "verdict_message", "message")


def csv_columns(reports: Sequence[StabilityReport]) -> list[str]:
    """Column names for these reports: fixed leading and trailing columns, the pairwise
    metrics that any report has, then the scalar summary keys in first-seen order."""
    pair: list[str] = []
    scalar: list[str] = []
    for metric in PAIR_METRICS:
        if any(isinstance(r.summary.get(metric), dict) for r in reports):
            pair += [f"{metric}_ordered", f"{metric}_unordered"]
    for r in reports:
        for key, value in r.summary.items():
            if not isinstance(value, dict) and key not in scalar:
                scalar.append(key)
    return [*_LEADING, *pair, *scalar, *_TRAILING]


def _row(report: StabilityReport, columns: Sequence[str]) -> dict[str, Any]:
    """One report as a CSV row (empty cell = not computed)."""
    verdict = report.verdict
    row: dict[str, Any] = {
        "task_id": report.task_id,
        "language": report.language,
        "status": report.status,
        "n": report.n,
        "n_total": report.n_total,
        "skipped": " ".join(str(s.index) for s in report.skipped),
        "syntax_error_samples": " ".join(
            str(i) for i, e in zip(report.indices, report.syntax_errors, strict=False) if e
        ),
        "medoid": "" if report.medoid is None else report.medoid,
        "groups": len(report.clusters) if report.clusters else "",
        "largest_group": len(report.clusters[0]) if report.clusters else "",
        "verdict": verdict.code if verdict else "",
        "verdict_message": verdict.message if verdict else "",
        "message": report.message or "",
    }
    for column in columns:
        if column in row:
            continue
        for kind in ("ordered", "unordered"):
            suffix = f"_{kind}"
            if column.endswith(suffix) and column[: -len(suffix)] in PAIR_METRICS:
                value = report.pair(column[: -len(suffix)], kind)
                row[column] = "" if value is None or value != value else repr(value)
                break
        else:
            value = report.summary.get(column)
            row[column] = "" if value is None or value != value else value
    return row


def write_csv(reports: Sequence[StabilityReport], stream: TextIO) -> None:
    """Write a header and one row per report (floats in full precision, empty = none)."""
    columns = csv_columns(reports)
    writer = csv.DictWriter(stream, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for report in reports:
        writer.writerow(_row(report, columns))
