"""What a hostile repository carries, and how a run is judged from the outside: the real
``codequorum`` in a child process, its exit status, its lines, its own peak memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
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


def run_cli(args: Sequence[str], cwd: Path | None = None, timeout: float = SECONDS,
            stdin: bytes | None = None) -> Outcome:
    """``codequorum ARGS`` in a child process, killed after ``timeout`` seconds."""
    proc = subprocess.Popen([sys.executable, "-m", "codequorum", *args], cwd=cwd,
                            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "NO_COLOR": "1"})
    chunks: dict[str, bytes] = {}

    def drain(name: str, stream: Any) -> None:
        chunks[name] = stream.read()

    readers = [threading.Thread(target=drain, args=(name, stream), daemon=True)
               for name, stream in (("out", proc.stdout), ("err", proc.stderr))]
    for reader in readers:
        reader.start()
    if stdin is not None and proc.stdin is not None:
        proc.stdin.write(stdin)
        proc.stdin.close()
    timer = threading.Timer(timeout, proc.kill)
    start = time.perf_counter()
    timer.start()
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    finally:
        timer.cancel()
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    for reader in readers:
        reader.join()
    return Outcome(proc.returncode, chunks.get("out", b"").decode("utf-8", "replace"),
                   chunks.get("err", b"").decode("utf-8", "replace"),
                   usage.ru_maxrss / 1024, seconds)


def write_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> Path:
    """Rows as JSON Lines."""
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def scored_ids(outcome: Outcome) -> list[str]:
    """The task ids of the sets in a ``--format json`` report on standard output."""
    return [s["task_id"] for s in json.loads(outcome.out)["sets"]]
