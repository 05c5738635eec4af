"""Fit the risk model and the stability reference, and measure them on held-out tasks.

Reproducible procedure (what ``server/codequorum/data/risk_model.json`` was made with):

1. ``recommend_cache.py`` runs all 100 CodeGen-16B versions of each of the 164 HumanEval
   tasks once in the sandbox (inputs an editor has, plus the hidden tests);
2. ``bench_recommend.py --draws 10`` draws 10 of 100 versions per task with seeds 0-9
   (1,640 sets), scores each drawn set (``analyze``, ``recommend``) and writes the per-set
   records (ten draws rather than the recommendation benchmark's five: twice the data
   halves the sampling noise of the calibration error);
3. this script splits the tasks in two halves by a seeded permutation (seed 2026): the
   models are fitted on the sets of the first half only, and AUROC, ECE (10 equal-width
   bins) and the reliability diagram are measured on the second half;
4. two logistic models (numpy Newton fit, L2 penalty on standardised features):
   ``behaviour`` (label: the recommended version fails the hidden tests) and ``structure``
   (label: the structural medoid fails, what is kept when nothing ran). For each, the
   feature set (from :data:`CANDIDATES`) and the L2 weight (from :data:`L2_CHOICES`) with
   the lowest five-fold cross-validated log-loss over the tasks of the fitting half are
   kept, then refitted on the whole fitting half;
5. the stability reference: 101 quantiles (0, 1, ..., 100 %) of the mean ``jsd_struct``
   of all the sets.

Refit (for another model or data set, point ``CODEQUORUM_SHARED`` or the scripts' options
at it)::

    nice -n 10 .venv/bin/python bench/recommend_cache.py --jobs 2
    .venv/bin/python bench/bench_recommend.py --draws 10
    .venv/bin/python bench/fit_risk.py --write
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_recommend import SETS
from codequorum.risk import (
    FEATURES,
    ModelKind,
    RiskSignals,
    auroc,
    ece,
    fit_logistic,
    reliability,
)
from recommend_cache import REPO

MODEL = REPO / "server" / "codequorum" / "data" / "risk_model.json"
SPLIT_SEED = 2026
#: L2 weights tried by cross-validation.
L2_CHOICES: tuple[float, ...] = (0.001, 0.01, 0.1)
#: Feature sets tried by cross-validation, per model.
CANDIDATES: dict[str, tuple[tuple[str, ...], ...]] = {
    "structure": (FEATURES["structure"],
                  ("mean_similarity", "typicality")),
    "behaviour": (("mean_similarity", "typicality", "agreed", "share"),
                  ("mean_similarity", "typicality", "share", "examples", "passes_examples"),
                  ("mean_similarity", "typicality", "share", "examples", "passes_examples",
                   "examples_consensus"),
                  ("mean_similarity", "share", "examples", "passes_examples",
                   "examples_consensus"),
                  FEATURES["behaviour"]),
}
FOLDS = 5


def signals(s: dict[str, Any], behaviour: bool) -> RiskSignals:
    """The risk signals of one set record (``behaviour``: outcomes known)."""
    agreed = behaviour and s["recommended_by"] == "behaviour"
    return RiskSignals(
        mean_similarity=s["mean_similarity"],
        typicality=s["typicality"] if behaviour else s["medoid_typicality"],
        syntax_error_fraction=s["syntax_error_fraction"],
        empty_fraction=s["empty_fraction"],
        behaviour=behaviour,
        agreed=agreed,
        share=s["share"] if agreed else 0.0,
        examples=behaviour and s["examples"] > 0,
        passes_examples=behaviour and s["passes_examples"],
        examples_consensus=s["examples_consensus"] if behaviour else 0.0,
    )


def label(s: dict[str, Any], kind: ModelKind) -> float:
    """1 when the kept version fails the hidden tests."""
    pick = s["recommended"] if kind == "behaviour" else s["medoid"]
    return 0.0 if pick is not None and s["passes"][pick] else 1.0


def split(tasks: list[str], seed: int = SPLIT_SEED) -> tuple[set[str], set[str]]:
    """(fit tasks, held-out tasks): a seeded permutation cut in half."""
    order = np.random.default_rng(seed).permutation(len(tasks))
    half = len(tasks) // 2
    return {tasks[i] for i in order[:half]}, {tasks[i] for i in order[half:]}


def matrix(sets: list[dict[str, Any]], kind: ModelKind,
           features: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Values of ``features`` and labels of model ``kind``."""
    x = np.array([signals(s, kind == "behaviour").vector(features) for s in sets])
    y = np.array([label(s, kind) for s in sets])
    return x, y


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    """Mean negative log-likelihood of 0/1 labels."""
    q = np.clip(p, 1e-12, 1 - 1e-12)
    return float(-np.mean(y * np.log(q) + (1 - y) * np.log(1 - q)))


