"""The ``--format json`` document: ``{"codequorum", "schema_version", "sets", "errors",
"interrupted", "total", "overall"}``, in that order: what is only known at the end of a run
comes after the sets, so :class:`JsonDocumentWriter` writes the sets one at a time as they
are scored (the same bytes as ``json.dump`` of the whole document, which is never held).

Its shape is ``shared/report.schema.json``. Every string in it (messages that quote what a
version printed or raised, task ids, notes) is passed through
:func:`~codequorum.core.safe_text.safe_text`: JSON's own ``\\u001b`` escaping is undone by any
consumer that prints the value, so control characters are written out as text and long
strings are bounded before they reach the document.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from codequorum import __version__
from codequorum.core.report import REPORT_SCHEMA_VERSION, StabilityReport
from codequorum.core.safe_text import safe_text
from codequorum.ingest.version_files import ReadError


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
    (:mod:`codequorum.judge.overall`: means over the sets and verdict counts)."""
    doc: dict[str, Any] = {
        "codequorum": __version__,
        "schema_version": REPORT_SCHEMA_VERSION,
        "sets": [r.to_dict(include_matrices=include_matrices) for r in reports],
        "errors": [e.to_dict() for e in errors],
        "interrupted": interrupted,
        "total": len(reports) if total is None else total,
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


def _indented(value: Any, depth: int) -> str:
    """``json.dumps(value, indent=2)`` as it appears ``depth`` levels deep in an indented
    document: every line after the first moved right by ``2 * depth`` spaces (JSON strings
    never hold a raw newline, so every newline is a line break of the layout)."""
    text = json.dumps(value, indent=2, allow_nan=False)
    return text.replace("\n", "\n" + "  " * depth)


def _member(key: str, value: Any) -> str:
    """One top-level member of the document, as ``json.dump(doc, indent=2)`` writes it."""
    return f"  {json.dumps(key)}: {_indented(safe_values(value), 1)}"


class JsonDocumentWriter:
    """The ``--format json`` document written a set at a time: the head, each report as it
    comes (:meth:`add`), then the errors and what is known only at the end
    (:meth:`finish`). The bytes are those of :func:`write_json` of
    :func:`report_document`; memory holds one report's text at a time."""

    def __init__(self, stream: TextIO, *, include_matrices: bool = False) -> None:
        self.stream = stream
        self.include_matrices = include_matrices
        self.written = 0
        self._started = False

    def _start(self) -> None:
        """The document's head, up to the opening of ``sets``, once."""
        if not self._started:
            self.stream.write("{\n" + _member("codequorum", __version__) + ",\n"
                              + _member("schema_version", REPORT_SCHEMA_VERSION)
                              + ',\n  "sets": [')
            self._started = True

    def add(self, report: StabilityReport) -> None:
        """Write one set's report (in input order)."""
        self._start()
        entry = safe_values(report.to_dict(include_matrices=self.include_matrices))
        self.stream.write(("\n    " if self.written == 0 else ",\n    ")
                          + _indented(entry, 2))
        self.written += 1

    def finish(self, errors: Sequence[ReadError], *, interrupted: bool, total: int,
               overall: Mapping[str, Any] | None = None) -> None:
        """Close ``sets`` and write the errors, ``interrupted``, ``total`` and, when given,
        ``overall``, with the final newline."""
        self._start()
        tail: dict[str, Any] = {"errors": [e.to_dict() for e in errors],
                                "interrupted": interrupted, "total": total}
        if overall is not None:
            tail["overall"] = overall
        members = ",\n".join(_member(key, value) for key, value in tail.items())
        self.stream.write(("\n  ]" if self.written else "]") + ",\n" + members + "\n}\n")
