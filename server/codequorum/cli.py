"""The ``codequorum`` command line: finds its subcommands and runs one.

Each module in :mod:`codequorum.commands` exposes ``register(subparsers)``, which adds its
parser and sets ``func`` (``func(args) -> int``). A module that fails to import still shows
up as a command that explains the failure, so one broken command never hides the others.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from codequorum import __version__, commands
from codequorum.errors import UserError

EXIT_INTERRUPTED = 130


def _unavailable(name: str, exc: BaseException) -> argparse.ArgumentParser:
    """A stand-in parser for a command whose module cannot be imported."""
    parser = argparse.ArgumentParser(add_help=False)

    def fail(_args: argparse.Namespace) -> int:
        """Say why the command cannot run."""
        raise UserError(f"the '{name}' command is not available: {exc}")

    parser.set_defaults(func=fail)
    return parser


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every command found in :mod:`codequorum.commands`."""
    parser = argparse.ArgumentParser(
        prog="codequorum",
        description="How much do several versions of one function agree? Scores sample sets "
        "(structure, bytecode, behaviour) on the command line and in the editor.",
    )
    parser.add_argument("--version", action="version", version=f"codequorum {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        try:
            module = importlib.import_module(f"{commands.__name__}.{info.name}")
        except Exception as exc:
            subparsers.add_parser(info.name, parents=[_unavailable(info.name, exc)],
                                  help=f"(not available: {exc})", add_help=False)
            continue
        register = getattr(module, "register", None)
        if callable(register):
            register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit status (0 fine, 1 some input failed, 2 unknown
    language/format or bad usage, 130 interrupted)."""
    parser = build_parser()
    try:
        args = parser.parse_args(list(argv) if argv is not None else None)
    except SystemExit as exc:  # --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(func(args) or 0)
    except UserError as exc:
        print(f"codequorum: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("codequorum: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
