"""The ``--format jsonl`` output: one report a line, in input order.

Each line is a set's report as in the JSON document's ``sets`` (strings made safe by
:func:`~codequorum.render.json_out.safe_values`), on one line. Lines can be written as sets
finish and appended to, which is what ``score --scheduler ... --resume`` does; errors go
to standard error only, and there is no ``overall`` line.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TextIO

from codequorum.core.report import StabilityReport
from codequorum.render.json_out import safe_values


def report_line(report: StabilityReport, include_matrices: bool = False) -> str:
    """One report as one JSON line, newline included."""
    return json.dumps(safe_values(report.to_dict(include_matrices=include_matrices)),
                      allow_nan=False, separators=(",", ":")) + "\n"


def write_jsonl(reports: Sequence[StabilityReport], stream: TextIO,
                include_matrices: bool = False) -> None:
    """One line per report."""
    for report in reports:
        stream.write(report_line(report, include_matrices))
