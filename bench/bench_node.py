"""The Node runtime: start of a sandboxed version, static counting, a JS set with --dynamic.

Figures (ratios against a baseline measured in the same run, never asserted in tests):

- start: one version with one input in the strict Node sandbox (bubblewrap, launcher,
  seccomp, Node, harness) against ``node -e 1`` outside any sandbox, median of N; and the
  same version in a small module (its imports made CommonJS, the version in its place)
  against that start;
- static counts: versions compiled with V8's bytecode printout in one sandboxed Node,
  per version, against the start above;
- traced run overhead: versions run with their executed bytecodes counted (block
  coverage, the printout, the flow solve: ``node_trace.py``) against the same runs
  untraced, median of N, on light calls (a set's examples), on a heavy one
  (``countPrimes(200000)``, 117 million bytecodes) and on a very large function (1,000
  ``if``/``else`` branches, three inputs: the printout's size and the solve per input);
- the JS task set of ``bench/data/js_tasks.jsonl`` (12 tasks x 4 versions written for
  this bench, one wrong version each where the task has one) through
  :func:`~codequorum.behaviour.dynamic_analysis.run_dynamic_many`: how often the recommendation
  keeps a version that passes every example, and how many sets get ``divergent-outputs``.

    .venv/bin/python bench/bench_node.py [--repeat 9] [--jobs 2]
    .venv/bin/python bench/bench_node.py --smoke   # once, two tasks
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import time
from pathlib import Path

from codequorum.behaviour.dynamic_analysis import DynamicOptions, run_dynamic_many
from codequorum.behaviour.runtimes import node, node_sandbox
from codequorum.behaviour.runtimes.js_inputs import collect_js_inputs
from codequorum.core.model import ModuleContext, TestCase, VersionSet
from codequorum.judge.dynamic_rules import dynamic_verdicts
from codequorum.pipeline.analyze import analyze
from codequorum.pipeline.config import AnalysisConfig
from reference_data import skipped

DATA = Path(__file__).resolve().parent / "data" / "js_tasks.jsonl"


def median_seconds(work: object, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()  # type: ignore[operator]
        times.append(time.perf_counter() - started)
    return statistics.median(times)


#: A module with a helper, a constant and two imports, as a version runs in it.
MODULE = ModuleContext(
    name="app.js", path="app.js", qualified_name="f", kind="function", roots=(),
    files=(("app.js", "import { step } from './lib/step.js';\nconst { unit } = "
            "require('./lib/unit');\nconst BASE = 1;\nfunction helper(x) { return x + step "
            "+ unit + BASE - 1; }\nfunction f(x) { return x; }\n"),
           ("lib/step.js", "export const step = 1;\n"),
           ("lib/unit.js", "module.exports = { unit: 1 };\n")))


def load() -> list[VersionSet]:
    sets = []
    for line in DATA.read_text().splitlines():
        rec = json.loads(line)
        sets.append(VersionSet.from_codes(rec["task_id"], rec["versions"], language="javascript",
                                         entry_point=rec["entry_point"], prompt=rec["prompt"]))
    return sets


PRIMES = ("function countPrimes(n) { let c = 0; for (let i = 2; i < n; i++) { let p = true;"
          " for (let j = 2; j * j <= i; j++) { if (i % j === 0) { p = false; break; } }"
          " if (p) c++; } return c; }")


BRANCHES = " ".join(f"if (x % {i + 2} === 0) s += {i}; else s -= 1;" for i in range(1000))
BIG = f"function big(x) {{ let s = 0; {BRANCHES} return s; }}"


def traced_overhead(sets: list[VersionSet], repeat: int) -> None:
    """Traced against untraced runs: a set's versions on their examples, one heavy call, one
    very large function."""
    plan = [(code, collect_js_inputs(ss, scaling=False).tests, ss.entry_point or "")
            for ss in sets[:1] for code in ss.codes]
    heavy = [(PRIMES, [TestCase("call", args=(200000,))], "countPrimes")]
    big = [(BIG, [TestCase("call", args=(x,)) for x in (0, 7, 61)], "big")]
    for label, runs in (("light: one set's 4 versions on its examples", plan),
                        ("heavy: countPrimes(200000)", heavy),
                        ("size: 1,000 if/else branches, 3 inputs", big)):
        def run_all(trace: bool, runs: list[tuple[str, list[TestCase], str]] = runs) -> None:
            for code, tests, entry in runs:
                node_sandbox.run_node_candidate(code, tests, entry, trace=trace)
        plain = median_seconds(lambda run_all=run_all: run_all(False), repeat)
        traced = median_seconds(lambda run_all=run_all: run_all(True), repeat)
        print(f"traced run, {label}: {traced * 1000:.0f} ms against {plain * 1000:.0f} ms "
              f"untraced ({traced / plain:.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--smoke", action="store_true", help="each measure once, two tasks")
    args = parser.parse_args()
    if args.smoke:
        args.repeat = 1
    found = node_sandbox.find_node()
    if found is None and args.smoke:
        skipped("no supported Node")
    assert found is not None, "no supported Node"
    print(f"node {found.version} ({found.source}); sandbox: {node_sandbox.describe()}")
    bare = median_seconds(lambda: subprocess.run([found.path, "-e", "1"], check=True),
                          args.repeat)
    test = TestCase("call", args=(2,), expected=3, has_expected=True)
    start = median_seconds(lambda: node_sandbox.run_node_candidate(
        "function f(x) { return x + 1; }", [test], "f"), args.repeat)
    print(f"start: node -e 1 outside {bare * 1000:.1f} ms; one version in the sandbox "
          f"{start * 1000:.1f} ms ({start / bare:.2f}x)")
    in_module = median_seconds(lambda: node.JAVASCRIPT.run(
        "function f(x) { return helper(x) - 1; }", [test], "f", module=MODULE), args.repeat)
    print(f"in its module (a helper, a constant, a relative ESM import, a CommonJS require, "
          f"{len(MODULE.files)} files): {in_module * 1000:.1f} ms ({in_module / start:.2f}x "
          "alone)")
    wheel = node_sandbox.wheel_node()
    if wheel is not None and wheel.path != found.path:
        wheel_bare = median_seconds(lambda: subprocess.run([wheel.path, "-e", "1"], check=True),
                                    args.repeat)
        wheel_start = median_seconds(lambda: node_sandbox.run_node_candidate(
            "function f(x) { return x + 1; }", [test], "f", node=wheel), args.repeat)
        print(f"start, the wheel's node {wheel.version}: outside {wheel_bare * 1000:.1f} ms; "
              f"in the sandbox {wheel_start * 1000:.1f} ms ({wheel_start / wheel_bare:.2f}x)")
    sets = load()[:2] if args.smoke else load()
    traced_overhead(sets, args.repeat)
    codes = [c for s in sets for c in s.codes]
    counted = median_seconds(lambda: node._count(codes, False, None), max(1, args.repeat // 3))
    print(f"static counts: {len(codes)} versions in {counted * 1000:.0f} ms, "
          f"{counted / len(codes) * 1000:.1f} ms per version ({counted / len(codes) / start:.2f}x "
          "one sandboxed start)")
    started = time.perf_counter()
    reports = run_dynamic_many(sets, DynamicOptions(jobs=args.jobs))
    wall = time.perf_counter() - started
    kept_right = divergent = random_right = 0.0
    for ss, report in zip(sets, reports, strict=True):
        rates = [c.pass_rate or 0.0 for c in report.candidates]
        divergent += "divergent-outputs" in {v.code for v in dynamic_verdicts(report)}
        kept = analyze(ss, AnalysisConfig(), dynamic=report).recommended
        kept_right += kept is not None and rates[kept] == 1.0
        random_right += sum(r == 1.0 for r in rates) / len(rates)
    print(f"dynamic: {len(sets)} sets x 4 versions in {wall:.1f} s "
          f"({wall / len(codes) * 1000:.0f} ms per version, jobs={args.jobs}); kept version passes "
          f"every example: {kept_right:.0f}/{len(sets)} (a random version: {random_right:.1f}); "
          f"divergent-outputs: {divergent:.0f}/{len(sets)}")


if __name__ == "__main__":
    main()
