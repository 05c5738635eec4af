"""``codequorum score``: its request, read from the parsed arguments at its door (the
command's outputs are tested in tests/cli/test_main.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codequorum.cli.commands.score import score_request
from codequorum.cli.main import parse_arguments


def test_the_request_is_read_from_the_parsed_arguments(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"sets": [{"task_id": "T/0", "summary": {}}]}), encoding="utf-8")
    args = parse_arguments([
        "score", "a.jsonl", "-", "--format", "html", "-o", str(tmp_path / "r.html"),
        "--compare", str(other), "--input-format", "jsonl", "--language", "python",
        "--samples", "6", "--limit", "3", "--jobs", "2", "--scheduler", "local:2",
        "--resume", "--dynamic", "--propose-inputs", "--base-url", "http://127.0.0.1:9/v1",
        "--model", "m", "--propose-timeout", "8", "--no-tsed", "--reasons", "-q",
        "--color", "never", "--isolated"])
    request = score_request(args)
    assert request.inputs == ("a.jsonl", "-")
    assert (request.format.name, request.output.path) == ("html", str(tmp_path / "r.html"))
    assert request.output.compare is not None
    assert request.output.compare[0] == "other.json"
    assert request.output.compare[1]["sets"][0]["task_id"] == "T/0"
    assert (request.output.reasons, request.output.color) == (True, "never")
    assert (request.read.input_format, request.read.language) == ("jsonl", "python")
    assert (request.read.max_versions, request.read.limit) == (6, 3)
    assert (request.jobs, request.scheduler, request.resume, request.dynamic) == (
        2, "local:2", True, True)
    assert request.analysis.keep_matrices is True  # the HTML report draws them
    assert "tsed" not in request.analysis.metrics
    assert request.propose is not None
    assert (request.propose.base_url, request.propose.timeout) == ("http://127.0.0.1:9/v1", 8.0)
    assert (request.quiet, request.color) == (True, "never")


def test_an_output_file_without_format_is_written_in_the_format_its_name_asks_for(
        tmp_path: Path) -> None:
    """``-o sets.csv`` writes CSV, not a table in a file named .csv; ``--format`` (or a
    configuration file's ``format``) still wins, and a name that tells nothing is a table."""
    def named(*argv: str) -> str:
        return score_request(parse_arguments(["score", "a.jsonl", *argv, "--isolated"])
                             ).format.name

    assert named("-o", str(tmp_path / "sets.csv")) == "csv"
    assert named("-o", str(tmp_path / "REPORT.HTML")) == "html"
    assert named("-o", str(tmp_path / "out.jsonl")) == "jsonl"
    assert named("-o", str(tmp_path / "out.json")) == "json"
    assert named("-o", str(tmp_path / "out.txt")) == "table"
    assert named() == "table"
    assert named("-o", str(tmp_path / "sets.csv"), "--format", "json") == "json"


def test_an_html_page_is_not_written_onto_a_terminal(tmp_path: Path) -> None:
    """On a terminal, ``--format html`` without ``-o`` is one line saying to name a file
    (status 2) instead of screenfuls of markup; into a pipe it is written as asked."""
    import os
    import pty
    import subprocess
    import sys

    sets = tmp_path / "s.jsonl"
    sets.write_text(json.dumps({"task_id": "t", "versions": [
        "def f(x):\n    return x\n", "def f(x):\n    return x + 0\n"]}) + "\n",
        encoding="utf-8")
    script = str(Path(sys.executable).parent / "codequorum")
    argv = [script, "score", str(sets), "--format", "html", "--isolated", "--no-tsed"]
    main_end, terminal = pty.openpty()
    try:
        proc = subprocess.run(argv, stdout=terminal, stderr=subprocess.PIPE, text=True,
                              timeout=120, check=False)
        os.set_blocking(main_end, False)
        try:
            shown = os.read(main_end, 65536)
        except BlockingIOError:
            shown = b""
    finally:
        os.close(terminal)
        os.close(main_end)
    assert (proc.returncode, shown) == (2, b"")
    assert proc.stderr == ("codequorum: error: --format html writes a page to open in a "
                           "browser, not text for the terminal: name a file, e.g. -o "
                           "report.html (or redirect the output)\n")
    piped = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert piped.returncode == 0 and piped.stdout.startswith("<!DOCTYPE html>")


UNFENCED = {
    "python": ("def add(a, b):\n    return a + b\n",
               "Here is a shorter one:\n\ndef add(a, b):\n    return b + a\n\nIt adds them.\n"),
    "javascript": ("function add(a, b) {\n\treturn a + b;\n}\n",
                   "Here is one:\n\nfunction add(a, b) {\n\treturn b + a;\n}\n\nIt adds them.\n"),
}


@pytest.mark.parametrize("language", sorted(UNFENCED))
def test_a_version_given_as_an_unfenced_chat_answer_is_scored_on_its_code(
        tmp_path: Path, language: str) -> None:
    """A chat answer without a fence (prose, the function, prose) is scored on its code,
    as a fenced one is: not as a version with syntax errors."""
    import subprocess
    import sys

    code, answer = UNFENCED[language]
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"task_id": "t", "language": language,
                                "versions": [code, answer]}) + "\n")
    done = subprocess.run([str(Path(sys.executable).parent / "codequorum"), "score", str(path),
                           "--format", "json"], capture_output=True, text=True, timeout=120,
                          env={"XDG_CONFIG_HOME": str(tmp_path / "config"),
                               "PATH": "/usr/bin:/bin"}, check=True)
    [report] = json.loads(done.stdout)["sets"]
    assert report["syntax_errors"] == [0, 0] and report["n"] == 2, report["notes"]
