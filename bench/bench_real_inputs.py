"""How many real functions get inputs, and a run, under the input rules before and after.

The fixture repositories (``tests/fixtures/repos/``: boltons, more-itertools, humanize,
markupsafe, each with its licence and a NOTICE saying which commit) are real code nobody
here wrote. For every function of their modules, the function's own code is its one
version, in its module (the view ``check`` gives it), and the two rules collect inputs:

- ``before``: the older rules (``DynamicOptions.literal_only_inputs``): docstring examples
  only as calls with literal arguments, types from annotations only, no edge values, no
  calls from the workspace;
- ``after``: whole docstring examples, types from the versions' use, edge values, calls
  in the workspace.

Reported per repository and overall: the share of functions with doctests (a ``>>>`` in
the docstring) that get at least one input (read statically), the share of all functions
that get inputs, and with ``--run`` the share of all functions whose inputs ran (at least
one input finished without an exception, in the strict sandbox, in the module). The
sandbox's neutral answers at import (the host name) hold in both runs.

    .venv/bin/python bench/bench_real_inputs.py [--run] [--json] [--limit N]
    .venv/bin/python bench/bench_real_inputs.py --smoke   # two functions a repository, run
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codequorum.behaviour.dynamic_analysis import DynamicOptions, plan_inputs, run_dynamic_many
from codequorum.core.model import VersionSet
from codequorum.core.parsing import functions
from codequorum.ingest.module_view import module_view
from codequorum.pipeline.session import current_code

ROOT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "repos"
#: Each repository's folders of modules (its workspace is the repository's folder).
REPOS: dict[str, str] = {"boltons": "boltons", "more-itertools": "more_itertools",
                         "humanize": "src/humanize", "markupsafe": "src/markupsafe"}


@dataclass
class Tally:
    """Counts of one repository under one rule (``functions``, ``with_doctests``,
    ``doctests_with_inputs``, ``with_inputs``, ``ran``) and its inputs by origin."""

    counts: Counter[str] = field(default_factory=Counter)
    origins: Counter[str] = field(default_factory=Counter)

    def add(self, other: Tally) -> None:
        self.counts.update(other.counts)
        self.origins.update(other.origins)

    def shares(self) -> dict[str, Any]:
        def share(a: str, b: str) -> float | None:
            return round(self.counts[a] / self.counts[b], 3) if self.counts[b] else None

        return {"functions": self.counts["functions"],
                "with_doctests": self.counts["with_doctests"],
                "doctests_with_inputs": share("doctests_with_inputs", "with_doctests"),
                "with_inputs": share("with_inputs", "functions"),
                "ran": share("ran", "functions"), "origins": dict(self.origins)}


def sets_of(repo: str) -> Iterator[tuple[VersionSet, bool]]:
    """(a one-version set in its module, whether its docstring has a doctest) for every
    function of the repository's modules."""
    workspace = ROOT / repo
    for path in sorted((workspace / REPOS[repo]).glob("*.py")):
        text = path.read_text(encoding="utf-8")
        view = module_view(text, path, workspace)
        for info in functions(text, "python"):
            if info.name.startswith("__") and info.name != "__init__":
                continue
            code = current_code(text, info)
            context = view.context(info.qualified_name, info.kind)
            ss = VersionSet.from_codes(f"{repo}/{path.name}::{info.qualified_name}", [code],
                                      entry_point=info.name, module=context)
            yield ss, ">>>" in (info.docstring or "")


def tally(sets: list[tuple[VersionSet, bool]], options: DynamicOptions, run: bool) -> Tally:
    t = Tally()
    plans = [plan_inputs(ss, options) for ss, _ in sets]
    for (_, has_doctest), plan in zip(sets, plans, strict=True):
        t.counts["functions"] += 1
        t.counts["with_doctests"] += has_doctest
        t.counts["with_inputs"] += bool(plan.cases)
        t.counts["doctests_with_inputs"] += has_doctest and any(c.source == "doctest"
                                                                for c in plan.cases)
        t.origins.update(c.origin for c in plan.cases)
    if run:
        reports = run_dynamic_many([ss for ss, _ in sets], options)
        for report in reports:
            t.counts["ran"] += any(row and any(o is not None and o[1] is None for o in row)
                                   for row in report.outcomes)
    return t


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="store_true", help="run the inputs in the sandbox")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--limit", type=int, default=0, help="functions per repository")
    parser.add_argument("--smoke", action="store_true",
                        help="two functions a repository, run: a check that the bench works")
    args = parser.parse_args(argv)
    if args.smoke:
        args.limit, args.run = 2, True
    results: dict[str, dict[str, Any]] = {}
    totals = {"before": Tally(), "after": Tally()}
    for repo in REPOS:
        sets = list(sets_of(repo))
        if args.limit:
            sets = sets[: args.limit]
        results[repo] = {}
        for rule, literal_only in (("before", True), ("after", False)):
            options = DynamicOptions(literal_only_inputs=literal_only, hypothesis_examples=5,
                                     scaling=False, jobs=2, timeout_seconds=4.0,
                                     test_timeout_seconds=0.5)
            t = tally(sets, options, args.run)
            results[repo][rule] = t.shares()
            totals[rule].add(t)
    results["all"] = {rule: t.shares() for rule, t in totals.items()}
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        print()
        return 0
    print(f"{'repository':16} {'rule':7} {'functions':>9} {'doctests':>8} "
          f"{'doctest->input':>14} {'inputs':>7} {'ran':>6}")
    for repo, rules in results.items():
        for rule, s in rules.items():
            ran = "-" if not args.run else f"{s['ran']:.0%}" if s["ran"] is not None else "-"
            dti = s["doctests_with_inputs"]
            print(f"{repo:16} {rule:7} {s['functions']:9} {s['with_doctests']:8} "
                  f"{'-' if dti is None else f'{dti:.0%}':>14} {s['with_inputs']:7.0%} {ran:>6}")
    print("origins after:", results["all"]["after"]["origins"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
