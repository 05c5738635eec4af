"""``codequorum check``: real CodeGen samples and a hand-made divergent set in a real store.

The versions go into the store through ``codequorum sample --from`` (so the file keys are
the ones the sample command writes), then ``check`` reads them back for the same file.
"""

from __future__ import annotations

import dataclasses
import io
import json
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from codequorum.behaviour.sandbox.isolation import PORTABLE_NOTE
from codequorum.cli.commands.check import first_definitions, name_span
from codequorum.cli.main import main
from codequorum.core import parsing
from codequorum.ingest.store import VersionStore, default_store_path
from codequorum.render.check_out import CheckRun, Located, write
from tests.support.duration_module import DURATION_APP, DURATION_VERSIONS, UNITS_SOURCE

SCRIPT = Path(sys.executable).parent / "codequorum"
STABLE_TASK = "HumanEval/28"  # concatenate: CodeGen's versions share one shape
UNSTABLE_TASK = "HumanEval/39"  # prime_fib: CodeGen's versions disagree (10th percentile)

#: Four stored versions of ``Stats.total`` that agree; the current one below does not.
LOOPS = [
    "def total(self, xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n",
    "def total(self, xs):\n    acc = 0\n    for value in xs:\n        acc += value\n"
    "    return acc\n",
    "def total(self, xs):\n    result = 0\n    for item in xs:\n        result = result + item\n"
    "    return result\n",
    "def total(self, xs):\n    n = 0\n    for x in list(xs):\n        n += x\n    return n\n",
]

DIVERGENT_CURRENT = '''class Stats:
    """Running figures."""

    def total(self, xs):
        if not xs:
            return 0
        head, *rest = xs
        try:
            return head + self.total(rest)
        except RecursionError:
            import functools
            return functools.reduce(lambda a, b: a + b, xs, 0)


def no_samples(x):
    return x + 1
'''


def _function(row: dict[str, Any], k: int) -> str:
    """Sample ``k`` of a HumanEval row as one function (the prompt's imports dropped)."""
    code = str(row["prompt"]) + str(row["samples"][k])
    return code[code.index("def "):].rstrip() + "\n"


def _line_of(text: str, needle: str) -> int:
    """1-based number of the first line containing ``needle``."""
    return next(i for i, line in enumerate(text.split("\n"), start=1) if needle in line)


class Workspace:
    """A workspace folder with ``mod.py`` and a store holding versions of three of its
    functions."""

    def __init__(self, root: Path, rows: dict[str, dict[str, Any]]) -> None:
        self.root = root
        stable, unstable = rows[STABLE_TASK], rows[UNSTABLE_TASK]
        self.text = (
            '"""Helpers checked against their stored versions."""\n'
            "from typing import List\n\n\n"
            + _function(stable, 0) + "\n\n" + _function(unstable, 0) + "\n\n"
            + DIVERGENT_CURRENT
        )
        self.file = root / "mod.py"
        self.file.write_text(self.text, encoding="utf-8")
        self.unstable_line = _line_of(self.text, "def prime_fib(")
        self.total_line = _line_of(self.text, "def total(")
        versions = {
            "concatenate": [stable["prompt"] + s for s in stable["samples"][1:8]],
            "prime_fib": [unstable["prompt"] + s for s in unstable["samples"][1:8]],
            "Stats.total": LOOPS,
        }
        for name, codes in versions.items():
            source = root / f"{name}.json"
            source.write_text(json.dumps(codes), encoding="utf-8")
            status = main(["sample", str(self.file), "-f", name, "--from", str(source),
                           "--workspace", str(root)])
            assert status == 0
            source.unlink()
        self.store = default_store_path(root)


@pytest.fixture(scope="module")
def rows(shared_dir: Path) -> dict[str, dict[str, Any]]:
    """The two CodeGen-16B rows the tests use."""
    out: dict[str, dict[str, Any]] = {}
    with (shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl").open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["task_id"] in (STABLE_TASK, UNSTABLE_TASK):
                out[row["task_id"]] = row
    return out


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory, rows: dict[str, dict[str, Any]]) -> Workspace:
    """One workspace shared by the tests that only read it."""
    return Workspace(tmp_path_factory.mktemp("ws"), rows)


