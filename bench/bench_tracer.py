"""Tracing cost per counted opcode, per interpreter and mechanism.

Runs a loop-heavy function (our own benchmark code, not a candidate) untraced and traced
with ``codequorum.behaviour.sandbox.tracer`` in a fresh ``python -I -S`` process per interpreter,
in every mode the interpreter has (``settrace-opcodes``, one event per opcode, is the
baseline the other modes are measured against), interleaved, and reports nanoseconds per
counted opcode and the ratio to untraced execution.

    .venv/bin/python bench/bench_tracer.py [--n 20000] [--repeat 25] [--json]
    .venv/bin/python bench/bench_tracer.py --start 20   # cost of starting a child
    .venv/bin/python bench/bench_tracer.py --module 20  # cost of running in a module
    .venv/bin/python bench/bench_tracer.py --smoke      # all three, tiny, this interpreter

``--start N`` times N trivial candidates per start method (fork server vs a fresh
interpreter) and sandbox level (strict vs weak), interleaved in this process, and reports
the median milliseconds per candidate and what the strict level adds to the fork server.

``--module N`` times N candidates (strict, fork server) alone, in a small module (``re``,
``bisect``, a constant) and in a module that imports 50 workspace modules (a 51-file view),
interleaved, and reports the median milliseconds per candidate and what each adds.

Interpreters: this one (3.11: ``counters`` compiled into a copy of the bytecode, and
``settrace`` counting straight runs) and, when present, 3.12 / 3.13 under pyenv
(``monitoring`` and ``settrace``). Override with ``--python PATH``
(repeatable).
"""

from __future__ import annotations

import argparse
import dis
import importlib.util
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

SERVER = Path(__file__).resolve().parent.parent / "server"
TRACER = SERVER / "codequorum" / "behaviour" / "sandbox" / "tracer.py"
BLOCKS = TRACER.with_name("block_counts.py")
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