def cross_validate(sets: list[dict[str, Any]], kind: ModelKind, features: tuple[str, ...],
                   l2: float, seed: int = SPLIT_SEED) -> float:
    """Five-fold log-loss over tasks (a task's draws stay in one fold)."""
    tasks = sorted({s["task_id"] for s in sets})
    fold = {t: k % FOLDS for k, t in
            enumerate(np.random.default_rng(seed).permutation(tasks).tolist())}
    losses = []
    for f in range(FOLDS):
        train = [s for s in sets if fold[s["task_id"]] != f]
        test = [s for s in sets if fold[s["task_id"]] == f]
        x, y = matrix(train, kind, features)
        tx, ty = matrix(test, kind, features)
        model = fit_logistic(x, y, features, l2=l2)
        losses.append(log_loss(model.predict(tx), ty) * len(test))
    return float(sum(losses) / len(sets))


def choose(sets: list[dict[str, Any]], kind: ModelKind) -> tuple[tuple[str, ...], float, float]:
    """(features, L2, cross-validated log-loss) with the lowest log-loss."""
    best: tuple[float, tuple[str, ...], float] | None = None
    for features in CANDIDATES[kind]:
        for l2 in L2_CHOICES:
            loss = cross_validate(sets, kind, features, l2)
            if best is None or loss < best[0] - 1e-12:
                best = (loss, features, l2)
    assert best is not None
    return best[1], best[2], best[0]


def task_ci(p: np.ndarray, y: np.ndarray, tasks: list[str],
            measure: Callable[[np.ndarray, np.ndarray], float], reps: int = 1000,
            seed: int = 0) -> tuple[float, float]:
    """95 % interval of ``measure(p, y)`` with tasks resampled (their draws kept
    together: the draws of one task are not independent sets)."""
    names = sorted(set(tasks))
    rows = {t: [i for i, u in enumerate(tasks) if u == t] for t in names}
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(reps):
        pick = rng.integers(0, len(names), size=len(names))
        ix = [i for k in pick for i in rows[names[k]]]
        values.append(measure(p[ix], y[ix]))
    finite = [v for v in values if v == v]
    return float(np.percentile(finite, 2.5)), float(np.percentile(finite, 97.5))


def ece_noise(p: np.ndarray, reps: int = 1000, seed: int = 0) -> tuple[float, float]:
    """Median and 95th percentile of the ECE a perfectly calibrated model would show on
    these predictions (labels drawn from them): how much of an ECE is sampling noise."""
    rng = np.random.default_rng(seed)
    values = [ece(p, (rng.random(p.size) < p).astype(np.float64), 10) for _ in range(reps)]
    return float(np.median(values)), float(np.percentile(values, 95))


def quantiles(values: list[float]) -> list[float]:
    """101 strictly increasing quantiles (ties nudged apart by 1e-9)."""
    q = np.quantile(np.array(values), np.linspace(0, 1, 101))
    for i in range(1, q.size):
        if q[i] <= q[i - 1]:
            q[i] = q[i - 1] + 1e-9
    return [round(float(v), 9) for v in q]


