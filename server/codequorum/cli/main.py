"""The ``codequorum`` command line: finds its subcommands and runs one.

Each module in :mod:`codequorum.cli.commands` exposes ``register(subparsers)``, which adds its
parser and sets ``func`` (``func(args) -> int``). A module that fails to import still shows
up as a command that explains the failure, so one broken command never hides the others.
Every command also gets the options people expect of a command-line tool (``-q``, ``-v``,
``--color``, ``--config``, ``--isolated``), takes its defaults from the configuration files
(:mod:`codequorum.options.config_file`), and a closed pipe (``codequorum demo | head``) ends the run
quietly.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import os
import pkgutil
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from codequorum import __version__
from codequorum.cli import commands
from codequorum.core.errors import UserError
from codequorum.core.safe_text import SafeFormatter, safe_text
from codequorum.options.arguments import add_options
from codequorum.options.config_file import (
    ConfigError,
    command_defaults,
    config_files,
    not_read,
)
from codequorum.options.declarations import EVERY

EXIT_INTERRUPTED = 130
#: The status of a process whose output pipe was closed (128 + SIGPIPE), as shells report it.
EXIT_BROKEN_PIPE = 141
#: Error messages are bounded too: they may quote file names and input.
MAX_ERROR_CHARS = 2000

log = logging.getLogger(__name__)


def _unavailable(name: str, exc: BaseException) -> argparse.ArgumentParser:
    """A stand-in parser for a command whose module cannot be imported."""
    parser = argparse.ArgumentParser(add_help=False)

    def fail(_args: argparse.Namespace) -> int:
        """Say why the command cannot run."""
        raise UserError(f"the '{name}' command is not available: {exc}")

    parser.set_defaults(func=fail)
    return parser


def add_common_options(parser: argparse.ArgumentParser) -> None:
    """``-q``, ``-v``, ``--color``, ``--config`` and ``--isolated``, which every command
    accepts (declared in :mod:`codequorum.options.declarations`); an option a command
    already defines itself is left to it."""
    add_options(parser, EVERY)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every command found in :mod:`codequorum.cli.commands`."""
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
        except Exception as exc:  # shown as a command that says why it cannot run
            log.debug("command %s failed to import", info.name, exc_info=True)
            subparsers.add_parser(info.name, parents=[_unavailable(info.name, exc)],
                                  help=f"(not available: {exc})", add_help=False)
            continue
        register = getattr(module, "register", None)
        if callable(register):
            register(subparsers)
    for command in subparsers.choices.values():
        add_common_options(command)
    return parser


def command_parsers(parser: argparse.ArgumentParser | None = None,
                    ) -> dict[str, argparse.ArgumentParser]:
    """Each command's parser, by name (of ``parser``, else of a new :func:`build_parser`)."""
    top = parser or build_parser()
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _search_start(args: argparse.Namespace) -> Path:
    """Where the search for a project's configuration starts: the first path the command
    works on when it names one (``config_from``: ``check``'s folders, ``sample``'s file),
    else the current folder."""
    value = getattr(args, getattr(args, "config_from", "") or "", None)
    first = value[0] if isinstance(value, list) and value else value
    return Path(first) if isinstance(first, (str, Path)) and str(first) != "-" else Path.cwd()


def _with_configuration(parser: argparse.ArgumentParser, argv: list[str] | None,
                        args: argparse.Namespace, notes: list[str]) -> argparse.Namespace:
    """``args`` parsed again with the configuration files' values as the command's
    defaults, so flags still win. An option given on the command line also silences the
    file's values for the options it excludes (``-v`` over a file's ``quiet = true``). A
    key only the user may set, in a project's file, is left out and one line in ``notes``;
    a server (``keeps_serving``) starts with the defaults on any other mistake, with the
    mistake in ``notes``."""
    if getattr(args, "isolated", False) or not getattr(args, "command", None):
        return args
    parsers = command_parsers(parser)
    command = parsers.get(args.command)
    if command is None:
        return args
    try:
        files = config_files(_search_start(args), getattr(args, "config", None))
        defaults = command_defaults(files, args.command, notes)
    except ConfigError as exc:
        if not getattr(args, "keeps_serving", False):
            raise
        notes.append(not_read(exc))
        return args
    for group in command._mutually_exclusive_groups:
        given = [a for a in group._group_actions if getattr(args, a.dest, None) != a.default]
        if given:
            for action in group._group_actions:
                if action not in given:
                    defaults.pop(action.dest, None)
    if not defaults:
        return args
    command.set_defaults(**defaults)
    return parser.parse_args(argv)


