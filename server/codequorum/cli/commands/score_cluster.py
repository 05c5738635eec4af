"""``codequorum score --scheduler``: the run on a dask.distributed cluster, streamed.

Sets are read lazily from the inputs, scored on the cluster
(:func:`codequorum.pipeline.distributed.score_distributed`) and written in input order as they
come back, each to the sink of its format (:mod:`codequorum.render.sinks`, the same sinks a
local run writes through), which keeps what the format needs and no report: streamed
formats are written a set at a time (flushed, so an unfinished run can be taken up again
with ``--resume``). Every format is the same, byte for byte, as a local run's.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import time
from collections import Counter
from collections.abc import Callable, Generator, Iterator
from pathlib import Path

from rich.progress import Progress, TextColumn, TimeElapsedColumn

from codequorum.cli.scoring import (
    EXIT_INTERRUPTED,
    ScoreRequest,
    level_notes,
    report_errors,
)
from codequorum.core.interrupts import deferred_interrupt
from codequorum.core.model import VersionSet
from codequorum.core.report import StabilityReport
from codequorum.ingest.version_files import ReadError, ReadOptions
from codequorum.ingest.workspace import find_workspace
from codequorum.pipeline.score import ScoreFailure, ScoreRun, iter_inputs, require_sandbox
from codequorum.render.level_sink import open_sink
from codequorum.render.sinks import RunEnd, Sink
from codequorum.render.terminal import color_enabled, make_console


class _Feed:
    """The sets to score, read lazily: read errors are kept, sets already in the output
    (``--resume``) skipped, and where each set came from remembered until its result is
    filed."""

    def __init__(self, inputs: list[str], options: ReadOptions, done: Counter[str],
                 written_id: Callable[[str], str] = str) -> None:
        self.inputs = inputs
        self.written_id = written_id
        self.options = options
        self.done = done
        self.errors: list[ReadError] = []
        self.origin: dict[int, tuple[str, VersionSet]] = {}
        self.read = 0
        self.resumed = 0

    def __iter__(self) -> Iterator[VersionSet]:
        k = 0
        for source, item in iter_inputs(self.inputs, self.options):
            if isinstance(item, ReadError):
                self.errors.append(item)
                continue
            self.read += 1
            key = self.written_id(item.task_id)
            if self.done[key] > 0:
                self.done[key] -= 1
                self.resumed += 1
                continue
            self.origin[k] = (source, item)
            k += 1
            yield item

    def failure(self, k: int, failure: ScoreFailure) -> ReadError:
        """The error naming the file and line of set ``k``."""
        source, version_set = self.origin[k]
        return ReadError(source, version_set.source_line, failure.message,
                         task_id=version_set.task_id, exit_code=failure.exit_code)


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


def run_on_cluster(request: ScoreRequest, scheduler: str) -> int:
    """Score the request's inputs on the cluster at ``scheduler`` and write them in its
    format as they come back."""
    from codequorum.pipeline import distributed as engine  # dask is imported here, not before
    from codequorum.render.resume import already_written

    fmt = request.format
    done = already_written(request.output.path, fmt) if request.resume else Counter[str]()
    feed = _Feed(list(request.inputs), request.read, done,
                 fmt.read_back.written_id if fmt.read_back is not None else str)
    require_sandbox(request.dynamic, request.interpreter, request.analysis.sandbox)
    run = ScoreRun()
    output = dataclasses.replace(request.output, incremental=True, append=request.resume)
    level = request.analysis.run_level(request.dynamic)
    with engine.connect(scheduler) as client, open_sink(fmt, output, level) as sink:
        progress, move = _progress(not request.quiet and sys.stderr.isatty(),
                                   color_enabled(request.color, sys.stderr))
        results = engine.score_distributed(feed, request.analysis, client,
                                           dynamic=request.dynamic, on_progress=move,
                                           workspace=find_workspace(Path.cwd()))
        with progress if progress is not None else contextlib.nullcontext():
            _drain(results, feed, sink, run)
        run.total = feed.read - feed.resumed
        run.errors = feed.errors + run.errors
        with deferred_interrupt() as hits:
            sink.finish(RunEnd(run.errors, interrupted=run.interrupted, total=run.total))
    level_notes(level, fmt, request.quiet)
    if fmt.streamed:
        return _finish_streamed(run, sink.written, feed.resumed)
    report_errors(run, scored=sink.written)
    return EXIT_INTERRUPTED if hits and not run.interrupted else run.exit_code


def _drain(results: Generator[tuple[int, StabilityReport | ScoreFailure], None, None],
           feed: _Feed, sink: Sink, run: ScoreRun) -> None:
    """Hand each result to the sink (a failure to the run's errors) in input order, until
    the last or Ctrl-C (``run.interrupted``); the cluster's work left is cancelled."""
    try:
        for k, result in results:
            if isinstance(result, ScoreFailure):
                run.errors.append(feed.failure(k, result))
            else:
                sink.add(result, feed.origin[k][1].codes)
            del feed.origin[k]
    except KeyboardInterrupt:
        run.interrupted = True
    finally:
        results.close()


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
