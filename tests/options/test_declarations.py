"""The declarations are the one source: each command's parser holds exactly its declared
options, and a configuration file's keys are the parser's long flags."""

from __future__ import annotations

import argparse

import pytest

from codequorum.cli.main import command_parsers
from codequorum.metrics.registry import PAIR_METRICS
from codequorum.options.declarations import (
    COMMANDS,
    METRIC_CHOICES,
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
    switches = [m.switch for m in PAIR_METRICS if m.switch]
    assert METRIC_CHOICES == (*dict.fromkeys(switches), "textual") == ("tsed", "tsed_08",
                                                                       "textual")
    assert metric_list(" tsed_08, textual ,") == {"tsed_08", "textual"}
    assert metric_list("") == frozenset()
    with pytest.raises(argparse.ArgumentTypeError, match="unknown metric 'lcs'"):
        metric_list("tsed,lcs")


@pytest.mark.parametrize(("listed", "flags", "chosen"), [
    (None, {}, {"tsed"}),
    (None, {"tsed": False}, set()),
    (None, {"tsed_08": True, "textual": True}, {"tsed", "tsed_08", "textual"}),
    (frozenset(), {}, set()),
    (frozenset({"tsed_08"}), {}, {"tsed_08"}),
    (frozenset({"tsed", "textual"}), {"tsed": False}, {"textual"}),
])
def test_the_older_flags_change_the_list(listed: frozenset[str] | None,
                                         flags: dict[str, bool], chosen: set[str]) -> None:
    assert chosen_metrics(listed, **flags) == chosen


def test_metrics_is_one_choice_with_the_older_flags_as_its_spellings() -> None:
    from codequorum.cli.commands.score import analysis_options

    parser = command_parsers()["score"]

    def options(*argv: str) -> tuple[bool, bool, bool]:
        o = analysis_options(parser.parse_args([*argv, "in.jsonl"]))
        return o.tsed, o.tsed_08, o.textual

    assert options() == (True, False, False)
    assert options("--metrics", "tsed_08,textual") == options("--no-tsed", "--tsed-08",
                                                              "--textual") == (False, True, True)
    assert options("--metrics", "") == options("--no-tsed") == (False, False, False)
    assert options("--metrics", "tsed", "--textual") == (True, False, True)
