"""The chat-completions endpoint options, shared by the commands that talk to one:
``sample`` asks it for versions, ``score`` and ``check`` with ``--propose-inputs`` for call
inputs. The endpoint and the key variable come from the flags, the environment or the
user's own configuration file, never from a project's (see :mod:`codequorum.options.config_file`);
so do how many requests go at once and how long an answer may be, which spend the user's
key and load the user's server.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

from codequorum.cli.argtypes import at_least, seconds
from codequorum.generate.endpoint import (
    DEFAULT_API_KEY_ENV,
    DEFAULT_BASE_URL,
    DEFAULT_MODEL,
    ProviderConfig,
)
from codequorum.generate.proposed_inputs import InputAsker
from codequorum.options.policy import Reach, declare

#: Seconds ``--propose-inputs`` waits for the endpoint's answer by default.
DEFAULT_PROPOSE_TIMEOUT = 30.0


def add_endpoint_options(group: Any) -> None:
    """``--base-url``, ``--model``, ``--api-key-env`` on ``group`` (a parser or a group)."""
    declare(group.add_argument(
        "--base-url",
        default=os.environ.get("CODEQUORUM_BASE_URL", DEFAULT_BASE_URL),
        help="OpenAI-compatible base URL, e.g. http://localhost:11434/v1 "
        "(default: $CODEQUORUM_BASE_URL or %(default)s)",
    ), Reach.ENDPOINT)
    declare(group.add_argument(
        "--model",
        default=os.environ.get("CODEQUORUM_MODEL", DEFAULT_MODEL),
        help="model name (default: $CODEQUORUM_MODEL or %(default)s)",
    ), Reach.MODEL)
    declare(group.add_argument(
        "--api-key-env",
        default=DEFAULT_API_KEY_ENV,
        metavar="VAR",
        help="environment variable holding the API key; '' sends none (default: %(default)s)",
    ), Reach.KEY_VARIABLE)


def add_request_options(group: Any) -> None:
    """``--timeout``, ``--concurrency`` and ``--max-tokens``: how each request to the
    endpoint is made (``group`` is a parser or a group)."""
    declare(group.add_argument("--timeout", type=seconds, default=60.0, metavar="SECONDS",
                               help="seconds one request may take, counted from when it is "
                               "sent (default: %(default)g)"), Reach.ANALYSIS)
    declare(group.add_argument("--concurrency", type=auto_or(1), default=None, metavar="N",
                               help="requests at once (default: auto — one at a time to a "
                               "server on this machine or the local network, or as many as a "
                               "llama.cpp server has slots for; 4 to a hosted API)"),
            Reach.ENDPOINT_LOAD)
    declare(group.add_argument("--max-tokens", type=auto_or(0), default=None, metavar="N",
                               help="the most tokens one answer may have; 0 sends no bound "
                               "(default: auto — three times the function's size, 256 to "
                               "4096)"), Reach.TOKEN_SPEND)


def auto_or(minimum: int) -> Callable[[str], int | None]:
    """An argparse type: ``auto`` (None) or a whole number of at least ``minimum``."""
    number = at_least(minimum)

    def parse(text: str) -> int | None:
        return None if text.strip().lower() == "auto" else number(text)

    return parse


def add_propose_inputs_options(parser: argparse.ArgumentParser) -> None:
    """``--propose-inputs`` with its timeout and the endpoint options."""
    group = parser.add_argument_group("inputs from the model (with --dynamic)")
    declare(group.add_argument(
        "--propose-inputs",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="with --dynamic: ask the endpoint for call inputs of functions that have no "
        "tests, no doctest examples and no annotated parameters (arguments only, never "
        "expected results, read as literal data and run in the sandbox) (default: off)",
    ), Reach.SPENDS_KEY, project_values=lambda value: value is False)
    declare(group.add_argument(
        "--propose-timeout",
        type=seconds,
        default=DEFAULT_PROPOSE_TIMEOUT,
        metavar="SECONDS",
        help="with --propose-inputs: seconds to wait for the endpoint's answer; one that "
        "does not answer is not asked again in the run (default: %(default)g)",
    ), Reach.ANALYSIS)
    add_endpoint_options(group)


def propose_config(args: argparse.Namespace) -> ProviderConfig | None:
    """The endpoint ``--dynamic --propose-inputs`` ask for inputs, read from a command's
    arguments at its door; None when they do not ask."""
    if not (getattr(args, "dynamic", False) and getattr(args, "propose_inputs", False)):
        return None
    return ProviderConfig(
        base_url=args.base_url,
        model=args.model,
        api_key_env=args.api_key_env or None,
        timeout=args.propose_timeout,
    )


def input_asker(config: ProviderConfig | None) -> InputAsker | None:
    """The asker for this run of the endpoint ``config`` (None: nobody is asked)."""
    return None if config is None else InputAsker(config)


def asker_note(asker: InputAsker | None, done: str = "scored") -> str | None:
    """One line about the model's inputs for standard error: the endpoint's first failure
    (the rest was ``done`` without its inputs), or None when nothing went wrong."""
    if asker is None or asker.failure is None:
        return None
    return f"{asker.failure}; the rest was {done} without them"
