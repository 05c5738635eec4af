"""Score sample sets on a dask.distributed cluster, streaming sets in and results out.

``score_distributed`` submits one task per set, keeps at most ``window`` sets in flight
(read lazily from the iterable it is given) and yields ``(position, result)`` in input
order through a reorder buffer, so memory stays flat however long the input is. Each task
is pure: the same set and options give the same report on any worker, so a task whose
worker is lost is simply run again elsewhere (dask reschedules it; ``retries`` covers
errors raised by the task itself). With ``dynamic`` each worker runs the versions in its
own sandbox.

Importing this module imports dask; the command line does so only for ``--scheduler``.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path
from typing import Any

from codequorum.core.errors import UserError
from codequorum.core.model import VersionSet
from codequorum.core.report import StabilityReport
from codequorum.pipeline.config import AnalysisConfig
from codequorum.pipeline.score import ScoreFailure, in_module, score_one

try:
    import dask
    import distributed
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise UserError("--scheduler needs the distributed extra: "
                    "pip install 'codequorum[distributed]'") from exc

log = logging.getLogger(__name__)

#: Sets in flight per worker thread: enough to keep every worker busy while the driver
#: waits for the oldest set, few enough that memory does not grow with the input.
IN_FLIGHT_PER_THREAD = 4
#: Recent messages dask keeps per connection (and transitions, in a local scheduler).
LOG_LENGTH = 20
#: How often the live-worker count is asked of the scheduler, in seconds.
WORKER_POLL_S = 1.0


def parse_scheduler(spec: str) -> tuple[str, int | str]:
    """``("local", N)`` for ``local:N``, else ``("address", spec)`` for a scheduler address
    such as ``tcp://host:8786``; a malformed value is a :class:`UserError`."""
    if spec.startswith("local"):
        _, _, count = spec.partition(":")
        try:
            workers = int(count) if count else 2
        except ValueError:
            workers = 0
        if workers < 1:
            raise UserError(f"--scheduler {spec}: expected local:N with N >= 1 workers")
        return "local", workers
    if "://" not in spec and ":" not in spec:
        raise UserError(f"--scheduler {spec}: expected tcp://HOST:PORT or local:N")
    return "address", spec


@contextlib.contextmanager
def connect(spec: str, *, timeout: float = 30.0) -> Iterator[distributed.Client]:
    """A client for ``spec``: a new ``LocalCluster`` of N worker processes (one thread
    each) for ``local:N``, else the scheduler at that address. Both are closed after."""
    kind, value = parse_scheduler(spec)
    if kind == "local":
        assert isinstance(value, int)
        with _short_logs(), _sigint_ignored(), warnings.catch_warnings():
            # another cluster on this machine holds the default HTTP port: one is chosen
            warnings.filterwarnings("ignore", message="Port .* is already in use")
            cluster = distributed.LocalCluster(  # type: ignore[no-untyped-call]
                n_workers=value, processes=True, threads_per_worker=1,
                dashboard_address=None, silence_logs=logging.ERROR)
            local = distributed.Client(cluster)  # type: ignore[no-untyped-call]
        with cluster, local:
            yield local
        return
    try:
        with _short_logs():
            client = distributed.Client(str(value), timeout=timeout)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError) as exc:
        raise UserError(f"cannot reach the dask scheduler at {value}: {exc}") from None
    with client:
        check_workers(client)
        yield client


def _short_logs() -> contextlib.AbstractContextManager[object]:
    """dask keeps the last messages of every connection for debugging (1,000 by default),
    each holding a whole sample set: kept short, the memory of this process (and of a
    local cluster's scheduler) stays small and flat however long the run."""
    return dask.config.set({"distributed.admin.low-level-log-length": LOG_LENGTH})


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Ignore SIGINT while worker processes start, so that Ctrl-C on the terminal reaches
    only this process, which then closes the cluster: the workers inherit it (an ignored
    signal stays ignored across exec) instead of printing a traceback each."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def worker_version() -> str:
    """The codequorum version a worker runs (the probe task)."""
    from codequorum import __version__

    return __version__


def check_workers(client: distributed.Client) -> None:
    """Stop, in one line, when the workers cannot import codequorum or run another version
    (their reports could differ from a local run)."""
    from codequorum import __version__

    try:
        theirs = client.submit(worker_version, pure=False).result()
    except Exception as exc:  # the probe's failure is the user's message, whatever it is
        log.debug("worker probe failed", exc_info=True)
        raise UserError("the dask workers cannot run codequorum (install it on every "
                        f"worker): {type(exc).__name__}: {exc}") from None
    if theirs != __version__:
        raise UserError(f"the dask workers run codequorum {theirs}, this is {__version__}; "
                        "install the same version everywhere")


Result = StabilityReport | ScoreFailure


def score_task(version_set: VersionSet, options: AnalysisConfig, dynamic: bool,
               without: str | None = None) -> Result:
    """What a worker runs for one set: the local scoring of one set (its module, or why it
    has none, found by the client), nothing else."""
    return score_one(version_set, options, dynamic, without=without)


