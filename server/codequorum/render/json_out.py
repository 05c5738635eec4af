"""The ``--format json`` document: ``{"sets": [report...], "errors": [...], ...}``.

Its shape is ``shared/report.schema.json``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TextIO

from codequorum import __version__
from codequorum.analysis import StabilityReport
from codequorum.formats import ReadError


def report_document(
    reports: Sequence[StabilityReport],
    errors: Sequence[ReadError] = (),
    *,
    interrupted: bool = False,
    include_matrices: bool = False,
    total: int | None = None,
    overall: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One JSON-ready document for a run: every scored set, every input error, whether the
    run was cut short (``total`` = how many sets were read) and, when given, ``overall``
    (``analysis.overall``: means over the sets and verdict counts)."""
    doc: dict[str, Any] = {
        "codequorum": __version__,
        "interrupted": interrupted,
        "total": len(reports) if total is None else total,
        "sets": [r.to_dict(include_matrices=include_matrices) for r in reports],
        "errors": [e.to_dict() for e in errors],
    }
    if overall is not None:
        doc["overall"] = overall
    return doc


def write_json(document: dict[str, Any], stream: TextIO) -> None:
    """Write the document, indented, with a final newline (NaN never appears: reports
    already turned it into null)."""
    json.dump(document, stream, indent=2, allow_nan=False)
    stream.write("\n")
