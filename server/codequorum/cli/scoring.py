"""What ``score`` and ``demo`` share at the command line: the typed request a command reads
from its arguments, the progress bar and the lines
about errors on standard error."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TextIO

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from codequorum.core.errors import EXIT_INTERRUPTED
from codequorum.core.safe_text import safe_text
from codequorum.core.words import count, plural
from codequorum.generate.endpoint import ProviderConfig
from codequorum.ingest.version_files import ReadOptions
from codequorum.pipeline.config import AnalysisConfig
from codequorum.pipeline.risk_level import RunLevel, notes
from codequorum.pipeline.score import ProgressBar, ScoreRun
from codequorum.render.sinks import OutputFormat, SinkRequest
from codequorum.render.terminal import make_console

__all__ = ["EXIT_INTERRUPTED", "ScoreRequest", "level_notes", "progress_bar", "report_errors"]

#: At most this many input errors are printed one per line; the rest are counted.
MAX_ERRORS_SHOWN = 20


@dataclass(frozen=True)
class ScoreRequest:
    """``codequorum score`` as asked, read from its arguments at its door."""

    inputs: tuple[str, ...]
    read: ReadOptions
    analysis: AnalysisConfig
    format: OutputFormat
    output: SinkRequest
    jobs: int = 1
    dynamic: bool = False
    interpreter: str | None = None          # ``--interpreter`` as given
    propose: ProviderConfig | None = None   # ``--dynamic --propose-inputs``: the endpoint
    scheduler: str | None = None
    resume: bool = False
    quiet: bool = False
    color: str = "auto"


def progress_bar(color: bool) -> ProgressBar:
    """A progress bar on standard error (coloured when ``color``): ``bar(total, label)``."""

    @contextlib.contextmanager
    def bar(total: int, label: str) -> Iterator[Callable[[int], None]]:
        progress = Progress(
            TextColumn(f"[bold]{label}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
            console=make_console(sys.stderr, color),
            transient=True,
        )
        task = progress.add_task(label, total=total)
        with progress:
            yield lambda completed: progress.update(task, completed=completed)

    return bar




def report_errors(run: ScoreRun, stream: TextIO | None = None, *,
                  scored: int | None = None) -> None:
    """One line per input error on standard error (the first few, then a count), and a
    line when the run was interrupted (``scored`` sets written; default: the run's
    reports)."""
    out = stream or sys.stderr
    for error in run.errors[:MAX_ERRORS_SHOWN]:
        print(f"codequorum: error: {safe_text(error)}", file=out)
    if len(run.errors) > MAX_ERRORS_SHOWN:
        more = len(run.errors) - MAX_ERRORS_SHOWN
        print(f"codequorum: ... and {more:,} more {plural(more, 'error')}", file=out)
    if run.interrupted:
        written = len(run.reports) if scored is None else scored
        print(f"codequorum: interrupted: {written:,} of {count(run.total, 'set')} "
              "scored and written", file=out)


def level_notes(level: RunLevel | None, fmt: OutputFormat, quiet: bool) -> None:
    """Per model, the rate its sets implied, on standard error, for a format that has no
    summary of its own to say it in (``jsonl``, ``csv``)."""
    if level is None or quiet or not fmt.streamed:
        return
    for line in notes(level.summary()):
        print(f"codequorum: {safe_text(line)}", file=sys.stderr)
