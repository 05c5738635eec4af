"""``codequorum score --scheduler``: the run on a dask.distributed cluster, streamed.

Sets are read lazily from the inputs, scored on the cluster
(:func:`codequorum.distributed.score_distributed`) and written in input order as they
come back. ``jsonl`` and ``csv`` are written a set at a time (flushed, never held), so
memory stays flat and an unfinished run can be taken up again with ``--resume``; ``json``
and ``table`` are one document each, written at the end as a local run writes them, from
the reports held until then. Reports are the same, byte for byte, as a local run's.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import TextIO

from rich.progress import Progress, TextColumn, TimeElapsedColumn

from codequorum.analysis import AnalysisOptions, StabilityReport
from codequorum.commands.score import (
    EXIT_INTERRUPTED,
    ScoreFailure,
    ScoreRun,
    deferred_interrupt,
    iter_inputs,
    report_errors,
    require_sandbox,
    write_output,
)
from codequorum.errors import UserError
from codequorum.formats import ReadError, ReadOptions
from codequorum.model import SampleSet
from codequorum.render.csv_out import write_csv
from codequorum.render.jsonl_out import report_line
from codequorum.render.terminal import color_enabled, make_console
from codequorum.safe_text import safe_text

#: Formats written a set at a time as results arrive.
STREAMED: tuple[str, ...] = ("jsonl", "csv")


class _Feed:
    """The sets to score, read lazily: read errors are kept, sets already in the output
    (``--resume``) skipped, and where each set came from remembered until its result is
    filed."""

    def __init__(self, inputs: list[str], options: ReadOptions, done: Counter[str]) -> None:
        self.inputs = inputs
        self.options = options
        self.done = done
        self.errors: list[ReadError] = []
        self.origin: dict[int, tuple[str, SampleSet]] = {}
        self.read = 0
        self.resumed = 0

    def __iter__(self) -> Iterator[SampleSet]:
        k = 0
        for source, item in iter_inputs(self.inputs, self.options):
            if isinstance(item, ReadError):
                self.errors.append(item)
                continue
            self.read += 1
            key = safe_text(item.task_id)
            if self.done[key] > 0:
                self.done[key] -= 1
                self.resumed += 1
                continue
            self.origin[k] = (source, item)
            k += 1
            yield item

    def failure(self, k: int, failure: ScoreFailure) -> ReadError:
        """The error naming the file and line of set ``k``."""
        source, sample_set = self.origin[k]
        return ReadError(source, sample_set.source_line, failure.message,
                         task_id=sample_set.task_id, exit_code=failure.exit_code)


def _progress(enabled: bool, color: bool) -> tuple[Progress | None, Callable[[int, int], None]]:
    """A status line on standard error: sets done, sets per second, live workers."""
    if not enabled:
        return None, lambda _done, _workers: None
    progress = Progress(
        TextColumn("[bold]scoring on the cluster"),
        TextColumn("{task.completed:,.0f} sets"),
        TextColumn("{task.fields[rate]:.1f} sets/s"),
        TextColumn("{task.fields[workers]} workers"),
        TimeElapsedColumn(),
        console=make_console(sys.stderr, color),
        transient=True,
    )
    task = progress.add_task("scoring", total=None, rate=0.0, workers=0)
    start = time.monotonic()

    def move(done: int, workers: int) -> None:
        rate = done / max(time.monotonic() - start, 1e-9)
        progress.update(task, completed=done, rate=rate, workers=workers)

    return progress, move


@contextlib.contextmanager
def _stream(path: str | None, append: bool) -> Iterator[TextIO]:
    """Where streamed lines go: standard output, or the file (appended to with
    ``--resume``, else started afresh)."""
    if path is None or path == "-":
        yield sys.stdout
        return
    with open(path, "a" if append else "w", encoding="utf-8", newline="") as stream:
        yield stream


def run_on_cluster(args: argparse.Namespace, fmt: str, options: AnalysisOptions,
                   read_options: ReadOptions) -> int:
    """Score the inputs on the cluster ``args.scheduler`` and write them in ``fmt``."""
    from codequorum import distributed as engine  # dask is imported here, not before
    from codequorum.resume import already_written

    if fmt not in ("table", "json", *STREAMED):
        raise UserError(f"--format {fmt} is not written with --scheduler: choose table, json, "
                        "jsonl or csv")
    resume = bool(getattr(args, "resume", False))
    done = already_written(args.output, fmt) if resume else Counter[str]()
    feed = _Feed(list(args.inputs), read_options, done)
    require_sandbox(args)
    run = ScoreRun()
    streamed = fmt in STREAMED
    written = 0
    color = color_enabled(args.color, sys.stderr)
    show = not args.quiet and sys.stderr.isatty()
    with engine.connect(args.scheduler) as client, \
            (_stream(args.output, resume) if streamed else contextlib.nullcontext()) as out:
        if out is not None and fmt == "csv" and not _has_header(args):
            write_csv([], out)  # the header, even when no set is scored (as a local run)
            out.flush()
        progress, move = _progress(show, color)
        results = engine.score_distributed(feed, options, client, dynamic=args.dynamic,
                                           sandbox=getattr(args, "sandbox", "strict"),
                                           on_progress=move)
        try:
            with progress if progress is not None else contextlib.nullcontext():
                for k, result in results:
                    if isinstance(result, ScoreFailure):
                        run.errors.append(feed.failure(k, result))
                    elif out is not None:
                        _write(out, fmt, result, matrices=args.matrices)
                        written += 1
                    else:
                        run.reports.append(result)
                    del feed.origin[k]
        except KeyboardInterrupt:
            run.interrupted = True
        finally:
            results.close()
    run.total = feed.read - feed.resumed
    run.errors = feed.errors + run.errors
    if streamed:
        return _finish_streamed(run, written, feed.resumed)
    with deferred_interrupt() as hits:
        write_output(run, fmt, args.output, matrices=args.matrices, reasons=args.reasons,
                     color=args.color)
    report_errors(run)
    return EXIT_INTERRUPTED if hits and not run.interrupted else run.exit_code


def _has_header(args: argparse.Namespace) -> bool:
    """Whether a resumed CSV file already starts with its header."""
    if not getattr(args, "resume", False) or args.output in (None, "-"):
        return False
    try:
        with open(args.output, "rb") as stream:
            return stream.readline().endswith(b"\n")
    except OSError:
        return False


def _write(out: TextIO, fmt: str, report: StabilityReport, *, matrices: bool) -> None:
    """One set's line (or CSV row), flushed so that a killed run can be resumed."""
    if fmt == "csv":
        write_csv([report], out, header=False)
    else:
        out.write(report_line(report, matrices))
    out.flush()


def _finish_streamed(run: ScoreRun, written: int, resumed: int) -> int:
    """Errors and notes on standard error once every line is out; the exit status."""
    interrupted, run.interrupted = run.interrupted, False
    report_errors(run)
    if resumed:
        print(f"codequorum: resumed: {resumed:,} sets were already in the output",
              file=sys.stderr)
    if interrupted:
        print(f"codequorum: interrupted: {written:,} sets scored and written; --resume "
              "continues from there", file=sys.stderr)
        return EXIT_INTERRUPTED
    return run.exit_code
