"""The options that run versions: ``--dynamic`` and the ``--sandbox`` they run under.
Only the user turns running on or weakens the sandbox (see :mod:`codequorum.options.policy`).
"""

from __future__ import annotations

import argparse

from codequorum.options.policy import Reach, declare


def add_dynamic_argument(parser: argparse.ArgumentParser, text: str) -> None:
    """``--dynamic``: run the versions in the sandbox; only the user turns it on."""
    declare(parser.add_argument("--dynamic", action="store_true", help=text),
            Reach.RUNS_CODE, project_values=lambda value: value is False)


def add_sandbox_argument(parser: argparse.ArgumentParser) -> None:
    """``--sandbox``: the isolation candidates run under with ``--dynamic``."""
    declare(parser.add_argument(
        "--sandbox", choices=["strict", "weak"], default="strict",
        help="isolation of the versions run with --dynamic: strict (kernel namespaces and "
        "seccomp; refuses to run where the machine cannot give them) or weak (no "
        "namespaces; every report warns) (default strict; `codequorum doctor` tells what "
        "this machine gives)"), Reach.SANDBOX, project_values=lambda value: value == "strict")
