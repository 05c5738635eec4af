"""The command line: `codequorum score` and `codequorum demo`, in-process and installed."""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import re
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from rich.cells import cell_len

from codequorum.cli.main import add_common_options, build_parser, main
from codequorum.core.model import VersionSet
from codequorum.pipeline.analyze import analyze
from codequorum.pipeline.config import AnalysisConfig
from codequorum.pipeline.score import dynamic_available
from codequorum.render.csv_out import CSV_COLUMNS

REPO = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).parent / "codequorum"

A = "def f(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n"
B = "def f(xs):\n    t = 0\n    for y in xs:\n        t += y\n    return t\n"
C = "def f(xs):\n    return sum(xs)\n"


@pytest.fixture(scope="module")
def report_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((REPO / "shared" / "report.schema.json").read_text())
    return schema


@pytest.fixture(scope="module")
def reference(reference_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((reference_dir / "structural.json").read_text())
    return data


def _jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_values_equal_the_reference_and_the_analysis(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reference: dict[str, Any],
    report_schema: dict[str, Any],
) -> None:
    cases = reference["real_sets"][:3]
    path = _jsonl(tmp_path / "sets.jsonl",
                  [{"task_id": c["task_id"], "samples": c["samples"]} for c in cases])
    code, out, err = _run(capsys, "score", str(path), "--format", "json", "--jsd-log-base", "e",
                          "--no-tsed")
    assert code == 0, err
    doc = json.loads(out)
    jsonschema.validate(doc, report_schema)
    assert doc["interrupted"] is False and doc["errors"] == [] and doc["total"] == 3
    for case, got in zip(cases, doc["sets"], strict=True):
        assert got["task_id"] == case["task_id"] and got["n"] == len(case["samples"])
        for kind in ("ordered", "unordered"):
            ref = case[f"{kind}_mean"]
            assert got["summary"]["sce_struct"][kind] == pytest.approx(ref["sce_struct"],
                                                                       rel=1e-9)
            assert got["summary"]["jsd_value"][kind] == pytest.approx(ref["jsd_value_ln"],
                                                                      rel=1e-9)
        direct = analyze(VersionSet.from_codes(case["task_id"], case["samples"]),
                         AnalysisConfig(metrics=(), jsd_log_base=math.e))
        assert got["summary"] == direct.to_dict()["summary"]
        assert got["clusters"] == direct.clusters and got["medoid"] == direct.medoid
        assert [v["message"] for v in got["verdicts"]] == [v.message for v in direct.verdicts]


def test_csv_and_table_show_the_same_values(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = _jsonl(tmp_path / "s.jsonl", [{"task_id": "t1", "samples": [A, B, C]},
                                         {"task_id": "t2", "samples": [A, C]}])
    code, out, _ = _run(capsys, "score", str(path), "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["task_id"] for r in rows] == ["t1", "t2"]
    direct = analyze(VersionSet.from_codes("t1", [A, B, C]), AnalysisConfig(metrics=("tsed",)))
    for metric in ("sce_struct", "sce_value", "jsd_struct", "jsd_value", "tsed"):
        assert float(rows[0][f"{metric}_ordered"]) == direct.pair(metric)
        assert float(rows[0][f"{metric}_unordered"]) == direct.pair(metric, "unordered")
    assert rows[0]["verdict"] == direct.verdicts[0].code
    assert rows[0]["largest_group"] == "2" and rows[0]["medoid"] == str(direct.medoid)
    code, out, _ = _run(capsys, "score", str(path))
    assert code == 0
    assert "t1" in out and "t2" in out and "JSD struct" in out
    assert f"{direct.pair('jsd_struct'):.3f}" in out
    assert f"{direct.pair('tsed'):.3f}" in out


def test_broken_line_mid_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _jsonl(tmp_path / "s.jsonl", [{"task_id": "a", "samples": [A, B]},
                                         '{"task_id": "b", "samples": [',
                                         {"task_id": "c", "samples": [A, C]}])
    code, out, err = _run(capsys, "score", str(path), "--format", "json", "--no-tsed")
    assert code == 1
    doc = json.loads(out)
    assert [s["task_id"] for s in doc["sets"]] == ["a", "c"]
    assert doc["errors"][0]["line"] == 2
    assert f"{path}:2: broken JSON" in err


def test_non_utf8_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"task_id": "x", "samples": ["a = \'\xff\'", "b = 1"]}\n'
                     + json.dumps({"task_id": "y", "samples": [A, B]}).encode() + b"\n")
    code, out, err = _run(capsys, "score", str(path), "--format", "csv", "--no-tsed")
    assert code == 1
    assert [r["task_id"] for r in csv.DictReader(io.StringIO(out))] == ["y"]
    assert f"{path}:1: not valid UTF-8" in err


def test_score_with_nothing_read_prints_the_error_and_no_empty_table(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "score", str(tmp_path / "gone.jsonl"))
    assert (code, out) == (1, "")
    assert err == f"codequorum: error: {tmp_path / 'gone.jsonl'}: no such file\n"
    code, out, _ = _run(capsys, "score", str(tmp_path / "gone.jsonl"), "--format", "json")
    assert code == 1 and json.loads(out)["sets"] == []  # a document still says it


def test_the_command_list_names_every_output_format_of_score(
        capsys: pytest.CaptureFixture[str]) -> None:
    from codequorum.render.sinks import FORMAT_NAMES

    code, out, _ = _run(capsys, "--help")
    said = " ".join(out.split())  # argparse wraps the help
    assert code == 0 and f"score sample sets from files ({', '.join(FORMAT_NAMES)})" in said
    assert "html" in FORMAT_NAMES and "jsonl" in FORMAT_NAMES


def test_an_argument_a_command_does_not_take_is_said_under_that_commands_usage(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "doctor", "--dynamic")
    assert (code, out) == (2, "")
    assert err.startswith("usage: codequorum doctor ")
    assert err.strip().endswith("codequorum doctor: error: unrecognized arguments: --dynamic")


def test_unknown_language_and_format_exit_2(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = _jsonl(tmp_path / "s.jsonl", [{"task_id": "a", "samples": [A, B]}])
    code, out, err = _run(capsys, "score", str(path), "--language", "klingon")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "klingon" in err and err.startswith("codequorum: error:")
    code, _, err = _run(capsys, "score", str(path), "--format", "xml")
    assert code == 2 and "unknown output format 'xml'" in err and err.count("\n") == 1
    code, _, err = _run(capsys, "score", str(path), "--input-format", "yaml")
    assert code == 2 and "unknown input format 'yaml'" in err
    odd = _jsonl(tmp_path / "odd.jsonl", [{"hello": "world"}])
    code, _, err = _run(capsys, "score", str(odd))
    assert code == 2 and "cannot tell the input format" in err
    mixed = _jsonl(tmp_path / "mixed.jsonl", [{"task_id": "a", "samples": [A, B],
                                               "language": "cobol"},
                                              {"task_id": "b", "samples": [A, B]}])
    code, out, err = _run(capsys, "score", str(mixed), "--format", "csv", "--no-tsed")
    assert code == 2 and "cobol" in err
    assert [r["task_id"] for r in csv.DictReader(io.StringIO(out))] == ["b"]


def test_empty_sample_and_single_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        report_schema: dict[str, Any]) -> None:
    path = _jsonl(tmp_path / "s.jsonl", [{"task_id": "gap", "samples": [A, "", B]},
                                         {"task_id": "alone", "samples": [A, "  "]}])
    code, out, err = _run(capsys, "score", str(path), "--format", "json", "--no-tsed")
    assert code == 0, err
    doc = json.loads(out)
    jsonschema.validate(doc, report_schema)
    gap, alone = doc["sets"]
    # an empty answer is a version: it stays in n and is named
    assert gap["n"] == 3 and gap["empty"] == [1] and gap["skipped"] == []
    assert gap["notes"][0].startswith("version 2 is empty: scored as an empty answer")
    assert alone["status"] == "ok" and alone["n"] == 2 and alone["empty"] == [1]
    code, out, _ = _run(capsys, "score", str(path), "--no-tsed")
    assert "gap: version 2 is empty: scored as an empty answer" in out
    assert "alone: version 2 is empty" in out


def test_a_set_of_empty_versions_gives_zero_matrices(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        report_schema: dict[str, Any]) -> None:
    # the study's scripts give LCS 0 and LED 0 for each pair of empty answers
    path = _jsonl(tmp_path / "blank.jsonl", [{"task_id": "blank", "samples": ["", " ", "\n"]}])
    code, out, err = _run(capsys, "score", str(path), "--textual", "--matrices",
                          "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    jsonschema.validate(doc, report_schema)
    zeros = [[0.0] * 3 for _ in range(3)]
    assert doc["sets"][0]["matrices"] == {"lcs": zeros, "led": zeros}


def test_megabyte_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fn = "def f{k}(a, b):\n    if a > b:\n        return a - b\n    return [x * 2 for x in a]\n\n"
    big = "".join(fn.format(k=k) for k in range(12_500))
    assert len(big) > 1_000_000
    path = _jsonl(tmp_path / "big.jsonl", [{"task_id": "big", "samples": [big, A, big]}])
    code, out, err = _run(capsys, "score", str(path), "--format", "json")
    assert code == 0, err
    (s,) = json.loads(out)["sets"]
    assert s["status"] == "ok" and s["n"] == 3
    assert s["summary"]["jsd_struct"]["ordered"] is not None
    assert s["summary"]["tsed"]["ordered"] is None  # trees too large: left out, said so
    assert any("TSED left out" in note for note in s["notes"])
    assert s["clusters"][0] == [0, 2]


def test_options_output_file_and_limits(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = _jsonl(tmp_path / "s.jsonl", [{"task_id": f"t{k}", "samples": [A, B, C, A]}
                                         for k in range(3)])
    target = tmp_path / "out.json"
    code, out, _ = _run(capsys, "score", str(path), "--format", "json", "-o", str(target),
                        "--limit", "2", "--samples", "3", "--textual", "--tsed-08",
                        "--matrices", "--max-depth", "5", "--cluster-threshold", "0.3",
                        "--stable-jsd", "0.99", "--outlier-gap", "0.2")
    assert code == 0 and out == ""
    doc = json.loads(target.read_text())
    assert [s["task_id"] for s in doc["sets"]] == ["t0", "t1"]
    first = doc["sets"][0]
    assert first["n"] == 3 and len(first["matrices"]["jsd_struct"]) == 3
    assert "tsed_08" in first["summary"] and "lcs_pair_mean" in first["summary"]
    assert first["options"]["max_depth"] == 5 and first["options"]["cluster_threshold"] == 0.3
    assert first["options"]["stable_jsd"] == 0.99 and first["options"]["outlier_gap"] == 0.2
    assert first["verdicts"][0]["code"] == "unstable-structure"  # mean JSD < 0.99
    code, _, err = _run(capsys, "score", str(path), "-o", str(tmp_path / "no" / "out.json"))
    assert code == 1 and "does not exist" in err
    code, _, err = _run(capsys, "score", str(tmp_path / "missing.jsonl"), str(path),
                        "--no-tsed", "--format", "csv")
    assert code == 1 and "missing.jsonl: no such file" in err
    (tmp_path / "empty.jsonl").write_text("\n\n")
    code, out, err = _run(capsys, "score", str(tmp_path / "empty.jsonl"), "--format", "json")
    assert code == 1 and "empty.jsonl: no sets of versions in this input" in err
    assert json.loads(out)["sets"] == []


def test_jobs_give_the_same_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{"task_id": f"t{k}", "samples": [A, B, C][: 2 + k % 2]} for k in range(5)]
    path = _jsonl(tmp_path / "s.jsonl", rows)
    _, one, _ = _run(capsys, "score", str(path), "--format", "json", "--no-tsed")
    code, two, err = _run(capsys, "score", str(path), "--format", "json", "--no-tsed",
                          "--jobs", "2")
    assert code == 0, err
    assert one == two


def test_jobs_give_byte_identical_json_on_real_sets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shared_dir: Path
) -> None:
    # Each worker process has scored other sets than this one before a set: the scores
    # must not depend on that history, down to the last bit.
    with (shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl").open() as fh:
        tasks = [json.loads(next(fh)) for _ in range(5)]
    rows = [{"task_id": t["task_id"], "samples": [t["prompt"] + b for b in t["samples"][:25]]}
            for t in tasks]
    path = _jsonl(tmp_path / "real.jsonl", rows)
    # --jobs 2 first: forked workers must not inherit this process's vocabulary of them
    code, two, err = _run(capsys, "score", str(path), "--format", "json", "--jobs", "2")
    assert code == 0, err
    code, one, err = _run(capsys, "score", str(path), "--format", "json", "--jobs", "1")
    assert code == 0, err
    assert len(json.loads(one)["sets"]) == 5
    assert one == two


def test_humaneval_samples_with_problems(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = _jsonl(tmp_path / "samples.jsonl", [
        {"task_id": "HumanEval/2", "completion": "    return number % 1.0\n"},
        {"task_id": "HumanEval/2", "completion": "    return number - int(number)\n"},
    ])
    code, out, _ = _run(capsys, "score", str(path), "--problems", "humaneval",
                        "--format", "json", "--no-tsed")
    assert code == 0
    (s,) = json.loads(out)["sets"]
    assert s["task_id"] == "HumanEval/2" and s["n"] == 2 and s["syntax_errors"] == [0, 0]


def test_dynamic_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _jsonl(tmp_path / "s.jsonl", [{"task_id": "t", "entry_point": "f",
                                          "samples": [A, C],
                                          "tests": [{"args": [[1, 2]], "expected": 3}]}])
    code, out, err = _run(capsys, "score", str(path), "--dynamic", "--format", "json",
                          "--no-tsed", "--jobs", "2")
    if not dynamic_available():
        assert code == 1 and "dynamic analysis is not available" in err
        return
    assert code == 0, err
    (s,) = json.loads(out)["sets"]
    assert s["dynamic"] is not None
    assert s["summary"]["pass_rate_mean"] == 1.0 and s["summary"]["oer"] == 1.0


def test_demo_table_and_json(capsys: pytest.CaptureFixture[str],
                             report_schema: dict[str, Any]) -> None:
    code, out, _ = _run(capsys, "demo", "--no-tsed")
    assert code == 0
    assert "How to read it" in out and "HumanEval/7" in out
    assert out.count("HumanEval/") >= 20
    assert "Running them" not in out and "codequorum demo --dynamic" in out
    assert all(step in out for step in ("codequorum sample app.py -f NAME",
                                        "codequorum check src/", "codequorum lsp",
                                        "codequorum score FILE.jsonl"))
    code, out, _ = _run(capsys, "demo", "--format", "json", "--samples", "4", "--no-tsed")
    doc = json.loads(out)
    jsonschema.validate(doc, report_schema)
    assert len(doc["sets"]) == 20 and all(s["n"] <= 4 for s in doc["sets"])


def test_usage(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys)
    assert code == 2 and "score" in err and "demo" in err
    code, out, _ = _run(capsys, "--version")
    assert code == 0 and out.startswith("codequorum ")
    code, _, err = _run(capsys, "score", "x.jsonl", "--jsd-log-base", "10")
    assert code == 2 and "expected 2 or e" in err


# ----------------------------------------------------------------------------- installed


def _script(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPT), *args], input=stdin, capture_output=True, text=True,
                          timeout=120, check=False)


def test_installed_script_reads_stdin() -> None:
    line = json.dumps({"task_id": "piped", "samples": [A, B, C]})
    proc = _script("score", "-", "--format", "json", "--no-tsed", stdin=line + "\n")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["sets"][0]["task_id"] == "piped" and doc["sets"][0]["n"] == 3


def test_installed_script_unknown_language() -> None:
    proc = _script("score", "-", "--language", "klingon", stdin="")
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "klingon" in proc.stderr


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """Ctrl-C as a terminal gives it, whatever started the tests: a process started in the
    background of a shell inherits SIGINT ignored, and Python then never raises it."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _default_sigint() -> None:
    """In the child, before it runs: SIGINT as a terminal gives it (see :func:`ctrl_c`)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_writes_what_is_finished(tmp_path: Path, shared_dir: Path) -> None:
    target = tmp_path / "partial.json"
    data = shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl"
    proc = subprocess.Popen(
        # the file four times: a run long enough that Ctrl-C lands in it on any machine
        [str(SCRIPT), "score", *[str(data)] * 4, "--jobs", "2", "--format", "json",
         "-o", str(target)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # a fresh compile cache: Ctrl-C may well land while TSED's kernels are compiled
        env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")},
        preexec_fn=_default_sigint,
    )
    # once its worker processes exist it is scoring (not importing): then Ctrl-C
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if not children.exists():  # a kernel without the children list: wait as long as
            time.sleep(3.0)  # starting takes on a quiet machine
            break
        if children.read_text().split():
            break
        time.sleep(0.05)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    doc = json.loads(target.read_text())
    assert doc["interrupted"] is True and doc["total"] == 4 * 164
    assert len(doc["sets"]) < 4 * 164
    assert f"interrupted: {len(doc['sets'])} of {4 * 164} sets scored" in err
    assert "Traceback" not in err, err


def test_ctrl_c_while_writing_is_held_until_the_output_is_complete(tmp_path: Path,
                                                                   ctrl_c: None) -> None:
    from codequorum.core.interrupts import deferred_interrupt

    with deferred_interrupt() as hits:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        (tmp_path / "written").write_text("complete")
    assert hits == [signal.SIGINT]
    assert (tmp_path / "written").read_text() == "complete"
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
    # a second Ctrl-C stops at once: a FIFO nobody reads cannot hold the run forever
    with pytest.raises(KeyboardInterrupt), deferred_interrupt() as hits:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
    assert hits == [signal.SIGINT, signal.SIGINT]


def test_oversized_set_is_refused_and_the_rest_scored(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = _jsonl(tmp_path / "s.jsonl", [{"task_id": "huge", "samples": ["x = 1"] * 2001},
                                         {"task_id": "fine", "samples": [A, B]}])
    code, out, err = _run(capsys, "score", str(path), "--format", "csv", "--no-tsed")
    assert code == 1
    assert [r["task_id"] for r in csv.DictReader(io.StringIO(out))] == ["fine"]
    assert f"{path}:1 (huge): 2,001 usable versions; at most 2,000" in err
    code, out, _ = _run(capsys, "score", str(path), "--format", "csv", "--no-tsed",
                        "--samples", "50")
    assert code == 0 and len(list(csv.DictReader(io.StringIO(out)))) == 2


def test_output_file_through_symlink_and_into_devnull(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = _jsonl(tmp_path / "s.jsonl", [{"task_id": "t", "samples": [A, B]}])
    real = tmp_path / "real.csv"
    real.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    code, out, err = _run(capsys, "score", str(path), "--format", "csv", "--no-tsed",
                          "-o", str(link))
    assert code == 0, err
    assert out == "" and link.is_symlink()
    assert [r["task_id"] for r in csv.DictReader(io.StringIO(real.read_text()))] == ["t"]
    code, _, err = _run(capsys, "score", str(path), "--no-tsed", "-o", os.devnull)
    assert code == 0, err
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


# ----------------------------------------------------------------------------- conventions


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    choices: dict[str, argparse.ArgumentParser] = action.choices
    return choices


def test_every_option_of_every_command_has_a_help_line() -> None:
    commands = _subparsers()
    assert {"score", "demo", "check", "sample", "lsp"} <= set(commands)
    for name, sub in commands.items():
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            label = f"{name} {'/'.join(action.option_strings) or action.dest}"
            assert action.help and action.help.strip(), f"{label} has no help line"
            shown = action.default not in (None, False, True, 0, argparse.SUPPRESS)
            if action.option_strings and shown:
                assert "default" in action.help, f"{label}: help does not give the default"


def test_sample_help_shows_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "sample", "--help")
    text = " ".join(out.split())  # argparse wraps lines
    assert code == 0
    for default in ("(default: 5)", "(default: 0.8)", "(default: 60)", "(default: 2)",
                    "(default: auto)", "(default: auto — one at a time to a server on this machine",
                    "(default: auto — three times the function's size, 256 to 4096)"):
        assert default in text, default


def test_quiet_verbose_and_color_on_every_command() -> None:
    for name, sub in _subparsers().items():
        options = {s for a in sub._actions for s in a.option_strings}
        assert {"-q", "--quiet", "-v", "--verbose", "--color"} <= options, name
    parser = build_parser()
    args = parser.parse_args(["check", ".", "-q", "--color", "never"])
    assert (args.quiet, args.verbose, args.color) == (True, 0, "never")
    args = parser.parse_args(["score", "x.jsonl", "-vv"])
    assert (args.quiet, args.verbose, args.color) == (False, 2, "auto")
    args = parser.parse_args(["lsp", "-v"])
    assert args.verbose == 1


def test_quiet_and_verbose_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "check", ".", "-q", "-v")
    assert code == 2 and "not allowed with argument" in err
    code, _, err = _run(capsys, "score", "x.jsonl", "--color", "sometimes")
    assert code == 2 and "invalid choice: 'sometimes'" in err


def test_csv_header_does_not_depend_on_the_options(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = _jsonl(tmp_path / "s.jsonl", [{"task_id": "t", "samples": [A, B, C]},
                                         {"task_id": "one", "samples": [A]}])
    headers = set()
    for extra in ([], ["--no-tsed"], ["--textual", "--tsed-08"], ["--limit", "1"]):
        code, out, err = _run(capsys, "score", str(path), "--format", "csv", *extra)
        assert code == 0, err
        headers.add(out.split("\n", 1)[0])
    assert headers == {",".join(CSV_COLUMNS)}


def _max_width(text: str) -> int:
    return max(cell_len(line) for line in text.splitlines())


@pytest.mark.parametrize("columns", [80, 56])
def test_table_fits_columns_with_ids_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch,
                                           columns: int) -> None:
    ids = ["HumanEval/163", "MBPP/a-rather-long-task-name/7", "t"]
    path = _jsonl(tmp_path / "s.jsonl", [{"task_id": t, "samples": [A, B, C]} for t in ids])
    monkeypatch.setenv("COLUMNS", str(columns))
    for extra in ([], ["--reasons"], ["--textual", "--tsed-08"]):
        code, out, err = _run(capsys, "score", str(path), *extra)
        assert code == 0, err
        assert _max_width(out) <= columns, out
        rows = [line for line in out.splitlines() if line.startswith("│ ")]
        for task_id in ids:
            assert any(row.startswith(f"│ {task_id} ") for row in rows), (task_id, out)
    code, out, _ = _run(capsys, "demo", "--no-tsed")
    assert code == 0 and _max_width(out) <= columns
    assert "left out to fit" in out and "HumanEval/161 " in out


def _closed_pipe(*args: str) -> subprocess.CompletedProcess[bytes]:
    """Run the installed script with its standard output a pipe already closed by the
    reader, as ``codequorum ... | head`` sees it once head has exited."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([str(SCRIPT), *args], stdout=write, stderr=subprocess.PIPE,
                              timeout=120, check=False)
    finally:
        os.close(write)


def test_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "s.jsonl", [{"task_id": f"t{k}", "samples": [A, B, C]}
                                         for k in range(3)])
    for args in (("demo", "--no-tsed"), ("score", str(path), "--format", "json")):
        proc = _closed_pipe(*args)
        assert proc.stderr == b"", proc.stderr.decode()
        assert proc.returncode == 141


def test_head_reads_the_first_lines() -> None:
    proc = subprocess.run(f"'{SCRIPT}' demo --no-tsed | head -n 3", shell=True,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0
    assert len(proc.stdout.splitlines()) == 3
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr


HOSTILE = "\x1b]0;pwned\x07\x1b[31m[bold]x[/bold]"
ESCAPED = "\\x1b]0;pwned\\x07\\x1b[31m[bold]x[/bold]"


def test_version_raising_hostile_text_is_shown_escaped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raising = f"def f(x):\n    raise ValueError({HOSTILE!r})\n"
    path = _jsonl(tmp_path / "s.jsonl", [{
        "task_id": f"T/{HOSTILE}", "entry_point": "f",
        "samples": [raising, "def f(x):\n    return x\n", "def f(x):\n    return x + 0\n"],
        "tests": [{"args": [1], "expected": 1}, {"args": [2], "expected": 2}]}])
    if not dynamic_available():
        pytest.skip("dynamic analysis is not installed")
    outputs: dict[str, str] = {}
    for fmt, extra in (("table", ["--reasons", "--color", "always"]), ("json", []),
                       ("csv", [])):
        code, out, err = _run(capsys, "score", str(path), "--dynamic", "--no-tsed",
                              "--format", fmt, *extra)
        assert code == 0, err
        outputs[fmt] = out
    plain = re.sub(r"\x1b\[[0-9;]*m", "", outputs["table"])  # the table's own colours
    for out in (plain, outputs["json"], outputs["csv"]):
        assert "\x1b" not in out and "\x07" not in out and "\\u001b" not in out
    assert f"T/{ESCAPED}" in plain and "[bold]x[/bold]" in plain
    doc = json.loads(outputs["json"])
    (report,) = doc["sets"]
    assert report["task_id"] == f"T/{ESCAPED}"
    messages = " ".join(v["message"] for v in report["verdicts"])
    assert "pwned" in messages and "\x1b" not in messages
    assert f"T/{ESCAPED}" in outputs["csv"]


def test_common_options_leave_a_command_its_own() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-v", "--version-of", default="x", help="a command's own -v")
    add_common_options(parser)
    args = parser.parse_args(["-v", "y", "-q", "--color", "never"])
    assert (args.version_of, args.quiet, args.color) == ("y", True, "never")
    assert not hasattr(args, "verbose")


def test_interpreter_chooses_the_bytecode_counted(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from codequorum.pipeline.analyze import static_sctd

    codes = ["def f(xs):\n    return sum(xs)\n",
             "def f(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n"]
    path = _jsonl(tmp_path / "s.jsonl", [{"task_id": "t", "samples": codes}])
    code, out, _ = _run(capsys, "score", str(path), "--format", "json", "--no-tsed",
                        "--interpreter", sys.executable)
    summary = json.loads(out)["sets"][0]["summary"]
    expected = static_sctd(codes)["sctd_jsd"]
    assert code == 0 and expected is not None and summary["sctd_jsd"] == expected > 0
    code, _, err = _run(capsys, "score", str(path), "--interpreter", str(tmp_path / "none"))
    assert code == 1 and "--interpreter" in err and "no such executable" in err
