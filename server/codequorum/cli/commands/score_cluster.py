"""``codequorum score --scheduler``: the run on a dask.distributed cluster, streamed.

Sets are read lazily from the inputs, scored on the cluster
(:func:`codequorum.pipeline.distributed.score_distributed`) and written in input order as they
come back, each to a sink of its format that keeps what the format needs and no report:
``jsonl`` and ``csv`` lines are written a set at a time (flushed, so an unfinished run can
be taken up again with ``--resume``); the ``json`` document is written a set at a time too
and ends with the errors and the figures across the sets (summed as the sets pass); the
``table`` keeps each set's row values and the ``html`` page each set's compact record (in
a temporary file) until the end. Every format is the same, byte for byte, as a local run's.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections import Counter
from collections.abc import Callable, Generator, Iterator, Mapping
from typing import Any, Protocol, TextIO

from rich.progress import Progress, TextColumn, TimeElapsedColumn

from codequorum.cli.commands.score import (
    EXIT_INTERRUPTED,
    ScoreFailure,
    ScoreRun,
    deferred_interrupt,
    iter_inputs,
    report_errors,
    require_sandbox,
)
from codequorum.core.model import SampleSet
from codequorum.core.report import StabilityReport
from codequorum.ingest.sample_files import ReadError, ReadOptions
from codequorum.judge.overall import OverallAccumulator
from codequorum.pipeline.analyze import AnalysisOptions
from codequorum.render.csv_out import write_csv
from codequorum.render.html_report import HtmlPage, page_end
from codequorum.render.json_out import JsonDocumentWriter
from codequorum.render.jsonl_out import report_line
from codequorum.render.outfile import open_output, open_stream
from codequorum.render.resume import written_task_id
from codequorum.render.table import TableRow, print_table, table_row
from codequorum.render.terminal import color_enabled, make_console

#: Formats written a set at a time as results arrive, and resumable.
STREAMED: tuple[str, ...] = ("jsonl", "csv")


class _Feed:
    """The sets to score, read lazily: read errors are kept, sets already in the output
    (``--resume``) skipped, and where each set came from remembered until its result is
    filed."""

    def __init__(self, inputs: list[str], options: ReadOptions, done: Counter[str],
                 fmt: str = "jsonl") -> None:
        self.inputs = inputs
        self.fmt = fmt
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
            key = written_task_id(item.task_id, self.fmt)
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


def _stream(path: str | None, append: bool) -> contextlib.AbstractContextManager[TextIO]:
    """Where streamed lines go: standard output, or the file (appended to with
    ``--resume``, else started afresh)."""
    return open_stream(path, append)


class _Sink(Protocol):
    """Where a run's reports go: one at a time, in input order, then the end."""

    written: int

    def add(self, report: StabilityReport, sample_set: SampleSet) -> None:
        """Take the report of ``sample_set``."""

    def finish(self, run: ScoreRun) -> None:
        """Write what is left once every set is in (errors, totals, the held rows)."""


class _Lines:
    """``jsonl`` or ``csv``: a line per set, flushed as it is written."""

    def __init__(self, out: TextIO, fmt: str, matrices: bool) -> None:
        self.out, self.fmt, self.matrices = out, fmt, matrices
        self.written = 0

    def add(self, report: StabilityReport, sample_set: SampleSet) -> None:
        _write(self.out, self.fmt, report, matrices=self.matrices)
        self.written += 1

    def finish(self, run: ScoreRun) -> None:
        """Nothing is left to write."""