def live_workers(client: distributed.Client) -> tuple[int, int]:
    """``(workers, threads)`` the scheduler knows now."""
    nthreads: dict[str, int] = client.nthreads()  # type: ignore[no-untyped-call]
    return len(nthreads), sum(nthreads.values())


class _InFlight:
    """The sets of one run on the cluster: submitted from ``source`` while fewer than the
    limit are in flight, their results filed by position until their turn comes."""

    def __init__(self, client: distributed.Client, source: Iterator[tuple[int, VersionSet]],
                 submit: Callable[[int, VersionSet], Any], window: int | None) -> None:
        self.client = client
        self.source = source
        self.submit = submit
        self.window = window
        self.futures: Any = distributed.as_completed(loop=client.loop)  # type: ignore[no-untyped-call]
        self.keys: dict[Any, int] = {}
        self.ready: dict[int, Result] = {}
        self.submitted = self.next_out = 0
        self.exhausted = False
        self.workers, self.threads = live_workers(client)
        self.polled = time.monotonic()

    def limit(self) -> int:
        """How many sets may be in flight (default: 4 per worker thread of the cluster)."""
        return self.window if self.window is not None else IN_FLIGHT_PER_THREAD * max(
            self.threads, 1)

    def fill(self) -> None:
        """Submit sets until the limit is reached or the input ends."""
        while not self.exhausted and self.submitted - self.next_out < self.limit():
            item = next(self.source, None)
            if item is None:
                self.exhausted = True
                return
            future = self.submit(*item)
            self.keys[future.key] = item[0]
            self.futures.add(future)
            self.submitted += 1

    def take(self) -> Result:
        """The next result in input order, waiting for the tasks that end before it."""
        while self.next_out not in self.ready:
            future = next(self.futures)
            self.ready[self.keys.pop(future.key)] = _result(future)
            future.release()
        result = self.ready.pop(self.next_out)
        self.next_out += 1
        return result

    def poll_workers(self) -> int:
        """Live workers, asked of the scheduler at most every ``WORKER_POLL_S``."""
        now = time.monotonic()
        if now - self.polled >= WORKER_POLL_S:
            self.workers, self.threads = live_workers(self.client)
            self.polled = now
        return self.workers

    def cancel(self) -> None:
        """Cancel what is still in flight."""
        pending = list(self.futures.futures)
        if pending:
            self.client.cancel(pending)  # type: ignore[no-untyped-call]
        self.futures.clear()


def score_distributed(
    sets: Iterable[VersionSet],
    options: AnalysisConfig,
    client: distributed.Client,
    *,
    dynamic: bool = False,
    window: int | None = None,
    retries: int = 2,
    on_progress: Callable[[int, int], None] | None = None,
    workspace: Path | None = None,
) -> Generator[tuple[int, Result], None, None]:
    """Score ``sets`` on the cluster, yielding ``(position, result)`` in input order, where
    a result is what :func:`~codequorum.pipeline.score.score_one` returns (a task that
    raised, or whose workers kept dying, becomes a :class:`ScoreFailure` too).

    At most ``window`` sets are in flight (default 4 per worker thread, following the
    cluster as it grows); ``sets`` is read only as far as that allows. ``on_progress(done,
    workers)`` is called after each result. Closing the generator cancels what is left.

    With ``dynamic``, a set that names where its function lives (``export``'s) is sent
    with its module, rebuilt here in ``workspace`` (the workers need not see it), or with
    the reason it runs without it, as a local run does.
    """
    run = uuid.uuid4().hex[:12]

    def submit(k: int, version_set: VersionSet) -> Any:
        without = None
        if dynamic:
            version_set, without = in_module(version_set, workspace)
        return client.submit(score_task, version_set, options, dynamic, without,
                             key=f"codequorum-score-{run}-{k}", retries=retries)

    flight = _InFlight(client, iter(enumerate(sets)), submit, window)
    try:
        flight.fill()
        while flight.next_out < flight.submitted:
            position = flight.next_out
            yield position, flight.take()
            if on_progress is not None or window is None:
                workers = flight.poll_workers()
                if on_progress is not None:
                    on_progress(flight.next_out, workers)
            flight.fill()
    finally:
        flight.cancel()


def _result(future: Any) -> Result:
    """A finished task's result; a task that raised or whose workers kept dying becomes a
    :class:`ScoreFailure` naming why."""
    try:
        result: Result = future.result()
        return result
    except Exception as exc:  # the set's failure is reported, the run goes on
        log.debug("task %s failed", future.key, exc_info=True)
        return ScoreFailure(f"could not be scored on the cluster: {type(exc).__name__}: {exc}")


__all__ = [
    "Result",
    "check_workers",
    "connect",
    "live_workers",
    "parse_scheduler",
    "score_distributed",
]
