"""Scoring sets of versions: one set (:func:`score_one`), many in this process or in
worker processes (:func:`run_scoring`), and the sets read from input files
(:func:`read_inputs`, :func:`iter_inputs`).

Generated code is only parsed here, never run: ``dynamic`` hands a set to the sandboxed
dynamic analysis. A set that cannot be scored becomes a :class:`ScoreFailure` and the run
goes on; Ctrl-C stops the workers and keeps the sets already scored. The command line and
the cluster engine (:mod:`codequorum.pipeline.distributed`) both run on this.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import gc
import importlib.util
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from codequorum.core.errors import EXIT_INTERRUPTED, UserError
from codequorum.core.interrupts import deferred_interrupt
from codequorum.core.limits import MAX_HELD_CHARS, size_words
from codequorum.core.model import VersionSet
from codequorum.core.report import StabilityReport
from codequorum.ingest.version_files import (
    INPUT_SUFFIXES,
    ReadError,
    ReadOptions,
    display_name,
    folder_inputs,
    read_version_sets,
)
from codequorum.pipeline.analyze import admit, analyze
from codequorum.pipeline.config import AnalysisConfig
from codequorum.pipeline.session import RAN_WITHOUT_MODULE, located_module

if TYPE_CHECKING:
    from codequorum.behaviour.input_plan import Proposer

log = logging.getLogger(__name__)

#: A progress display: ``bar(total, label)`` opens it and gives the function that moves it
#: to a count of ``total``.
ProgressBar = Callable[[int, str], AbstractContextManager[Callable[[int], None]]]


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


def current_of(version_set: VersionSet) -> int | None:
    """Which version is the function's code as its file holds it (an exported set says
    so), None when the set does not say."""
    where = version_set.location
    current = where.current if where is not None else None
    return current if current is not None and current < len(version_set.versions) else None


def dynamic_available() -> bool:
    """Whether the sandboxed dynamic analysis is installed."""
    try:
        return importlib.util.find_spec("codequorum.behaviour.dynamic_analysis") is not None
    except (ImportError, ValueError):
        return False



def require_sandbox(dynamic: bool, interpreter: str | None, sandbox: str) -> None:
    """With ``dynamic``: stop before scoring, in one line, if the sandbox cannot run."""
    if dynamic:
        from codequorum.behaviour.sandbox.isolation import require

        require(interpreter, sandbox)



def score_one(
    version_set: VersionSet,
    options: AnalysisConfig,
    dynamic: bool = False,
    *,
    dynamic_jobs: int = 1,
    on_progress: Callable[[int, int], None] | None = None,
    cancel: threading.Event | None = None,
    input_proposer: Proposer | None = None,
    workspace: Path | None = None,
    without: str | None = None,
) -> StabilityReport | ScoreFailure:
    """Analyse one set; a failure becomes a :class:`ScoreFailure` so the others go on.

    With ``dynamic`` the versions first run in the sandbox (at ``options.sandbox``'s level,
    ``dynamic_jobs`` at a time;
    ``on_progress(done, total)`` counts them, ``cancel`` stops them); ``input_proposer``
    is asked for inputs of a function that gives nothing else to run. A set that says
    where its function lives (``export``'s) runs in its module, rebuilt in ``workspace``;
    where it cannot be, its report says the versions ran without it. A set whose module
    was looked for already (on a cluster, where the client has the workspace and the
    worker does not: :func:`in_module`) comes with ``without``, the reason it has none.
    """
    try:
        dyn = None
        if dynamic:
            from codequorum.behaviour.dynamic_analysis import DynamicOptions, run_dynamic

            admit(version_set)  # nothing over a bound is compiled or run
            if without is None:
                version_set, without = in_module(version_set, workspace)
            dynamic_options = DynamicOptions(jobs=dynamic_jobs, sandbox=options.sandbox,
                                             interpreter=options.interpreter,
                                             input_proposer=input_proposer)
            dyn = run_dynamic(version_set, dynamic_options, progress=on_progress, cancel=cancel)
        report = analyze(version_set, options, dynamic=dyn,
                         current_index=current_of(version_set))
        if dynamic and without is not None:
            report.notes.append(f"{RAN_WITHOUT_MODULE}: {without}")
        return report
    except UserError as exc:
        return ScoreFailure(str(exc), exc.exit_code)
    except Exception as exc:  # one bad set must not end the run: report it, go on
        log.debug("set %s could not be scored", version_set.task_id, exc_info=True)
        return ScoreFailure(f"could not be scored: {type(exc).__name__}: {exc}")


def in_module(version_set: VersionSet, workspace: Path | None
              ) -> tuple[VersionSet, str | None]:
    """``version_set`` in the module its location names (the module view rebuilt in
    ``workspace``, as ``check`` builds it, with the examples of the comment above the
    function as its prompt where it has none and its language keeps them there), or as it
    is with the reason it runs without it (None: it has no location, or already its
    module)."""
    from codequorum.behaviour.runtimes import runtime_for

    location = version_set.location
    if location is None or version_set.module is not None \
            or runtime_for(version_set.language) is None:
        return version_set, None
    if workspace is None:
        return version_set, "no workspace to find it in"
    try:
        module, doc = located_module(workspace, location, version_set.language)
    except UserError as exc:
        return version_set, f"{exc} (score runs it in the workspace it is started in)"
    except Exception as exc:  # boundary: the set still runs, and says without what
        log.warning("the module of %s was not rebuilt: %s", version_set.task_id, exc)
        return version_set, f"it could not be read ({type(exc).__name__})"
    return dataclasses.replace(version_set, module=module,
                               prompt=version_set.prompt or doc), None


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


def expected_work(version_set: VersionSet) -> int:
    """A set's scoring time, roughly: the square of its distinct versions' length (tree
    edit distance, the costliest metric, grows about so)."""
    size = sum(len(code) for code in set(version_set.codes))
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
        # Ctrl-C inside numba's compile-and-cache callbacks is swallowed there and turns
        # into some other error: held until the code is loaded, then let through
        with deferred_interrupt() as hits:
            warm_up_metrics()
        if hits:
            raise KeyboardInterrupt
    executor = ProcessPoolExecutor(max_workers=min(jobs, sets), initializer=_worker_init)
    try:
        executor.submit(os.getpid).result()  # with fork, every worker starts on the first submit
    except BaseException:  # Ctrl-C while they start: none is left behind
        _stop_workers(executor)
        raise
    return executor


def score_sets(
    version_sets: Sequence[VersionSet],
    options: AnalysisConfig,
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
        executor = start_workers(jobs, len(version_sets))
    if executor is None:
        for k, version_set in enumerate(version_sets):
            yield k, score_one(version_set, options, dynamic)
        return
    finished = False
    try:
        pending: dict[Future[StabilityReport | ScoreFailure], int] = {}
        # the largest sets first, so that no worker is left with a large one at the end
        order = sorted(range(len(version_sets)), key=lambda k: -expected_work(version_sets[k]))
        queue = ((k, version_sets[k]) for k in order)
        window = 4 * max(jobs, 2)  # bounded in flight: memory stays flat for huge inputs

        def fill() -> None:
            """Top the in-flight window up from the queue."""
            while len(pending) < window:
                item = next(queue, None)
                if item is None:
                    return
                k, version_set = item
                pending[executor.submit(score_one, version_set, options, dynamic)] = k

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



def run_scoring(
    version_sets: Sequence[VersionSet],
    sources: Sequence[str],
    options: AnalysisConfig,
    *,
    jobs: int = 1,
    dynamic: bool = False,
    progress: ProgressBar | None = None,
    input_proposer: Proposer | None = None,
    workspace: Path | None = None,
) -> ScoreRun:
    """Score the sets (``sources[k]`` names the file of set ``k``), shown on ``progress``
    when given; Ctrl-C ends the run early with what was finished.

    With ``dynamic`` the sets go one after the other, each running its versions in
    ``jobs`` sandboxed processes at once (inputs asked from ``input_proposer`` where
    nothing else gives any; a set ``export`` wrote in its module, rebuilt in
    ``workspace``), and the bar counts versions run.
    """
    if dynamic:
        return _run_dynamic_scoring(version_sets, sources, options, jobs=jobs,
                                    progress=progress,
                                    input_proposer=input_proposer, workspace=workspace)
    run = ScoreRun(total=len(version_sets))
    results: dict[int, StabilityReport] = {}
    executor: ProcessPoolExecutor | None = None
    gen = None
    try:  # Ctrl-C while the workers start (compiled code loading) ends the run as well
        executor = start_workers(jobs, len(version_sets))
        bar = _bar(progress, len(version_sets), "scoring")
        gen = score_sets(version_sets, options, jobs=jobs, executor=executor)
        with bar as move:
            for done, (k, result) in enumerate(gen, start=1):
                _collect(run, results, version_sets, sources, k, result)
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


def _bar(progress: ProgressBar | None, total: int, label: str
         ) -> AbstractContextManager[Callable[[int], None]]:
    """The display ``progress`` opens for ``total`` steps, or one that shows nothing."""
    if progress is None:
        return contextlib.nullcontext(_unseen)
    return progress(total, label)


def _unseen(_completed: int) -> None:
    """A progress move nobody sees."""


def _collect(run: ScoreRun, results: dict[int, StabilityReport],
             version_sets: Sequence[VersionSet], sources: Sequence[str], k: int,
             result: StabilityReport | ScoreFailure) -> None:
    """File one set's result: a report, or an error naming the set's file and line."""
    if isinstance(result, ScoreFailure):
        s = version_sets[k]
        run.errors.append(ReadError(sources[k], s.source_line, result.message,
                                    task_id=s.task_id, exit_code=result.exit_code))
    else:
        results[k] = result


def _run_dynamic_scoring(version_sets: Sequence[VersionSet], sources: Sequence[str],
                         options: AnalysisConfig, *, jobs: int,
                         progress: ProgressBar | None,
                         input_proposer: Proposer | None = None,
                         workspace: Path | None = None) -> ScoreRun:
    """Sets one after the other, versions of a set in parallel in the sandbox; the bar
    counts versions. Ctrl-C cancels the running versions and keeps the finished sets."""
    run = ScoreRun(total=len(version_sets))
    results: dict[int, StabilityReport] = {}
    total = sum(len(s.versions) for s in version_sets)
    bar = _bar(progress, total, "running versions")
    cancel = threading.Event()
    base = 0
    try:
        with bar as move:
            for k, version_set in enumerate(version_sets):
                offset = base

                def on_progress(done: int, _total: int, offset: int = offset) -> None:
                    move(offset + done)

                result = score_one(version_set, options, True, dynamic_jobs=jobs,
                                   on_progress=on_progress if progress is not None else None,
                                   cancel=cancel, input_proposer=input_proposer,
                                   workspace=workspace)
                _collect(run, results, version_sets, sources, k, result)
                base += len(version_set.versions)
                move(base)
    except KeyboardInterrupt:
        cancel.set()
        run.interrupted = True
    run.positions = sorted(results)
    run.reports = [results[k] for k in run.positions]
    return run



def read_inputs(inputs: Sequence[str], options: ReadOptions
                ) -> tuple[list[VersionSet], list[str], list[ReadError]]:
    """Every set from every input (with the file it came from) and every read error.

    A file that cannot be read or whose format cannot be told is one error; the other
    files are still read. ``options.limit`` counts sets across all inputs. Reading stops,
    with one error, once the sets hold :data:`~codequorum.core.limits.MAX_HELD_CHARS` of text.
    """
    sets: list[VersionSet] = []
    sources: list[str] = []
    errors: list[ReadError] = []
    held = 0
    for name, item in iter_inputs(inputs, options):
        if isinstance(item, ReadError):
            errors.append(item)
            continue
        held += len(item.prompt or "") + sum(len(s.code) for s in item.versions)
        if held > MAX_HELD_CHARS:
            errors.append(ReadError(name, item.source_line, (
                f"stopped reading: the sets hold more than {size_words(MAX_HELD_CHARS)} of "
                "text, as much as score holds at once; the rest is not scored (score "
                "--scheduler local:2 streams inputs of any size)"), task_id=item.task_id))
            break
        sets.append(item)
        sources.append(name)
    return sets, sources, errors


def _files_of(inputs: Sequence[str]) -> Iterator[str | ReadError]:
    """Each input, a folder as its input files (:func:`folder_inputs`), or a read error
    for a folder that holds none or cannot be listed."""
    for path in inputs:
        try:
            files = folder_inputs(path)
        except UserError as exc:
            yield ReadError(display_name(path), None, str(exc).removeprefix(f"{path}: "))
            continue
        if files is None:
            yield path
        elif not files:
            yield ReadError(display_name(path), None, "no sample-set files in this folder ("
                            + ", ".join(INPUT_SUFFIXES) + ")")
        else:
            yield from (str(f) for f in files)


def iter_inputs(inputs: Sequence[str], options: ReadOptions
                ) -> Iterator[tuple[str, VersionSet | ReadError]]:
    """:func:`read_inputs` a set at a time: ``(file name, set or read error)``, reading
    each input only as far as the sets taken."""
    read = 0
    limit = options.limit
    per_file = ReadOptions(input_format=options.input_format, language=options.language,
                           completions=options.completions, problems=options.problems,
                           max_versions=options.max_versions)
    for path in _files_of(inputs):
        if isinstance(path, ReadError):
            yield path.source, path
            continue
        if limit is not None and read >= limit:
            break
        name = display_name(path)
        before = read
        failed = False
        try:
            for result in read_version_sets(path, per_file):
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
