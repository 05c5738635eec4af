"""The portable level over the ``process`` channel (``processes.py``): the host's logic in
the runner, the guests in one process of their own (``instance.py --serve``); every
system's channel, forced here on Linux. Real wasmtime, real guests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codequorum.behaviour.sandbox.limits import Limits
from codequorum.behaviour.sandbox.portable import channel, endings, processes
from codequorum.behaviour.sandbox.portable import interpreter as wasm
from codequorum.behaviour.sandbox.supervisor import encode_test, run_candidates
from codequorum.cli.main import main
from codequorum.core.model import TestCase as Case

SQUARE = [Case("call", args=(3,), expected=9, has_expected=True)]
GOOD = "def sq(n):\n    return n * n\n"


@pytest.fixture(autouse=True)
def _forced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(channel.FORCE, channel.PROCESS)


def _host_args() -> list[str]:
    compiled = wasm.compiled_module()
    return ["--compiled", str(compiled), "--runtime", str(wasm.stdlib_root(compiled)),
            "--bundle", str(wasm.harness_bundle(compiled))]


def test_a_failing_version_ends_only_its_own_guest() -> None:
    bombs = ["def sq(n):\n    while True:\n        pass\n",  # its CPU time
             "def sq(n):\n    return [0] * (1 << 30)\n",  # the store's memory cap
             "import os\ndef sq(n):\n    os._exit(3)\n"]  # the guest's own end
    results = run_candidates([GOOD, *bombs, GOOD], SQUARE, "sq",
                             Limits(cpu_seconds=1.0, memory_mb=128), jobs=2,
                             sandbox="portable")
    assert [r.status for r in results] == ["ok", "timeout", "memory", "exit", "ok"]
    assert results[1].detail == "CPU limit of 1s"
    assert results[4].tests[0].passed
    assert {r.start_method for r in results} == {"process"}


def test_the_fresh_guest_after_an_overrun_starts_no_process_ahead() -> None:
    """The tests after an overrun run in a guest started for the budget left, which no other
    version will ask for: one process for it, none waiting for it, and the guests waiting
    for the versions' own limits are kept (each would cost a process on the cores the
    version's next tests need)."""
    processes.shutdown()
    code = "def sq(n):\n    while n == 3:\n        pass\n    return n * n\n"
    tests = [*SQUARE, Case("call", args=(4,), expected=16, has_expected=True)]
    first = run_candidates([GOOD], tests, "sq", Limits(test_seconds=0.5), sandbox="portable")
    shared = processes.shared_for(_host_args())
    before = {key: list(queue) for key, queue in shared.pool._guests.items()}
    result = run_candidates([code], tests, "sq", Limits(test_seconds=0.5),
                            sandbox="portable")[0]
    assert first[0].status == "ok"
    assert result.detail == "per-test limit of 0.5s on 1 of 2 tests"
    assert [(t.exc_type, t.passed) for t in result.tests] == [("Timeout", False), (None, True)]
    assert list(shared.pool._guests) == list(before)  # no key for the budget left
    assert all(len(queue) == processes.host_module().warm.WAITING
               for queue in shared.pool._guests.values())
    processes.shutdown()


def test_no_guest_outlives_the_runner() -> None:
    check = Case("check", source="def check(candidate):\n    assert candidate(2) == 4\n")
    results = run_candidates([GOOD] * 3, [check, *SQUARE], "sq", jobs=2, sandbox="portable")
    assert [[t.passed for t in r.tests] for r in results] == [[True, True]] * 3
    shared = processes.shared_for(_host_args())
    waiting = [g for queue in shared.pool._guests.values() for g in queue]
    assert len(waiting) >= 2  # a version's guests and a grader's, started ahead
    server = shared.server  # one process runs them all
    assert server.alive() and not any(g.ended.is_set() for g in waiting)
    processes.shutdown()
    assert server.proc.wait(10) is not None
    assert all(g.ended.wait(10) for g in waiting)
    assert not Path(shared.folder).exists()


STRIP = '''
import os, runpy, select, selectors, socket, sys

def strip():
    """What Windows lacks, gone (CPython's own POSIX code in subprocess keeps its own)."""
    for module, names in ((os, ("wait4", "waitid", "mkfifo", "killpg", "getuid", "fork",
                                "pidfd_open", "setsid")),
                          (socket, ("send_fds", "recv_fds", "AF_UNIX")),
                          (select, ("poll",))):
        for name in names:
            if hasattr(module, name):
                delattr(module, name)
    for name in ("fcntl", "resource", "termios"):
        sys.modules[name] = None

    def refused(*_args, **_kwargs):
        raise RuntimeError("selectors on pipes")

    selectors.DefaultSelector = refused

strip()
if sys.argv[1:2] == ["--as-host"]:  # the guest server, as the runner starts it
    sys.argv = sys.argv[2:]
    runpy.run_path(sys.argv[0], run_name="__main__")
'''

