"""Many sets of 5 drawn from each task of the family cache, scored as a report scores them.

``family_sets.py`` keeps each task's two halves of 5; the pick's share of the oracle's lift
on one family moves by a few points with which halves were drawn. Here each task's
versions are scored once, all together (the outcome matrix of the editor's inputs, the
docstring examples passed, the pair similarity matrices of ``analyze``: every metric is a
function of the pair, so a drawn set's typicality is the mean over its own pairs), and any
number of seeded draws of ``size`` versions are cut from that without scoring again. Each
drawn set is a record as ``family_sets.py`` makes one (``keys``, ``examples_passed``,
``typicality``, ``truth``, ``kept`` by :func:`codequorum.judge.recommend.recommend`), plus
``similarity``: the drawn versions' pair matrices, for rules that read shape.

    .venv/bin/python bench/family_draws.py [--tasks 164]   # ~2 min; writes FAMILY_TASKS
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from codequorum.core.model import VersionSet
from codequorum.judge.recommend import recommend
from codequorum.metrics.clustering import symmetrise, typicality
from codequorum.pipeline.analyze import analyze
from codequorum.pipeline.config import AnalysisConfig
from family_cache import FAMILY_CACHE
from family_sets import CachedTask, examples_passed, keys_of, read_cache
from reference_data import REPO, skipped

FAMILY_TASKS = REPO / "bench" / "results" / "family_tasks.json"
#: The pair similarities kept per task (``jsd_struct`` is what typicality reads).
SIMILARITIES: tuple[str, ...] = ("jsd_struct", "jsd_value", "sce_struct", "tsed")
OPTIONS = AnalysisConfig(metrics=("tsed",), keep_matrices=True, sctd=False)


def task_record(task: CachedTask) -> dict[str, Any]:
    """One task's versions scored together (see module docstring)."""
    draw = range(len(task.codes))
    report = analyze(VersionSet.from_codes(task.task_id, task.codes), OPTIONS)
    sims = {m: symmetrise(report.matrices[m]).tolist()
            for m in SIMILARITIES if m in report.matrices}
    return {"set": task.set_name, "family": task.family, "task_id": task.task_id,
            "truth": list(task.passed), "keys": keys_of(task, draw),
            "examples_passed": examples_passed(task, draw),
            "example_cols": task.example_columns(), "empty": list(report.empty),
            "sources": [task.sources[t] for t in task.editor_columns()],
            "similarity": sims, "texts": [" ".join(c.split()) for c in task.codes]}


def draw_set(rec: Mapping[str, Any], draw: Sequence[int]) -> dict[str, Any]:
    """The set of versions ``draw`` of one task record, as ``family_sets.set_record``
    scores it (no risk signals)."""
    sims = {m: np.asarray(s)[np.ix_(draw, draw)] for m, s in rec["similarity"].items()}
    empty = set(rec["empty"])
    typ_all = typicality(sims["jsd_struct"]) if "jsd_struct" in sims else np.zeros(0)
    answered = [k for k, v in enumerate(draw) if v not in empty]
    typ = [float(typ_all[k]) for k in answered] if len(typ_all) else []
    keys = [rec["keys"][v] for v in draw]
    passed = [rec["examples_passed"][v] for v in draw]
    cols = rec["example_cols"]
    ran = any(keys)  # as the product: a version ran on an input, raising counts
    found = recommend(keys if ran else None, typ, answered, passed if cols else None,
                      len(cols)) if answered and typ else None
    return {"set": rec["set"], "family": rec["family"], "task_id": rec["task_id"],
            "draw": list(draw), "n": len(draw), "truth": [rec["truth"][v] for v in draw],
            "kept": None if found is None else found.index, "keys": keys,
            "examples_passed": passed, "examples": len(cols), "example_cols": cols,
            "sources": rec["sources"], "typicality": dict(zip(answered, typ, strict=True)),
            "similarity": {m: s.tolist() for m, s in sims.items()},
            "texts": [rec["texts"][v] for v in draw]}


def draws(rec: Mapping[str, Any], size: int, count: int, seed: int = 0) -> list[list[int]]:
    """``count`` distinct sorted draws of ``size`` of a task's versions, seeded by the
    task (the same draws on every run)."""
    n = len(rec["truth"])
    if n < size:
        return []
    rng = random.Random(f"{seed}:{rec['set']}:{rec['task_id']}")
    seen: list[list[int]] = []
    for _ in range(count * 20):
        d = sorted(rng.sample(range(n), size))
        if d not in seen:
            seen.append(d)
        if len(seen) == count:
            break
    return seen


def drawn_sets(tasks: Sequence[Mapping[str, Any]], size: int = 5, count: int = 10,
               seed: int = 0) -> Iterator[dict[str, Any]]:
    """Every drawn set of every task record."""
    for rec in tasks:
        for d in draws(rec, size, count, seed):
            yield draw_set(rec, d)


def load_tasks(path: Path = FAMILY_TASKS) -> list[dict[str, Any]]:
    """The task records ``main`` wrote."""
    out: list[dict[str, Any]] = json.loads(path.read_text())
    return out


def first_tasks(cached: Sequence[CachedTask], tasks: int) -> list[CachedTask]:
    """The first ``tasks`` of each set, in file order (as ``fit_risk_families.py``)."""
    seen: dict[str, int] = {}
    out = []
    for task in cached:
        if seen.get(task.set_name, 0) < tasks:
            seen[task.set_name] = seen.get(task.set_name, 0) + 1
            out.append(task)
    return out


def main(argv: list[str] | None = None) -> int:
    """Score every task of the cache once and write the task records."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--cache", type=Path, default=FAMILY_CACHE)
    ap.add_argument("--out", type=Path, default=FAMILY_TASKS)
    ap.add_argument("--tasks", type=int, default=164)
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args(argv)
    if not args.cache.exists():
        skipped("needs the family cache (family_cache.py)")
    cached = first_tasks(read_cache(args.cache), 1 if args.smoke else args.tasks)
    records = [task_record(t) for t in cached]
    if args.smoke:
        sets = list(drawn_sets(records[:1], 5, 2))
        print(f"{len(records)} tasks, {len(sets)} drawn sets")
        return 0
    args.out.write_text(json.dumps(records))
    print(f"{len(records)} tasks -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
