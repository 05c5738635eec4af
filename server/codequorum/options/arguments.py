"""Each command's argparse options, built from :mod:`codequorum.options.declarations`.

Every option added here also carries its declaration's reach
(:func:`codequorum.options.policy.declare`), so a test can still list every flag of every
parser and fail on one nobody declared.
"""

from __future__ import annotations

import argparse
from typing import Any

from codequorum.options.declarations import GROUPS, Option, options_for
from codequorum.options.policy import declare

_ACTIONS = {"flag": "store_true", "off": "store_false", "either": argparse.BooleanOptionalAction,
            "count": "count", "append": "append"}


def add_options(parser: argparse.ArgumentParser, command: str) -> None:
    """Add every option declared for ``command`` to its ``parser``, in its groups
    (``EVERY``: the options every command has); an option whose flag the parser already
    has is left to the parser's own."""
    taken = set(parser._option_string_actions)
    groups: dict[str, Any] = {key: parser.add_argument_group(title)
                              for key, title in GROUPS.get(command, ())}
    exclusive: dict[str, Any] = {}
    for option in options_for(command, common=False):
        if taken.intersection(option.option_strings):
            continue
        where = groups.get(option.group, parser)
        if option.mutex:
            if option.mutex not in exclusive:
                exclusive[option.mutex] = where.add_mutually_exclusive_group()
            where = exclusive[option.mutex]
        action = where.add_argument(*_spelling(option), **_arguments(option))
        if option.kind != "positional":
            declare(action, option.reach, project_values=option.project_values)


def _spelling(option: Option) -> tuple[str, ...]:
    if option.kind == "positional":
        return (option.name,)
    return option.flags or (f"--{option.name}",)


def _arguments(option: Option) -> dict[str, Any]:
    """The keyword arguments of ``add_argument`` for ``option``."""
    out: dict[str, Any] = {"help": option.help}
    if option.kind in _ACTIONS:
        out["action"] = _ACTIONS[option.kind]
    if option.kind == "positional":
        if option.nargs is not None:
            out["nargs"] = option.nargs
    else:
        if option.dest:
            out["dest"] = option.dest
        if option.kind not in ("flag", "off", "either") or option.default is not None:
            out["default"] = option.initial()
        if option.required:
            out["required"] = True
    if option.type is not None:
        out["type"] = option.type
    if option.metavar is not None:
        out["metavar"] = option.metavar
    if option.choices is not None:
        out["choices"] = option.choices
    return out