RUN = '''
import json
import os
from codequorum.behaviour.sandbox.limits import Limits
from codequorum.cli.main import main
from codequorum.behaviour.sandbox.portable import channel, endings, processes
from codequorum.behaviour.sandbox.supervisor import run_candidate
from codequorum.core.model import TestCase as Case

guest_file = processes.host_module().Served.launcher[-1]  # instance.py, the guest server
processes.host_module().Served.launcher = [sys.executable, "-I", "-B", __file__,
                                           "--as-host", guest_file]
check = "def check(candidate):\\n    assert candidate(2) == 4\\n    assert candidate(3) == 9\\n"
tests = [Case("check", source=check), Case("call", args=(3,), expected=9, has_expected=True),
         Case("call", args=(-1,))]
code = "def sq(n):\\n    while n < 0:\\n        pass\\n    return n * n\\n"
result = run_candidate(code, tests, "sq", Limits(test_seconds=0.5), sandbox="portable")
print(json.dumps({"channel": channel.current(), "status": result.status,
                  "method": result.start_method,
                  "tests": [[t.passed, t.exc_type] for t in result.tests]}))
'''


def test_the_process_channel_needs_nothing_posix_only(tmp_path: Path) -> None:
    script = tmp_path / "without_posix.py"
    script.write_text(STRIP + RUN, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != channel.FORCE}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"channel": "process", "status": "timeout", "method": "process",
                    "tests": [[True, None], [True, None], [None, "Timeout"]]}


def test_humaneval_sets_score_the_same_over_both_channels(
        tmp_path: Path, shared_dir: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    wanted = ("HumanEval/0", "HumanEval/2", "HumanEval/7")
    with (shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl").open() as fh:
        tasks = [t for t in map(json.loads, fh) if t["task_id"] in wanted]
    rows = [{"task_id": t["task_id"], "samples": [t["prompt"] + s for s in t["samples"][:3]]}
            for t in tasks]
    path = tmp_path / "sets.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    reports = {}
    for way in (channel.HOST, channel.PROCESS):
        monkeypatch.setenv(channel.FORCE, way)
        code = main(["score", str(path), "--problems", "humaneval", "--dynamic", "--sandbox",
                     "portable", "--format", "json", "--no-tsed", "--jobs", "2"])
        assert code == 0
        reports[way] = capsys.readouterr().out
    document = json.loads(reports[channel.PROCESS])
    assert [s["task_id"] for s in document["sets"]] == list(wanted)
    assert all(s["dynamic"] is not None for s in document["sets"])
    if not any(_timed_out(json.loads(r)) for r in reports.values()):
        assert reports[channel.HOST] == reports[channel.PROCESS]
        return
    # a busy machine stopped some test at its time limit in one run: its counts stop there
    # (DCTD, BEF); what comes before any run is still the same
    host = json.loads(reports[channel.HOST])
    for a, b in zip(host["sets"], document["sets"], strict=True):
        assert {k: v for k, v in a["summary"].items() if k.startswith(("sce", "jsd"))} == \
            {k: v for k, v in b["summary"].items() if k.startswith(("sce", "jsd"))}


def _timed_out(document: dict[str, Any]) -> bool:
    """Whether a version of any set ran out of time on some input."""
    text = json.dumps([s["dynamic"] for s in document["sets"]])
    return '"timeout"' in text


def test_a_guest_process_that_cannot_start_says_why(tmp_path: Path) -> None:
    args = _host_args()
    args[1] = str(tmp_path / "missing.cwasm")  # no compiled interpreter there
    run = {"type": "run", "code": GOOD, "tests": [encode_test(SQUARE[0])],
           "entry_point": "sq", "limits": Limits().to_dict(), "trace": True}
    events: list[tuple[str, bytes]] = []
    version = processes.Version(args, run, {}, lambda kind, data: events.append((kind, data)))
    code, stderr = version.wait()
    assert code == endings.HOST_ERROR
    assert b"portable sandbox: RuntimeError: WasmtimeError" in stderr
    assert b"failed to open file" in stderr
    assert events == [("exited", b"")]  # nothing was run, nothing was said
