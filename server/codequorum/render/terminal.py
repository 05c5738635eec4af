"""What a terminal allows: its width (or ``COLUMNS``) and whether to colour (``--color``,
``NO_COLOR``), decided once here so every command answers the same way."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TextIO

from rich.console import Console

COLOR_MODES: tuple[str, ...] = ("auto", "always", "never")
#: Width of output that goes to no terminal (a file, a pipe) when ``COLUMNS`` is not set.
UNBOUNDED_WIDTH = 200


def _isatty(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal (False for streams without a descriptor)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def color_enabled(mode: str, stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """``always`` and ``never`` say it; ``auto`` colours a terminal unless ``NO_COLOR`` is set
    to something (https://no-color.org) or ``TERM`` is ``dumb``."""
    if mode == "always":
        return True
    if mode == "never":
        return False
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR", "") != "" or env.get("TERM") == "dumb":
        return False
    return _isatty(stream)


def output_width(stream: TextIO, environ: Mapping[str, str] | None = None) -> int | None:
    """``COLUMNS`` when it is set to a positive number, else the terminal's width, else
    None (not a terminal: lines are not bounded by one)."""
    env = os.environ if environ is None else environ
    columns = env.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if _isatty(stream):
        try:
            return os.get_terminal_size(stream.fileno()).columns
        except (OSError, ValueError):
            return None
    return None


class _Console(Console):
    """A rich console that leaves a closed pipe to the command line's one handler (rich's
    own exits with status 1)."""

    def on_broken_pipe(self) -> None:
        """Raise :class:`BrokenPipeError` for ``codequorum.cli.main`` to end the run quietly."""
        raise BrokenPipeError


def make_console(stream: TextIO, color: bool, width: int | None = None) -> Console:
    """A rich console on ``stream``: colours only when ``color``, ``width`` columns (the
    terminal's or ``COLUMNS``, :data:`UNBOUNDED_WIDTH` when neither applies), no
    highlighting or emoji guessed from the text."""
    chosen = width or output_width(stream) or UNBOUNDED_WIDTH
    tty = _isatty(stream)
    return _Console(
        file=stream,
        width=chosen,
        color_system=("auto" if tty else "standard") if color else None,
        force_terminal=True if color else None,
        no_color=not color,
        highlight=False,
        emoji=False,
        soft_wrap=False,
    )
