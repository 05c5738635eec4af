"""A whole JavaScript HumanEval-style set, 164 tasks x 10 versions, scored with ``--dynamic``.

The versions are HumanEval-X's JavaScript canonical solutions (THUDM/CodeGeeX,
``codegeex/benchmark/humaneval-x/js/data/humaneval_js.jsonl.gz``, Apache-2.0; read by path,
never copied here) and, beside each, single-site mutants of it: a comparison, arithmetic or
logical operator swapped for its neighbour (``<`` for ``<=``, ``+`` for ``-``, ``&&`` for
``||``), an integer literal moved by one, a boolean flipped (:func:`mutants`, seeded by the
task). They are not a model's generations: a version here is wrong by one slip, never by
misreading the prompt, so the figures show the whole path at the size of a benchmark (every
version runs, every set is scored, how long it takes) and how the pick and the risk read
such slips, not how they read a model's answers.

Truth: each version runs the task's own harness (its ``console.assert`` lines read as
graded calls and truthy examples, ``js_tests.harness_tests``) in the strict Node sandbox
(``run_node_candidate``); right = every one passes. Then ``codequorum score --dynamic``
on the set as an editor has it (prompt and versions, no tests), as a subprocess, and the
kept version against random and the oracle, the risk against "the kept version is wrong".

    .venv/bin/python bench/bench_humaneval_x.py --data PATH/humaneval_js.jsonl.gz
    .venv/bin/python bench/bench_humaneval_x.py --data PATH --tasks 10 --versions 4
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_js_humaneval import judgement, print_judgement, score  # noqa: E402
from codequorum.behaviour.runtimes.js_entry import defined_names  # noqa: E402
from codequorum.behaviour.runtimes.js_tests import harness_tests  # noqa: E402
from codequorum.behaviour.runtimes.node_sandbox import find_node, run_node_candidate  # noqa: E402
from codequorum.core.parsing import parse  # noqa: E402

#: Operators swapped for their neighbour, one site per mutant.
SWAPS = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "===": "!==", "!==": "===",
         "==": "!=", "!=": "==", "+": "-", "-": "+", "*": "+", "&&": "||", "||": "&&"}
#: Tries at drawing distinct mutants before a task keeps fewer versions.
TRIES = 200


def read_problems(path: Path) -> list[dict[str, Any]]:
    """HumanEval-X's JavaScript problems, in task order."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def sites(code: str, start: int) -> list[tuple[int, int, str]]:
    """Every place at or after byte ``start`` a mutant may change: (start, end, the text
    put there)."""
    data = code.encode("utf-8")
    out: list[tuple[int, int, str]] = []
    stack = [parse(code, "javascript").root_node]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.start_byte < start:
            continue
        text = data[node.start_byte:node.end_byte].decode("utf-8")
        if node.type in SWAPS and node.parent is not None \
                and node.parent.type == "binary_expression":
            out.append((node.start_byte, node.end_byte, SWAPS[node.type]))
        elif node.type == "number" and text.isdigit():
            out.append((node.start_byte, node.end_byte, str(int(text) + 1)))
        elif node.type in ("true", "false"):
            out.append((node.start_byte, node.end_byte,
                        "false" if node.type == "true" else "true"))
    return sorted(out)


def mutants(code: str, start: int, count: int, seed: int) -> list[str]:
    """Up to ``count`` distinct single-site mutants of ``code`` that parse."""
    places = sites(code, start)
    rng = random.Random(seed)
    data = code.encode("utf-8")
    out: list[str] = []
    for _ in range(TRIES):
        if len(out) >= count or not places:
            break
        a, b, text = rng.choice(places)
        mutant = (data[:a] + text.encode("utf-8") + data[b:]).decode("utf-8")
        if mutant != code and mutant not in out \
                and not parse(mutant, "javascript").root_node.has_error:
            out.append(mutant)
    return out


def version_sets(problems: list[dict[str, Any]], versions: int) -> list[dict[str, Any]]:
    """Per task: the canonical solution and its mutants, shuffled (seeded by the task)."""
    rows = []
    for k, p in enumerate(problems):
        canonical = p["prompt"] + p["canonical_solution"]
        codes = [canonical, *mutants(canonical, len(p["prompt"].encode("utf-8")),
                                     versions - 1, seed=k)]
        random.Random(1000 + k).shuffle(codes)
        rows.append({"task_id": f"js-x/{k}", "language": "javascript",
                     "prompt": p["prompt"], "versions": codes, "test": p["test"],
                     "canonical": codes.index(canonical)})
    return rows


def grade(row: dict[str, Any], jobs: int) -> list[bool]:
    """Whether each version passes every assert of the task's harness, in the strict
    Node sandbox."""
    names = sorted({n for c in row["versions"] for n in defined_names(c, "javascript")})
    _, cases = harness_tests(row["test"], names)
    entry = next((n for n in defined_names(row["versions"][0], "javascript")), None)

    def one(code: str) -> bool:
        result = run_node_candidate(code, cases, entry or "f")
        return result.status == "ok" and bool(result.tests) and all(
            t.passed is True for t in result.tests)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(one, row["versions"]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--data", type=Path, required=True,
                    help="HumanEval-X's humaneval_js.jsonl.gz")
    ap.add_argument("--tasks", type=int, default=164)
    ap.add_argument("--versions", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", type=Path, help="write the set and its report here")
    args = ap.parse_args(argv)
    if find_node() is None:
        raise SystemExit("no Node to run the versions")
    rows = version_sets(read_problems(args.data)[:args.tasks], args.versions)
    truth = {r["task_id"]: grade(r, args.jobs) for r in rows}
    versions = sum(len(r["versions"]) for r in rows)
    right = sum(sum(t) for t in truth.values())
    canonical = sum(1 for r in rows if truth[r["task_id"]][r["canonical"]])
    print(f"{len(rows)} tasks, {versions} versions ({right} right by their harness); "
          f"canonical solutions right: {canonical} of {len(rows)}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "humaneval_x_mutants.jsonl"
        path.write_text("".join(json.dumps({k: v for k, v in r.items()
                                            if k not in ("test", "canonical")}) + "\n"
                                for r in rows), encoding="utf-8")
        report, wall, cpu = score(path, dynamic=True, jobs=args.jobs)
        (folder / "report.json").write_text(json.dumps(report), encoding="utf-8")
    print_judgement("score --dynamic", (wall, cpu), versions, judgement(report, truth))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