def worker(modes: list[str], n: int, repeat: int) -> list[dict[str, Any]]:
    """Inside the measured interpreter: time untraced runs and runs traced in each of
    ``modes``, interleaved (so load changes hit every variant alike)."""
    tracer_mod, blocks = _load("_bench_tracer", TRACER), _load("_bench_blocks", BLOCKS)
    code = compile(WORKLOAD, "<bench>", "exec")
    namespace: dict[str, Any] = {}
    exec(code, namespace)  # the benchmark's own fixed workload
    work = namespace["work"]
    work(n // 10)  # warm up (specialisation)
    tracers = {mode: tracer_mod.OpcodeTracer(mode, blocks) for mode in modes}
    runs = {}
    for mode, tracer in tracers.items():
        space: dict[str, Any] = {}
        exec(tracer.register(code), space)  # ``counters``: a copy with counters in it
        runs[mode] = space["work"]
        runs[mode](n // 10)
    plain: list[float] = []
    traced: dict[str, list[float]] = {mode: [] for mode in modes}
    published: list[float] = []
    counted: dict[str, int] = {}
    for _ in range(repeat):
        plain.append(_timed(lambda: work(n)))
        for mode, tracer in tracers.items():
            tracer.start()
            started = time.perf_counter()
            runs[mode](n)
            traced[mode].append(time.perf_counter() - started)
            tracer.stop()
            counted[mode] = sum(tracer.take().values())
        published.append(_published_style(work, n, counted[modes[0]]))
    for tracer in tracers.values():
        tracer.close()
    if len(set(counted.values())) != 1:
        raise RuntimeError(f"the modes counted differently: {counted}")
    return [_row(mode, counted[mode], min(plain), min(traced[mode]), min(published))
            for mode in modes]


def _load(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _row(mode: str, counted: int, untraced: float, traced: float, baseline: float
         ) -> dict[str, Any]:
    return {
        "python": ".".join(map(str, sys.version_info[:3])),
        "mode": mode,
        "opcodes": counted,
        "untraced_s": untraced,
        "traced_s": traced,
        "published_style_s": baseline,
        "ns_per_opcode": (traced - untraced) / counted * 1e9,
        "published_style_ns_per_opcode": (baseline - untraced) / counted * 1e9,
        "ratio": traced / untraced,
        "speedup_vs_published_style": (baseline - untraced) / (traced - untraced),
    }


def _published_style(work: Any, n: int, expected: int) -> float:
    """The baseline: settrace on every frame, opname looked up and counted per opcode,
    with a deadline check per opcode (how the published pipeline traced)."""
    counter: Counter[str] = Counter()
    deadline = time.perf_counter() + 3600.0
    names = dis.opname
    clock = time.perf_counter

    def trace(frame: Any, event: str, arg: Any) -> Any:
        if event == "call":
            frame.f_trace = trace  # 3.12+: needed before f_trace_opcodes takes effect
            frame.f_trace_opcodes = True
        elif event == "opcode":
            counter[names[frame.f_code.co_code[frame.f_lasti]]] += 1
            if clock() > deadline:
                raise TimeoutError
        return trace

    here = sys._getframe()
    here.f_trace_opcodes = True  # 3.12: opcode events only if some frame asked first
    started = time.perf_counter()
    sys.settrace(trace)
    try:
        work(n)
    finally:
        sys.settrace(None)
    elapsed = time.perf_counter() - started
    here.f_trace_opcodes = False
    if sum(counter.values()) < expected:
        raise RuntimeError(f"baseline counted {sum(counter.values())} < {expected} opcodes")
    return elapsed


def child_start(count: int) -> dict[str, float]:
    """Milliseconds per trivial candidate, end to end, per start method and sandbox level
    (interleaved): ``strict`` is the default, ``weak`` the level without namespaces (the
    baseline the strict sandbox's cost is measured against)."""
    sys.path.insert(0, str(SERVER))
    from codequorum.behaviour.sandbox.supervisor import run_candidate
    from codequorum.core.model import TestCase

    tests = [TestCase("call", args=(3,), expected=9, has_expected=True)]
    code = "def f(n):\n    return n * n\n"
    kinds = [(m, level) for level in ("strict", "weak") for m in ("fork", "exec")]
    times: dict[str, list[float]] = {f"{m}/{level}": [] for m, level in kinds}
    for method, level in kinds:  # warm up: the fork servers start here
        run_candidate(code, tests, "f", start_method=method, sandbox=level)
    for _ in range(count):
        for method, level in kinds:
            started = time.perf_counter()
            result = run_candidate(code, tests, "f", start_method=method, sandbox=level)
            times[f"{method}/{level}"].append(time.perf_counter() - started)
            assert result.status == "ok" and result.start_method == method, result.detail
    out = {k: sorted(t)[len(t) // 2] * 1e3 for k, t in times.items()}
    out["fork: strict - weak"] = out["fork/strict"] - out["fork/weak"]
    return out


def module_start(count: int) -> dict[str, float]:
    """Milliseconds per candidate alone and in a module, strict sandbox, fork server
    (interleaved): what writing the view, importing the module and placing the version
    add to a run."""
    sys.path.insert(0, str(SERVER))
    from codequorum.behaviour.sandbox.supervisor import run_candidate
    from codequorum.core.model import ModuleContext, TestCase

    tests = [TestCase("call", args=("1h30m",), expected=5400, has_expected=True)]
    alone = ("import re\nUNITS = {'h': 3600, 'm': 60, 's': 1}\n"
             "def f(text):\n    return sum(int(a) * UNITS[u] for a, u in "
             "re.findall(r'(\\d+)([hms])', text))\n")
    version = alone.split("\n", 2)[2]
    small = "import re\nfrom bisect import insort\nUNITS = {'h': 3600, 'm': 60, 's': 1}\n"
    helpers = [(f"lib/m{i}.py", f"VALUE = {i}\n" + "def g(x):\n    return x\n" * 20)
               for i in range(50)]
    large = small + "".join(f"from lib.m{i} import VALUE as V{i}\n" for i in range(50))
    contexts = {
        "alone": None,
        "small module": ModuleContext("app", "app.py", "f", "function",
                                      (("app.py", small + version),), ("",)),
        "51-file view": ModuleContext("app", "app.py", "f", "function",
                                      (("app.py", large + version), ("lib/__init__.py", ""),
                                       *helpers), ("",)),
    }
    codes = {"alone": alone}
    times: dict[str, list[float]] = {k: [] for k in contexts}
    for name, module in contexts.items():  # warm up: the fork server starts here
        run_candidate(codes.get(name, version), tests, "f", module=module)
    for _ in range(count):
        for name, module in contexts.items():
            started = time.perf_counter()
            result = run_candidate(codes.get(name, version), tests, "f", module=module)
            times[name].append(time.perf_counter() - started)
            assert result.status == "ok" and result.tests[0].passed, result.detail
    out = {k: sorted(t)[len(t) // 2] * 1e3 for k, t in times.items()}
    out["small module - alone"] = out["small module"] - out["alone"]
    out["51-file view - alone"] = out["51-file view"] - out["alone"]
    return out


def _timed(fn: Any) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=25)
    parser.add_argument("--python", action="append", help="interpreter path (repeatable)")
    parser.add_argument("--json", action="store_true", help="print JSON rows")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--start", type=int, metavar="N", help="time N child starts instead")
    parser.add_argument("--module", type=int, metavar="N",
                        help="time N candidates alone and in a module instead")
    parser.add_argument("--smoke", action="store_true",
                        help="each measure once on a tiny input, this interpreter only")
    args = parser.parse_args()
    if args.smoke:
        args.n, args.repeat, args.python = 2000, 1, [sys.executable]
        print("\n".join(f"{k:22} {v:8.1f} ms" for k, v in child_start(1).items()))
        print("\n".join(f"{k:22} {v:8.1f} ms" for k, v in module_start(1).items()))
    if args.start or args.module:
        ms = child_start(args.start) if args.start else module_start(args.module)
        print(
            json.dumps(ms) if args.json else "\n".join(f"{k:22} {v:8.1f} ms" for k, v in ms.items())
        )
        return
    if args.worker:
        print(json.dumps(worker(args.worker.split(","), args.n, args.repeat)))
        return
    rows = []
    for python in args.python or DEFAULT_PYTHONS:
        if os.path.exists(python):
            rows.extend(_measure(python, args.n, args.repeat))
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(
        f"{'python':8} {'mode':16} {'opcodes':>8} {'untraced ms':>11} {'traced ms':>9} "
        f"{'ns/opcode':>9} {'x untraced':>10} {'published-style ns/op':>21} {'speed-up':>8}"
    )
    for r in rows:
        print(
            f"{r['python']:8} {r['mode']:16} {r['opcodes']:8d} {r['untraced_s'] * 1e3:11.1f} "
            f"{r['traced_s'] * 1e3:9.1f} {r['ns_per_opcode']:9.1f} {r['ratio']:10.1f} "
            f"{r['published_style_ns_per_opcode']:21.1f} {r['speedup_vs_published_style']:8.1f}"
        )


def _measure(python: str, n: int, repeat: int) -> list[dict[str, Any]]:
    """The rows of one interpreter: every mode it has, in one worker process."""
    probe = subprocess.run(
        [python, "-c", "import sys; print(int(hasattr(sys, 'monitoring'))"
                       " if sys.version_info[:2] != (3, 11) else 2)"],
        capture_output=True, text=True, check=True,
    )
    modes = {"1": "monitoring,settrace", "0": "settrace"}.get(probe.stdout.strip(),
                                                              "counters,settrace")
    out = subprocess.run(
        [python, "-I", "-S", __file__, "--worker", f"{modes},settrace-opcodes",
         "--n", str(n), "--repeat", str(repeat)],
        capture_output=True, text=True, check=True,
    )
    rows: list[dict[str, Any]] = json.loads(out.stdout)
    return rows


if __name__ == "__main__":
    main()