def _check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["check", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_store_holds_the_versions_under_the_relative_key(ws: Workspace) -> None:
    with VersionStore.open(ws.store) as store:
        assert store.files() == ["mod.py"]
        assert sorted(store.functions_with_versions("mod.py")) == [
            "Stats.total", "concatenate", "prime_fib"]
        assert store.count("mod.py", "Stats.total") == 4


def test_text_findings_lines_and_exit_status(ws: Workspace,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _check(capsys, str(ws.file), "--workspace", str(ws.root))
    lines = out.strip().split("\n")
    path = ws.file.as_posix()
    assert status == 1
    assert err == ""
    assert len(lines) == 3, out
    # real CodeGen versions of prime_fib disagree; the name starts at column 5 ("def ")
    assert lines[0].startswith(f"{path}:{ws.unstable_line}:5: warning unstable-structure "
                               "Versions disagree in shape: mean JSD 0.")
    assert lines[0].endswith("[`prime_fib`: 7 versions + your code]")  # copies count
    # the hand-made method: indented, so its name starts at column 9; its four stored
    # versions agree (a stable shape), the current code is the one far from them
    outlier = lines[1]
    assert outlier.startswith(f"{path}:{ws.total_line}:9: warning outlier-current ")
    assert "The current code is far from the consensus" in outlier
    assert outlier.endswith("[`Stats.total`: 4 versions + your code]")  # which total
    # concatenate agrees with its versions: nothing printed for it
    assert "concatenate" not in out
    assert lines[2] == ("checked 3 functions in 1 file: 2 warnings; "
                        "1 without versions skipped")


@pytest.mark.parametrize(("fail_on", "expected"),
                         [("error", 0), ("warning", 1), ("information", 1), ("never", 0)])
def test_fail_on_decides_the_exit_status(ws: Workspace, capsys: pytest.CaptureFixture[str],
                                         fail_on: str, expected: int) -> None:
    status, out, _ = _check(capsys, str(ws.file), "--workspace", str(ws.root),
                            "--fail-on", fail_on, "--no-tsed")
    assert status == expected
    assert out.count(": warning ") == 2


def test_json_lists_findings_with_report_summary(ws: Workspace,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _check(capsys, str(ws.file), "--workspace", str(ws.root),
                            "--format", "json")
    doc = json.loads(out)
    assert status == 1
    assert [(f["function"], f["code"], f["line"], f["column"]) for f in doc["findings"]] == [
        ("prime_fib", "unstable-structure", ws.unstable_line, 5),
        ("Stats.total", "outlier-current", ws.total_line, 9),
    ]
    outlier = doc["findings"][1]
    assert outlier["stored"] == 4
    assert outlier["versions"] == [4]  # the current code joins the four stored versions
    assert outlier["report"]["n"] == 5
    assert outlier["report"]["current_index"] == 4
    assert outlier["figure"] < 0.75
    assert f"JSD {outlier['figure']:.2f} to the others" in outlier["message"]
    assert doc["summary"]["functions_checked"] == 3
    assert doc["summary"]["functions_without_versions"] == 1
    assert doc["summary"]["by_severity"]["warning"] == 2
    stable = next(f for f in doc["functions"] if f["function"] == "concatenate")
    assert stable["verdict"] == "stable"
    assert stable["stability"] >= 0.8


def test_sarif_results(ws: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _check(capsys, str(ws.file), "--workspace", str(ws.root),
                            "--format", "sarif", "--fail-on", "never")
    log = json.loads(out)
    results = log["runs"][0]["results"]
    assert status == 0
    assert log["version"] == "2.1.0"
    assert [r["ruleId"] for r in results] == ["unstable-structure", "outlier-current"]
    region = results[1]["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (ws.total_line, 9)
    assert all(r["level"] == "warning" for r in results)


def test_min_samples_skips_functions_with_fewer_versions(
        ws: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _check(capsys, str(ws.file), "--workspace", str(ws.root),
                            "--min-samples", "5", "--no-tsed")
    # Stats.total has 4 stored versions; prime_fib 6 and concatenate 5 are still checked
    assert status == 1
    assert "total" not in out.replace("checked", "")
    assert out.strip().split("\n")[-1] == (
        "checked 2 functions in 1 file: 1 warning; 1 without versions skipped; "
        "1 function with fewer than 5 stored versions skipped")


def test_folder_walk_notes_binary_and_unknown_files(
        ws: Workspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (ws.root / "sub").mkdir(exist_ok=True)
    (ws.root / "sub" / "blob.py").write_bytes(b"\x00\x01def f():\n  pass\n")
    (ws.root / "sub" / "latin.py").write_bytes(b"x = '\xe9'\n")
    (ws.root / "notes.txt").write_text("not code\n", encoding="utf-8")
    try:
        status, out, err = _check(capsys, str(ws.root), str(ws.root / "notes.txt"),
                                  "--workspace", str(ws.root), "--no-tsed")
    finally:
        for name in ("sub/blob.py", "sub/latin.py", "notes.txt"):
            (ws.root / name).unlink()
        (ws.root / "sub").rmdir()
    assert status == 1
    assert f"{ws.root / 'sub' / 'blob.py'}: binary file, skipped" in err
    assert f"{ws.root / 'sub' / 'latin.py'}: not UTF-8 text (byte 5), skipped" in err
    assert f"{ws.root / 'notes.txt'}: unknown extension, skipped" in err
    assert out.count(": warning ") == 2  # mod.py, found by the walk, is still checked
    assert out.strip().split("\n")[-1].endswith("; 2 files skipped")


def test_files_skipped_or_not_parsing_are_said_so_in_the_summary_and_notes(
        ws: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    """A file that is not read is counted as skipped, never as a file without functions;
    a file that does not parse says where, since a function it breaks goes unchecked."""
    other = ws.root / "other"
    other.mkdir(exist_ok=True)
    (other / "blob.py").write_bytes(b"\x00\x01def f():\n  pass\n")
    (other / "broken.py").write_text("def f(x):\n    return x\n\n\ndef g(x:\n    return x\n",
                                     encoding="utf-8")
    try:
        status, out, err = _check(capsys, str(other / "blob.py"), "--workspace", str(ws.root))
        assert (status, out) == (0, "nothing checked: 1 file skipped\n")
        status, out, err = _check(capsys, str(other), "--workspace", str(ws.root))
    finally:
        for name in ("blob.py", "broken.py"):
            (other / name).unlink()
    assert (status, out) == (0, "no function in 1 file has stored versions; 1 file skipped\n")
    assert (f"{other / 'broken.py'}:5: does not parse ('(' was never closed): a function it "
            "breaks is not checked") in err


def test_missing_store_is_not_a_failure(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "a.py"
    source.write_text("def f():\n    return 1\n", encoding="utf-8")
    status, out, err = _check(capsys, str(source), "--workspace", str(tmp_path))
    expected = default_store_path(tmp_path.resolve())
    assert status == 0
    assert out == ""
    assert err.strip() == (f"codequorum: no version store at {expected}; run `codequorum "
                           "sample` or add versions from your editor")
    assert not expected.exists()  # checking never creates a store
    status, out, _ = _check(capsys, str(source), "--workspace", str(tmp_path),
                            "--format", "json")
    assert status == 0
    assert json.loads(out)["summary"]["store_missing"] is True


def test_usage_errors_exit_2(ws: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _check(capsys, str(ws.file), "--workspace", str(ws.root),
                            "--language", "cobol")
    assert status == 2
    assert "unknown language 'cobol'" in err
    status, _, err = _check(capsys, str(ws.file), "--format", "xml")
    assert (status, "unknown output format 'xml'" in err) == (2, True)
    status, _, err = _check(capsys, str(ws.file), "--fail-on", "hint")
    assert (status, "unknown --fail-on 'hint'" in err) == (2, True)
    status, _, err = _check(capsys, str(ws.root / "gone.py"), "--workspace", str(ws.root))
    assert (status, f"{ws.root / 'gone.py'}: no such file or folder" in err) == (2, True)


def test_installed_script_relative_paths(ws: Workspace) -> None:
    proc = subprocess.run([str(SCRIPT), "check", "mod.py", "--no-tsed"], cwd=ws.root,
                          capture_output=True, text=True, timeout=60, check=False)
    lines = proc.stdout.strip().split("\n")
    assert proc.returncode == 1, proc.stderr
    assert lines[0].startswith(f"mod.py:{ws.unstable_line}:5: warning unstable-structure ")
    assert sum(line.startswith(f"mod.py:{ws.total_line}:9: warning ") for line in lines) == 1
    assert lines[-1].startswith("checked 3 functions in 1 file: 2 warnings")
    proc = subprocess.run([str(SCRIPT), "check", "mod.py", "--fail-on", "error", "--no-tsed"],
                          cwd=ws.root, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0


def test_dynamic_runs_the_versions_in_the_sandbox(
        ws: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _check(capsys, str(ws.file), "--workspace", str(ws.root),
                            "--format", "json", "--dynamic", "--no-tsed", "--timeout", "5")
    doc = json.loads(out)
    by_function: dict[str, list[dict[str, Any]]] = {}
    for finding in doc["findings"]:
        by_function.setdefault(finding["function"], []).append(finding)
    assert status == 1
    # CodeGen's prime_fib versions part ways on the first input: 0 against None
    divergent = next(f for f in by_function["prime_fib"] if f["code"] == "divergent-outputs")
    assert "disagree on prime_fib(0): 0 vs None" in divergent["message"]
    agree = f"(all versions agree on {round(100 * divergent['figure'])} % of the inputs) ["
    assert agree in divergent["message"]  # the figure in words, never a bare number
    assert divergent["report"]["summary"]["oer"] < 1.0
    assert "sctd_jsd" in divergent["report"]["summary"]
    assert "outlier-current" in [f["code"] for f in by_function["Stats.total"]]
    # the versions' annotations use the module's ``List``: in their module they run (alone
    # every one raised NameError alike), and one of CodeGen's joins with spaces
    joined = next(f for f in by_function["concatenate"] if f["code"] == "divergent-outputs")
    assert re.search(r"versions \d and \d disagree on concatenate\(\[", joined["message"])
    [concatenate] = [f for f in doc["functions"] if f["function"] == "concatenate"]
    assert "NameError" not in json.dumps([by_function["concatenate"], concatenate])
    # after the run, the editor's words: the version to keep, how far to trust it, and the
    # input where it parts ways (what the text output prints under the findings)
    assert concatenate["advice"][0].startswith("keep version 1 (the current code): ")
    assert re.match(r"(likely right|uncertain|likely wrong): about ", concatenate["advice"][1])
    assert concatenate["advice"][2].startswith("on concatenate([")


def test_workspace_found_from_a_subfolder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    pkg = root / "pkg"
    pkg.mkdir()
    source = pkg / "stats.py"
    source.write_text(DIVERGENT_CURRENT, encoding="utf-8")
    versions = tmp_path / "loops.json"
    versions.write_text(json.dumps(LOOPS), encoding="utf-8")
    monkeypatch.chdir(pkg)
    # neither command is told the workspace: both find it from the file
    assert main(["sample", "stats.py", "-f", "Stats.total", "--from", str(versions)]) == 0
    with VersionStore.open(default_store_path(root)) as store:
        assert store.count("pkg/stats.py", "Stats.total") == len(LOOPS)
    capsys.readouterr()
    status, out, _ = _check(capsys, "stats.py", "--no-tsed")
    lines = out.strip().split("\n")
    assert status == 1
    line = _line_of(DIVERGENT_CURRENT, "def total(")
    # the four stored loops share one shape; only the current code is far from them
    assert sum(x.startswith(f"stats.py:{line}:9: warning outlier-current ") for x in lines) == 1
    assert lines[-1].startswith("checked 1 function in 1 file: 1 warning")


def test_check_does_not_load_the_language_server() -> None:
    code = ("import sys, codequorum.cli.commands.check; "
            "print(sorted(m for m in sys.modules if m.startswith(('codequorum.lsp', "
            "'lsprotocol', 'pygls'))))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert proc.stdout.strip() == "[]"


def test_quiet_prints_findings_only(ws: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    (ws.root / "notes.txt").write_text("not code\n", encoding="utf-8")
    try:
        status, out, err = _check(capsys, str(ws.file), str(ws.root / "notes.txt"),
                                  str(ws.root / "gone.py"), "--workspace", str(ws.root),
                                  "--no-tsed", "-q")
    finally:
        (ws.root / "notes.txt").unlink()
    lines = out.strip().split("\n")
    assert status == 2  # a path that does not exist
    assert len(lines) == 2 and all(": warning " in line for line in lines)
    assert "unknown extension" not in err  # a note
    assert f"{ws.root / 'gone.py'}: no such file or folder" in err  # a problem


def test_verbose_logs_every_function_checked(ws: Workspace, capsys: pytest.CaptureFixture[str],
                                             caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="codequorum")
    status, _, _ = _check(capsys, str(ws.file), "--workspace", str(ws.root), "--no-tsed", "-v")
    assert status == 1
    messages = [r.getMessage() for r in caplog.records if r.name == "codequorum.cli.commands.check"]
    # without a run the word is the shape's, as the editor's lens says it
    assert (f"{ws.file}: `concatenate`: shape stable; not run yet (--dynamic runs the "
            "versions) (7 stored versions)") in messages
    assert f"{ws.file}: `Stats.total`: outlier-current (4 stored versions)" in messages


def test_colour_like_a_linter(ws: Workspace, capsys: pytest.CaptureFixture[str],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")  # --color always wins over NO_COLOR
    status, out, _ = _check(capsys, str(ws.file), "--workspace", str(ws.root), "--no-tsed",
                            "--color", "always")
    first = out.split("\n")[0]
    path = ws.file.as_posix()
    cyan = "\x1b[36m:\x1b[0m"
    assert first.startswith(f"\x1b[1m{path}\x1b[0m{cyan}{ws.unstable_line}{cyan}5{cyan} "
                            "\x1b[1;33mwarning unstable-structure\x1b[0m Versions disagree")
    assert status == 1
    _, out, _ = _check(capsys, str(ws.file), "--workspace", str(ws.root), "--no-tsed")
    assert "\x1b" not in out  # auto: standard output is not a terminal here
    _, out, _ = _check(capsys, str(ws.file), "--workspace", str(ws.root), "--no-tsed",
                       "--color", "never")
    assert "\x1b" not in out


def test_summary_says_when_no_function_has_versions(
        ws: Workspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = ws.root / "other"
    other.mkdir(exist_ok=True)
    for name in ("a.py", "b.py"):
        (other / name).write_text("def f(x):\n    return x\n", encoding="utf-8")
    try:
        status, out, _ = _check(capsys, str(other), "--workspace", str(ws.root), "--no-tsed")
        assert (status, out) == (0, "no function in 2 files has stored versions\n")
        status, out, _ = _check(capsys, str(ws.file), "--workspace", str(ws.root),
                                "--no-tsed", "--min-samples", "50")
        assert out == ("no function in 1 file has 50 or more stored versions; "
                       "1 without versions skipped; "
                       "3 functions with fewer than 50 stored versions skipped\n")
        status, out, _ = _check(capsys, str(ws.root), "--workspace", str(ws.root),
                                "--no-tsed")
        assert out.strip().split("\n")[-1] == (
            "checked 3 functions in 1 of 3 files: 2 warnings; 3 without versions skipped")
    finally:
        for name in ("a.py", "b.py"):
            (other / name).unlink()
        other.rmdir()


HOSTILE = "\x1b]0;pwned\x07\x1b[31m[bold]x[/bold]"
ESCAPED = "\\x1b]0;pwned\\x07\\x1b[31m[bold]x[/bold]"


def _hostile_run() -> CheckRun:
    message = f"versions 1 and 2 disagree on f(1): raises ValueError: {HOSTILE} vs 1"
    finding = Located(path=f"src/{HOSTILE}.py", line=3, column=5, end_line=3, end_column=6,
                      severity="warning", code="divergent-outputs", message=message,
                      function="f", figure=0.5, versions=(0, 1), stored=2,
                      report={"notes": [HOSTILE], "status": "ok"})
    return CheckRun(findings=[finding], notes=[HOSTILE], files=1, files_checked=1,
                    functions_checked=1)


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_candidate_text_is_escaped_in_every_format(fmt: str) -> None:
    out = io.StringIO()
    write(_hostile_run(), fmt, out, color=fmt == "text")
    text = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())  # our own colours aside
    assert "\x1b" not in text and "\x07" not in text
    if fmt == "text":
        assert text.startswith(f"src/{ESCAPED}.py:3:5: warning divergent-outputs ")
        assert f"raises ValueError: {ESCAPED} vs 1" in text
        return
    assert "\\u001b" not in text
    doc = json.loads(text)
    if fmt == "json":
        (finding,) = doc["findings"]
        assert finding["message"].endswith(f"{ESCAPED} vs 1")
        assert finding["path"] == f"src/{ESCAPED}.py"
        assert finding["report"]["notes"] == [ESCAPED] and doc["notes"] == [ESCAPED]
    else:
        (result,) = doc["runs"][0]["results"]
        assert result["message"]["text"].endswith(f"{ESCAPED} vs 1")
        location = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert location == f"src/{quote(HOSTILE)}.py"  # a URI: the name percent-encoded


def test_a_name_defined_twice_is_checked_once_at_its_first_definition() -> None:
    code = ("def f(x):\n    return x\n\n\nclass A:\n    def f(self):\n        return 1\n\n\n"
            "def f(x):\n    return -x\n")
    found = first_definitions(parsing.functions(code, "python"))
    assert [(str(i.qualified_name), i.start_point[0]) for i in found] == [("f", 0), ("A.f", 5)]


def test_name_span_counts_characters_from_one() -> None:
    lines = ["def café(x):", "    pass"]
    assert name_span(lines, (0, 4), (0, 9)) == (1, 5, 1, 9)
    assert name_span(["", "  def 名前():"], (1, 6), (1, 12)) == (2, 7, 2, 9)


# --------------------------------------------------------------------------- in its module

def _duration_workspace(root: Path, app: str = DURATION_APP) -> Path:
    """A git workspace with ``tools/app.py`` (a package module) and versions of its
    functions imported with the installed script."""
    (root / ".git").mkdir(parents=True)
    (root / ".env").write_text("API_KEY=do-not-read\n")
    tools = root / "tools"
    tools.mkdir()
    (tools / "__init__.py").write_text("")
    (tools / "units.py").write_text(UNITS_SOURCE)
    app_file = tools / "app.py"
    app_file.write_text(app)
    for name, codes in DURATION_VERSIONS.items():
        source = root / f"{name}.json"
        source.write_text(json.dumps(codes))
        proc = subprocess.run([str(SCRIPT), "sample", "tools/app.py", "-f", name, "--from",
                               str(source)], cwd=root, capture_output=True, text=True,
                              timeout=60, check=False)
        assert proc.returncode == 0, proc.stderr
        source.unlink()
    return app_file


def _check_dynamic(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPT), "check", "tools/app.py", "--dynamic", "--no-tsed",
                           "--timeout", "5", *extra], cwd=root, capture_output=True,
                          text=True, timeout=300, check=False)


def test_check_dynamic_runs_versions_in_their_module(tmp_path: Path) -> None:
    """The imports, the relative import of a package, a helper and a class are there: the
    correct versions agree, and no finding quotes a NameError."""
    _duration_workspace(tmp_path)
    proc = _check_dynamic(tmp_path, "--format", "json")
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert doc["findings"] == []
    assert sorted(f["function"] for f in doc["functions"]) == ["Timer.add", "parse_duration"]
    assert "NameError" not in proc.stdout + proc.stderr


def test_check_dynamic_says_when_the_module_does_not_load(tmp_path: Path) -> None:
    _duration_workspace(tmp_path, "import numpy\n" + DURATION_APP)
    proc = _check_dynamic(tmp_path)
    lines = proc.stdout.strip().split("\n")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "NameError" not in proc.stdout
    notes = [line for line in lines if " information not-run-in-module " in line]
    assert len(notes) == 2
    assert all("not run: the module `tools.app` did not load in the sandbox: its top level "
               "raised ModuleNotFoundError: No module named 'numpy'" in line for line in notes)
    assert any("the versions use UNITS, insort, re from it" in line for line in notes)
    assert any("a method needs its class" in line for line in notes)
    not_run = [line for line in lines if " information not-run " in line]
    assert len(not_run) == 2 and all(
        "behaviour not run: not run in its module" in line for line in not_run)


def test_the_request_is_read_from_the_parsed_arguments(tmp_path: Path) -> None:
    from codequorum.cli.commands.check import check_request
    from codequorum.cli.main import parse_arguments

    args = parse_arguments([
        "check", str(tmp_path / "a.py"), str(tmp_path / "src"), "--format", "sarif",
        "--fail-on", "error", "--language", "PY", "--workspace", str(tmp_path),
        "--store", str(tmp_path / "s.sqlite3"), "--min-samples", "3", "--metrics", "",
        "--max-depth", "12", "--timeout", "4.5", "--dynamic", "--propose-inputs",
        "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--api-key-env", "",
        "--propose-timeout", "7", "-q", "--color", "never", "--isolated"])
    request = check_request(args)
    assert request.paths == (tmp_path / "a.py", tmp_path / "src")
    assert request.format.name == "sarif"
    assert (request.fail_on, request.language) == ("error", "python")
    assert (request.workspace, request.store) == (tmp_path, tmp_path / "s.sqlite3")
    assert (request.min_versions, request.analysis.metrics, request.analysis.max_depth) == (
        3, (), 12)
    assert (request.analysis.timeout, request.dynamic, request.quiet) == (4.5, True, True)
    assert request.color == "never"
    assert request.propose is not None
    assert (request.propose.base_url, request.propose.model) == ("http://127.0.0.1:9/v1", "m")
    assert (request.propose.api_key_env, request.propose.timeout) == (None, 7.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.quiet = False  # type: ignore[misc]


def test_dynamic_runs_in_the_portable_sandbox_where_the_strict_one_is_missing(
        ws: Workspace, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from codequorum.behaviour.sandbox import bwrap, isolation

    monkeypatch.setattr(bwrap, "find_bwrap", lambda: None)
    monkeypatch.setattr(isolation, "_cache", {})
    status, out, _ = _check(capsys, str(ws.file), "--workspace", str(ws.root),
                            "--format", "json", "--dynamic", "--no-tsed", "--timeout", "5")
    doc = json.loads(out)
    found = doc["findings"]
    divergent = next(f for f in found
                     if f["function"] == "prime_fib" and f["code"] == "divergent-outputs")
    assert status == 1
    assert "disagree on prime_fib(0): 0 vs None" in divergent["message"]
    assert "the strict sandbox is not available here (this machine has no bubblewrap): " \
        "versions run in the portable sandbox" in doc["notes"]
# --------------------------------------------------------------------------- nothing silent

# nothing in how the versions use ``xs`` says its type (a method no builtin type has)
TOTAL = "def total(xs):\n    return xs.total()\n"
TOTALS = ["def total(xs):\n    return xs.sum()\n",
          "def total(xs):\n    return xs.total() + 0\n"]


def _total_workspace(root: Path) -> None:
    """A function with nothing to call it with: no doctest, no type hints, no use of its
    parameter that says a type."""
    (root / ".git").mkdir(parents=True)
    (root / "calc.py").write_text(TOTAL)
    source = root.parent / "totals.json"
    source.write_text(json.dumps(TOTALS))
    assert main(["sample", str(root / "calc.py"), "-f", "total", "--from", str(source),
                 "--workspace", str(root)]) == 0


def test_a_run_that_ran_nothing_says_why_and_can_fail(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        caplog: pytest.LogCaptureFixture) -> None:
    root = tmp_path / "ws"
    _total_workspace(root)
    capsys.readouterr()
    args = [str(root / "calc.py"), "--workspace", str(root), "--dynamic", "--no-tsed"]
    status, out, err = _check(capsys, *args, "--format", "json")
    doc = json.loads(out)
    assert status == 0  # information: only --fail-on not-run fails on it
    [row] = doc["functions"]
    assert row["not_run"] == "no inputs" and row["verdict"] == "not-run"
    [finding] = doc["findings"]
    assert (finding["code"], finding["severity"]) == ("not-run", "information")
    assert finding["message"].startswith("shape stable; behaviour not run: no inputs")
    assert "behaviour not run: no inputs" in finding["report"]["notes"]
    assert [n for n in doc["notes"] if "total" in n] == [
        f"{root / 'calc.py'}: `total`: behaviour not run: no inputs"]
    assert "behaviour not run: no inputs" in err
    status, out, err = _check(capsys, *args, "--fail-on", "not-run", "-v")
    assert status == 1
    assert "`total`: shape stable; behaviour not run: no inputs" in caplog.text  # -v
    assert ": stable (" not in caplog.text
    assert "information not-run" in out
    status, _, _ = _check(capsys, *args, "--fail-on", "warning")
    assert status == 0


def test_fail_on_not_run_fails_on_warnings_too() -> None:
    from codequorum.render.check_out import CheckRun, Located

    run = CheckRun(store="s")
    run.findings.append(Located(path="a.py", line=1, column=1, end_line=1, end_column=2,
                                severity="warning", code="unstable-structure", message="m",
                                function="f", figure=None, versions=(), stored=2, report={}))
    assert run.exit_code("not-run") == 1
    run.findings.clear()
    assert run.exit_code("not-run") == 0


def test_check_dynamic_runs_at_the_level_asked_with_the_same_verdicts(tmp_path: Path) -> None:
    """``--sandbox portable`` runs the versions in the portable sandbox even where the strict
    one holds, and says so; the verdicts are the strict sandbox's."""
    _duration_workspace(tmp_path)
    docs = {}
    for level in ("strict", "portable"):
        proc = _check_dynamic(tmp_path, "--format", "json", "--sandbox", level)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        docs[level] = json.loads(proc.stdout)
    assert PORTABLE_NOTE in docs["portable"]["notes"]
    assert PORTABLE_NOTE not in docs["strict"]["notes"]
    verdicts = {level: {f["function"]: (f["verdicts"], f["not_run"]) for f in doc["functions"]}
                for level, doc in docs.items()}
    assert verdicts["portable"] == verdicts["strict"]
    assert all(not_run is None for _, not_run in verdicts["strict"].values())


def test_the_current_codes_examples_grade_when_it_is_a_stored_version(tmp_path: Path) -> None:
    """more-itertools' ``one``, its current code stored as version 1: its docstring's four
    examples (exceptions, the same call after two setups) grade the versions, so the wrong
    version is not kept, and the version to keep is the current code, by behaviour."""
    from tests.support import real_package

    real_package.make_workspace(tmp_path, SCRIPT)
    proc = subprocess.run([str(SCRIPT), "check", "mit/more.py", "--dynamic", "--no-tsed",
                           "--format", "json"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, check=False)
    doc = json.loads(proc.stdout)
    [row] = doc["functions"]
    assert (row["function"], row["recommended"]) == ("one", 0), proc.stdout + proc.stderr
    [finding] = [f for f in doc["findings"] if f["code"] == "divergent-outputs"]
    summary = finding["report"]["summary"]
    assert summary["graded_inputs"] == real_package.EXAMPLES
    # the wrong version fails the two examples with more than one item
    assert summary["pass_rate_max_diff"] == 0.5
    assert finding["report"]["current_index"] == 0
    assert "versions 1 and 3 disagree" in finding["message"]


# --------------------------------------------------------------------------- no namespaces

WITHOUT = Path(__file__).resolve().parents[2] / "support" / "without_namespaces.py"


def _decamelize_workspace(root: Path) -> None:
    """decamelize's real package (``tests/fixtures/repos/decamelize``) with three versions
    of its function, one wrong on a call its tests make."""
    from tests.behaviour.runtimes.test_js_callers import (
        DECAMELIZE,
        DECAMELIZE_REWRITE,
        DECAMELIZE_WRONG,
    )

    (root / ".git").mkdir(parents=True)
    for name in ("index.js", "test.js", "package.json"):
        (root / name).write_text((DECAMELIZE / name).read_text())
    index = (root / "index.js").read_text()
    real = index[index.index("export default"):]
    (root / "v.json").write_text(json.dumps([real, DECAMELIZE_REWRITE, DECAMELIZE_WRONG]))
    subprocess.run([str(SCRIPT), "sample", "index.js", "-f", "decamelize", "--from", "v.json",
                    "-q"], check=True, cwd=root, timeout=60)


def _stored_then_checked(root: Path, name: str, text: str, function: str,
                         versions: list[str], **environ: str
                         ) -> subprocess.CompletedProcess[str]:
    """A git workspace holding ``name`` (``text``) whose ``function`` has ``versions``
    imported with ``sample --from``; what ``check --dynamic --format json`` then says
    (its own user folder, so no run is remembered from elsewhere; ``environ`` added to its
    environment)."""
    (root / ".git").mkdir()
    (root / name).write_text(text)
    (root / "v.json").write_text(json.dumps(versions))
    env = {"XDG_CONFIG_HOME": str(root / "config"), "PATH": os.environ["PATH"], **environ}
    subprocess.run([str(SCRIPT), "sample", name, "-f", function, "--from", "v.json", "-q"],
                   check=True, env=env, cwd=root, timeout=120)
    return subprocess.run([str(SCRIPT), "check", name, "--dynamic", "--no-tsed", "--fail-on",
                           "never", "--format", "json"], capture_output=True, text=True,
                          env=env, cwd=root, timeout=300, check=False)


def _check_without(root: Path, refused: tuple[str, ...], *args: str
                   ) -> tuple[int, dict[str, Any], str]:
    proc = subprocess.run([sys.executable, str(WITHOUT), *refused, str(SCRIPT), "check",
                           *args, "--dynamic", "--no-tsed", "--format", "json"], cwd=root,
                          capture_output=True, text=True, timeout=300, check=False)
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def test_javascript_runs_in_its_own_sandbox_where_python_falls_back_to_the_portable_one(
        tmp_path: Path) -> None:
    """User namespaces refused: ``auto`` runs Python in the portable sandbox, but
    JavaScript has one level only, Node's strict sandbox, and is asked for it, not for
    Python's choice. As root, Node's sandbox needs no user namespace and holds: the wrong
    version is found; as another user it does not, and the function says it did not run."""
    from codequorum.behaviour.runtimes import node_sandbox

    held, why, _ = node_sandbox.probe()
    if not held:
        pytest.skip(why)
    _decamelize_workspace(tmp_path)
    status, doc, err = _check_without(tmp_path, (), "index.js", "--fail-on", "never")
    [row] = doc["functions"]
    assert status == 0 and "could not be analysed" not in err
    if os.geteuid() == 0:
        assert row["not_run"] is None and "divergent-outputs" in row["verdicts"], err
    else:
        assert row["not_run"] is not None and row["not_run"].startswith("sandbox unavailable")


def test_where_no_sandbox_starts_the_function_keeps_its_shape_and_says_nothing_ran(
        tmp_path: Path) -> None:
    from codequorum.behaviour.runtimes import node_sandbox

    if node_sandbox.find_node() is None:
        pytest.skip("no supported Node here")
    """Every namespace refused (a container's seccomp profile): Node's sandbox does not
    start. The function is still checked on shape, with the ``not-run`` finding saying
    why, never ``stable`` and never dropped as "could not be analysed"."""
    _decamelize_workspace(tmp_path)
    status, doc, err = _check_without(tmp_path, ("--all",), "index.js", "--fail-on",
                                      "not-run")
    [row] = doc["functions"]
    assert status == 1 and "could not be analysed" not in err, err
    assert row["verdict"] == "not-run" and row["stability"] is not None
    assert row["not_run"].startswith("sandbox unavailable: ")
    [finding] = [f for f in doc["findings"] if f["code"] == "not-run"]
    assert "behaviour not run: sandbox unavailable" in finding["message"]
    assert doc["summary"]["functions_checked"] == 1


EVAL_VERSIONS = ["def inc(x: int) -> int:\n    return x + 1\n",
                 'def inc(x: int) -> int:\n    return eval("x +")\n',
                 "def inc(x: int) -> int:\n    return 1 + x\n"]


def test_an_error_raised_in_the_sandbox_keeps_its_angle_names(tmp_path: Path) -> None:
    """A version raising SyntaxError from ``eval`` is quoted as Python wrote it,
    ``(<string>, line 1)``, in check's lines and JSON (plain text: a tag is text there)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "mod.py").write_text('def inc(x: int) -> int:\n    """>>> inc(1)\n    2\n'
                                     '    """\n    return x + 1\n')
    (tmp_path / "versions.json").write_text(json.dumps(EVAL_VERSIONS))
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": "/usr/bin:/bin"}
    subprocess.run([str(SCRIPT), "sample", "mod.py", "-f", "inc", "--from", "versions.json",
                    "-q"], check=True, env=env, cwd=tmp_path, timeout=120)
    said = "2 vs raises SyntaxError: invalid syntax (<string>, line 1)"
    for fmt in ("text", "json"):
        done = subprocess.run([str(SCRIPT), "check", "mod.py", "--dynamic", "--no-tsed",
                               "--fail-on", "never", "--format", fmt], capture_output=True,
                              text=True, env=env, cwd=tmp_path, timeout=300, check=True)
        assert said in done.stdout, done.stdout
        assert "< string>" not in done.stdout


ONLY = '''def only(items):
    """The one item of *items*.

        >>> it = [7]
        >>> only(it)
        7
        >>> it = []
        >>> only(it)
        Traceback (most recent call last):
        ...
        ValueError: no item
    """
    if len(items) != 1:
        raise ValueError("no item")
    return items[0]
'''

ONLY_VERSIONS = ["def only(items):\n    if len(items) != 1:\n        raise ValueError('no item')\n"
                 "    return items[0]\n",
                 "def only(items):\n    return items[0] if len(items) == 1 else None\n"]


def test_a_doctest_example_that_shows_nothing_is_said_to(tmp_path: Path) -> None:
    """An example that shows nothing (its value is None, which doctest does not print)
    reads ``nothing`` in the finding, the hover's parting input and the agents' text,
    never an empty ``vs  (``."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "mod.py").write_text(ONLY)
    (tmp_path / "versions.json").write_text(json.dumps(ONLY_VERSIONS))
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": "/usr/bin:/bin"}
    subprocess.run([str(SCRIPT), "sample", "mod.py", "-f", "only", "--from", "versions.json",
                    "-q"], check=True, env=env, cwd=tmp_path, timeout=120)
    done = subprocess.run([str(SCRIPT), "check", "mod.py", "--dynamic", "--no-tsed",
                           "--fail-on", "never", "--format", "json"], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=300, check=True)
    [finding] = [f for f in json.loads(done.stdout)["findings"]
                 if f["code"] == "divergent-outputs"]
    assert finding["message"].startswith(
        "versions 1 and 2 disagree on only(it) (after it = []): raises ValueError: no item "
        "vs nothing ("), finding["message"]


LOOKAHEAD = '''from collections import deque


class Lookahead:
    """An iterator that can take items back.

        >>> p = Lookahead(['a', 'b'])
        >>> next(p)
        'a'
    """

    def __init__(self, iterable):
        self._it = iter(iterable)
        self._cache = deque()

    def __iter__(self):
        return self

    def __next__(self):
        if self._cache:
            return self._cache.popleft()
        return next(self._it)

    def push_front(self, *items):
        """Put *items* back, to come out first, in the order given.

            >>> p = Lookahead([1, 2])
            >>> p.push_front(8, 9)
            >>> next(p)
            8
            >>> list(p)
            [9, 1, 2]
        """
        self._cache.extendleft(reversed(items))
'''

PUSH_FRONT = ["def push_front(self, *items):\n    self._cache.extendleft(reversed(items))\n",
              "def push_front(self, *items):\n    for item in reversed(items):\n"
              "        self._cache.appendleft(item)\n",
              # wrong: extendleft reverses the items it is given
              "def push_front(self, *items):\n    self._cache.extendleft(items)\n"]


def test_a_method_that_changes_its_object_is_judged_by_the_examples_after_its_call(
        tmp_path: Path) -> None:
    """``push_front`` returns None in every version: what tells them apart is what its
    docstring shows of the object afterwards (``next(p)``), so the version that puts the
    items back reversed fails there and is not the one to keep."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "look.py").write_text(LOOKAHEAD)
    (tmp_path / "versions.json").write_text(json.dumps(PUSH_FRONT))
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": "/usr/bin:/bin"}
    subprocess.run([str(SCRIPT), "sample", "look.py", "-f", "Lookahead.push_front", "--from",
                    "versions.json", "-q"], check=True, env=env, cwd=tmp_path, timeout=120)
    done = subprocess.run([str(SCRIPT), "check", "look.py", "--dynamic", "--no-tsed",
                           "--fail-on", "never", "--format", "json"], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=300, check=True)
    doc = json.loads(done.stdout)
    [row] = doc["functions"]
    assert row["verdict"] == "divergent-outputs" and row["recommended"] != 2, done.stdout
    [finding] = [f for f in doc["findings"] if f["code"] == "divergent-outputs"]
    assert "disagree on next(p) (after p.push_front(8, 9)): 8 vs 9" in finding["message"], \
        finding["message"]
    assert finding["report"]["summary"]["graded_inputs"] == 2


PEEKING = LOOKAHEAD.replace('''        >>> p = Lookahead(['a', 'b'])
        >>> next(p)
        'a'
    """''', '''        >>> p = Lookahead(['a', 'b'])
        >>> p.peek()
        'a'
        >>> next(p)
        'a'
        >>> if p:
        ...     list(p)
        ['b']
        >>> not p
        True
    """''').replace('''    def push_front(self, *items):''', '''    def peek(self):
        if not self._cache:
            self._cache.append(next(self._it))
        return self._cache[0]

    def __bool__(self):
        try:
            self.peek()
        except StopIteration:
            return False
        return True

    def push_front(self, *items):''')

PEEK = ["def peek(self):\n    if not self._cache:\n        self._cache.append(next(self._it))\n"
        "    return self._cache[0]\n",
        "def peek(self):\n    if self._cache:\n        return self._cache[0]\n"
        "    item = next(self._it)\n    self._cache.append(item)\n    return item\n",
        # wrong: takes the item without keeping it for next()
        "def peek(self):\n    return next(self._it)\n"]

TRUTH = ["def __bool__(self):\n    try:\n        self.peek()\n    except StopIteration:\n"
         "        return False\n    return True\n",
         "def __bool__(self):\n    try:\n        self.peek()\n        return True\n"
         "    except StopIteration:\n        return False\n",
         # wrong: only knows the items already looked at
         "def __bool__(self):\n    return bool(self._cache)\n"]


def test_methods_without_examples_are_judged_by_their_classs_examples(tmp_path: Path) -> None:
    """``peek`` and ``__bool__`` have no examples of their own: the class's (``p.peek()``
    then ``next(p)``, ``if p:`` over two lines, ``not p``) are their inputs, so the version
    of each that forgets what it looked at parts ways, where none ran before."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "look.py").write_text(PEEKING)
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": "/usr/bin:/bin"}
    for name, codes in (("Lookahead.peek", PEEK), ("Lookahead.__bool__", TRUTH)):
        (tmp_path / "versions.json").write_text(json.dumps(codes))
        subprocess.run([str(SCRIPT), "sample", "look.py", "-f", name, "--from",
                        "versions.json", "-q"], check=True, env=env, cwd=tmp_path, timeout=120)
    done = subprocess.run([str(SCRIPT), "check", "look.py", "--dynamic", "--no-tsed",
                           "--fail-on", "never", "--format", "json"], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=300, check=True)
    doc = json.loads(done.stdout)
    rows = {row["function"]: row for row in doc["functions"]}
    for name in ("Lookahead.peek", "Lookahead.__bool__"):
        assert rows[name]["verdict"] == "divergent-outputs", rows[name]
        assert rows[name]["recommended"] != 2 and rows[name]["not_run"] is None


LOWER_FIRST = '''const LEADING_CAPITAL = /^[\\p{Lu}](?![\\p{Lu}])/u;

// >>> lowerFirst("", 1)
// ""
export const lowerFirst = (input, toLowerCase) =>
\tinput.replace(LEADING_CAPITAL, match => toLowerCase(match));
'''

LOWER_FIRST_VERSIONS = [
    "const lowerFirst = (input, toLowerCase) => input.replace(LEADING_CAPITAL, "
    "m => toLowerCase(m));\n",
    "const lowerFirst = (input, toLowerCase) => toLowerCase(input);\n"]


def test_versions_whose_outputs_part_ways_are_never_said_to_run_the_same_way(
        tmp_path: Path) -> None:
    """Two versions that disagree on their one input (the example passes a number where
    one of them calls a function) run almost none of their code, alike (BEF in the
    millions): ``redundant-alternatives`` ("run the same way") is not said beside
    ``divergent-outputs``."""
    done = _stored_then_checked(tmp_path, "index.js", LOWER_FIRST, "lowerFirst",
                                LOWER_FIRST_VERSIONS)
    assert done.returncode == 0, done.stderr
    [row] = json.loads(done.stdout)["functions"]
    assert "divergent-outputs" in row["verdicts"], row
    assert "redundant-alternatives" not in row["verdicts"], row


def test_verbose_never_calls_a_function_stable_that_never_ran(tmp_path: Path) -> None:
    """``check -v`` without ``--dynamic`` (and no run remembered) says the shape is stable
    and that nothing ran, as the editor's lens does; after a run, the run's word."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "mod.py").write_text(ONLY)
    (tmp_path / "versions.json").write_text(json.dumps(ONLY_VERSIONS[:1] * 2))
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": "/usr/bin:/bin"}
    subprocess.run([str(SCRIPT), "sample", "mod.py", "-f", "only", "--from", "versions.json",
                    "-q"], check=True, env=env, cwd=tmp_path, timeout=120)
    said = {}
    for run in ([], ["--dynamic"]):
        done = subprocess.run([str(SCRIPT), "check", "mod.py", "-v", "--no-tsed", *run],
                              capture_output=True, text=True, env=env, cwd=tmp_path,
                              timeout=300, check=True)
        said[bool(run)] = done.stderr
    assert "`only`: shape stable; not run yet (--dynamic runs the versions)" in said[False]
    assert "`only`: stable (" not in said[False]
    assert "`only`: stable (" in said[True]


def test_a_javascript_parameter_the_versions_call_is_given_a_function(tmp_path: Path) -> None:
    """Without examples or types, a parameter every version calls is drawn as a function,
    not a number: the versions agree instead of all but one raising ``TypeError`` on a
    number, and the input is said to come from how the versions use it."""
    untyped = LOWER_FIRST.replace('// >>> lowerFirst("", 1)\n// ""\n', "")
    done = _stored_then_checked(tmp_path, "index.js", untyped, "lowerFirst",
                                LOWER_FIRST_VERSIONS)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    [row] = doc["functions"]
    assert row["verdicts"] == ["stable"] and row["not_run"] is None, done.stdout
    assert row["risk"] is not None


# --------------------------------------------------------------------------- helpers

HEX_TS = '''const DIGITS = "0123456789abcdef";

/**
 * The hexadecimal digits of a number.
 * @example toHex(255) // => "ff"
 * @example toHex(4096) // => "1000"
 */
export function toHex(n: number): string {
  return n.toString(16);
}
'''
#: Versions that define their own helpers beside the function (one repeats the module's).
HEX_VERSIONS = [
    'const DIGITS = "0123456789abcdef";\n'
    "function digit(d: number): string { return DIGITS[d]; }\n"
    "export function toHex(n: number): string {\n  if (n === 0) return '0';\n"
    "  let s = '';\n  while (n > 0) { s = digit(n % 16) + s; n = Math.floor(n / 16); }\n"
    "  return s;\n}\nconsole.log(toHex(255));\n",
    "class Hex { static of(n: number): string { return n.toString(16); } }\n"
    "export const toHex = (n: number): string => Hex.of(n);\n",
    "export function toHex(n: number): string {\n  return n.toString(16);\n}\n",
]


def test_typescript_versions_run_with_the_helpers_they_define(tmp_path: Path) -> None:
    """A version's second function, constant table and class come into the store with
    it, so ``check --dynamic`` runs them in the module: none raises ReferenceError."""
    from codequorum.behaviour.runtimes import node_sandbox

    if not node_sandbox.probe()[0]:
        pytest.skip("the Node sandbox does not hold here")
    proc = _stored_then_checked(tmp_path, "hex.ts", HEX_TS, "toHex", HEX_VERSIONS)
    doc = json.loads(proc.stdout)
    [row] = doc["functions"]
    assert row["not_run"] is None, proc.stderr
    # they agree on the examples; the declared number draws -3, where the loop gives ""
    [parted] = [f for f in doc["findings"] if f["code"] == "divergent-outputs"]
    assert 'on toHex(-3): "" vs "-3"' in parted["message"]
    assert not [f for f in doc["findings"] if f["code"] in ("not-run-in-module", "not-run")]
    assert "ReferenceError" not in proc.stdout + proc.stderr


def test_a_python_version_runs_with_its_own_helper(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "hexa.py").write_text(
        'def to_hex(n):\n    """Hex.\n\n    >>> to_hex(255)\n    \'ff\'\n    """\n'
        '    return format(n, "x")\n')
    helped = ("DIGITS = '0123456789abcdef'\n\ndef digit(d):\n    return DIGITS[d]\n\n"
              "def to_hex(n):\n    s = ''\n    while n > 0:\n        s = digit(n % 16) + s\n"
              "        n //= 16\n    return s or '0'\n\nprint(to_hex(255))\n")
    (tmp_path / "v.json").write_text(json.dumps([helped, helped]))
    assert main(["sample", str(tmp_path / "hexa.py"), "-f", "to_hex", "--from",
                 str(tmp_path / "v.json"), "--workspace", str(tmp_path), "-q"]) == 0
    capsys.readouterr()
    status, out, err = _check(capsys, str(tmp_path / "hexa.py"), "--workspace", str(tmp_path),
                              "--dynamic", "--no-tsed", "--format", "json", "--fail-on",
                              "never")
    [row] = json.loads(out)["functions"]
    assert status == 0 and row["not_run"] is None, err
    assert "NameError" not in out and "raises" not in out  # (negative numbers differ)


HEX_MODULE = """const DIGITS = '0123456789abcdef';
function digit(d) { return DIGITS[d]; }
/**
 * @example toHex(255) // => "ff"
 */
export function toHex(n) {
  if (n === 0) return '0';
  let s = '';
  while (n > 0) { s = digit(n % 16) + s; n = Math.floor(n / 16); }
  return s;
}
"""
HEX_BODIES = [
    "export function toHex(n) {\n  let s = '';\n  do { s = digit(n % 16) + s; "
    "n = Math.floor(n / 16); } while (n > 0);\n  return s;\n}\n",
    "export function toHex(n) {\n  if (n === 0) return '0';\n  let out = '';\n"
    "  for (; n > 0; n = Math.floor(n / 16)) out = digit(n % 16) + out;\n  return out;\n}\n",
]


def test_helpers_a_version_repeats_from_its_module_are_compared_as_the_module_gives_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Versions that repeat the module's constant and helper word for word are checked
    as the same versions without them: the same shape figures and verdicts."""
    echo = "const DIGITS = '0123456789abcdef';\nfunction digit(d) { return DIGITS[d]; }\n"
    rows = []
    for name, codes in (("bare", HEX_BODIES), ("echo", [echo + c for c in HEX_BODIES])):
        root = tmp_path / name
        (root / ".git").mkdir(parents=True)
        (root / "hex.js").write_text(HEX_MODULE)
        (root / "v.json").write_text(json.dumps(codes))
        assert main(["sample", str(root / "hex.js"), "-f", "toHex", "--from",
                     str(root / "v.json"), "--workspace", str(root), "-q"]) == 0
        capsys.readouterr()
        _, out, _ = _check(capsys, str(root / "hex.js"), "--workspace", str(root),
                           "--no-tsed", "--format", "json", "--fail-on", "never")
        [row] = json.loads(out)["functions"]
        rows.append({k: row[k] for k in ("verdicts", "stability", "versions")})
    assert rows[0] == rows[1]


def test_a_typescript_function_of_date_fns_runs_in_its_module_on_its_tests(
        tmp_path: Path) -> None:
    """date-fns's ``isLeapYear`` (``tests/fixtures/repos/date-fns``, unchanged): its module
    imports ``toDate`` by its ``.ts`` name, its types file re-exports types with
    ``export type *``, its tests write ``new Date(2012, 6 /* Jul */, 2)``. Three versions,
    one that calls 2100 a leap year: ``check`` runs them in the module on the tests' dates
    and keeps the package's (before: "not run in its module", the TypeScript of the types
    file did not parse, and the tests' dates were no inputs)."""
    from codequorum.behaviour.runtimes import node_sandbox

    held, why, _ = node_sandbox.probe()
    if not held:
        pytest.skip(why)
    shutil.copytree(Path(__file__).resolve().parents[2] / "fixtures" / "repos" / "date-fns",
                    tmp_path / "ws")
    root = tmp_path / "ws"
    (root / ".git").mkdir()
    head = ("export function isLeapYear(\n  date: DateArg<Date> & {},\n"
            "  options?: IsLeapYearOptions | undefined,\n): boolean {\n"
            "  const year = toDate(date, options?.in).getFullYear();\n")
    versions = [head + "  return year % 400 === 0 || (year % 4 === 0 && year % 100 !== 0);\n}\n",
                head + "  return year % 4 === 0;\n}\n",
                head + "  return new Date(year, 1, 29).getDate() === 29;\n}\n"]
    (root / "v.json").write_text(json.dumps(versions))
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": os.environ["PATH"]}
    subprocess.run([str(SCRIPT), "sample", "src/isLeapYear/index.ts", "-f", "isLeapYear",
                    "--from", "v.json", "-q"], check=True, env=env, cwd=root, timeout=120)
    proc = subprocess.run([str(SCRIPT), "check", "src/isLeapYear/index.ts", "--dynamic",
                           "--no-tsed", "--fail-on", "never", "--format", "json"],
                          capture_output=True, text=True, env=env, cwd=root, timeout=300)
    [row] = json.loads(proc.stdout)["functions"]
    assert row["not_run"] is None, proc.stderr
    # the package's own code (the current code, a fourth version) ties with version 1
    assert row["verdict"] == "divergent-outputs" and row["recommended"] == 3, row
    assert row["interpreter"].startswith("node ")


@pytest.mark.parametrize("where", ["workspace", "activated"])
def test_a_python_function_whose_module_imports_an_installed_package_runs_in_it(
        tmp_path: Path, where: str) -> None:
    """A module importing ``text_unidecode`` (a pure-Python package that reads its
    ``data.bin`` at import) installed in the workspace's ``.venv``, or in the environment
    the user activated outside it (Poetry's way: ``VIRTUAL_ENV``): ``check`` runs the
    versions in the module and finds the one that drops a letter (before: "No module named
    'text_unidecode'", not run in its module)."""
    env = tmp_path / ".venv" if where == "workspace" else tmp_path.parent / f"{tmp_path.name}-env"
    site = env / "lib" / "python3.11" / "site-packages" / "text_unidecode"
    site.mkdir(parents=True)
    (env / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (site / "__init__.py").write_text(
        "import pkgutil\n_TABLE = dict(pair.split('=') for pair in "
        "pkgutil.get_data(__name__, 'data.bin').decode().split(';'))\n"
        "def unidecode(text):\n    return ''.join(_TABLE.get(c, c) for c in text)\n")
    (site / "data.bin").write_text("é=e;ß=ss;ï=i")
    text = ("from text_unidecode import unidecode\n\n\n"
            "def ascii_slug(text: str) -> str:\n"
            "    \"\"\"The text in ASCII, lower case, words joined by dashes.\n\n"
            "    >>> ascii_slug('Café Noir')\n    'cafe-noir'\n    \"\"\"\n"
            "    return '-'.join(unidecode(text).lower().split())\n")
    versions = ["def ascii_slug(text: str) -> str:\n"
                "    return '-'.join(unidecode(text).lower().split())\n",
                "def ascii_slug(text: str) -> str:\n"
                "    return '-'.join(w for w in unidecode(text).lower().split() if len(w) > 1)\n",
                "def ascii_slug(text: str) -> str:\n"
                "    return unidecode(text).lower().strip().replace(' ', '-')\n"]
    activated = {"VIRTUAL_ENV": str(env)} if where == "activated" else {}
    proc = _stored_then_checked(tmp_path, "app.py", text, "ascii_slug", versions, **activated)
    [row] = json.loads(proc.stdout)["functions"]
    assert row["not_run"] is None, proc.stderr
    assert "divergent-outputs" in row["verdicts"], row


SIGN = '''def sign(x: int) -> int:
    """The sign of ``x``.

    >>> sign(5)
    1
    """
    return 1 if x >= 0 else -1
'''
SIGN_VERSIONS = [
    "def sign(x: int) -> int:\n    return (x > 0) - (x < 0)\n",
    "def sign(x: int) -> int:\n    if x > 0:\n        return 1\n    if x < 0:\n        "
    "return -1\n    return 0\n",
    SIGN,
]


def test_when_the_current_code_is_the_version_that_parts_the_advice_says_so(
        tmp_path: Path) -> None:
    """The file's code is the stored version 3, the one wrong on ``sign(0)``: the advice
    names it as the current code where it parts, as it does where it is kept."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "num.py").write_text(SIGN)
    (tmp_path / "v.json").write_text(json.dumps(SIGN_VERSIONS))
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    subprocess.run([str(SCRIPT), "sample", "num.py", "-f", "sign", "--from", "v.json", "-q"],
                   cwd=tmp_path, check=True, env=env, timeout=60)
    proc = subprocess.run([str(SCRIPT), "check", "num.py", "--dynamic", "--no-tsed",
                           "--format", "json", "--fail-on", "never"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    [sign] = json.loads(proc.stdout)["functions"]
    assert re.match(r"keep version [12]: passes the docstring example; 2 of 3 versions agree",
                    sign["advice"][0]), sign["advice"]
    assert "version 3 (the current code) returns 1" in sign["advice"][2], sign["advice"]


def test_an_example_through_the_package_s_re_export_runs_the_version(tmp_path: Path) -> None:
    """semver's ``_deprecated.replace``: its docstring's ``import semver`` then
    ``semver.replace(...)`` reaches the function through the package's ``from ._deprecated
    import replace``; the version runs there, so one returning nothing of the kind fails."""
    (tmp_path / ".git").mkdir()
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from ._impl import bump\n")
    (pkg / "_impl.py").write_text(
        'def bump(v: str) -> str:\n    """Bump.\n\n    >>> import pkg\n    >>> pkg.bump("1.2")\n'
        '    \'2.2\'\n    """\n    major, minor = v.split(".")\n'
        '    return f"{int(major) + 1}.{minor}"\n')
    versions = ['def bump(v: str) -> str:\n    major, minor = v.split(".")\n'
                '    return f"{int(major) + 1}.{minor}"\n',
                'def bump(v: str) -> str:\n    a, _, b = v.partition(".")\n'
                '    return str(int(a) + 1) + "." + b\n',
                'def bump(v: str) -> str:\n    return "SENTINEL"\n']
    (tmp_path / "v.json").write_text(json.dumps(versions))
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    subprocess.run([str(SCRIPT), "sample", "pkg/_impl.py", "-f", "bump", "--from", "v.json",
                    "-q"], cwd=tmp_path, check=True, env=env, timeout=60)
    proc = subprocess.run([str(SCRIPT), "check", "pkg/_impl.py", "--dynamic", "--no-tsed",
                           "--format", "json", "--fail-on", "never"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    [bump] = json.loads(proc.stdout)["functions"]
    assert re.match(r"keep (version [12]|the current code)", bump["advice"][0]), bump["advice"]
    assert "version 3 returns 'SENTINEL'" in bump["advice"][2], bump["advice"]


def test_a_stored_version_with_the_file_s_decorator_is_the_current_code(tmp_path: Path) -> None:
    """semver's ``@deprecated(...)`` ``replace``: the original imported whole, decorator
    included, is the current code (the file's code is compared from its ``def``), not one
    more version beside it."""
    (tmp_path / ".git").mkdir()
    source = ("def deprecated(version=None):\n    return lambda f: f\n\n\n"
              '@deprecated(version="2.10.0")\ndef bump(x: int) -> int:\n'
              '    """Bump.\n\n    >>> bump(1)\n    2\n    """\n    return x + 1\n')
    (tmp_path / "m.py").write_text(source)
    original = source[source.index("@deprecated"):]
    (tmp_path / "v.json").write_text(json.dumps(
        [original, "def bump(x: int) -> int:\n    return 1 + x\n"]))
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    subprocess.run([str(SCRIPT), "sample", "m.py", "-f", "bump", "--from", "v.json", "-q"],
                   cwd=tmp_path, check=True, env=env, timeout=60)
    proc = subprocess.run([str(SCRIPT), "check", "m.py", "--no-tsed", "--dynamic", "--format",
                           "json", "--fail-on", "never"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    [bump] = json.loads(proc.stdout)["functions"]
    assert bump["versions"] == 2 and bump["recommended"] == 0, bump
    assert bump["advice"][0].startswith("keep version 1 (the current code): "), bump["advice"]