def parse_arguments(argv: Sequence[str] | None,
                    parser: argparse.ArgumentParser | None = None) -> argparse.Namespace:
    """The command line, with the configuration files' values as the command's defaults;
    ``config_notes`` holds a warning line for each key left out (and, for a server, the
    mistake of a file not read). Raises ``SystemExit`` for usage errors (as argparse does)
    and :class:`ConfigError` for a broken file."""
    top = parser or build_parser()
    arguments = list(argv) if argv is not None else None
    notes: list[str] = []
    args = _with_configuration(top, arguments, _parse(top, arguments), notes)
    args.config_notes = notes
    return args


def _parse(top: argparse.ArgumentParser, arguments: list[str] | None) -> argparse.Namespace:
    """The command line parsed; an argument the command does not take is said by the
    command's parser (``codequorum doctor: error: ...`` under ``doctor``'s usage), not the
    top-level one, whose usage names no option of the command."""
    args, extra = top.parse_known_args(arguments)
    if extra:
        command = command_parsers(top).get(getattr(args, "command", None) or "")
        (command or top).error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def _warn(args: argparse.Namespace) -> None:
    """The configuration's warnings on standard error (unless ``-q``)."""
    if getattr(args, "quiet", False):
        return
    for note in getattr(args, "config_notes", []):
        print(f"codequorum: warning: {safe_text(note, limit=MAX_ERROR_CHARS)}", file=sys.stderr)


@contextlib.contextmanager
def _logging(args: argparse.Namespace) -> Iterator[None]:
    """``-v`` / ``-vv`` log to standard error, ``-q`` only errors, for the command's run.
    A command with its own ``--log-level`` (the language server) gets the level instead
    and logs itself."""
    verbose, quiet = getattr(args, "verbose", 0), getattr(args, "quiet", False)
    if hasattr(args, "log_level"):
        if verbose or quiet:
            args.log_level = "ERROR" if quiet else ("INFO" if verbose == 1 else "DEBUG")
        yield
        return
    if not verbose and not quiet:
        yield
        return
    root = logging.getLogger()
    level = root.level
    handler: logging.Handler | None = None
    root.setLevel(logging.ERROR if quiet else (logging.INFO if verbose == 1 else logging.DEBUG))
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        # records of loggers with a level of their own (dask's are at INFO) propagate here
        # whatever the root's level: the handler filters them too, so -q stays quiet
        handler.setLevel(root.level)
        handler.setFormatter(SafeFormatter("codequorum: %(levelname)s: %(name)s: %(message)s"))
        root.addHandler(handler)
    try:
        yield
    finally:
        root.setLevel(level)
        if handler is not None:
            root.removeHandler(handler)


def _silence_stdout() -> None:
    """Point standard output at the null device, so the interpreter's last flush at exit
    does not fail again on the closed pipe."""
    with contextlib.suppress(AttributeError, OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _system_refusal(exc: OSError) -> str:
    """What the system refused, as one line: why (``File name too long``), then the path
    (which may be long: the line is bounded)."""
    why = exc.strerror or str(exc)
    return f"{why}: {exc.filename}" if exc.filename is not None else why


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit status (0 fine, 1 some input failed, 2 unknown
    language/format or bad usage, 130 interrupted, 141 the output pipe was closed)."""
    parser = build_parser()
    try:
        args = parse_arguments(argv, parser)
    except SystemExit as exc:  # --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except ConfigError as exc:
        print(f"codequorum: error: {safe_text(exc, limit=MAX_ERROR_CHARS)}", file=sys.stderr)
        return exc.exit_code
    _warn(args)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        with _logging(args):
            status = int(func(args) or 0)
            sys.stdout.flush()  # a closed pipe shows here, where it is handled
        return status
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except UserError as exc:
        print(f"codequorum: error: {safe_text(exc, limit=MAX_ERROR_CHARS)}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:  # a path the system cannot take (a name too long): one line
        print(f"codequorum: error: {safe_text(_system_refusal(exc), limit=MAX_ERROR_CHARS)}",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("codequorum: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
