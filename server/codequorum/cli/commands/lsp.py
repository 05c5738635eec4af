"""``codequorum lsp``: run the language server over stdio (or TCP)."""

from __future__ import annotations

import argparse
import io
import logging
import os
import sys
import threading
from dataclasses import dataclass
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
    parser.set_defaults(func=run, keeps_serving=True)


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


@dataclass(frozen=True)
class LspRequest:
    """``codequorum lsp`` as asked, read from its arguments at its door."""

    log_level: str = "WARNING"
    log_file: Path | None = None         # checked: not reached through a symlink out
    tcp: tuple[str, int] | None = None   # (host, port); None: standard input and output
    notes: tuple[str, ...] = ()          # what the configuration files could not set, a file each


def lsp_request(args: argparse.Namespace) -> LspRequest:
    """The request of ``codequorum lsp``, the log file and the address checked
    (:class:`UserError`)."""
    from codequorum.options.config_file import by_file

    return LspRequest(log_level=args.log_level,
                      log_file=_log_path(args.log_file) if args.log_file else None,
                      tcp=_address(args.tcp) if args.tcp else None,
                      notes=tuple(by_file(getattr(args, "config_notes", []))))


def run(args: argparse.Namespace) -> int:
    """Start the server; returns when the client says exit (or the stream closes): 0 after
    a ``shutdown`` request, 1 without one, as the protocol asks."""
    return run_lsp(lsp_request(args))


def run_lsp(request: LspRequest) -> int:
    """:func:`run` for a request read at the door."""
    handler: logging.Handler = (
        logging.FileHandler(request.log_file, encoding="utf-8")
        if request.log_file is not None
        else logging.StreamHandler(sys.stderr)
    )
    handler.setFormatter(SafeFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(getattr(logging, request.log_level))

    from codequorum.lsp.server import server

    for note in request.notes:  # shown to the editor once it has started
        server.warn_at_start(f"codequorum: {note}")
    if request.tcp is not None:
        server.start_tcp(*request.tcp)
    else:
        server.start_io()
        _release_stdout()
    return _leave(0 if server.shutdown_requested else 1)


def _leave(code: int) -> int:
    """After ``exit``, an analysis the client no longer wants may still hold a worker
    thread, and an interpreter's exit waits for every worker: end the process now instead
    (the store is closed at ``shutdown``; a run's sandbox children end with their pipes)."""
    busy = [t for t in threading.enumerate()
            if t is not threading.main_thread() and t.is_alive() and not t.daemon]
    if busy:
        logging.getLogger(__name__).info("exit: %d worker thread(s) stopped unfinished",
                                         len(busy))
        logging.shutdown()
        sys.stderr.flush()
        os._exit(code)
    return code


def _release_stdout() -> None:
    """After ``exit`` the server has closed standard output: point ``sys.stdout`` at the
    null device, so the flushes that follow (the command line's, the interpreter's) write
    nowhere instead of failing on the closed stream."""
    if sys.stdout is None or sys.stdout.closed:
        sys.stdout = io.TextIOWrapper(open(os.devnull, "wb"), encoding="utf-8")  # noqa: SIM115
