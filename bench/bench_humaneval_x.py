"""A whole JavaScript HumanEval-style set, 164 tasks x 10 versions, scored with ``--dynamic``.

The versions are HumanEval-X's JavaScript canonical solutions (THUDM/CodeGeeX,
``codegeex/benchmark/humaneval-x/js/data/humaneval_js.jsonl.gz``, Apache-2.0; read by path,
never copied here) and, beside each, mutants of it: a comparison, arithmetic or logical
operator swapped for its neighbour (``<`` for ``<=``, ``+`` for ``-``, ``&&`` for ``||``),
an integer literal moved by one, a boolean flipped, at one site, or at two where a solution
has too few sites for nine single ones (:func:`mutants`, seeded by the task). They are
not a model's generations: a version here is wrong by a slip or two, never by misreading
the prompt, so the figures show the whole path at the size of a benchmark (every version
runs, every set is scored, how long it takes) and how the pick and the risk read such
slips, not how they read a model's answers.

Truth: each version runs the task's own harness (its ``console.assert`` lines that call
the function, read as graded calls and truthy examples, ``js_tests.harness_tests``) in the
strict Node sandbox (``run_node_candidate``); right = every one passes. A task whose
harness checks only in a loop over random values has no truth and is left out of the
figures (it is still scored). Then ``codequorum score --dynamic``
on the set as an editor has it (prompt and versions, no tests), as a subprocess, and the
kept version against random and the oracle, the risk against "the kept version is wrong".

    .venv/bin/python bench/bench_humaneval_x.py --data PATH/humaneval_js.jsonl.gz
    .venv/bin/python bench/bench_humaneval_x.py --data PATH --tasks 10 --versions 4
    .venv/bin/python bench/bench_humaneval_x.py --smoke   # two problems written here
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

from bench_js_humaneval import judgement, passes_all, print_judgement, score  # noqa: E402
from codequorum.behaviour.runtimes.js_entry import defined_names  # noqa: E402
from codequorum.behaviour.runtimes.js_tests import harness_tests  # noqa: E402
from codequorum.behaviour.runtimes.node_sandbox import find_node  # noqa: E402
from codequorum.core.parsing import parse  # noqa: E402
from reference_data import skipped  # noqa: E402

#: Operators swapped for their neighbour, one site per mutant.
SWAPS = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "===": "!==", "!==": "===",
         "==": "!=", "!=": "==", "+": "-", "-": "+", "*": "+", "&&": "||", "||": "&&"}
#: Tries at drawing distinct mutants before a task keeps fewer versions.
TRIES = 200
#: ``--smoke``'s problems, written as HumanEval-X writes its own.
SMOKE = [
    {"task_id": "JavaScript/s0",
     "prompt": "/* Count the items above the limit.\n  >>> above([1, 5], 2)\n  1\n  */\n"
               "const above = (xs, limit) => {\n",
     "declaration": "\nconst above = (xs, limit) => {\n",
     "canonical_solution": "  let n = 0;\n  for (const x of xs) { if (x > limit) n += 1; }\n"
                           "  return n;\n}\n",
     "test": "const t = () => {\n  console.assert(above([1, 5], 2) === 1)\n"
             "  console.assert(above([3, 3], 3) === 0)\n}\nt()\n"},
    {"task_id": "JavaScript/s1",
     "prompt": "/* The pair of halves.\n  >>> halves(4)\n  [2, 2]\n  */\n"
               "const halves = (n) => {\n",
     "declaration": "\nconst halves = (n) => {\n",
     "canonical_solution": "  return [Math.floor(n / 2), n - Math.floor(n / 2)];\n}\n",
     "test": "const t = () => {\n  console.assert(JSON.stringify(halves(5)) === "
             "JSON.stringify([2, 3]))\n  console.assert(!halves(0)[0])\n}\nt()\n"},
]


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
    """Up to ``count`` distinct mutants of ``code`` that parse: one site changed each, then,
    where a solution has too few sites for ``count`` of them, two."""
    places = sites(code, start)
    rng = random.Random(seed)
    data = code.encode("utf-8")
    out: list[str] = []
    for changes in (1, 2):
        for _ in range(TRIES):
            if len(out) >= count or len(places) < changes:
                break
            chosen = sorted(rng.sample(places, changes), reverse=True)
            if len({a for a, _b, _t in chosen}) < changes:
                continue
            mutant = data
            for a, b, text in chosen:  # from the end: earlier offsets stay right
                mutant = mutant[:a] + text.encode("utf-8") + mutant[b:]
            text_of = mutant.decode("utf-8")
            if text_of != code and text_of not in out \
                    and not parse(text_of, "javascript").root_node.has_error:
                out.append(text_of)
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
                     "entry_point": entry_point(p["declaration"]), "prompt": p["prompt"],
                     "versions": codes, "test": p["test"],
                     "canonical": codes.index(canonical)})
    return rows


def entry_point(declaration: str) -> str | None:
    """The function a HumanEval-X declaration opens (``const add = (a, b) => {``; the
    prompt may define helpers before it)."""
    names = list(defined_names(declaration + "}", "javascript"))
    return names[-1] if names else None


def grade(row: dict[str, Any], jobs: int) -> list[bool] | None:
    """Whether each version passes every assert of the task's harness that calls the
    function, in the strict Node sandbox; None when the harness has no such assert (it
    checks in a loop over random values, or through another function)."""
    entry = row["entry_point"]
    _, cases = harness_tests(row["test"], [entry] if entry else [])
    if not cases or not entry:
        return None

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(lambda code: passes_all(code, cases, entry), row["versions"]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--data", type=Path, help="HumanEval-X's humaneval_js.jsonl.gz")
    ap.add_argument("--tasks", type=int, default=164)
    ap.add_argument("--versions", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", type=Path, help="write the set and its report here")
    ap.add_argument("--smoke", action="store_true", help="two problems written here, 3 versions")
    args = ap.parse_args(argv)
    if args.data is None and not args.smoke:
        ap.error("--data names HumanEval-X's humaneval_js.jsonl.gz (or --smoke)")
    if find_node() is None:
        if args.smoke:
            skipped("no Node to run the versions")
        raise SystemExit("no Node to run the versions")
    problems = SMOKE if args.smoke else read_problems(args.data)[:args.tasks]
    rows = version_sets(problems, 3 if args.smoke else args.versions)
    graded = {r["task_id"]: grade(r, args.jobs) for r in rows}
    truth = {task: t for task, t in graded.items() if t is not None}
    versions = sum(len(r["versions"]) for r in rows)
    right = sum(sum(t) for t in truth.values())
    canonical = [r["task_id"] for r in rows
                 if r["task_id"] in truth and not truth[r["task_id"]][r["canonical"]]]
    print(f"{len(rows)} tasks, {versions} versions; {len(truth)} tasks whose harness "
          f"grades ({right} versions right); canonical solutions failing theirs: "
          f"{', '.join(canonical) or 'none'}")
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
