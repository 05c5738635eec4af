"""The command line's adapter: every command's analysis choices, read at its door into one
configuration, from the options the declarations give the command."""

from __future__ import annotations

import pytest

from codequorum.cli.analysis import APART, declared_fields, from_request
from codequorum.cli.main import command_parsers
from codequorum.core.errors import UserError
from codequorum.options.declarations import options_for
from codequorum.pipeline.config import DEFAULTS, FIELDS, AnalysisConfig


def _config(command: str, *argv: str) -> AnalysisConfig:
    base = {"score": ["in.jsonl"], "check": ["x.py"]}.get(command, [])
    return from_request(command_parsers()[command].parse_args([*argv, *base]), command)


def test_the_fields_a_command_sets_are_its_declared_options() -> None:
    for command in ("check", "demo", "mcp", "score"):
        named = {o.attribute for o in options_for(command)}
        assert set(declared_fields(command)) == named & FIELDS - APART
    assert {"max_depth", "jsd_log_base", "sandbox", "risk_level"} <= set(declared_fields("score"))
    assert {"max_depth", "timeout"} <= set(declared_fields("check"))
    assert declared_fields("sample") == []  # its --timeout is its requests


def test_no_argument_is_the_default_configuration_with_the_commands_metrics() -> None:
    assert _config("check") == DEFAULTS
    assert _config("mcp") == DEFAULTS
    assert _config("score") == AnalysisConfig(metrics=("tsed",), keep_matrices=False)


def test_each_argument_reaches_its_field() -> None:
    score = _config("score", "--max-depth", "7", "--jsd-log-base", "e", "--sandbox", "weak",
                    "--risk-level", "set", "--cluster-threshold", "0.3", "--stable-jsd",
                    "0.5", "--outlier-gap", "0.2", "--textual", "--matrices")
    assert (score.max_depth, score.sandbox, score.risk_level) == (7, "weak", "set")
    assert (score.cluster_threshold, score.stable_jsd, score.outlier_gap) == (0.3, 0.5, 0.2)
    assert score.jsd_log_base == pytest.approx(2.718281828459045)
    assert (score.metrics, score.keep_matrices) == (("tsed", "textual"), True)
    check = _config("check", "--max-depth", "12", "--timeout", "4.5", "--no-tsed")
    assert (check.max_depth, check.timeout, check.metrics) == (12, 4.5, ("textual",))
    assert check.keep_matrices is True  # as the editor keeps them


def test_a_negative_cluster_threshold_stops_at_the_door() -> None:
    with pytest.raises(UserError, match="--cluster-threshold must not be negative"):
        _config("score", "--cluster-threshold", "-1")
