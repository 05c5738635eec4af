"""The declarations are the one source: each command's parser holds exactly its declared
options, and a configuration file's keys are the parser's long flags."""

from __future__ import annotations

import argparse

import pytest

from codequorum.cli.main import command_parsers
from codequorum.options.declarations import COMMANDS, OPTIONS, keys_of, options_for
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
