"""The rules of the regenerate and run-dynamic commands: how many versions to ask for, what
the user is told, what status is answered, when a dynamic run follows."""

from __future__ import annotations

import pytest
from lsprotocol import types

from codequorum.core.model import Version
from codequorum.generate.endpoint import RegenerationResult, Rejected, RequestError
from codequorum.lsp.autorun import arrival_levels, runs_on_arrival
from codequorum.lsp.commands.dynamic_run import (
    dynamic_done_message,
    nothing_ran_message,
    proposer_problem_message,
)
from codequorum.lsp.commands.regeneration import (
    regeneration_message,
    regeneration_status,
    requested_count,
)
from codequorum.lsp.commands.registry import CommandError
from codequorum.lsp.settings import parse_settings

INFO = types.MessageType.Info
ERROR = types.MessageType.Error


def test_requested_count_is_the_setting_unless_given_from_1_to_50() -> None:
    assert requested_count(None, 5) == 5
    assert requested_count(1, 5) == 1
    assert requested_count(50, 5) == 50
    for bad in (0, 51, -3):
        with pytest.raises(CommandError, match="n must be a whole number from 1 to 50"):
            requested_count(bad, 5)


def _result(accepted: int = 0, rejected: tuple[str, ...] = (), errors: tuple[str, ...] = (),
            cancelled: bool = False) -> RegenerationResult:
    return RegenerationResult(
        accepted=[Version(code="def f(): pass", origin="regenerated") for _ in range(accepted)],
        rejected=[Rejected(i, reason, "") for i, reason in enumerate(rejected)],
        errors=[RequestError(i, message) for i, message in enumerate(errors)],
        cancelled=cancelled,
        requested=accepted + len(rejected) + len(errors),
    )


def test_messages_after_a_regeneration() -> None:
    assert regeneration_message(_result(2), "f") == (
        INFO, "codequorum: 'f': 2 of 2 versions accepted")
    assert regeneration_message(_result(1, errors=("HTTP 500", "HTTP 500")), "f") == (
        INFO, "codequorum: 'f': 1 of 3 versions accepted; 2 failed (HTTP 500)")
    assert regeneration_message(_result(1, cancelled=True), "f") == (
        INFO, "codequorum: regeneration of 'f' cancelled: 1 of 1 version accepted (cancelled)")


def test_a_failed_regeneration_says_why() -> None:
    errors = _result(0, rejected=("no code",), errors=("timed out",))
    assert regeneration_message(errors, "f") == (
        ERROR, "codequorum: regeneration of 'f' failed: 0 of 2 versions accepted; 1 failed, "
        "1 answer was rejected (timed out)")
    rejected = _result(0, rejected=("syntax error", "no code", "no code"))
    assert regeneration_message(rejected, "f") == (
        ERROR, "codequorum: regeneration of 'f' failed: 0 of 3 versions accepted; "
        "3 answers were rejected (no code; syntax error)")
    assert regeneration_message(_result(0), "f") == (
        ERROR, "codequorum: regeneration of 'f' failed: 0 of 0 versions accepted")
    control = _result(0, errors=("bad\x1b[31m",))
    assert regeneration_message(control, "f")[1] == (
        "codequorum: regeneration of 'f' failed: 0 of 1 version accepted; 1 failed "
        "(bad\\x1b[31m)")


def test_status_cancelled_before_ok() -> None:
    assert regeneration_status(_result(1)) == "ok"
    assert regeneration_status(_result(0, errors=("x",))) == "failed"
    assert regeneration_status(_result(1, cancelled=True)) == "cancelled"
    assert regeneration_status(_result(0, cancelled=True)) == "cancelled"


def test_versions_run_on_arrival_only_for_languages_that_run_in_an_isolating_level() -> None:
    on, _ = parse_settings({})
    assert on.dynamic.auto  # the default: the first judgement needs no second command
    assert runs_on_arrival(on, "python", trusted=True)
    assert not runs_on_arrival(on, "python", trusted=False)
    assert runs_on_arrival(on, "javascript", trusted=True)
    assert runs_on_arrival(on, "typescript", trusted=True)
    assert not runs_on_arrival(on, "go", trusted=True)
    for off in ({"enable": False}, {"auto": False}, {"sandbox": "weak"}):
        settings, _ = parse_settings({"dynamic": off})
        assert not runs_on_arrival(settings, "python", trusted=True), off
    for level in ("auto", "strict", "portable"):
        settings, _ = parse_settings({"dynamic": {"sandbox": level}})
        assert runs_on_arrival(settings, "python", trusted=True), level


def test_the_levels_tried_on_arrival_never_include_weak() -> None:
    assert arrival_levels("auto") == ("strict", "portable")
    assert arrival_levels("strict") == ("strict",)
    assert arrival_levels("portable") == ("portable",)
    assert arrival_levels("weak") == ()
    assert arrival_levels("anything else") == ()
    assert arrival_levels("auto", "javascript") == ("strict",)
    assert arrival_levels("portable", "typescript") == ()


def test_dynamic_done_message_names_the_figures_with_a_number() -> None:
    summary = {"oer": 0.25, "sctd_jsd": 0.5, "dctd_jsd": None, "bef_jsd": "n/a"}
    assert dynamic_done_message("f", summary) == (
        "codequorum: dynamic analysis of 'f' done: SCTD 0.50, OER 0.25")
    assert dynamic_done_message("f", {}) == "codequorum: dynamic analysis of 'f' done"


def test_nothing_ran_message_says_where_inputs_come_from() -> None:
    assert nothing_ran_message("f", False, None) == (
        "codequorum: nothing ran for 'f': no inputs: add a doctest, type hints, or turn on "
        "inputs from the model (codequorum.dynamic.proposeInputs)")
    assert nothing_ran_message("f", True, "no inputs asked from the model: not approved") == (
        "codequorum: nothing ran for 'f': no inputs: add a doctest or type hints; no inputs "
        "asked from the model: not approved")
    assert nothing_ran_message("f", True, None) == (
        "codequorum: nothing ran for 'f': no inputs: add a doctest or type hints; the model "
        "proposed none")


def test_proposer_problem_message() -> None:
    assert proposer_problem_message("f", "the key may not go\n") == (
        "codequorum: 'f': the key may not go\\n; the versions ran on the other inputs")
