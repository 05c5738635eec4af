"""The endpoint of ``--propose-inputs`` (``score`` and ``check``) from the parsed options.
The endpoint and the key variable come from the flags, the environment or the user's own
configuration file, never from a project's (see :mod:`codequorum.options.declarations`).
"""

from __future__ import annotations

import argparse

from codequorum.generate.endpoint import ProviderConfig
from codequorum.generate.proposed_inputs import InputAsker


def input_asker(args: argparse.Namespace) -> InputAsker | None:
    """The asker for this run when ``--dynamic --propose-inputs`` ask for one, else None."""
    if not (getattr(args, "dynamic", False) and getattr(args, "propose_inputs", False)):
        return None
    return InputAsker(
        ProviderConfig(
            base_url=args.base_url,
            model=args.model,
            api_key_env=args.api_key_env or None,
            timeout=args.propose_timeout,
        )
    )


def asker_note(asker: InputAsker | None, done: str = "scored") -> str | None:
    """One line about the model's inputs for standard error: the endpoint's first failure
    (the rest was ``done`` without its inputs), or None when nothing went wrong."""
    if asker is None or asker.failure is None:
        return None
    return f"{asker.failure}; the rest was {done} without them"