class _Document:
    """``json``, ``table`` or ``html``: the figures across the sets summed as they pass,
    and what the format keeps of each set until the end (the JSON document writes each
    set at once; the table keeps its rows; the page its records, in a temporary file)."""

    def __init__(self, fmt: str, args: argparse.Namespace, out: TextIO | None,
                 compare: tuple[str, Mapping[str, Any]] | None) -> None:
        self.fmt, self.args, self.compare = fmt, args, compare
        self.written = 0
        self.across = OverallAccumulator()
        self.json = (None if out is None
                     else JsonDocumentWriter(out, include_matrices=args.matrices))
        self.rows: list[TableRow] = []
        self.page = HtmlPage() if fmt == "html" else None

    def add(self, report: StabilityReport, sample_set: SampleSet) -> None:
        self.across.add(report)
        self.written += 1
        if self.json is not None:
            self.json.add(report)
        elif self.page is not None:
            self.page.add(report, sample_set.codes)
        else:
            self.rows.append(table_row(report))

    def finish(self, run: ScoreRun) -> None:
        across = self.across.result()
        if self.json is not None:
            self.json.finish(run.errors, interrupted=run.interrupted, total=run.total,
                             overall=across)
            return
        with open_output(self.args.output) as stream:
            if self.page is not None:
                self.page.write(stream, page_end(run.errors, interrupted=run.interrupted,
                                                 total=run.total, overall=across,
                                                 compare=self.compare))
            else:
                console = make_console(stream, color_enabled(self.args.color, stream))
                print_table(self.rows, console, reasons=self.args.reasons, overall=across)

    def close(self) -> None:
        """Remove the page's temporary file."""
        if self.page is not None:
            self.page.close()


@contextlib.contextmanager
def _sink(fmt: str, args: argparse.Namespace, resume: bool,
          compare: tuple[str, Mapping[str, Any]] | None) -> Iterator[_Sink]:
    """The sink of ``fmt``, its output open while the run lasts (the table and the page
    open theirs at the end)."""
    if fmt in STREAMED:
        with _stream(args.output, resume) as out:
            if fmt == "csv" and not _has_header(args):
                write_csv([], out)  # the header, even when no set is scored (as a local run)
                out.flush()
            yield _Lines(out, fmt, args.matrices)
        return
    with (open_output(args.output) if fmt == "json" else contextlib.nullcontext()) as out:
        document = _Document(fmt, args, out, compare)
        try:
            yield document
        finally:
            document.close()


def run_on_cluster(args: argparse.Namespace, fmt: str, options: AnalysisOptions,
                   read_options: ReadOptions, *,
                   compare: tuple[str, Mapping[str, Any]] | None = None) -> int:
    """Score the inputs on the cluster ``args.scheduler`` and write them in ``fmt``
    (html: beside the run ``compare``)."""
    from codequorum.pipeline import distributed as engine  # dask is imported here, not before
    from codequorum.render.resume import already_written

    resume = bool(getattr(args, "resume", False))
    done = already_written(args.output, fmt) if resume else Counter[str]()
    feed = _Feed(list(args.inputs), read_options, done, fmt)
    require_sandbox(args)
    run = ScoreRun()
    with engine.connect(args.scheduler) as client, \
            _sink(fmt, args, resume, compare) as sink:
        progress, move = _progress(not args.quiet and sys.stderr.isatty(),
                                   color_enabled(args.color, sys.stderr))
        results = engine.score_distributed(feed, options, client, dynamic=args.dynamic,
                                           sandbox=getattr(args, "sandbox", "strict"),
                                           on_progress=move)
        with progress if progress is not None else contextlib.nullcontext():
            _drain(results, feed, sink, run)
        run.total = feed.read - feed.resumed
        run.errors = feed.errors + run.errors
        with deferred_interrupt() as hits:
            sink.finish(run)
    if fmt in STREAMED:
        return _finish_streamed(run, sink.written, feed.resumed)
    report_errors(run, scored=sink.written)
    return EXIT_INTERRUPTED if hits and not run.interrupted else run.exit_code


def _drain(results: Generator[tuple[int, StabilityReport | ScoreFailure], None, None],
           feed: _Feed, sink: _Sink, run: ScoreRun) -> None:
    """Hand each result to the sink (a failure to the run's errors) in input order, until
    the last or Ctrl-C (``run.interrupted``); the cluster's work left is cancelled."""
    try:
        for k, result in results:
            if isinstance(result, ScoreFailure):
                run.errors.append(feed.failure(k, result))
            else:
                sink.add(result, feed.origin[k][1])
            del feed.origin[k]
    except KeyboardInterrupt:
        run.interrupted = True
    finally:
        results.close()


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
