"""``codequorum lsp``: run the language server over stdio (or TCP)."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from codequorum.errors import UserError
from codequorum.safe_text import SafeFormatter


def register(subparsers: Any) -> None:
    """Add ``lsp`` to the command line."""
    parser = subparsers.add_parser(
        "lsp",
        help="run the language server (stdio by default)",
        description="Run the codequorum language server. Editors start it with "
        "`codequorum lsp` and talk JSON-RPC over stdin/stdout.",
    )
    parser.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default)")
    parser.add_argument(
        "--tcp", metavar="HOST:PORT", help="listen on a TCP address instead of stdio"
    )
    parser.add_argument(
        "--log-level",
        default="WARNING",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="level of the log written to stderr (default WARNING)",
    )
    parser.add_argument("--log-file", metavar="PATH", help="write the log to this file")
    parser.set_defaults(func=run)


def _address(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UserError(f"--tcp expects HOST:PORT (e.g. 127.0.0.1:2087), got {value!r}")
    return host.strip("[]"), int(port)


def run(args: argparse.Namespace) -> int:
    """Start the server; returns when the client says exit (or the stream closes)."""
    handler: logging.Handler = (
        logging.FileHandler(args.log_file, encoding="utf-8")
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
    return 0
