"""``codequorum score``: its request, read from the parsed arguments at its door (the
command's outputs are tested in tests/cli/test_main.py)."""

from __future__ import annotations

import json
from pathlib import Path

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
