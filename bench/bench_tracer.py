"""Tracing cost per counted opcode, per interpreter and mechanism.

Runs a loop-heavy function (our own benchmark code, not a candidate) untraced and traced
with ``codequorum.sandbox.tracer`` in a fresh ``python -I -S`` process per interpreter,
and reports microseconds per counted opcode and the ratio to untraced execution.

    .venv/bin/python bench/bench_tracer.py [--n 200000] [--repeat 5] [--json]

Interpreters: this one (3.11: ``settrace``) and, when present, 3.12 / 3.13 under pyenv
(``monitoring`` and ``settrace``). Override with ``--python PATH`` (repeatable).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

TRACER = Path(__file__).resolve().parent.parent / "server" / "codequorum" / "sandbox" / "tracer.py"
DEFAULT_PYTHONS = [
    sys.executable,
    "/root/.pyenv/versions/3.12.1/bin/python3.12",
    "/root/.pyenv/versions/3.13.0/bin/python3.13",
]
WORKLOAD = """
def work(n):
    total = 0
    seen = []
    for i in range(n):
        if i % 3 == 0:
            total += i * 2
        else:
            total -= 1
        if i % 1000 == 0:
            seen.append(total)
    return total, len(seen)
"""


def worker(mode: str, n: int, repeat: int) -> dict[str, Any]:
    """Inside the measured interpreter: time untraced and traced runs."""
    spec = importlib.util.spec_from_file_location("_bench_tracer", TRACER)
    assert spec is not None and spec.loader is not None
    tracer_mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tracer_mod)
    code = compile(WORKLOAD, "<bench>", "exec")
    namespace: dict[str, Any] = {}
    exec(code, namespace)  # the benchmark's own fixed workload
    work = namespace["work"]
    work(n // 10)  # warm up (specialisation)
    tracer = tracer_mod.OpcodeTracer(mode)
    tracer.register(code)
    plain, times = [], []
    counted = 0
    for _ in range(repeat):  # interleaved, so load changes hit both sides alike
        plain.append(_timed(lambda: work(n)))
        tracer.start()
        started = time.perf_counter()
        work(n)
        elapsed = time.perf_counter() - started
        tracer.stop()
        counted = sum(tracer.take().values())
        times.append(elapsed)
    tracer.close()
    untraced = min(plain)
    traced = min(times)
    return {
        "python": ".".join(map(str, sys.version_info[:3])),
        "mode": mode,
        "opcodes": counted,
        "untraced_s": untraced,
        "traced_s": traced,
        "us_per_opcode": (traced - untraced) / counted * 1e6,
        "us_per_opcode_total": traced / counted * 1e6,
        "ratio": traced / untraced,
    }


def _timed(fn: Any) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--python", action="append", help="interpreter path (repeatable)")
    parser.add_argument("--json", action="store_true", help="print JSON rows")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.n, args.repeat)))
        return
    rows = []
    for python in args.python or DEFAULT_PYTHONS:
        if not os.path.exists(python):
            continue
        probe = subprocess.run(
            [python, "-c", "import sys; print(int(hasattr(sys, 'monitoring')))"],
            capture_output=True,
            text=True,
            check=True,
        )
        modes = ["monitoring", "settrace"] if probe.stdout.strip() == "1" else ["settrace"]
        for mode in modes:
            out = subprocess.run(
                [
                    python,
                    "-I",
                    "-S",
                    __file__,
                    "--worker",
                    mode,
                    "--n",
                    str(args.n),
                    "--repeat",
                    str(args.repeat),
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            rows.append(json.loads(out.stdout))
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(
        f"{'python':8} {'mode':11} {'opcodes':>9} {'untraced ms':>12} {'traced ms':>10} "
        f"{'us/opcode':>10} {'ratio':>7}"
    )
    for r in rows:
        print(
            f"{r['python']:8} {r['mode']:11} {r['opcodes']:9d} {r['untraced_s'] * 1e3:12.1f} "
            f"{r['traced_s'] * 1e3:10.1f} {r['us_per_opcode']:10.3f} {r['ratio']:7.1f}"
        )


if __name__ == "__main__":
    main()
