"""The portable sandbox against the strict one: start per version, first compile, cache.

Runs the same trivial version (one call test) ``--runs`` times in each level, interleaved,
and prints p50/p95 of the wall time of one ``run_candidate`` (start, run, grade, end) and
of its start: from the version handed to ``run_candidate`` to its first opcode (the
version returns the real clock's reading, which the portable guest reads from the host's clock).
The portable level is measured over both channels to its guests (``channel.py``): the
long-lived host (``portable``) and the guests' own process (``portable-process``, every
system's, forced here: the host's logic in the runner, the guests in the guest server).
It prints the fuel (WebAssembly instructions: deterministic, the same on a loaded machine)
one guest's start costs, a version's and a grader's: the interpreter and the harness,
until the guest waits for its version. With ``--compile`` it also compiles the interpreter
module into a fresh folder and prints the time and the cache's size (the one-time cost
a user pays on first use).

    .venv/bin/python bench/bench_portable.py [--runs 30] [--compile]
    .venv/bin/python bench/bench_portable.py --smoke   # one run each
    .venv/bin/python bench/bench_portable.py --tracing 20000  # opcode counting's cost

``--tracing N`` runs a loop of N iterations (about 20 opcodes each) as a version in both
levels, untraced, traced (``counters``: counters compiled into the version's bytecode, the
3.11 default; ``settrace``: straight runs) and traced one event per opcode
(``settrace-opcodes``, the reference), interleaved, best of ``--runs`` (at most 5),
and prints each traced run's time as a multiple of the untraced one and the added
nanoseconds per counted opcode (the test's own time, measured inside the sandbox).

The 164 x 10 HumanEval run in either level: ``bench_dynamic_humaneval.py --sandbox
portable`` against ``--sandbox strict``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import tempfile
import time
from pathlib import Path

from codequorum.behaviour.sandbox.portable import channel, interpreter
from codequorum.behaviour.sandbox.supervisor import TestOutcome, run_candidate
from codequorum.core.model import TestCase

#: ``time.time()`` stands still in a version (``fixed_world.py``); the real clock's reading:
CODE = "import time\ndef f(n):\n    return time.clock_gettime(time.CLOCK_REALTIME)\n"
TESTS = [TestCase("call", args=(3,))]
LOOP = (
    "def f(n):\n    total = 0\n    seen = []\n    for i in range(n):\n"
    "        if i % 3 == 0:\n            total += i * 2\n        else:\n"
    "            total -= 1\n        if i % 1000 == 0:\n            seen.append(total)\n"
    "    return total, len(seen)\n"
)
TRACINGS = {"untraced": None, "counters": "counters", "settrace": "settrace",
            "settrace-opcodes": "settrace-opcodes"}
#: What is measured: a level, or the portable level over a channel.
WAYS = ("strict", "portable", "portable-process")
def one(way: str) -> tuple[float, float]:
    """Wall seconds of one version's run in ``way``, and of its start (to its first
    opcode)."""
    if way == "portable-process":
        os.environ[channel.FORCE] = channel.PROCESS
    else:
        os.environ.pop(channel.FORCE, None)
    level = way.removesuffix("-process")
    started = time.time()
    result = run_candidate(CODE, TESTS, "f", sandbox=level)
    elapsed = time.time() - started
    if result.status != "ok" or result.tests[0].output is None:
        raise SystemExit(f"{level}: {result.status} {result.detail}")
    return elapsed, float(result.tests[0].output) - started


def quantiles(values: list[float]) -> tuple[float, float]:
    """p50 and p95 in milliseconds."""
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1000, p95 * 1000


def first_compile() -> None:
    """Compile the interpreter into an empty folder; print time and size."""
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        path = interpreter.compiled_module(Path(folder))
        elapsed = time.perf_counter() - started
        size = sum(p.stat().st_size for p in Path(folder).rglob("*") if p.is_file())
        print(f"first compile: {elapsed:.1f} s, cache {size / 2 ** 20:.1f} MiB ({path.name})")


def start_fuel() -> dict[str, int]:
    """Fuel of one guest's start (a version's, a grader's): started as the host starts
    them, their stdin then ended, so each stops where it would read its version."""
    path = Path(interpreter.__file__).with_name("host.py")
    spec = importlib.util.spec_from_file_location("_bench_portable_host", path)
    assert spec is not None and spec.loader is not None
    host = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(host)
    compiled = interpreter.compiled_module()
    shared = host.Shared(str(compiled), str(interpreter.stdlib_root(compiled)),
                         str(interpreter.harness_bundle(compiled)))
    fuel, found = 10**10, {}
    try:
        for name, grader in (("version", False), ("grader", True)):
            guest = shared.take(grader, fuel, 256 << 20, 60.0)
            guest.inbox.close()
            guest.ended.wait()
            found[name] = fuel - guest.fuel_left()
    finally:
        shared.close()
    return found


def tracing_cost(n: int, repeat: int) -> None:
    """Print what counting opcodes costs in each level (see the module's doc)."""
    tests = [TestCase("call", args=(n,))]
    kinds = [(level, name) for level in ("strict", "portable") for name in TRACINGS]
    best: dict[tuple[str, str], TestOutcome] = {}
    for _ in range(repeat):
        for level, name in kinds:
            mode = TRACINGS[name]
            result = run_candidate(LOOP, tests, "f", sandbox=level, trace=mode is not None,
                                   trace_mode=mode or "auto")
            if result.status != "ok":
                raise SystemExit(f"{level} {name}: {result.status} {result.detail}")
            outcome = result.tests[0]
            if (level, name) not in best or outcome.seconds < best[level, name].seconds:
                best[level, name] = outcome
    for level, name in kinds:
        if TRACINGS[name] is not None:
            print(_tracing_row(level, name, best[level, name], best[level, "untraced"],
                               best[level, "settrace-opcodes"].opcode_total))


def _tracing_row(level: str, name: str, traced: TestOutcome, untraced: TestOutcome,
                 opcodes: int) -> str:
    """One line of ``--tracing``'s table."""
    if traced.opcode_total != opcodes:
        raise SystemExit(f"{level} {name} counted {traced.opcode_total}, not {opcodes}")
    added = (traced.seconds - untraced.seconds) / opcodes * 1e9
    return (f"{level:>8} {name:>16}: {opcodes} opcodes, {traced.seconds * 1e3:7.1f} ms, "
            f"{traced.seconds / untraced.seconds:5.1f}x untraced, {added:6.0f} ns/opcode")


def main() -> None:
    """Print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--smoke", action="store_true", help="one run in each level")
    ap.add_argument("--tracing", type=int, metavar="N",
                    help="opcode counting's cost on a loop of N iterations instead")
    args = ap.parse_args()
    if args.smoke:
        args.runs = 1
    if args.tracing or args.smoke:
        tracing_cost(args.tracing or 200, min(args.runs, 5))
        if args.tracing:
            return
    if args.compile:
        first_compile()
    interpreter.compiled_module()  # the user's cache (or $CODEQUORUM_WASM_CACHE)
    for name, used in start_fuel().items():
        print(f"start of a {name}'s guest: {used / 1e8:.2f}e8 fuel")
    for way in WAYS:  # warm: fork server, host, guests started ahead, page cache
        one(way)
    times: dict[str, list[float]] = {way: [] for way in WAYS}
    starts: dict[str, list[float]] = {way: [] for way in WAYS}
    for _ in range(args.runs):
        for way in WAYS:
            whole, start = one(way)
            times[way].append(whole)
            starts[way].append(start)
    print(f"load average {os.getloadavg()[0]:.1f}, {args.runs} runs each, interleaved")
    for what, figures in (("run", times), ("start", starts)):
        for way, values in figures.items():
            p50, p95 = quantiles(values)
            ratio = statistics.median(values) / statistics.median(figures["strict"])
            print(f"{what:>5} {way:>16}: p50 {p50:7.1f} ms  p95 {p95:7.1f} ms"
                  f"  p50 / strict {ratio:.1f}x")


if __name__ == "__main__":
    main()
