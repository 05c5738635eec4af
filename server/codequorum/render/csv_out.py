"""The ``--format csv`` table: one row per sample set, the same columns for every run.

The header is :data:`CSV_COLUMNS` whatever was computed, so files from different runs
line up and scripts can name columns: a figure not computed (TSED with ``--no-tsed``,
the behaviour figures without ``--dynamic``, a set with too few versions) is an empty
cell. Pairwise metrics give two columns, ``<metric>_ordered`` and ``<metric>_unordered``;
scalar figures one each. Version indices are 0-based, as in JSON. Text from the input
(task ids, models, messages) goes through the CSV sink,
:func:`~codequorum.core.safe_text.csv_cell`.

A spreadsheet evaluates a cell that starts with ``=``, ``+``, ``-`` or ``@`` (and, in some,
a tab or a carriage return) as a formula, so every text cell that would start with one is
written with a leading ``'`` (OWASP's advice against CSV injection): ``=HYPERLINK(...)``
as a task id arrives as ``'=HYPERLINK(...)``, shown as text; so does its full-width twin
``＝HYPERLINK(...)``, which a spreadsheet folds to ``=``. Figures are numbers codequorum
writes itself (a negative one stays a number), never text from the input.
"""

from __future__ import annotations

import csv
import io
import logging
import numbers
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

from codequorum.core.errors import UserError
from codequorum.core.report import StabilityReport
from codequorum.core.safe_text import csv_cell
from codequorum.metrics.registry import PAIR_METRICS
from codequorum.pipeline.analyze import AST_DIFF_KEYS, TEXTUAL_KEYS
from codequorum.pipeline.risk_level import RiskFields

log = logging.getLogger(__name__)

LEADING: tuple[str, ...] = ("task_id", "language", "status", "n", "n_total", "skipped",
                            "syntax_error_versions", "empty_versions")
PAIR_COLUMNS: tuple[str, ...] = tuple(f"{metric.key}_{kind}" for metric in PAIR_METRICS
                                      for kind in ("ordered", "unordered"))
#: Figures of the sandboxed run (``--dynamic``), in the order of docs/cli.md.
DYNAMIC_COLUMNS: tuple[str, ...] = (
    "pass_rate_mean", "pass_rate_var", "pass_rate_max_diff",
    "oer", "oer_no_ex", "oer_pair_mean", "oer_graded",
    "sctd_jsd", "sctd_tau", "dctd_jsd", "dctd_tau", "bef_jsd", "bef_tau",
    "inputs", "graded_inputs", "dctd_inputs",
)
#: Which version to keep, the risk that it is wrong, the stability percentile.
RECOMMENDATION_COLUMNS: tuple[str, ...] = ("recommended", "recommended_by", "risk",
                                           "risk_level", "risk_low", "risk_high", "trust",
                                           "risk_alone", "risk_evidence",
                                           "stability_percentile", "recommendation", "model")
TRAILING: tuple[str, ...] = ("medoid", "groups", "largest_group", "verdict", "verdict_message",
                             "message")
#: Every CSV column, in order.
CSV_COLUMNS: tuple[str, ...] = (*LEADING, *PAIR_COLUMNS, *TEXTUAL_KEYS, *AST_DIFF_KEYS,
                                *DYNAMIC_COLUMNS,
                                *RECOMMENDATION_COLUMNS, *TRAILING)


#: Text from the input as a CSV cell (the CSV sink: escaped, no formula, full-width forms
#: included).
text_cell = csv_cell


def csv_columns() -> list[str]:
    """The CSV header: the same for every run."""
    return list(CSV_COLUMNS)


