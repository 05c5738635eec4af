"""``codequorum score``: score sample sets from files and print a table, JSON or CSV.

Input sets are read first (a broken line is reported and skipped), then scored in this
process or in ``--jobs`` worker processes, each worker parsing its own sets. Generated code
is only parsed here, never run: ``--dynamic`` hands sets to the sandboxed dynamic analysis.
Ctrl-C stops the workers, writes the sets already scored and exits with status 130.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import dataclasses
import gc
import importlib.util
import logging
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from codequorum.cli.endpoint import asker_note, input_asker
from codequorum.core.errors import UnknownFormatError, UserError
from codequorum.core.limits import MAX_HELD_CHARS, size_words
from codequorum.core.model import SampleSet
from codequorum.core.safe_text import safe_text
from codequorum.core.words import count, plural
from codequorum.ingest.sample_files import (
    INPUT_FORMATS,
    ReadError,
    ReadOptions,
    display_name,
    load_problems,
    read_sample_sets,
)
from codequorum.judge.overall import OverallAccumulator
from codequorum.options.arguments import add_options
from codequorum.pipeline.analyze import AnalysisOptions, StabilityReport, admit, analyze
from codequorum.render import OUTPUT_FORMATS, print_table, write_csv
from codequorum.render.html_report import load_compare, write_html
from codequorum.render.json_out import JsonDocumentWriter
from codequorum.render.jsonl_out import write_jsonl
from codequorum.render.outfile import check_output, open_output
from codequorum.render.terminal import color_enabled, make_console

if TYPE_CHECKING:
    from codequorum.behaviour.test_inputs import Proposer

EXIT_INTERRUPTED = 130
log = logging.getLogger(__name__)
#: At most this many input errors are printed one per line; the rest are counted.
MAX_ERRORS_SHOWN = 20


# ----------------------------------------------------------------------------- arguments


def analysis_options(args: argparse.Namespace) -> AnalysisOptions:
    """:class:`AnalysisOptions` from parsed arguments."""
    if args.cluster_threshold < 0:
        raise UserError("--cluster-threshold must not be negative")
    interpreter = getattr(args, "interpreter", None)
    return AnalysisOptions(
        max_depth=args.max_depth,
        jsd_log_base=args.jsd_log_base,
        tsed=args.tsed,
        tsed_08=args.tsed_08,
        textual=args.textual,
        cluster_threshold=args.cluster_threshold,
        stable_jsd=args.stable_jsd,
        outlier_gap=args.outlier_gap,
        keep_matrices=bool(args.matrices),
        interpreter=None if interpreter is None else resolve_interpreter(interpreter),
    )


def resolve_interpreter(name: str) -> str:
    """The executable behind ``--interpreter NAME`` (a version manager's shim resolved),
    or a :class:`UserError` when it is not a Python that starts."""
    found = shutil.which(name)
    if found is None:
        raise UserError(f"--interpreter {name}: no such executable")
    try:
        proc = subprocess.run([found, "-c", "import sys; print(sys.executable)"],
                              capture_output=True, text=True, timeout=30, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        raise UserError(f"--interpreter {name}: does not run as Python ({exc})") from None
    executable = proc.stdout.strip()
    if not executable:
        raise UserError(f"--interpreter {name}: does not run as Python")
    return executable


def check_output_format(fmt: str) -> str:
    """The output format, or :class:`UnknownFormatError` (exit status 2)."""
    if fmt not in OUTPUT_FORMATS:
        raise UnknownFormatError(
            f"unknown output format {fmt!r} (choose {', '.join(OUTPUT_FORMATS)})")
    return fmt


def register(subparsers: Any) -> None:
    """Add ``score`` to the command line."""
    parser = subparsers.add_parser(
        "score",
        help="score sample sets from files (table, JSON or CSV)",
        description="Score how much the versions in each sample set agree: structural "
        "cross-entropy (SCE) and Jensen-Shannon similarity (JSD) of AST subtrees, tree edit "
        "similarity (TSED), groups of versions with one shape, and a verdict per set.",
    )
    add_options(parser, "score")
    parser.set_defaults(func=run)


# ----------------------------------------------------------------------------- scoring


@dataclass(frozen=True)
class ScoreFailure:
    """A set that could not be scored, and why (the run goes on)."""

    message: str
    exit_code: int = 1


@dataclass
class ScoreRun:
    """What a run produced: reports in input order (``positions``: the input set of each),
    input errors, and whether it was cut short."""

    reports: list[StabilityReport] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)
    errors: list[ReadError] = field(default_factory=list)
    interrupted: bool = False
    total: int = 0

    @property
    def exit_code(self) -> int:
        """130 when interrupted, else the worst error's status (0 when none)."""
        if self.interrupted:
            return EXIT_INTERRUPTED
        return max((e.exit_code for e in self.errors), default=0)


def dynamic_available() -> bool:
    """Whether the sandboxed dynamic analysis is installed."""
    try:
        return importlib.util.find_spec("codequorum.behaviour.run") is not None
    except (ImportError, ValueError):
        return False


def require_sandbox(args: argparse.Namespace) -> None:
    """With ``--dynamic``: stop before scoring, in one line, if the sandbox cannot run."""
    if getattr(args, "dynamic", False):
        from codequorum.behaviour.sandbox import require

        require(getattr(args, "interpreter", None), getattr(args, "sandbox", "strict"))


def score_one(
    sample_set: SampleSet,
    options: AnalysisOptions,
    dynamic: bool = False,
    *,
    dynamic_jobs: int = 1,
    sandbox: str = "strict",
    on_progress: Callable[[int, int], None] | None = None,
    cancel: threading.Event | None = None,
    input_proposer: Proposer | None = None,
) -> StabilityReport | ScoreFailure:
    """Analyse one set; a failure becomes a :class:`ScoreFailure` so the others go on.

    With ``dynamic`` the versions first run in the sandbox (``dynamic_jobs`` at a time;
    ``on_progress(done, total)`` counts them, ``cancel`` stops them); ``input_proposer``
    is asked for inputs of a function that gives nothing else to run.
    """
    try:
        dyn = None
        if dynamic:
            from codequorum.behaviour.run import DynamicOptions, run_dynamic

            admit(sample_set)  # nothing over a bound is compiled or run

            dyn = run_dynamic(sample_set, DynamicOptions(jobs=dynamic_jobs, sandbox=sandbox,
                                                      interpreter=options.interpreter,
                                                      input_proposer=input_proposer),
                              progress=on_progress, cancel=cancel)
        return analyze(sample_set, options, dynamic=dyn)
    except UserError as exc:
        return ScoreFailure(str(exc), exc.exit_code)
    except Exception as exc:  # one bad set must not end the run: report it, go on
        log.debug("set %s could not be scored", sample_set.task_id, exc_info=True)
        return ScoreFailure(f"could not be scored: {type(exc).__name__}: {exc}")


def _exit_on_term(signum: int, _frame: object) -> None:
    """SIGTERM in a worker unwinds the running set, so ``finally`` blocks (the sandbox's
    own clean-up of its child processes) run before the worker exits. The user asked to
    stop: what half-built objects say while being torn down is not shown."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)
    raise SystemExit(128 + signum)


def _worker_init() -> None:
    """Workers leave Ctrl-C to the parent, which stops them with SIGTERM."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_term)


def _stop_workers(executor: ProcessPoolExecutor) -> None:
    """Stop the worker processes now (cancelling alone would wait for the running sets):
    SIGTERM first, SIGKILL for any still alive two seconds later."""
    processes = dict(getattr(executor, "_processes", None) or {})
    for process in processes.values():
        with contextlib.suppress(Exception):
            process.terminate()
    executor.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + 2.0
    for process in processes.values():
        with contextlib.suppress(Exception):
            process.join(timeout=max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join(timeout=1.0)


def expected_work(sample_set: SampleSet) -> int:
    """A set's scoring time, roughly: the square of its distinct versions' length (tree
    edit distance, the costliest metric, grows about so)."""
    size = sum(len(code) for code in set(sample_set.codes))
    return size * size


def warm_up_metrics() -> None:
    """Load the compiled metric code (numba and its on-disk cache, about a second) in this
    process, so that workers forked from it start with it instead of each loading it.

    numba's many objects make the collections the interpreter runs while it exits slow
    (about 0.4 s), so at exit the heap is frozen first (``gc.freeze``, from an ``atexit``
    function, which runs before numba's own): they then skip what is still alive.
    """
    from codequorum.metrics import structural, tree_edit

    structural.warm_up()
    tree_edit.warm_up()
    atexit.unregister(gc.freeze)  # once, however often this runs
    atexit.register(gc.freeze)


def start_workers(jobs: int, sets: int) -> ProcessPoolExecutor | None:
    """A pool of ``min(jobs, sets)`` worker processes, already started (None for one job).

    Started before any progress display: forking while its refresh thread runs could
    leave a worker holding a copy of a lock that is never released. Where workers are
    forked, the compiled metric code is loaded here first (``warm_up_metrics``).
    """
    if jobs <= 1 or sets <= 1:
        return None
    if multiprocessing.get_start_method(allow_none=False) == "fork":
        warm_up_metrics()
    executor = ProcessPoolExecutor(max_workers=min(jobs, sets), initializer=_worker_init)
    try:
        executor.submit(os.getpid).result()  # with fork, every worker starts on the first submit
    except BaseException:  # Ctrl-C while they start: none is left behind
        _stop_workers(executor)
        raise
    return executor


def score_sets(
    sample_sets: Sequence[SampleSet],
    options: AnalysisOptions,
    *,
    jobs: int = 1,
    dynamic: bool = False,
    executor: ProcessPoolExecutor | None = None,
) -> Generator[tuple[int, StabilityReport | ScoreFailure], None, None]:
    """Score every set, yielding ``(position, result)`` as each finishes (in input order
    with one job, in completion order with several). ``executor`` (from
    :func:`start_workers`) is used and shut down; without it one is started when
    ``jobs > 1``. Closing the generator early, or Ctrl-C while it waits, stops the
    workers."""
    if executor is None:
        executor = start_workers(jobs, len(sample_sets))
    if executor is None:
        for k, sample_set in enumerate(sample_sets):
            yield k, score_one(sample_set, options, dynamic)
        return
    finished = False
    try:
        pending: dict[Future[StabilityReport | ScoreFailure], int] = {}
        # the largest sets first, so that no worker is left with a large one at the end
        order = sorted(range(len(sample_sets)), key=lambda k: -expected_work(sample_sets[k]))
        queue = ((k, sample_sets[k]) for k in order)
        window = 4 * max(jobs, 2)  # bounded in flight: memory stays flat for huge inputs

        def fill() -> None:
            """Top the in-flight window up from the queue."""
            while len(pending) < window:
                item = next(queue, None)
                if item is None:
                    return
                k, sample_set = item
                pending[executor.submit(score_one, sample_set, options, dynamic)] = k

        fill()
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                k = pending.pop(future)
                yield k, future.result()
            fill()
        finished = True
    finally:
        if finished:
            executor.shutdown(wait=True)
        else:
            _stop_workers(executor)


def _progress(enabled: bool, total: int, label: str = "scoring", color: bool = True
              ) -> tuple[Progress | None, Callable[[int], None]]:
    """A progress bar on standard error (coloured when ``color``) and the function that
    moves it to a count (no-ops when off)."""
    if not enabled:
        return None, lambda _completed: None
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
    return progress, lambda completed: progress.update(task, completed=completed)


def run_scoring(
    sample_sets: Sequence[SampleSet],
    sources: Sequence[str],
    options: AnalysisOptions,
    *,
    jobs: int = 1,
    dynamic: bool = False,
    show_progress: bool = False,
    color: bool = True,
    sandbox: str = "strict",
    input_proposer: Proposer | None = None,
) -> ScoreRun:
    """Score the sets (``sources[k]`` names the file of set ``k``) with an optional
    progress bar (coloured when ``color``); Ctrl-C ends the run early with what was
    finished.

    With ``dynamic`` the sets go one after the other, each running its versions in
    ``jobs`` sandboxed processes at once (inputs asked from ``input_proposer`` where
    nothing else gives any), and the bar counts versions run.
    """
    if dynamic:
        return _run_dynamic_scoring(sample_sets, sources, options, jobs=jobs,
                                    show_progress=show_progress, color=color,
                                    sandbox=sandbox, input_proposer=input_proposer)
    run = ScoreRun(total=len(sample_sets))
    results: dict[int, StabilityReport] = {}
    executor: ProcessPoolExecutor | None = None
    gen = None
    try:  # Ctrl-C while the workers start (compiled code loading) ends the run as well
        executor = start_workers(jobs, len(sample_sets))
        progress, move = _progress(show_progress, len(sample_sets), color=color)
        gen = score_sets(sample_sets, options, jobs=jobs, executor=executor)
        with progress if progress is not None else contextlib.nullcontext():
            for done, (k, result) in enumerate(gen, start=1):
                _collect(run, results, sample_sets, sources, k, result)
                move(done)
    except KeyboardInterrupt:
        run.interrupted = True
    finally:
        if gen is not None:
            gen.close()
        if executor is not None:  # a generator closed before it started leaves it running
            _stop_workers(executor)
    run.positions = sorted(results)
    run.reports = [results[k] for k in run.positions]
    return run


def _collect(run: ScoreRun, results: dict[int, StabilityReport],
             sample_sets: Sequence[SampleSet], sources: Sequence[str], k: int,
             result: StabilityReport | ScoreFailure) -> None:
    """File one set's result: a report, or an error naming the set's file and line."""
    if isinstance(result, ScoreFailure):
        s = sample_sets[k]
        run.errors.append(ReadError(sources[k], s.source_line, result.message,
                                    task_id=s.task_id, exit_code=result.exit_code))
    else:
        results[k] = result


def _run_dynamic_scoring(sample_sets: Sequence[SampleSet], sources: Sequence[str],
                         options: AnalysisOptions, *, jobs: int, show_progress: bool,
                         color: bool = True, sandbox: str = "strict",
                         input_proposer: Proposer | None = None) -> ScoreRun:
    """Sets one after the other, versions of a set in parallel in the sandbox; the bar
    counts versions. Ctrl-C cancels the running versions and keeps the finished sets."""
    run = ScoreRun(total=len(sample_sets))
    results: dict[int, StabilityReport] = {}
    total = sum(len(s.samples) for s in sample_sets)
    progress, move = _progress(show_progress, total, label="running versions", color=color)
    cancel = threading.Event()
    base = 0
    try:
        with progress if progress is not None else contextlib.nullcontext():
            for k, sample_set in enumerate(sample_sets):
                offset = base

                def on_progress(done: int, _total: int, offset: int = offset) -> None:
                    move(offset + done)

                result = score_one(sample_set, options, True, dynamic_jobs=jobs, sandbox=sandbox,
                                   on_progress=on_progress if progress else None,
                                   cancel=cancel, input_proposer=input_proposer)
                _collect(run, results, sample_sets, sources, k, result)
                base += len(sample_set.samples)
                move(base)
    except KeyboardInterrupt:
        cancel.set()
        run.interrupted = True
    run.positions = sorted(results)
    run.reports = [results[k] for k in run.positions]
    return run


# ----------------------------------------------------------------------------- output


@contextlib.contextmanager
def deferred_interrupt() -> Iterator[list[int]]:
    """Hold Ctrl-C while the output is written, so what was scored is never cut in half;
    the list it yields records the interrupts that arrived meanwhile. A second Ctrl-C
    stops at once (a FIFO nobody reads would otherwise hold the run forever); a regular
    output file is then left as it was."""
    hits: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield hits
        return

    def hold(signum: int, _frame: object) -> None:
        hits.append(signum)
        if len(hits) > 1:
            raise KeyboardInterrupt

    previous = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, hold)
    try:
        yield hits
    finally:
        signal.signal(signal.SIGINT, previous)


def write_output(run: ScoreRun, fmt: str, path: str | None, *, matrices: bool = False,
                 reasons: bool = False, title: str | None = None, color: str = "auto",
                 sample_sets: Sequence[SampleSet] = (),
                 compare: tuple[str, dict[str, Any]] | None = None) -> None:
    """Write the run in ``fmt`` to ``path`` (standard output when None); ``color`` is the
    ``--color`` mode of the table; html shows the versions of ``sample_sets`` (the input
    sets, ``run.positions`` indexing them) and the run ``compare`` (name, JSON report)
    beside this one. The figures across the sets are those a run on a cluster writes."""
    across = OverallAccumulator.of(run.reports).result()
    with open_output(path) as stream:
        if fmt == "json":
            writer = JsonDocumentWriter(stream, include_matrices=matrices)
            for report in run.reports:
                writer.add(report)
            writer.finish(run.errors, interrupted=run.interrupted, total=run.total,
                          overall=across)
        elif fmt == "csv":
            write_csv(run.reports, stream)
        elif fmt == "html":
            codes = [sample_sets[k].codes for k in run.positions] if sample_sets else None
            write_html(stream, run.reports, run.errors, interrupted=run.interrupted,
                       total=run.total, overall=across, codes=codes, compare=compare)
        elif fmt == "jsonl":
            write_jsonl(run.reports, stream, include_matrices=matrices)
        else:
            console = make_console(stream, color_enabled(color, stream))
            print_table(run.reports, console, title=title, reasons=reasons, overall=across)


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


def read_inputs(inputs: Sequence[str], options: ReadOptions
                ) -> tuple[list[SampleSet], list[str], list[ReadError]]:
    """Every set from every input (with the file it came from) and every read error.

    A file that cannot be read or whose format cannot be told is one error; the other
    files are still read. ``options.limit`` counts sets across all inputs. Reading stops,
    with one error, once the sets hold :data:`~codequorum.core.limits.MAX_HELD_CHARS` of text.
    """
    sets: list[SampleSet] = []
    sources: list[str] = []
    errors: list[ReadError] = []
    held = 0
    for name, item in iter_inputs(inputs, options):
        if isinstance(item, ReadError):
            errors.append(item)
            continue
        held += len(item.prompt or "") + sum(len(s.code) for s in item.samples)
        if held > MAX_HELD_CHARS:
            errors.append(ReadError(name, item.source_line, (
                f"stopped reading: the sets hold more than {size_words(MAX_HELD_CHARS)} of "
                "text, as much as score holds at once; the rest is not scored (score "
                "--scheduler local:2 streams inputs of any size)"), task_id=item.task_id))
            break
        sets.append(item)
        sources.append(name)
    return sets, sources, errors


def iter_inputs(inputs: Sequence[str], options: ReadOptions
                ) -> Iterator[tuple[str, SampleSet | ReadError]]:
    """:func:`read_inputs` a set at a time: ``(file name, set or read error)``, reading
    each input only as far as the sets taken."""
    read = 0
    limit = options.limit
    per_file = ReadOptions(input_format=options.input_format, language=options.language,
                           completions=options.completions, problems=options.problems,
                           max_samples=options.max_samples)
    for path in inputs:
        if limit is not None and read >= limit:
            break
        name = display_name(path)
        before = read
        failed = False
        try:
            for result in read_sample_sets(path, per_file):
                if isinstance(result, ReadError):
                    failed = True
                    yield name, result
                    continue
                read += 1
                yield name, result
                if limit is not None and read >= limit:
                    break
        except UserError as exc:
            message = str(exc)
            prefix = f"{name}: "
            message = message[len(prefix):] if message.startswith(prefix) else message
            yield name, ReadError(name, None, message, exit_code=exc.exit_code)
            continue
        if read == before and not failed:
            yield name, ReadError(name, None, "no sets of versions in this input")


def run(args: argparse.Namespace) -> int:
    """``codequorum score``."""
    fmt = check_output_format(args.output_format)
    if args.input_format not in INPUT_FORMATS:
        raise UnknownFormatError(f"unknown input format {args.input_format!r} "
                                 f"(choose {', '.join(INPUT_FORMATS)})")
    if args.language is not None:
        from codequorum.core.parsing import normalize_language

        normalize_language(args.language)
    if args.dynamic and not dynamic_available():
        raise UserError("dynamic analysis is not available in this installation "
                        "(codequorum.behaviour.run is missing); run without --dynamic")
    if args.inputs.count("-") > 1:
        raise UserError("standard input (-) can be read only once")
    check_output(args.output)
    if getattr(args, "compare", None) and fmt != "html":
        raise UserError("--compare works with --format html")
    compare = ((os.path.basename(args.compare), load_compare(args.compare))
               if getattr(args, "compare", None) else None)
    options = analysis_options(args)
    if fmt == "html":  # the heatmaps
        options = dataclasses.replace(options, keep_matrices=True)
    problems = load_problems(args.problems) if args.problems else None
    read_options = ReadOptions(input_format=args.input_format, language=args.language,
                               completions=args.completions, problems=problems,
                               max_samples=args.samples, limit=args.limit)
    asker = input_asker(args)
    if asker is not None and getattr(args, "scheduler", None):
        raise UserError("--propose-inputs works without --scheduler (the inputs are asked "
                        "from this machine)")
    if getattr(args, "scheduler", None):
        from codequorum.cli.commands.score_cluster import run_on_cluster

        return run_on_cluster(args, fmt, options, read_options, compare=compare)
    if getattr(args, "resume", False):
        raise UserError("--resume works with --scheduler (use --scheduler local:N on this "
                        "machine)")
    sample_sets, sources, read_errors = read_inputs(args.inputs, read_options)
    show_progress = (not args.quiet and sys.stderr.isatty()
                     and (len(sample_sets) > 1 or args.dynamic))
    log.info("%s read from %s", count(len(sample_sets), "set"),
             count(len(args.inputs), "input"))
    require_sandbox(args)
    scored = run_scoring(sample_sets, sources, options, jobs=args.jobs, dynamic=args.dynamic,
                         show_progress=show_progress, sandbox=args.sandbox,
                         color=color_enabled(args.color, sys.stderr), input_proposer=asker)
    scored.errors = read_errors + scored.errors
    with deferred_interrupt() as hits:
        write_output(scored, fmt, args.output, matrices=args.matrices, reasons=args.reasons,
                     color=args.color, sample_sets=sample_sets, compare=compare)
    report_errors(scored)
    note = asker_note(asker)
    if note is not None and not args.quiet:
        print(f"codequorum: {safe_text(note)}", file=sys.stderr)
    if hits and not scored.interrupted:
        print("codequorum: interrupted while writing; the output was written in full",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    return scored.exit_code
