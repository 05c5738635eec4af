"""`codequorum export`: stored versions as a sample-set file that `score` reads, with the
figures `check` gives."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codequorum.cli.main import main
from codequorum.ingest.store import VersionStore
from tests.support.chat_server import ChatServer, RecordedTask

SOURCE = '''from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    """ Check if in given list of numbers, are any two numbers closer to each other than
    given threshold.
    >>> has_close_elements([1.0, 2.0, 3.0], 0.5)
    False
    """
    for i, a in enumerate(numbers):
        for b in numbers[i + 1:]:
            if abs(a - b) < threshold:
                return True
    return False


def unrelated(x: int) -> int:
    return x + 1
'''


@pytest.fixture
def task(shared_dir: Path) -> RecordedTask:
    return RecordedTask.load("HumanEval/0", shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl")


@pytest.fixture
def workspace(tmp_path: Path, task: RecordedTask) -> Path:
    """A workspace whose `has_close_elements` has eight imported versions."""
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    (ws / "src").mkdir()
    (ws / "src" / "close.py").write_text(SOURCE)
    versions = tmp_path / "versions.json"
    versions.write_text(json.dumps(list(task.codes[:8])))
    assert main(["sample", str(ws / "src" / "close.py"), "-f", "has_close_elements",
                 "--from", str(versions), "-q"]) == 0
    return ws


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    capsys.readouterr()
    code = main(list(argv))
    return code, json.loads(capsys.readouterr().out)


def _close(a: Any, b: Any, where: str = "") -> None:
    """Equal figures, numbers to 1e-9."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), where
        for key in a:
            _close(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, float) and isinstance(b, float) and not (math.isnan(a) or math.isnan(b)):
        assert abs(a - b) <= 1e-9, where
    else:
        assert a == b, where


#: A current version unlike the recorded ones: check reports it (`outlier-current`), and
#: its finding's JSON carries every figure of the function's report.
ODD_ONE = '''from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    class Gap:
        def __init__(self, a, b):
            self.size = abs(a - b)

        def small(self):
            return self.size < threshold

    pairs = [(a, b) for k, a in enumerate(numbers) for b in numbers[k + 1:]]
    with_gaps = list(map(lambda p: Gap(*p), pairs))
    return bool([g for g in with_gaps if g.small()])
'''