def _figure(value: Any) -> Any:
    """A number as written (full precision), empty when missing or not a number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return ""
    if isinstance(value, numbers.Integral):
        return int(value)
    number = float(value)
    return "" if number != number else number  # written as repr(number): full precision


def _row(report: StabilityReport) -> dict[str, Any]:
    """One report as a CSV row (empty cell = not computed)."""
    verdict = report.verdict
    row: dict[str, Any] = {
        "task_id": text_cell(report.task_id),
        "language": text_cell(report.language),
        "status": report.status,
        "n": report.n,
        "n_total": report.n_total,
        "skipped": " ".join(str(s.index) for s in report.skipped),
        "syntax_error_versions": " ".join(
            str(i) for i, e in zip(report.indices, report.syntax_errors, strict=False) if e
        ),
        "empty_versions": " ".join(str(i) for i in report.empty),
        "recommended": "" if report.recommended is None else report.recommended,
        "recommended_by": text_cell(report.recommended_by or ""),
        "risk": _figure(report.risk),
        "risk_level": report.risk_level or "",
        "risk_low": _figure(report.risk_range[0]) if report.risk_range else "",
        "risk_high": _figure(report.risk_range[1]) if report.risk_range else "",
        "trust": report.trust or "",
        "risk_alone": _figure(report.risk_alone),
        "risk_evidence": report.risk_evidence or "",
        "model": text_cell(report.model or ""),
        "stability_percentile": _figure(report.stability_percentile),
        "recommendation": text_cell(report.recommendation or ""),
        "medoid": "" if report.medoid is None else report.medoid,
        "groups": len(report.clusters) if report.clusters else "",
        "largest_group": len(report.clusters[0]) if report.clusters else "",
        "verdict": text_cell(verdict.code) if verdict else "",
        "verdict_message": text_cell(verdict.message) if verdict else "",
        "message": text_cell(report.message or ""),
    }
    for metric in PAIR_METRICS:
        for kind in ("ordered", "unordered"):
            row[f"{metric.key}_{kind}"] = _figure(report.pair(metric.key, kind))
    for key in (*TEXTUAL_KEYS, *AST_DIFF_KEYS, *DYNAMIC_COLUMNS):
        row[key] = _figure(report.summary.get(key))
    return row


def write_csv(reports: Sequence[StabilityReport], stream: TextIO, *, header: bool = True
              ) -> None:
    """Write the header (unless ``header`` is false: rows appended to a file that has it)
    and one row per report (floats in full precision, empty = none)."""
    writer = csv.DictWriter(stream, fieldnames=CSV_COLUMNS, lineterminator="\n")
    if header:
        writer.writeheader()
    for report in reports:
        writer.writerow(_row(report))


def task_ids(lines: Iterator[str], path: str) -> Counter[str]:
    """The task ids (as written) of a CSV this module wrote, counted, read back a line at a
    time for ``--resume``; :class:`UserError` when the header is not this version's."""
    done: Counter[str] = Counter()
    for number, line in enumerate(lines, start=1):
        row = _row_of(line)
        if number == 1:
            if row is not None and tuple(row) != CSV_COLUMNS:
                raise UserError(f"{path}: not a codequorum CSV of this version (header "
                                "differs); cannot resume into it")
            continue
        if row is None or len(row) != len(CSV_COLUMNS):  # its set is scored again
            log.warning("%s:%d: not a row of this CSV; left as it is, and its set (if any) "
                        "is scored again", path, number)
            continue
        done[row[0]] += 1
    return done


def _row_of(line: str) -> list[str] | None:
    """One line as a CSV row (None when the csv module cannot read it: a NUL, a field
    over its size limit)."""
    try:
        return next(csv.reader([line]), None)
    except csv.Error:
        return None


#: Where each column is in a row.
_AT: dict[str, int] = {name: k for k, name in enumerate(CSV_COLUMNS)}


def _one_row(line: str) -> list[str] | None:
    """A data row of a CSV this module wrote (None for the header or a short row)."""
    row = _row_of(line)
    if row is None or len(row) != len(CSV_COLUMNS) or tuple(row) == CSV_COLUMNS:
        return None
    return row


def risk_of(line: str) -> tuple[str | None, float, str] | None:
    """The model (as written), own risk and kind of evidence of one row, None when it has
    no risk of its own (or is the header)."""
    row = _one_row(line)
    if row is None or not row[_AT["risk_alone"]] or not row[_AT["risk_evidence"]]:
        return None
    try:
        alone = float(row[_AT["risk_alone"]])
    except ValueError:  # not a row this module wrote: copied as it is
        return None
    return (row[_AT["model"]] or None, alone, row[_AT["risk_evidence"]])


def with_risk(line: str, fields: RiskFields) -> str:
    """One row with its risk, step, range and words replaced, written as
    :func:`write_csv` writes it."""
    row: list[Any] | None = _one_row(line)
    if row is None:
        return line if line.endswith("\n") else line + "\n"
    row[_AT["risk"]] = _figure(fields.risk)
    row[_AT["risk_level"]] = fields.level
    row[_AT["risk_low"]] = _figure(fields.range[0]) if fields.range else ""
    row[_AT["risk_high"]] = _figure(fields.range[1]) if fields.range else ""
    row[_AT["trust"]] = fields.trust
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(row)
    return out.getvalue()
