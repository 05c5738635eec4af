"""``codequorum demo``: its request, read from the parsed arguments at its door (the
command's output is compared in tests/cli/test_main.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from codequorum.cli.commands.demo import TITLE, demo_request
from codequorum.cli.main import parse_arguments
from codequorum.core.errors import UserError


def test_the_request_is_read_from_the_parsed_arguments(tmp_path: Path) -> None:
    args = parse_arguments([
        "demo", "--format", "table", "-o", str(tmp_path / "out.txt"), "--reasons",
        "--matrices", "--samples", "4", "--jobs", "2", "--sandbox", "weak", "--no-tsed",
        "--textual", "--max-depth", "9", "--jsd-log-base", "e", "--cluster-threshold", "0.2",
        "--stable-jsd", "0.5", "--outlier-gap", "0.3", "--interpreter", sys.executable,
        "-q", "--color", "always", "--isolated"])
    request = demo_request(args)
    assert request.format.name == "table"
    assert request.output.path == str(tmp_path / "out.txt")
    assert (request.output.color, request.output.matrices, request.output.reasons) == (
        "always", True, True)
    assert request.output.title == TITLE  # the table is laid out for a person
    assert (request.versions, request.jobs, request.dynamic, request.analysis.sandbox) == (
        4, 2, False, "weak")
    assert (request.interpreter, request.quiet, request.color) == (
        sys.executable, True, "always")
    analysis = request.analysis
    assert "tsed" not in analysis.metrics and "textual" in analysis.metrics
    assert (analysis.max_depth, analysis.cluster_threshold) == (9, 0.2)
    assert (analysis.stable_jsd, analysis.outlier_gap) == (0.5, 0.3)
    assert analysis.keep_matrices is True
    assert analysis.interpreter is not None and Path(analysis.interpreter).exists()


def test_a_format_for_programs_has_no_title() -> None:
    request = demo_request(parse_arguments(["demo", "--format", "json", "--isolated"]))
    assert (request.format.name, request.output.title, request.output.path) == (
        "json", None, None)


def test_a_bad_argument_stops_at_the_door(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="--cluster-threshold must not be negative"):
        demo_request(parse_arguments(["demo", "--cluster-threshold=-1", "--isolated"]))
