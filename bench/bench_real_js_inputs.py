"""How many real JavaScript and TypeScript functions get inputs, and a run (the sibling of
``bench_real_inputs.py``).

The packages below are fetched at pinned versions with ``npm pack`` into a temporary
folder (nothing is vendored). Every function of the files named (a package's whole
``src`` or a slice of its many files) is its own one version, in its module (the view
``check`` gives it: its imports resolved against the package), and its inputs are collected
as an editor collects them: JSDoc examples and types, TypeScript types, the uses of its
parameters, calls in the package's files. Reported per package and overall: the share of
functions that get inputs, and with ``--run`` the share whose inputs ran in the strict Node
sandbox (one input finished without an exception) and the share that returned more than one
value over its inputs (where versions could part at all), the share with an example whose
expected value grades it, and how many of those the function's own code passes (an example
read wrong, or run where its names are not, fails it); ``-v`` lists the functions without an
input and why, and the examples the function's own code fails.

    .venv/bin/python bench/bench_real_js_inputs.py [--run] [--json] [-v]
    .venv/bin/python bench/bench_real_js_inputs.py --smoke   # one package, run
    .venv/bin/python bench/bench_real_js_inputs.py --run --root CHECKOUT --glob "src/*/index.ts"
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_real_js_functions import fetch  # noqa: E402

#: package@version -> the files (globs, relative to the package) whose functions count.
PACKAGES: dict[str, tuple[str, ...]] = {
    "ms@2.1.3": ("index.js",),
    "camelcase@8.0.0": ("index.js",),
    "escape-string-regexp@5.0.0": ("index.js",),
    "ts-dedent@2.2.0": ("src/index.ts",),
    "tiny-invariant@1.3.3": ("src/tiny-invariant.ts",),
    "semver@7.6.3": ("functions/*.js", "classes/comparator.js", "internal/*.js"),
    "date-fns@3.6.0": ("add*.mjs", "differenceIn*.mjs", "is*.mjs"),
    "validator@13.12.0": ("lib/is[A-H]*.js", "lib/util/*.js"),
    "change-case@5.4.4": ("dist/index.js",),
    "yocto-queue@1.1.1": ("index.js",),
}
#: The first package, for ``--smoke``.
SMOKE = ("ms@2.1.3",)
#: Functions read per package at most (a package of many files is sliced by its globs).
MAX_FUNCTIONS = 80


#: Files of a checkout that are tests or declarations, not functions to count.
NOT_COUNTED = (".test.", ".spec.", ".test-d.", ".d.ts")


def sets_of(package: str, root: Path, patterns: tuple[str, ...] | None = None,
            limit: int = MAX_FUNCTIONS) -> Iterator[Any]:
    """A one-version set in its module for every function of the package's files (or of
    ``patterns`` in a checkout), its JSDoc the set's prompt as ``check`` gives it."""
    from codequorum.core.model import VersionSet
    from codequorum.core.parsing import functions, language_from_path
    from codequorum.ingest.js_module_view import js_module_view
    from codequorum.pipeline.session import current_code, examples_outside

    count = 0
    for pattern in patterns or PACKAGES[package]:
        for path in sorted(root.glob(pattern)):
            if any(mark in path.name for mark in NOT_COUNTED):
                continue
            text = path.read_text(encoding="utf-8")
            language = str(language_from_path(path.name))
            view = js_module_view(text, path, root)
            for info in functions(text, language):
                if count >= limit:
                    return
                count += 1
                context = view.context(info.qualified_name, info.kind)
                yield VersionSet.from_codes(
                    f"{package}/{path.relative_to(root).as_posix()}::{info.qualified_name}",
                    [current_code(text, info)], entry_point=info.name, module=context,
                    language=language, prompt=examples_outside(language, info.docstring))


