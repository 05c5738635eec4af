"""The job pool: results in input order, progress per job, errors raised."""

from __future__ import annotations

import threading
import time

import pytest

from codequorum.behaviour.sandbox.pool import run_pool


@pytest.mark.parametrize("workers", [1, 3])
def test_results_in_input_order_and_progress_per_job(workers: int) -> None:
    seen: list[tuple[int, int]] = []
    lock = threading.Lock()

    def progress(done: int, total: int) -> None:
        with lock:
            seen.append((done, total))

    def work(x: int) -> int:
        time.sleep(0.01 * (5 - x))  # later jobs end first
        return x * x

    assert run_pool([1, 2, 3, 4], work, workers, progress) == [1, 4, 9, 16]
    assert sorted(seen) == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_runs_on_at_most_the_workers_asked() -> None:
    running = 0
    most = 0
    lock = threading.Lock()

    def work(_: int) -> None:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.02)
        with lock:
            running -= 1

    run_pool(range(8), work, 2)
    assert most == 2
    assert run_pool([], work, 4) == []


def test_an_error_in_a_job_is_raised() -> None:
    def work(x: int) -> int:
        if x == 2:
            raise ValueError("job 2")
        return x

    with pytest.raises(ValueError, match="job 2"):
        run_pool([1, 2, 3], work, 2)
