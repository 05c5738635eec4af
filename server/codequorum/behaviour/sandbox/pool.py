"""Independent jobs on a few threads: results in input order, progress as each one ends.

Each job is one sandboxed candidate, which spends its time in a child process; threads
only wait on it. Used by :func:`codequorum.behaviour.sandbox.run_candidates` (the versions of one
set) and by the dynamic analysis (the versions of many sets on one pool, so a slow
version holds one worker and the others move on to the next set).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def run_pool(
    items: Sequence[T],
    work: Callable[[T], R],
    workers: int,
    progress: Callable[[int, int], None] | None = None,
    name: str = "sandbox",
) -> list[R]:
    """``[work(item) for item in items]`` on up to ``workers`` threads.

    ``progress(done, total)`` is called after each job, from the thread that ran it. An
    exception from ``work`` is raised here once the running jobs end.
    """
    total = len(items)
    results: dict[int, R] = {}
    lock = threading.Lock()
    finished = 0

    def one(i: int) -> None:
        nonlocal finished
        result = work(items[i])
        with lock:
            results[i] = result
            finished += 1
            count = finished
        if progress is not None:
            progress(count, total)

    threads = max(1, min(workers, total or 1))
    if threads == 1:
        for i in range(total):
            one(i)
    else:
        with ThreadPoolExecutor(max_workers=threads, thread_name_prefix=name) as pool:
            for future in [pool.submit(one, i) for i in range(total)]:
                future.result()
    return [results[i] for i in range(total)]


__all__ = ["run_pool"]