def tally(sets: list[Any], run: bool, verbose: bool) -> Counter[str]:
    from codequorum.behaviour.dynamic_analysis import (
        DynamicOptions,
        plan_inputs,
        run_dynamic_many,
    )

    options = DynamicOptions(hypothesis_examples=5, scaling=False, jobs=2, timeout_seconds=4.0,
                             test_timeout_seconds=0.5)
    counts: Counter[str] = Counter()
    plans = [plan_inputs(ss, options) for ss in sets]
    for ss, plan in zip(sets, plans, strict=True):
        counts["functions"] += 1
        counts["with_inputs"] += bool(plan.cases)
        if verbose and not plan.cases:
            print(f"  no input: {ss.task_id}: {'; '.join(plan.notes)[:200]}")
    if run:
        reports = run_dynamic_many(sets, options)
        for ss, report in zip(sets, reports, strict=True):
            ran = any(row and any(o is not None and o[1] is None for o in row)
                      for row in report.outcomes)
            counts["ran"] += ran
            counts["varied"] += varied(report)
            graded = any(i.get("checked") for i in report.inputs)
            counts["graded"] += graded
            own = report.candidates[0] if report.candidates else None
            counts["held"] += graded and own is not None and own.passed == own.graded
            if verbose and graded and own is not None and own.passed != own.graded:
                failed = [i["label"] for i, row in zip(report.inputs, report.outcomes[0],
                                                      strict=False) if i.get("checked")]
                print(f"  an example failed: {ss.task_id}: {failed[:3]}")
            if verbose and not ran and plan_has(plans, sets, ss):
                raised = Counter(o[1] for row in report.outcomes for o in row or ()
                                 if o is not None and o[1] is not None)
                why = "; ".join(str(n) for n in report.notes)[:300]
                print(f"  not ran: {ss.task_id}: {dict(raised.most_common(3))} {why}")
    return counts


def varied(report: Any) -> bool:
    """Whether the function returned more than one value over its inputs: a function
    returning one value (``false`` on every drawn string) tells versions apart nowhere."""
    values = {o[0] for row in report.outcomes for o in row or ()
              if o is not None and o[1] is None}
    return len(values) > 1


def plan_has(plans: list[Any], sets: list[Any], ss: Any) -> bool:
    return bool(plans[sets.index(ss)].cases)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--run", action="store_true", help="run the inputs in the sandbox")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="one package, run")
    parser.add_argument("--root", type=Path, help="a checkout of a repository instead of "
                        "the packages (its workspace: its imports resolved in it)")
    parser.add_argument("--glob", default="src/**/*.ts",
                        help="with --root: its files whose functions count (comma-separated "
                        "globs; tests and declaration files left out)")
    parser.add_argument("--limit", type=int, default=400, help="with --root: functions, at most")
    args = parser.parse_args(argv)
    run = args.run or args.smoke
    results: dict[str, dict[str, Any]] = {}
    total: Counter[str] = Counter()
    if args.root is not None:
        root = args.root.resolve()
        sets = list(sets_of(root.name, root, tuple(args.glob.split(",")), args.limit))
        results[root.name] = dict(tally(sets, run, args.verbose))
        return _report(results, run, args.json)
    if shutil.which("npm") is None or shutil.which("node") is None:
        print("skipped: needs npm and node (the packages are fetched with npm pack)")
        return 0
    packages = SMOKE if args.smoke else tuple(PACKAGES)
    with tempfile.TemporaryDirectory(prefix="cq-real-js-inputs-") as tmp:
        for package in packages:
            root = fetch(package, Path(tmp))
            if args.verbose:
                print(package)
            counts = tally(list(sets_of(package, root)), run, args.verbose)
            total.update(counts)
            results[package] = dict(counts)
    results["all"] = dict(total)
    return _report(results, run, args.json)


def _report(results: dict[str, dict[str, Any]], run: bool, as_json: bool) -> int:
    """The figures per package (and in all), as a table or JSON."""
    if as_json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{'package':28} {'functions':>9} {'inputs':>7} {'ran':>6} {'varied':>7} "
          f"{'graded':>7} {'held':>5}")
    for name, c in results.items():
        n = c.get("functions", 0) or 1
        ran = f"{c.get('ran', 0) / n:.0%}" if run else "-"
        many = f"{c.get('varied', 0) / n:.0%}" if run else "-"
        graded = f"{c.get('graded', 0) / n:.0%}" if run else "-"
        held = f"{c.get('held', 0)}/{c.get('graded', 0)}" if run else "-"
        print(f"{name:28} {c.get('functions', 0):9} {c.get('with_inputs', 0) / n:7.0%} "
              f"{ran:>6} {many:>7} {graded:>7} {held:>5}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