def test_export_then_score_gives_the_figures_check_gives(
    workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = workspace / "src" / "close.py"
    source.write_text(ODD_ONE)
    out = tmp_path / "exported.jsonl"
    assert main(["export", str(source), "-o", str(out)]) == 0
    [row] = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["task_id"] == "src/close.py::has_close_elements"
    assert (row["language"], row["entry_point"]) == ("python", "has_close_elements")
    assert [s["origin"] for s in row["samples"]] == ["imported"] * 8 + ["current"]
    assert row["prompt"] == row["samples"][-1]["code"]  # its doctests grade, as in check

    code, checked = _json(capsys, "check", str(source), "--format", "json", "--fail-on",
                          "never")
    assert code == 0
    [function] = checked["functions"]
    [finding] = checked["findings"]
    assert finding["code"] == function["verdict"] == "outlier-current"
    code, scored = _json(capsys, "score", str(out), "--format", "json", "--textual")
    assert code == 0
    [report] = scored["sets"]
    assert report["n"] == 9 == function["versions"] + 1
    assert function["stability"] == pytest.approx(report["summary"]["jsd_struct"]["ordered"],
                                                  abs=1e-9)
    expected = finding["report"]["summary"]
    assert {"jsd_struct", "sce_struct", "sctd_jsd", "tsed"} <= set(expected)
    _close(expected, {k: report["summary"][k] for k in expected})
    # the row says which version is the current code: score finds the same outlier-current
    assert row["current"] == 8 == report["current_index"]
    [apart] = [v for v in report["verdicts"] if v["code"] == finding["code"]]
    assert apart["versions"] == finding["versions"] == [8]


def test_selection_by_function_and_without_the_current_code(
    workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(workspace / "src" / "close.py")
    assert main(["sample", path, "-f", "unrelated", "--from", str(_list(tmp_path)), "-q"]) == 0
    capsys.readouterr()
    assert main(["export", str(workspace), "-f", "unrelated", "--no-current"]) == 0
    [row] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert row["task_id"] == "src/close.py::unrelated" and "prompt" not in row
    assert [s["origin"] for s in row["samples"]] == ["imported", "imported"]
    capsys.readouterr()
    assert main(["export", "--workspace", str(workspace)]) == 0
    names = [json.loads(line)["qualified_name"] for line in capsys.readouterr().out.splitlines()]
    assert names == ["has_close_elements", "unrelated"]


def _list(tmp_path: Path) -> Path:
    versions = tmp_path / "unrelated.json"
    versions.write_text(json.dumps(["def unrelated(x):\n    return x + 1\n",
                                    "def unrelated(x):\n    return 1 + x\n"]))
    return versions


def test_regenerated_versions_keep_their_provider_and_model(
    tmp_path: Path, task: RecordedTask, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "gen"
    (ws / ".git").mkdir(parents=True)
    (ws / "close.py").write_text(SOURCE)
    with ChatServer(default=task) as server:
        assert main(["sample", str(ws / "close.py"), "-f", "has_close_elements", "--base-url",
                     server.base_url, "--model", "codegen", "--api-key-env", "", "--samples",
                     "2", "--seed", "3", "-q"]) == 0
    capsys.readouterr()
    assert main(["export", "--workspace", str(ws)]) == 0
    [row] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    regenerated = [s for s in row["samples"] if s["origin"] == "regenerated"]
    assert [(s["provider"], s["model"], s["seed"], s["temperature"]) for s in regenerated] == [
        (server.base_url, "codegen", 3, 0.8), (server.base_url, "codegen", 4, 0.8)]


def test_a_key_outside_the_workspace_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    (ws / ".codequorum").mkdir(parents=True)
    secret = tmp_path / "secret.py"
    secret.write_text("def f():\n    return 'SECRET'\n")
    with VersionStore.open(ws / ".codequorum" / "samples.sqlite3") as store:
        from codequorum.core.model import Version

        store.add("../secret.py", "python", "f", [Version(code="def f():\n    return 1\n")])
        store.add("/etc/hostname", "python", "f", [Version(code="def f():\n    return 2\n")])
    assert main(["export", "--workspace", str(ws)]) == 0
    captured = capsys.readouterr()
    assert "SECRET" not in captured.out
    rows = [json.loads(line) for line in captured.out.splitlines()]
    assert [len(r["samples"]) for r in rows] == [1, 1]
    assert "../secret.py: outside the workspace" in captured.err
    assert "/etc/hostname: not a file of the workspace" in captured.err


def test_no_store_is_an_error_and_makes_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".git").mkdir()
    assert main(["export", "--workspace", str(tmp_path)]) == 1
    assert "no version store at" in capsys.readouterr().err
    assert not (tmp_path / ".codequorum").exists()


def test_export_escapes_what_a_terminal_would_act_on(
    workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a version from a repository or a model may carry a bidi override or an escape: the
    # JSON written (to a terminal, with -o -) holds them escaped, and reads back the same
    path = str(workspace / "src" / "close.py")
    hostile = "def unrelated(x):\n    return x + 1  # \u202e\x1b[2J évité\n"
    versions = tmp_path / "hostile.json"
    versions.write_text(json.dumps([hostile, "def unrelated(x):\n    return 1 + x\n"]))
    assert main(["sample", path, "-f", "unrelated", "--from", str(versions), "-q"]) == 0
    capsys.readouterr()
    assert main(["export", str(workspace), "-f", "unrelated", "--no-current"]) == 0
    out = capsys.readouterr().out
    assert "\u202e" not in out and "\x1b" not in out and "é" not in out
    assert "\\u202e" in out and "\\u001b" in out
    [row] = [json.loads(line) for line in out.splitlines()]
    assert hostile in [s["code"] for s in row["samples"]]


def test_the_request_is_read_from_the_parsed_arguments(tmp_path: Path) -> None:
    from codequorum.cli.commands.export import ExportRequest, export_request
    from codequorum.cli.main import parse_arguments

    args = parse_arguments([
        "export", str(tmp_path / "src"), "-f", "Stack.push", "-f", "area", "--no-current",
        "--workspace", str(tmp_path), "--store", str(tmp_path / "s.sqlite3"), "-o",
        str(tmp_path / "out.jsonl"), "-q", "--isolated"])
    assert export_request(args) == ExportRequest(
        paths=(tmp_path / "src",), functions=("Stack.push", "area"), current=False,
        workspace=tmp_path, store=tmp_path / "s.sqlite3", output=str(tmp_path / "out.jsonl"),
        quiet=True)
    every = export_request(parse_arguments(["export", "--isolated"]))
    assert every == ExportRequest()


def test_score_away_from_the_workspace_says_each_set_ran_without_its_module(
    workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The exported set names its file; scored where that file is not, its versions run
    alone, and the set says so in JSON and under the table."""
    out = tmp_path / "exported.jsonl"
    assert main(["export", str(workspace / "src" / "close.py"), "-o", str(out)]) == 0
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / ".git").mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    code, scored = _json(capsys, "score", str(out), "--format", "json", "--dynamic",
                         "--limit", "1")
    assert code == 0
    [report] = scored["sets"]
    [note] = [n for n in report["notes"] if "without its module" in n]
    assert note.startswith("ran without its module: src/close.py: no such file in ")
    capsys.readouterr()
    assert main(["score", str(out), "--dynamic", "--limit", "1",
                 "--format", "table"]) == 0
    assert "ran without its module: src/close.py: no such file" in " ".join(
        capsys.readouterr().out.split())


def test_a_current_code_that_is_a_stored_version_is_the_prompt_and_score_keeps_the_same(
        tmp_path: Path) -> None:
    """more-itertools' ``one``, its current code stored as version 1: the exported set's
    prompt is that code, so ``score --dynamic`` in the workspace grades the versions by its
    docstring as ``check`` does: the same version to keep, the same risk."""
    from tests.support import real_package

    script = Path(sys.executable).parent / "codequorum"
    real_package.make_workspace(tmp_path, script)

    def run(*args: str) -> dict[str, Any]:
        proc = subprocess.run([str(script), *args], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300, check=False)
        assert proc.returncode in (0, 1), proc.stderr
        return dict(json.loads(proc.stdout)) if args[0] != "export" else {}

    run("export", "-o", "one.jsonl")
    [row] = [json.loads(line) for line in (tmp_path / "one.jsonl").read_text().splitlines()]
    assert row["prompt"] == real_package.ORIGINAL
    assert [s["origin"] for s in row["samples"]] == ["imported"] * 3
    [report] = run("score", "one.jsonl", "--dynamic", "--no-tsed", "--format", "json")["sets"]
    [function] = run("check", "mit/more.py", "--dynamic", "--no-tsed", "--format",
                     "json")["functions"]
    assert report["recommended"] == function["recommended"] == 0
    assert report["summary"]["graded_inputs"] == real_package.EXAMPLES
    assert report["risk"] == pytest.approx(function["risk"], abs=1e-9)


ASYNC_SUM = '''/**
 * Sum what an iterable of values or promises gives.
 *
 * @example
 * await sumAll([1, 2, 3])
 * //=> 6
 */
export async function sumAll(values) {
  let total = 0;
  for await (const v of values) total += v;
  return total;
}
'''


def test_a_javascript_functions_examples_above_it_go_with_its_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """JavaScript keeps its examples in the comment above the function, not in its code:
    the exported prompt holds that comment, so `score` grades the versions on them as
    `check` does (without it no input was left: the sum was guessed to take a number)."""
    from codequorum.behaviour.runtimes import node_sandbox

    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    source = ws / "sum.js"
    source.write_text(ASYNC_SUM)
    versions = tmp_path / "versions.json"
    versions.write_text(json.dumps([
        "async function sumAll(values) {\n  const all = await Promise.all(values);\n"
        "  return all.reduce((a, b) => a + b, 0);\n}\n",
        "async function sumAll(values) {\n  let s = 0;\n  for (const v of values) s += await v;\n"
        "  return s;\n}\n"]))
    assert main(["sample", str(source), "-f", "sumAll", "--from", str(versions), "-q"]) == 0
    out = tmp_path / "exported.jsonl"
    assert main(["export", str(source), "-o", str(out)]) == 0
    [row] = [json.loads(line) for line in out.read_text().splitlines()]
    assert " * await sumAll([1, 2, 3])\n * //=> 6\n */\n" in row["prompt"]
    assert row["prompt"].endswith(row["samples"][-1]["code"])
    if node_sandbox.find_node() is None or not node_sandbox.probe()[0]:
        pytest.skip("no Node sandbox here to score the export")
    capsys.readouterr()
    code, scored = _json(capsys, "score", str(out), "--dynamic", "--format", "json")
    assert code == 0
    [report] = scored["sets"]
    assert report["dynamic"]["inputs"][0]["label"] == "sumAll([1, 2, 3])"
    assert [(c["passed"], c["graded"]) for c in report["dynamic"]["candidates"]] == [(1, 1)] * 3
