"""The declarations are the one source: each command's parser holds exactly its declared
options, and a configuration file's keys are the parser's long flags."""

from __future__ import annotations

import argparse

import pytest

from codequorum.cli.main import command_parsers
from codequorum.metrics.registry import EDITOR_METRICS, METRIC_CHOICES, PAIR_METRICS
from codequorum.options.declarations import (
    COMMANDS,
    OPTIONS,
    chosen_metrics,
    keys_of,
    metric_list,
    options_for,
)
from codequorum.options.policy import reach_of

PARSERS = command_parsers()


@pytest.mark.parametrize("command", COMMANDS)
def test_the_parser_of_a_command_is_its_declarations(command: str) -> None:
    parser = PARSERS[command]
    built = [action for action in parser._actions
             if not isinstance(action, argparse._HelpAction)]
    declared = list(options_for(command))
    assert [a.option_strings or [a.dest] for a in built] == [
        list(o.option_strings) or [o.name] for o in declared]
    for action, option in zip(built, declared, strict=True):
        assert action.dest == option.attribute
        assert action.help == option.help
        if action.option_strings:
            assert reach_of(action) is option.reach


@pytest.mark.parametrize("command", COMMANDS)
def test_a_files_keys_are_the_long_flags_of_the_command(command: str) -> None:
    parser = PARSERS[command]
    flags = {flag[2:] for action in parser._actions if not action.required
             and not isinstance(action, argparse._HelpAction)
             for flag in action.option_strings if flag.startswith("--")}
    assert set(keys_of(command)) == flags - {"config", "isolated"}


def test_one_name_is_declared_once_per_command() -> None:
    seen: set[tuple[str, str]] = set()
    for option in OPTIONS:
        for command in option.commands:
            assert (command, option.name) not in seen, (command, option.name)
            seen.add((command, option.name))


def test_the_metrics_a_run_may_choose_come_from_the_registry() -> None:
    optional = [m.key for m in PAIR_METRICS if m.optional]
    assert (*optional, "textual") == METRIC_CHOICES
    assert {"tsed", "tsed_08"} <= set(optional)
    # one choice, in the registry's order, whatever order it was given in
    assert metric_list(" textual, tsed_08 ,tsed_08") == ("tsed_08", "textual")
    assert metric_list("") == ()
    with pytest.raises(argparse.ArgumentTypeError, match="unknown metric 'lcs'"):
        metric_list("tsed,lcs")


@pytest.mark.parametrize(("listed", "flags", "chosen"), [
    (None, {}, ("tsed",)),
    (None, {"tsed": False}, ()),
    (None, {"tsed_08": True, "textual": True}, ("tsed", "tsed_08", "textual")),
    ((), {}, ()),
    (("tsed_08",), {}, ("tsed_08",)),
    (("tsed", "textual"), {"tsed": False}, ("textual",)),
])
def test_the_older_flags_change_the_list(listed: tuple[str, ...] | None,
                                         flags: dict[str, bool],
                                         chosen: tuple[str, ...]) -> None:
    assert chosen_metrics(listed, tsed=flags.get("tsed", True),
                          tsed_08=flags.get("tsed_08", False),
                          textual=flags.get("textual", False)) == chosen


def test_a_command_without_a_list_takes_its_default() -> None:
    assert chosen_metrics(None, default=EDITOR_METRICS) == ("tsed", "textual")
    assert chosen_metrics(None, default=EDITOR_METRICS, tsed=False) == ("textual",)


def test_metrics_is_one_choice_with_the_older_flags_as_its_spellings() -> None:
    from codequorum.cli.analysis import from_request

    parser = command_parsers()["score"]

    def options(*argv: str) -> tuple[str, ...]:
        return from_request(parser.parse_args([*argv, "in.jsonl"]), "score").metrics

    assert options() == ("tsed",)
    assert options("--metrics", "tsed_08,textual") == options("--no-tsed", "--tsed-08",
                                                              "--textual") == ("tsed_08",
                                                                               "textual")
    assert options("--metrics", "") == options("--no-tsed") == ()
    assert options("--metrics", "tsed", "--textual") == ("tsed", "textual")


@pytest.mark.parametrize("command", ["check", "mcp"])
def test_check_and_mcp_take_the_same_choice(command: str) -> None:
    parser = command_parsers()[command]
    base = ["x.py"] if command == "check" else []
    assert parser.parse_args([*base, "--metrics", "textual,tsed"]).metrics == ("tsed",
                                                                               "textual")
    assert parser.parse_args(base).metrics is None
    with pytest.raises(SystemExit):
        parser.parse_args([*base, "--metrics", "lcs"])
