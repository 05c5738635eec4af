"""The ``--format json`` document: ``{"sets": [report...], "errors": [...], ...}``.

Its shape is ``shared/report.schema.json``. Every string in it (messages that quote what a
version printed or raised, task ids, notes) is passed through
:func:`~codequorum.safe_text.safe_text`: JSON's own ``\\u001b`` escaping is undone by any
consumer that prints the value, so control characters are written out as text and long
strings are bounded before they reach the document.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TextIO

from codequorum import __version__
from codequorum.analysis import StabilityReport
from codequorum.formats import ReadError
from codequorum.safe_text import safe_text


def safe_values(value: Any) -> Any:
    """``value`` (JSON-ready: dicts, lists, scalars) with every string, keys included, made
    safe to print by :func:`safe_text`."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, dict):
        return {safe_text(k) if isinstance(k, str) else k: safe_values(v)
                for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [safe_values(v) for v in value]
    return value


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
    result: dict[str, Any] = safe_values(doc)
    return result


def write_json(document: dict[str, Any], stream: TextIO) -> None:
    """Write the document, indented, with a final newline (NaN never appears: reports
    already turned it into null)."""
    json.dump(document, stream, indent=2, allow_nan=False)
    stream.write("\n")
