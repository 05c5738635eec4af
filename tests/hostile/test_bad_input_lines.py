"""One bad line costs one set, in every reader: a line (or a bigcode entry) nested too
deeply, over the size bound, of binary junk, not UTF-8, or of the wrong type, between good
ones, is one error line naming where it is; the good sets before and after it are scored and
the run ends with the status of a per-set error (1). A resumed output with a bad line, and a
``--compare`` report with a bad set, go on the same way.

Each run is the real ``codequorum score`` in a child process, decided from its exit status,
its output and its error lines.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codequorum.core.limits import MAX_LINE_BYTES

from ._pathological import GOOD, run_cli, scored_ids

DEEP = "[" * 100_000 + "]" * 100_000


def _good(task_id: str) -> bytes:
    return json.dumps({**GOOD, "task_id": task_id}).encode()


#: A bad line of each kind, and what its error says.
BAD_LINES: dict[str, tuple[bytes, str]] = {
    "deep": (b'{"task_id": "bad", "versions": ' + DEEP.encode() + b"}",
             "JSON nested more than 100 levels deep"),
    "deep first character": (DEEP.encode(), "JSON nested more than 100 levels deep"),
    "huge": (b'{"task_id": "bad", "versions": ["' + b"x" * (MAX_LINE_BYTES + 10) + b'"]}',
             "line longer than 32 MB; skipped"),
    "binary": (bytes(b for b in range(1, 256) if b not in b"\r\n") * 40, "not valid UTF-8"),
    "bad encoding": (b'{"task_id": "bad", "versions": ["\xff\xfe"]}', "not valid UTF-8"),
    "wrong type": (b'{"task_id": "bad", "versions": "def f(): pass"}',
                   "'versions' must be a list of code strings, not a string"),
    "no versions": (b'{"task_id": "bad", "code": ["def f(): pass"]}', "missing 'versions'"),
    "wrong task id": (b'{"task_id": ["bad"], "versions": ["def f(): pass"]}',
                      "'task_id' must be a string, not a list"),
    "not an object": (b'"just a string"', "expected a JSON object, got str"),
}


@pytest.mark.parametrize("kind", sorted(BAD_LINES))
def test_a_bad_jsonl_line_between_good_ones_costs_its_set(tmp_path: Path, kind: str) -> None:
    bad, said = BAD_LINES[kind]
    path = tmp_path / "sets.jsonl"
    path.write_bytes(b"\n".join([_good("first"), bad, _good("last")]) + b"\n")
    run = run_cli(["score", str(path), "--format", "json", "--no-tsed"])
    run.bounded()
    assert run.status == 1, run.err
    assert scored_ids(run) == ["first", "last"]
    (line,) = run.error_lines
    assert f"{path}:2" in line and said in line, line


#: A bad bigcode entry of each kind (between two good ones), and what its error says.
BAD_ENTRIES: dict[str, tuple[bytes, str]] = {
    "deep": (DEEP.encode(), "JSON nested more than 100 levels deep; entry skipped"),
    "broken inside": (b'["a" "b"]', "broken JSON: Expecting ',' delimiter; entry skipped"),
    "bad encoding": (b'["def f():\xff\\n    return 1"]', "not valid UTF-8"),
    "wrong type": (b'{"code": "def f(): pass"}', "entry 1 is not a list of strings"),
    "huge": (b'["' + b"y" * (MAX_LINE_BYTES * 2 + 10) + b'"]',
             "an entry longer than 32 MB; entry skipped"),
}


@pytest.mark.parametrize("kind", sorted(BAD_ENTRIES))
def test_a_bad_bigcode_entry_costs_that_entry(tmp_path: Path, kind: str) -> None:
    bad, said = BAD_ENTRIES[kind]
    good = json.dumps(GOOD["samples"]).encode()
    path = tmp_path / "generations.json"
    path.write_bytes(b"[\n" + good + b",\n" + bad + b",\n" + good + b"\n]\n")
    run = run_cli(["score", str(path), "--format", "json", "--no-tsed"])
    run.bounded()
    assert run.status == 1, run.err
    assert scored_ids(run) == ["task/0", "task/2"]
    (line,) = run.error_lines
    assert f"{path}:3 (task/1): {said}" in line, line


def test_a_resumed_output_with_a_bad_line_goes_on(tmp_path: Path) -> None:
    """A line of the output that is not a report (deep JSON, junk) is left as it is and its
    set scored again; the sets already written are not."""
    inputs = tmp_path / "sets.jsonl"
    inputs.write_bytes(b"\n".join([_good("one"), _good("two"), _good("three")]) + b"\n")
    out = tmp_path / "out.jsonl"
    first = run_cli(["score", str(inputs), "--format", "jsonl", "-o", str(out), "--limit", "1",
                     "--scheduler", "local:1", "--no-tsed"])
    assert first.status == 0, first.err
    with out.open("ab") as fh:
        fh.write(DEEP.encode() + b"\n" + b"\x00\xff junk\n")
    run = run_cli(["score", str(inputs), "--format", "jsonl", "-o", str(out), "--resume",
                   "--scheduler", "local:1", "--no-tsed"])
    assert run.status == 0, run.err
    assert "Traceback" not in run.err
    assert f"{out}:2: not a report line" in run.err and f"{out}:3: not a report line" in run.err
    ids = []
    for raw in out.read_bytes().splitlines():
        try:
            ids.append(json.loads(raw)["task_id"])
        except (ValueError, RecursionError):
            continue
    assert sorted(ids) == ["one", "three", "two"]


def test_a_compare_report_with_bad_sets_compares_the_good_ones(tmp_path: Path) -> None:
    inputs = tmp_path / "sets.jsonl"
    inputs.write_bytes(_good("one") + b"\n")
    other = run_cli(["score", str(inputs), "--format", "json", "--no-tsed"])
    report = json.loads(other.out)
    report["sets"] += [{"task_id": 7}, "junk", {"task_id": "x", "summary": [1]}]
    (tmp_path / "other.json").write_text(json.dumps(report), encoding="utf-8")
    run = run_cli(["score", str(inputs), "--format", "html", "--no-tsed", "--compare",
                   str(tmp_path / "other.json")])
    assert run.status == 0, run.err
    assert "<html" in run.out and "other.json" in run.out
    assert "3 of its 4 sets are not a report's" in run.err
