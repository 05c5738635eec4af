"""The JSON document written a set at a time is ``json.dump`` of the whole document."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import jsonschema
import pytest

from codequorum import __version__
from codequorum.core.report import StabilityReport, Verdict
from codequorum.ingest.version_files import ReadError
from codequorum.judge.overall import OverallAccumulator
from codequorum.render.json_out import JsonDocumentWriter, report_document, write_json

REPO = Path(__file__).resolve().parent.parent.parent


def _report(task: str, message: str = "ok") -> StabilityReport:
    import numpy as np

    return StabilityReport(
        task_id=task, language="python", status="ok", n=2, n_total=2, indices=[0, 1],
        summary={**{k: {"ordered": 0.5, "unordered": 0.25}
                    for k in ("sce_struct", "sce_value", "jsd_struct", "jsd_value")},
                 "oer": math.nan},
        typicality=[0.5, 0.25], medoid=0, clusters=[[0, 1]],
        verdicts=[Verdict("stable", "information", message, versions=(0, 1))],
        notes=["a note with \"quotes\", \\ and \u00e9"],
        matrices={"jsd_struct": np.array([[1.0, 0.5], [0.5, 1.0]])})


def _streamed(reports: list[StabilityReport], errors: list[ReadError], *, matrices: bool,
              interrupted: bool, total: int, with_overall: bool) -> str:
    buf = io.StringIO()
    writer = JsonDocumentWriter(buf, include_matrices=matrices)
    for r in reports:
        writer.add(r)
    across = OverallAccumulator.of(reports).result() if with_overall else None
    writer.finish(errors, interrupted=interrupted, total=total, overall=across)
    assert writer.written == len(reports)
    return buf.getvalue()


def _held(reports: list[StabilityReport], errors: list[ReadError], *, matrices: bool,
          interrupted: bool, total: int, with_overall: bool) -> str:
    buf = io.StringIO()
    across = OverallAccumulator.of(reports).result() if with_overall else None
    write_json(report_document(reports, errors, interrupted=interrupted,
                               include_matrices=matrices, total=total, overall=across), buf)
    return buf.getvalue()


HOSTILE = "\x1b[31mred\x1b[0m\nnext line\t\u2028 </script>"


@pytest.mark.parametrize("count", [0, 1, 3])
@pytest.mark.parametrize("matrices", [False, True])
@pytest.mark.parametrize("errors", [0, 2])
def test_streamed_document_is_json_dump_of_the_whole(count: int, matrices: bool,
                                                     errors: int) -> None:
    reports = [_report(f"T/{k}", HOSTILE if k == 1 else "ok") for k in range(count)]
    errs = [ReadError("in.jsonl", k + 1, f"broken {HOSTILE}") for k in range(errors)]
    for interrupted, with_overall in ((False, True), (True, False)):
        kwargs = {"matrices": matrices, "interrupted": interrupted, "total": count + 4,
                  "with_overall": with_overall}
        streamed = _streamed(reports, errs, **kwargs)  # type: ignore[arg-type]
        assert streamed == _held(reports, errs, **kwargs)  # type: ignore[arg-type]


def test_document_order_and_schema() -> None:
    text = _streamed([_report("T/0"), _report("T/1")], [ReadError("x", 2, "bad")],
                     matrices=False, interrupted=True, total=3, with_overall=True)
    doc = json.loads(text)
    assert list(doc) == ["codequorum", "schema_version", "sets", "errors", "interrupted",
                         "total", "overall"]
    assert doc["codequorum"] == __version__ and doc["total"] == 3
    assert doc["overall"]["summary"]["jsd_struct"] == {"ordered": 0.5, "unordered": 0.25}
    assert text.startswith('{\n  "codequorum": ') and text.endswith("\n  }\n}\n")
    jsonschema.validate(doc, json.loads((REPO / "shared" / "report.schema.json").read_text()))


def test_empty_document() -> None:
    text = _streamed([], [], matrices=False, interrupted=False, total=0, with_overall=False)
    assert text == (f'{{\n  "codequorum": "{__version__}",\n  "schema_version": 2,\n'
                    '  "sets": [],\n  "errors": [],\n'
                    '  "interrupted": false,\n  "total": 0\n}\n')
