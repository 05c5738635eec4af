"""Benchmark: peak memory and time of ``codequorum score`` on hostile inputs, against a
normal set.

Each case is one input file scored by the installed ``codequorum score`` in a child process
(``--format json``), whose peak resident memory is read from the kernel when it ends
(``os.wait4``: that child's own ``ru_maxrss``). Cases: ten HumanEval sets (the normal
path), versions nested 200,000 brackets deep, a 200,000-term ``+ 1`` chain, a 10 MB
version, the heaviest set the bounds admit (four distinct versions of about 1 MB: the
4 MB a set may hold), the same with ``--textual``, one JSONL line of 200,000 nested
arrays, a bigcode ``generations.json`` nested as deep, a 100 MB line, and a gzip of
300 MB of sets (more than ``score`` holds at once). Each hostile file has a good set, which
must be scored.

The bound it checks (docs/cli.md, "Limits"): every case, any input line up to the 32 MB
line limit, scores or is refused in under 1 GiB peak, and the other sets are scored.
Exits 1 when a case breaks it.

Run: .venv/bin/python bench/bench_hostile_inputs.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reference_data import DATA, open_text

BOUND_MB = 1024.0
GOOD: dict[str, object] = {"task_id": "good",
                           "samples": ["def f(x):\n    return x + 1\n",
                                       "def f(x):\n    return 1 + x\n",
                                       "def f(x):\n    y = x\n    return y + 1\n"]}


@dataclass(frozen=True)
class Outcome:
    """One child run: exit status, peak resident memory (MB), wall seconds, sets scored,
    error lines."""

    status: int
    peak_mb: float
    seconds: float
    scored: int
    errors: list[str]


def run_child(args: list[str]) -> Outcome:
    """``codequorum score ARGS --format json`` in a child process; its own peak memory."""
    script = Path(sys.executable).parent / "codequorum"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        start = time.perf_counter()
        proc = subprocess.Popen([str(script), "score", *args, "--format", "json", "-o", str(out),
                                 "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        assert proc.stderr is not None
        err = proc.stderr.read().decode("utf-8", "replace")
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - start
        scored = len(json.loads(out.read_text())["sets"]) if out.exists() else 0
    return Outcome(proc.returncode, usage.ru_maxrss / 1024, seconds, scored,
                   [line for line in err.splitlines() if line.strip()])


def _jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    return path


def normal(folder: Path) -> Path:
    """Ten HumanEval sets of 100 versions each, as they come."""
    with open_text(DATA) as f:
        lines = [next(f) for _ in range(10)]
    path = folder / "normal.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    return path


def nested(folder: Path) -> Path:
    deep = "def f():\n    return " + "(" * 200_000 + "1" + ")" * 200_000 + "\n"
    return _jsonl(folder / "nested.jsonl", [{"task_id": "nested", "samples": [deep, deep]},
                                            GOOD])


def chain(folder: Path) -> Path:
    long = "def f():\n    return 1" + " + 1" * 200_000 + "\n"
    return _jsonl(folder / "chain.jsonl", [{"task_id": "chain", "samples": [long, long + "\n"]},
                                           GOOD])


def huge(folder: Path) -> Path:
    big = "def f(x):\n" + "    x = x + 1\n" * (10_000_000 // 14)
    return _jsonl(folder / "huge.jsonl", [{"task_id": "huge", "samples": [big, big, big]},
                                          GOOD])


def heaviest(folder: Path) -> Path:
    """Four distinct versions of just under 1 MB: the most a set may hold."""
    codes = ["def f(x):\n" + f"    x = [{', '.join(f'a{i}_{k}' for i in range(95_000))}]\n"
             for k in range(4)]
    assert all(len(c) < 1024 * 1024 for c in codes)
    return _jsonl(folder / "heaviest.jsonl", [{"task_id": "heaviest", "samples": codes}, GOOD])


def deep_json(folder: Path) -> Path:
    path = folder / "deep.jsonl"
    path.write_text('{"task_id": "deep", "samples": ' + "[" * 200_000 + "]" * 200_000 + "}\n"
                    + json.dumps(GOOD) + "\n", encoding="utf-8")
    return path


def deep_bigcode(folder: Path) -> Path:
    path = folder / "generations.json"
    path.write_text("[" + json.dumps(GOOD["samples"]) + ", " + "[" * 200_000
                    + "]" * 200_000 + "]", encoding="utf-8")
    return path


def long_line(folder: Path) -> Path:
    path = folder / "long.jsonl"
    with path.open("w", encoding="utf-8") as f:
        f.write('{"task_id": "long", "samples": ["')
        chunk = "x" * (1 << 20)
        for _ in range(100):
            f.write(chunk)
        f.write('"]}\n' + json.dumps(GOOD) + "\n")
    return path


def many_lines(folder: Path) -> Path:
    """200 lines of 1.5 MB sets, gzipped: 300 MB of text, more than score holds at once."""
    path = folder / "many.jsonl.gz"
    line = (json.dumps({"task_id": "t", "samples": ["#" * 1_500_000, "x = 1"]}) + "\n").encode()
    with gzip.open(path, "wb", compresslevel=6) as f:
        f.write(json.dumps(GOOD).encode() + b"\n")
        for _ in range(200):
            f.write(line)
    return path


CASES: list[tuple[str, Callable[[Path], Path], list[str]]] = [
    ("normal: 10 HumanEval sets", normal, []),
    ("nested brackets, 200,000 deep", nested, []),
    ("a 200,000-term + 1 chain", chain, []),
    ("three 10 MB versions", huge, []),
    ("4 x 1 MB versions (the most admitted)", heaviest, []),
    ("the same, --textual", heaviest, ["--textual"]),
    ("a JSONL line nested 200,000 deep", deep_json, []),
    ("generations.json nested 200,000 deep", deep_bigcode, []),
    ("a 100 MB line", long_line, []),
    ("300 MB of 1.5 MB sets, gzipped", many_lines, []),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="write the inputs here and keep them")
    parser.add_argument("--smoke", action="store_true",
                        help="the normal case (3 versions a set) and one hostile line")
    args = parser.parse_args()
    cases = CASES
    if args.smoke:
        cases = [(CASES[0][0], normal, ["--limit", "1", "--samples", "3"]), CASES[6]]
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        rows: list[tuple[str, Outcome]] = []
        for title, make, extra in cases:
            outcome = run_child([str(make(folder)), *extra])
            rows.append((title, outcome))
    base = rows[0][1].peak_mb
    print(f"{'case':40} {'status':>6} {'peak MB':>8} {'x normal':>8} {'seconds':>8} "
          f"{'scored':>6}  first error")
    failed = False
    for title, o in rows:
        first = o.errors[0][:90] if o.errors else ""
        print(f"{title:40} {o.status:>6} {o.peak_mb:>8.0f} {o.peak_mb / base:>8.2f} "
              f"{o.seconds:>8.1f} {o.scored:>6}  {first}")
        hostile = title != rows[0][0]
        if o.peak_mb >= BOUND_MB or (hostile and o.scored < 1) or o.status not in (0, 1):
            failed = True
    print(f"bound: peak < {BOUND_MB:.0f} MB and the good set scored in every case: "
          f"{'broken' if failed else 'held'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
