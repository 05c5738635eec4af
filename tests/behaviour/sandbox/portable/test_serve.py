"""One long-lived portable host per run: versions on threads, each in a store of its own."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest

from codequorum.behaviour.sandbox import forkserver
from codequorum.behaviour.sandbox.limits import Limits
from codequorum.behaviour.sandbox.portable import interpreter as wasm
from codequorum.behaviour.sandbox.supervisor import CandidateResult, run_candidate, run_candidates
from codequorum.core.model import TestCase as Case

SQUARE = [Case("call", args=(3,), expected=9, has_expected=True)]
GOOD = "def sq(n):\n    return n * n\n"
#: Guest work of a few seconds, well inside its own limits.
BUSY = ("def sq(n):\n    total = 0\n    for i in range(200_000):\n        total += i % 7\n"
        "    return n * n + total - total\n")


def _host_pid() -> int:
    """The pid of the running portable host for this session's cache."""
    compiled = wasm.compiled_module()
    args = ["--compiled", str(compiled), "--runtime", str(wasm.stdlib_root(compiled)),
            "--bundle", str(wasm.harness_bundle(compiled))]
    server = forkserver._servers[(forkserver.PORTABLE + "\0".join(args), False)]
    assert server.alive()
    return server.proc.pid


def test_versions_of_a_run_share_one_host_and_a_failing_one_ends_only_itself() -> None:
    bombs = ["def sq(n):\n    while True:\n        pass\n",  # its CPU time
             "def sq(n):\n    return [0] * (1 << 30)\n",  # the store's memory cap
             "import os\ndef sq(n):\n    os._exit(3)\n"]  # the guest's own end
    results = run_candidates([GOOD, *bombs, GOOD], SQUARE, "sq",
                             Limits(cpu_seconds=1.0, memory_mb=128), jobs=2,
                             sandbox="portable")
    pid = _host_pid()
    assert results[0].status == "ok"
    assert (results[1].status, results[1].detail) == ("timeout", "CPU limit of 1s")
    assert results[2].status == "memory"
    assert results[3].status == "exit"
    assert results[4].status == "ok" and results[4].tests[0].passed
    assert all(r.start_method == "fork" for r in results)  # served, not a host each
    assert run_candidate(GOOD, SQUARE, "sq", sandbox="portable").status == "ok"
    assert _host_pid() == pid  # the same host served the next run too


def test_a_test_stopped_for_its_time_leaves_the_version_beside_it_running() -> None:
    results: dict[str, CandidateResult] = {}

    def one(name: str, code: str, limits: Limits) -> None:
        results[name] = run_candidate(code, SQUARE, "sq", limits, sandbox="portable")

    roomy = Limits(test_seconds=60.0, wall_seconds=120.0)
    threads = [threading.Thread(target=one, args=("busy", BUSY, roomy)),
               threading.Thread(target=one, args=(
                   "loop", "def sq(n):\n    while True:\n        pass\n",
                   Limits(test_seconds=0.3, cpu_seconds=60.0)))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results["loop"].status == "timeout"
    assert [t.exc_type for t in results["loop"].tests] == ["Timeout"]
    assert results["busy"].status == "ok", results["busy"].detail
    assert results["busy"].tests[0].passed


def test_a_host_that_died_is_started_again_for_the_next_version() -> None:
    assert run_candidate(GOOD, SQUARE, "sq", sandbox="portable").status == "ok"
    pid = _host_pid()
    for server in list(forkserver._servers.values()):
        if server.proc.pid == pid:
            server.proc.kill()
            server.proc.wait()
    result = run_candidate(GOOD, SQUARE, "sq", sandbox="portable")
    assert result.status == "ok" and result.tests[0].passed
    assert _host_pid() != pid


def test_a_version_never_sees_what_the_one_before_it_left() -> None:
    code = ("import builtins, sys\ndef f(n):\n"
            "    seen = (getattr(builtins, 'mark', None), 'left' in sys.modules)\n"
            "    builtins.mark = n\n    sys.modules['left'] = sys\n    return seen\n")
    outputs = [run_candidate(code, [Case("call", args=(k,))], "f", sandbox="portable")
               .tests[0].output for k in range(4)]
    assert outputs == ["(None, False)"] * 4


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_host_serving_many_versions_with_checks_holds_its_descriptors() -> None:
    check = Case("check", source="def check(candidate):\n    assert candidate(2) == 4\n")

    def batch() -> int:
        results = run_candidates([GOOD] * 12, [check, *SQUARE], "sq", jobs=2,
                                 sandbox="portable")
        assert [(r.status, [t.passed for t in r.tests]) for r in results] == [
            ("ok", [True, True])] * 12
        return _settled_descriptors(_host_pid())

    # A leak of one descriptor a version puts every later batch 12 or more above the first;
    # guests started ahead for the next run add a few at one moment or another, never to all.
    first = batch()
    later = [batch() for _ in range(3)]
    assert min(later) <= first + 8, (first, later)  # stores and their files are freed


def _settled_descriptors(pid: int) -> int:
    """The host's open descriptors once their count holds still for half a second (guests
    started ahead for the next run come and go for a moment after a run; at most 15 s)."""
    deadline = time.monotonic() + 15
    last = len(os.listdir(f"/proc/{pid}/fd"))
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = len(os.listdir(f"/proc/{pid}/fd"))
        if now == last:
            return now
        last = now
    return last
