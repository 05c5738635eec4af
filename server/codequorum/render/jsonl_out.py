"""The ``--format jsonl`` output: one report a line, in input order.

Each line is a set's report as in the JSON document's ``sets`` (strings made safe by
:func:`~codequorum.render.json_out.safe_values`), on one line. Lines can be written as sets
finish and appended to, which is what ``score --scheduler ... --resume`` does; errors go
to standard error only, and there is no ``overall`` line.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

from codequorum.core.errors import UserError
from codequorum.core.limits import json_depth_problem
from codequorum.core.report import StabilityReport
from codequorum.pipeline.risk_level import RiskFields
from codequorum.render.json_out import safe_values

log = logging.getLogger(__name__)


def report_line(report: StabilityReport, include_matrices: bool = False) -> str:
    """One report as one JSON line, newline included."""
    return _line(safe_values(report.to_dict(include_matrices=include_matrices)))


def _line(data: dict[str, Any]) -> str:
    """A report's JSON form on one line, newline included."""
    return json.dumps(data, allow_nan=False, separators=(",", ":")) + "\n"


def risk_of(line: str) -> tuple[str | None, float, str] | None:
    """The model (as written), own risk and kind of evidence of a report line, None when
    it has no risk of its own."""
    data = _report(line)
    if data is None:  # not a report: copied as it is
        return None
    alone, evidence = data.get("risk_alone"), data.get("risk_evidence")
    if not isinstance(alone, float | int) or not isinstance(evidence, str):
        return None
    model = data.get("model")
    return (model if isinstance(model, str) else None), float(alone), evidence


def with_risk(line: str, fields: RiskFields) -> str:
    """A report line with its risk, step, range and words replaced (the rest as it was,
    byte for byte: a line reads back to the values it was written from)."""
    data = _report(line)
    if data is None:
        return line if line.endswith("\n") else line + "\n"
    data.update({"risk": fields.risk, "risk_level": fields.level,
                 "risk_range": fields.range, "trust": fields.trust})
    return _line(data)


def write_jsonl(reports: Sequence[StabilityReport], stream: TextIO,
                include_matrices: bool = False) -> None:
    """One line per report."""
    for report in reports:
        stream.write(report_line(report, include_matrices))


def _report(line: str) -> dict[str, Any] | None:
    """A report line's JSON object; None when the line is not one (broken, nested too
    deeply, not an object with a task id)."""
    if json_depth_problem(line) is not None:
        return None
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) and "task_id" in data else None


def task_ids(lines: Iterator[str], path: str) -> Counter[str]:
    """The task ids of a file of report lines, counted, read back a line at a time for
    ``--resume``. :class:`UserError` when the first line is not a report (the file is not
    one of these); a later line that is not is one warning, and its set is scored again."""
    done: Counter[str] = Counter()
    for number, line in enumerate(lines, start=1):
        data = _report(line)
        if data is None and number == 1:
            raise UserError(f"{path}:1: not a report line; cannot resume into this file")
        if data is None:
            log.warning("%s:%d: not a report line; left as it is, and its set (if any) is "
                        "scored again", path, number)
            continue
        done[str(data["task_id"])] += 1
    return done
