"""What a hostile repository carries, and how a run is judged from the outside: the real
``codequorum`` in a child process, its exit status, its lines, its own peak memory."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Generous bounds a hostile input must stay under (the documented bound is 1 GiB).
PEAK_MB = 1024.0
SECONDS = 300.0

#: A set that must still be scored after a hostile one.
GOOD: dict[str, Any] = {
    "task_id": "good",
    "samples": [
        "def f(x):\n    return x + 1\n",
        "def f(x):\n    return 1 + x\n",
        "def f(x):\n    y = x\n    return y + 1\n",
    ],
}

#: Versions nested past every parser's stack, one per construct and language:
#: (language, code). Each is within the size bound, so only nesting refuses it.
DEEP_VERSIONS: dict[str, tuple[str, str]] = {
    "brackets": ("python", "def f():\n    return " + "(" * 100_000 + "1" + ")" * 100_000 + "\n"),
    "plus chain": ("python", "def f():\n    return 1" + " + 1" * 100_000 + "\n"),
    "unary chain": ("python", "def f():\n    return " + "-" * 100_000 + "1\n"),
    "attribute chain": ("python", "def f(x):\n    return x" + ".a" * 100_000 + "\n"),
    "call chain": ("python", "def f(g):\n    return g" + "()" * 100_000 + "\n"),
    "lists": ("python", "def f():\n    return " + "[" * 50_000 + "]" * 50_000 + "\n"),
    "lambdas": ("python", "def f():\n    return " + "lambda: " * 20_000 + "1\n"),
    "js arrays": ("javascript", "function f() { return " + "[" * 50_000 + "]" * 50_000 + "; }\n"),
    "js blocks": ("javascript", "function f() " + "{" * 50_000 + "}" * 50_000 + "\n"),
    "c parens": ("c", "int f(void) { return " + "(" * 50_000 + "1" + ")" * 50_000 + "; }\n"),
    "rust chain": ("rust", "fn f() -> i32 { 1" + " + 1" * 50_000 + " }\n"),
}


@dataclass(frozen=True)
class Outcome:
    """One finished child: exit status, what it printed, its peak resident memory (MB,
    from the kernel's accounting of that child alone) and its wall time."""

    status: int
    out: str
    err: str
    peak_mb: float
    seconds: float

    @property
    def error_lines(self) -> list[str]:
        """The ``codequorum: error:`` lines on standard error."""
        return [line for line in self.err.splitlines() if line.startswith("codequorum: error:")]

    def bounded(self) -> None:
        """Assert what every hostile run must give: a normal exit (no signal, no
        traceback), within the memory and time bounds."""
        assert self.status in (0, 1, 2), (self.status, self.err[-2000:])
        assert "Traceback" not in self.err, self.err[-2000:]
        assert self.peak_mb < PEAK_MB, self.peak_mb
        assert self.seconds < SECONDS, self.seconds


_warm = threading.Lock()
_warmed: list[bool] = []


def _warm_up() -> None:
    """Score one ordinary set once per test session before any measured run: the first
    scoring on a fresh checkout compiles (and caches on disk) the metrics' numba kernels,
    which alone adds about 200 MB to that process's peak; the bounds are about the input."""
    with _warm:
        if _warmed:
            return
        _warmed.append(True)
        subprocess.run([sys.executable, "-m", "codequorum", "score", "-", "--format", "json"],
                       input=json.dumps(GOOD).encode(), capture_output=True, timeout=SECONDS,
                       check=False)


#: Starts ``python -m codequorum ARGS`` as its own child and writes that child's peak
#: resident memory (KiB) to the file named first. A child forked straight from the test
#: process would carry the test process's size in ``ru_maxrss``, which Linux keeps across
#: ``exec``; forked from this small launcher it carries only the launcher's few MB.
_LAUNCHER = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.executable, [sys.executable, "-m", "codequorum", *sys.argv[2:]])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as fh:
    fh.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_cli(args: Sequence[str], cwd: Path | None = None, timeout: float = SECONDS,
            stdin: bytes | None = None) -> Outcome:
    """``codequorum ARGS`` in a child process (its process group killed after ``timeout``
    seconds), after one ordinary run per session (:func:`_warm_up`)."""
    _warm_up()
    with tempfile.TemporaryDirectory() as scratch:
        peak_file = Path(scratch) / "peak"
        proc = subprocess.Popen(
            [sys.executable, "-c", _LAUNCHER, str(peak_file), *args], cwd=cwd,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
            env={**os.environ, "NO_COLOR": "1"})
        start = time.perf_counter()
        try:
            out, err = proc.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
        seconds = time.perf_counter() - start
        peak_kib = int(peak_file.read_text() or 0) if peak_file.exists() else 0
    return Outcome(proc.returncode, out.decode("utf-8", "replace"),
                   err.decode("utf-8", "replace"), peak_kib / 1024, seconds)


def write_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> Path:
    """Rows as JSON Lines."""
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def scored_ids(outcome: Outcome) -> list[str]:
    """The task ids of the sets in a ``--format json`` report on standard output."""
    return [s["task_id"] for s in json.loads(outcome.out)["sets"]]