def main(argv: list[str] | None = None) -> int:
    """Fit, evaluate, and with ``--write`` update the shipped model file."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sets", type=Path, default=SETS)
    ap.add_argument("--write", action="store_true", help=f"write {MODEL.relative_to(REPO)}")
    args = ap.parse_args(argv)
    sets: list[dict[str, Any]] = [s for s in json.loads(args.sets.read_text())
                                  if s["status"] == "ok"]
    tasks = sorted({s["task_id"] for s in sets})
    fit_tasks, held_tasks = split(tasks)
    fit = [s for s in sets if s["task_id"] in fit_tasks]
    held = [s for s in sets if s["task_id"] in held_tasks]
    print(f"{len(tasks)} tasks: {len(fit_tasks)} to fit ({len(fit)} sets), "
          f"{len(held_tasks)} held out ({len(held)} sets)")
    models: dict[str, Any] = {}
    evaluation: dict[str, Any] = {}
    for kind in ("behaviour", "structure"):
        k: ModelKind = "behaviour" if kind == "behaviour" else "structure"
        features, l2, cv_loss = choose(fit, k)
        x, y = matrix(fit, k, features)
        model = fit_logistic(x, y, features, l2=l2)
        hx, hy = matrix(held, k, features)
        p = model.predict(hx)
        held_tasks_of = [s["task_id"] for s in held]
        lo, hi = task_ci(p, hy, held_tasks_of, auroc)
        ece_lo, ece_hi = task_ci(p, hy, held_tasks_of, lambda a, b: ece(a, b, 10))
        rows = reliability(p, hy, 10)
        noise = ece_noise(p)
        evaluation[kind] = {
            "l2": l2, "cv_log_loss": round(cv_loss, 4),
            "auroc": round(auroc(p, hy), 4), "auroc_ci": [round(lo, 4), round(hi, 4)],
            "ece": round(ece(p, hy, 10), 4), "ece_ci": [round(ece_lo, 4), round(ece_hi, 4)],
            "base_rate": round(float(hy.mean()), 4),
            "ece_if_calibrated": [round(noise[0], 4), round(noise[1], 4)],
            "mean_risk": round(float(p.mean()), 4),
            "fit_auroc": round(auroc(model.predict(x), y), 4),
            "reliability": [[round(a, 4), round(b, 4), c] for a, b, c in rows],
        }
        models[kind] = model.to_dict()
        e = evaluation[kind]
        print(f"{kind}: features {', '.join(features)}; L2 {l2:g} (cross-validated "
              f"log-loss {cv_loss:.4f})")
        print(f"{kind}: held-out AUROC {e['auroc']:.3f} [{lo:.3f}, {hi:.3f}], "
              f"ECE {e['ece']:.3f} [{ece_lo:.3f}, {ece_hi:.3f}] (calibrated: median "
              f"{noise[0]:.3f}, 95th percentile {noise[1]:.3f}); failure rate "
              f"{e['base_rate']:.3f}, mean risk {e['mean_risk']:.3f}; AUROC on the fitted "
              f"half {e['fit_auroc']:.3f}")
        for a, b, c in rows:
            print(f"    predicted {a:.3f}  observed {b:.3f}  ({c} sets)")
    document = {
        "about": ("Risk of the recommended version and stability reference for codequorum; "
                  "made by bench/fit_risk.py (see its docstring to refit)."),
        "data": "HumanEval, CodeGen-16B-mono, T = 0.8 (microsoft/CodeT), 164 tasks x 100",
        "draws": {"size": len(sets[0]["draw"]), "seeds": sorted({s["seed"] for s in sets})},
        "split": {"seed": SPLIT_SEED, "fit_tasks": len(fit_tasks),
                  "held_out_tasks": len(held_tasks)},
        "models": models,
        "held_out": evaluation,
        "stability": {
            "metric": "jsd_struct (ordered pairs)",
            "options": {"max_depth": 30, "jsd_log_base": 2.0},
            "sets": len(sets),
            "quantiles": quantiles([s["mean_similarity"] for s in sets]),
        },
    }
    if args.write:
        MODEL.write_text(json.dumps(document, indent=1) + "\n")
        print(f"wrote {MODEL.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
