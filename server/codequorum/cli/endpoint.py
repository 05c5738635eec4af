"""The endpoint of ``--propose-inputs`` (``score`` and ``check``) from the parsed options.
The endpoint and the key variable come from the flags, the environment or the user's own
configuration file, never from a project's (see :mod:`codequorum.options.declarations`).
"""

from __future__ import annotations

import argparse

from codequorum.generate.endpoint import ProviderConfig
from codequorum.generate.proposed_inputs import InputAsker


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
