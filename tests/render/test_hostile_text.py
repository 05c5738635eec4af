"""Candidate text in the renderers: escape sequences written out, rich markup shown as is."""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

from codequorum.core.report import StabilityReport, Verdict
from codequorum.render.csv_out import write_csv
from codequorum.render.json_out import report_document, write_json
from codequorum.render.table import print_table
from codequorum.render.terminal import make_console

#: What a version raised: a terminal-title escape, a colour escape and rich markup.
HOSTILE = "\x1b]0;pwned\x07\x1b[31m[bold]x[/bold]"
ESCAPED = "\\x1b]0;pwned\\x07\\x1b[31m[bold]x[/bold]"
SGR = re.compile(r"\x1b\[[0-9;]*m")


def _hostile_report() -> StabilityReport:
    message = f"versions 1 and 2 disagree on f(1): raises ValueError: {HOSTILE} vs 1"
    return StabilityReport(
        task_id=f"T/{HOSTILE}",
        language="python",
        status="ok",
        n=2,
        n_total=2,
        indices=[0, 1],
        summary={"jsd_struct": {"ordered": 0.5, "unordered": 0.5}, "oer": 0.0},
        typicality=[0.5, 0.5],
        medoid=0,
        clusters=[[0], [1]],
        verdicts=[Verdict("divergent-outputs", "warning", message, versions=(0, 1))],
        notes=[f"version 1 raised ValueError: {HOSTILE}"],
        dynamic={"candidates": [{"index": 0, "status": "ValueError", "detail": HOSTILE}],
                 "notes": [HOSTILE]},
    )


def _insufficient() -> StabilityReport:
    return StabilityReport(task_id=HOSTILE, language="python", status="insufficient", n=1,
                           n_total=1, indices=[0], message=f"only 1 usable sample: {HOSTILE}")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _table(color: bool, reasons: bool) -> str:
    stream = io.StringIO()
    console = make_console(stream, color, width=300)
    print_table([_hostile_report(), _insufficient()], console, reasons=reasons)
    return stream.getvalue()


def test_table_without_colour_has_no_control_characters_and_no_markup() -> None:
    for reasons in (False, True):
        out = _table(color=False, reasons=reasons)
        assert "\x1b" not in out and "\x07" not in out
        assert f"T/{ESCAPED}" in out  # the task id, escaped, whole
        assert "[bold]x[/bold]" in out  # shown as written, not read as markup
    assert f"raises ValueError: {ESCAPED} vs 1" in _table(color=False, reasons=True)


def test_table_with_colour_has_only_its_own_colour_codes() -> None:
    out = _table(color=True, reasons=True)
    assert SGR.search(out)  # colour is on
    plain = SGR.sub("", out)
    assert "\x1b" not in plain and "\x07" not in plain
    assert f"raises ValueError: {ESCAPED} vs 1" in plain
    assert "[bold]x[/bold]" in plain


def test_csv_cells_are_escaped() -> None:
    buf = io.StringIO()
    write_csv([_hostile_report(), _insufficient()], buf)
    assert "\x1b" not in buf.getvalue() and "\x07" not in buf.getvalue()
    first, second = csv.DictReader(io.StringIO(buf.getvalue()))
    assert first["task_id"] == f"T/{ESCAPED}"
    assert first["verdict_message"].endswith(f"raises ValueError: {ESCAPED} vs 1")
    assert second["message"] == f"only 1 usable sample: {ESCAPED}"


def test_json_values_are_escaped_not_only_encoded() -> None:
    buf = io.StringIO()
    write_json(report_document([_hostile_report(), _insufficient()]), buf)
    assert "\\u001b" not in buf.getvalue() and "\\u0007" not in buf.getvalue()
    doc = json.loads(buf.getvalue())
    strings = _strings(doc)
    assert not any("\x1b" in s or "\x07" in s for s in strings)
    first = doc["sets"][0]
    assert first["task_id"] == f"T/{ESCAPED}"
    assert first["dynamic"]["candidates"][0]["detail"] == ESCAPED
    assert first["verdicts"][0]["message"].endswith(f"{ESCAPED} vs 1")


def test_json_strings_are_bounded() -> None:
    report = _hostile_report()
    report.notes = ["x" * 100_000]
    doc = report_document([report])
    (note,) = doc["sets"][0]["notes"]
    assert len(note) == 500 and note.endswith("(100000 chars)")
