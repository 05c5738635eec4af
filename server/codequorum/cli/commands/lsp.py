"""``codequorum lsp``: run the language server over stdio (or TCP)."""

from __future__ import annotations

import argparse
import io
import logging
import os
import sys
from pathlib import Path
from typing import Any

from codequorum.core.errors import UserError
from codequorum.core.safe_text import SafeFormatter
from codequorum.options.arguments import add_options


def register(subparsers: Any) -> None:
    """Add ``lsp`` to the command line."""
    parser = subparsers.add_parser(
        "lsp",
        help="run the language server (stdio by default)",
        description="Run the codequorum language server. Editors start it with "
        "`codequorum lsp` and talk JSON-RPC over stdin/stdout.",
    )
    add_options(parser, "lsp")
    parser.set_defaults(func=run)


def _address(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UserError(f"--tcp expects HOST:PORT (e.g. 127.0.0.1:2087), got {value!r}")
    return host.strip("[]"), int(port)


def _log_path(name: str) -> Path:
    """The log file, never reached through a repository's symlink out of the workspace."""
    from codequorum.core.safe_paths import guard
    from codequorum.ingest.workspace import find_workspace

    return guard(name, [find_workspace(Path.cwd())])


def run(args: argparse.Namespace) -> int:
    """Start the server; returns when the client says exit (or the stream closes): 0 after
    a ``shutdown`` request, 1 without one, as the protocol asks."""
    handler: logging.Handler = (
        logging.FileHandler(_log_path(args.log_file), encoding="utf-8")
        if args.log_file
        else logging.StreamHandler(sys.stderr)
    )
    handler.setFormatter(SafeFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(getattr(logging, args.log_level))

    from codequorum.lsp.server import server

    if args.tcp:
        host, port = _address(args.tcp)
        server.start_tcp(host, port)
    else:
        server.start_io()
        _release_stdout()
    return 0 if server.shutdown_requested else 1


def _release_stdout() -> None:
    """After ``exit`` the server has closed standard output: point ``sys.stdout`` at the
    null device, so the flushes that follow (the command line's, the interpreter's) write
    nowhere instead of failing on the closed stream."""
    if sys.stdout is None or sys.stdout.closed:
        sys.stdout = io.TextIOWrapper(open(os.devnull, "wb"), encoding="utf-8")  # noqa: SIM115
