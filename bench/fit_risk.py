"""Fit the risk model and the stability reference, and measure them on held-out tasks.

Reproducible procedure (what ``server/codequorum/data/risk_model.json`` was made with):

1. ``recommend_cache.py`` runs all 100 CodeGen-16B versions of each of the 164 HumanEval
   tasks once in the sandbox (inputs an editor has, plus the hidden tests);
2. ``bench_recommend.py --draws 10`` draws 10 of 100 versions per task with seeds 0-9
   (1,640 sets), scores each drawn set (``analyze``, ``recommend``) and writes the per-set
   records;
3. the fitting procedure, for each of three logistic models (numpy Newton fit, L2 penalty
   on standardised features), one per kind of evidence: ``examples`` (the sets whose
   docstring gives examples with expected values; label: the recommended version fails
   the hidden tests), ``behaviour`` (every set with the examples' expected values withheld,
   as for a function without examples; label: the agreement-only pick fails) and
   ``structure`` (every set; label: the structural medoid fails, what is kept when nothing
   ran): the feature set (from :data:`CANDIDATES`) and the L2 weight (from
   :data:`L2_CHOICES`) with the lowest five-fold cross-validated log-loss over the tasks
   (a task's draws stay in one fold) are kept, then refitted on all of those tasks;
4. held-out measurement by two-fold cross-fitting: the tasks are cut in two halves by a
   seeded permutation (seed 2026); the whole procedure runs on each half and predicts the
   other, so every one of the 164 tasks is predicted by a model that never saw it. AUROC,
   ECE (10 equal-width bins) and the reliability diagram are measured on those held-out
   predictions, with intervals over resampled tasks, and repeated for seeds 2026-2030: for
   each model on its own sets, and for ``shown``, the risk a report gives for the
   recommended version after a run (the targets apply to it). The first half of seed 2026
   alone (fitted on one half, measured on the other) is printed too;
5. the shipped models: the procedure on all 164 tasks;
6. the stability reference: 101 quantiles (0, 1, ..., 100 %) of the mean ``jsd_struct``
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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_recommend import SETS
from codequorum.risk import (
    FEATURES,
    LogisticModel,
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
#: The models, in the order they are reported.
KINDS: tuple[ModelKind, ...] = ("examples", "behaviour", "structure")
#: Feature sets tried by cross-validation, per model.
CANDIDATES: dict[str, tuple[tuple[str, ...], ...]] = {
    "structure": (FEATURES["structure"],
                  ("mean_similarity", "typicality")),
    "behaviour": (("mean_similarity", "typicality"),
                  ("mean_similarity", "typicality", "share"),
                  ("mean_similarity", "typicality", "agreed", "share"),
                  FEATURES["behaviour"]),
    "examples": (("mean_similarity", "typicality", "share", "passes_examples"),
                 ("mean_similarity", "typicality", "share", "passes_examples",
                  "examples_consensus"),
                 ("mean_similarity", "share", "passes_examples", "examples_consensus"),
                 ("mean_similarity", "typicality", "share", "passes_examples",
                  "examples_consensus", "examples_confirmed"),
                 FEATURES["examples"]),
}
FOLDS = 5
#: Cross-fittings measured (seeds ``SPLIT_SEED`` onwards); the first is shown in full.
REPEATS = 5
TARGET_AUROC = 0.85
TARGET_ECE = 0.05
#: What the held-out measurement is reported for: each model on its own sets, and
#: ``shown``, the risk a report gives after a run (``examples`` where the docstring gives
#: examples, else ``behaviour``) for the recommended version, judged against the targets.
MEASURED: tuple[str, ...] = ("shown", *KINDS)


def rows(sets: list[dict[str, Any]], kind: ModelKind) -> list[dict[str, Any]]:
    """The sets model ``kind`` is fitted and measured on: ``examples`` on those whose
    docstring gives examples; ``behaviour`` (their expected values withheld, the
    agreement-only pick) and ``structure`` (the medoid) on all."""
    return [s for s in sets if s["examples"] > 0] if kind == "examples" else sets


#: Record keys of the pick each run model is fitted on: (how it was chosen, its
#: typicality, its agreement share).
PICK_KEYS: dict[str, tuple[str, str, str]] = {
    "examples": ("recommended_by", "typicality", "share"),
    "behaviour": ("agreement_only_by", "agreement_only_typicality", "agreement_only_share"),
}


def signals(s: dict[str, Any], kind: ModelKind) -> RiskSignals:
    """The risk signals of one set record for model ``kind``'s pick."""
    if kind == "structure":
        return RiskSignals(s["mean_similarity"], s["medoid_typicality"],
                           s["syntax_error_fraction"], s["empty_fraction"])
    by, typicality, share = (s[key] for key in PICK_KEYS[kind])
    agreed = by == "behaviour"
    with_examples = kind == "examples"
    return RiskSignals(
        mean_similarity=s["mean_similarity"],
        typicality=typicality,
        syntax_error_fraction=s["syntax_error_fraction"],
        empty_fraction=s["empty_fraction"],
        behaviour=True,
        agreed=agreed,
        share=share if agreed else 0.0,
        examples=with_examples,
        passes_examples=with_examples and s["passes_examples"],
        examples_consensus=s["examples_consensus"] if with_examples else 0.0,
        example_count=s["examples"] if with_examples else 0,
    )


def label(s: dict[str, Any], kind: ModelKind) -> float:
    """1 when model ``kind``'s pick fails the hidden tests."""
    pick = {"examples": s["recommended"], "behaviour": s["agreement_only"],
            "structure": s["medoid"]}[kind]
    return 0.0 if pick is not None and s["passes"][pick] else 1.0


def shown_kind(s: dict[str, Any]) -> ModelKind:
    """The model a report applies to a set after a run (for a set without examples the
    recommendation is the agreement-only pick)."""
    return "examples" if s["examples"] > 0 else "behaviour"


def split(tasks: list[str], seed: int = SPLIT_SEED) -> tuple[set[str], set[str]]:
    """(fit tasks, held-out tasks): a seeded permutation cut in half."""
    order = np.random.default_rng(seed).permutation(len(tasks))
    half = len(tasks) // 2
    return {tasks[i] for i in order[:half]}, {tasks[i] for i in order[half:]}


def matrix(sets: list[dict[str, Any]], kind: ModelKind,
           features: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Values of ``features`` and labels of model ``kind`` (``sets``: its rows)."""
    x = np.array([signals(s, kind).vector(features) for s in sets])
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


@dataclass(frozen=True)
class Fitted:
    """What the fitting procedure chose and fitted."""

    features: tuple[str, ...]
    l2: float
    cv_log_loss: float
    model: LogisticModel


@dataclass(frozen=True)
class Held:
    """Held-out predictions: risk, label and task of each set."""

    p: np.ndarray
    y: np.ndarray
    tasks: list[str]


def procedure(sets: list[dict[str, Any]], kind: ModelKind) -> Fitted:
    """Choose features and L2 by cross-validation over the tasks of model ``kind``'s rows
    of ``sets``, then fit on all of them."""
    mine = rows(sets, kind)
    features, l2, loss = choose(mine, kind)
    x, y = matrix(mine, kind, features)
    return Fitted(features, l2, loss, fit_logistic(x, y, features, l2=l2))


def predict_held(fit: list[dict[str, Any]], held: list[dict[str, Any]]) -> dict[str, Held]:
    """``held``'s sets predicted by the models the procedure fits on ``fit``: each model on
    its rows, and ``shown`` (see :data:`MEASURED`)."""
    fitted = {kind: procedure(fit, kind) for kind in KINDS}
    out: dict[str, Held] = {}
    for kind in KINDS:
        mine = rows(held, kind)
        x, y = matrix(mine, kind, fitted[kind].features)
        out[kind] = Held(fitted[kind].model.predict(x), y, [s["task_id"] for s in mine])
    out["shown"] = Held(np.array([shown_risk(fitted, s) for s in held]),
                        np.array([label(s, shown_kind(s)) for s in held]),
                        [s["task_id"] for s in held])
    return out


def shown_risk(fitted: Mapping[ModelKind, Fitted], s: dict[str, Any]) -> float:
    """The risk a report gives set ``s`` after a run, from the models in ``fitted``."""
    kind = shown_kind(s)
    model = fitted[kind]
    return float(model.model.predict(signals(s, kind).vector(model.features))[()])


def cross_fit(sets: list[dict[str, Any]], seed: int) -> list[dict[str, Held]]:
    """Two-fold cross-fitting: each half of the tasks (cut by :func:`split`) predicted by
    the procedure run on the other; the first fold is fitted on the first half."""
    first, second = split(sorted({s["task_id"] for s in sets}), seed)
    a = [s for s in sets if s["task_id"] in first]
    b = [s for s in sets if s["task_id"] in second]
    return [predict_held(a, b), predict_held(b, a)]


def pooled(folds: list[Held]) -> Held:
    """The folds' predictions together."""
    return Held(np.concatenate([f.p for f in folds]), np.concatenate([f.y for f in folds]),
                [t for f in folds for t in f.tasks])


def task_ci(p: np.ndarray, y: np.ndarray, tasks: list[str],
            measure: Callable[[np.ndarray, np.ndarray], float], reps: int = 1000,
            seed: int = 0) -> tuple[float, float]:
    """95 % interval of ``measure(p, y)`` with tasks resampled (their draws kept
    together: the draws of one task are not independent sets)."""
    names = sorted(set(tasks))
    members = {t: [i for i, u in enumerate(tasks) if u == t] for t in names}
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(reps):
        pick = rng.integers(0, len(names), size=len(names))
        ix = [i for k in pick for i in members[names[k]]]
        values.append(measure(p[ix], y[ix]))
    finite = [v for v in values if v == v]
    return float(np.percentile(finite, 2.5)), float(np.percentile(finite, 97.5))


def _ece10(p: np.ndarray, y: np.ndarray) -> float:
    return ece(p, y, 10)


def measure(held: Held, intervals: bool = True) -> dict[str, Any]:
    """AUROC and ECE (with task-resampled intervals), rates and the reliability rows."""
    out: dict[str, Any] = {
        "sets": int(held.p.size), "tasks": len(set(held.tasks)),
        "auroc": round(auroc(held.p, held.y), 4), "ece": round(ece(held.p, held.y, 10), 4),
        "base_rate": round(float(held.y.mean()), 4), "mean_risk": round(float(held.p.mean()), 4),
    }
    if intervals:
        out["auroc_ci"] = [round(v, 4) for v in task_ci(held.p, held.y, held.tasks, auroc)]
        out["ece_ci"] = [round(v, 4) for v in task_ci(held.p, held.y, held.tasks, _ece10)]
        out["reliability"] = [[round(a, 4), round(b, 4), c]
                              for a, b, c in reliability(held.p, held.y, 10)]
    return out


def evaluate(sets: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per measured key (:data:`MEASURED`): the cross-fitted measurement (seed 2026 in
    full, repeated for the next seeds) and the single half of seed 2026."""
    runs = [cross_fit(sets, SPLIT_SEED + r) for r in range(REPEATS)]
    return {key: {
        "cross_fitted": measure(pooled([f[key] for f in runs[0]])),
        "repeats": [{"seed": SPLIT_SEED + r,
                     **measure(pooled([f[key] for f in folds]), intervals=False)}
                    for r, folds in enumerate(runs)],
        "one_half": measure(runs[0][0][key]),
    } for key in MEASURED}


def _interval(e: Mapping[str, Any], key: str) -> str:
    lo, hi = e[f"{key}_ci"]
    return f"{e[key]:.3f} [{lo:.3f}, {hi:.3f}]"


def report(key: str, e: Mapping[str, Any], shipped: Fitted | None) -> list[str]:
    """Lines printed for one measured key (``shipped``: its model, None for ``shown``)."""
    c, half, reps = e["cross_fitted"], e["one_half"], e["repeats"]
    aurocs = [r["auroc"] for r in reps]
    eces = [r["ece"] for r in reps]
    lines = [] if shipped is None else [
        f"{key}: shipped model fitted on {c['tasks']} tasks: features "
        f"{', '.join(shipped.features)}; L2 {shipped.l2:g} (cross-validated log-loss "
        f"{shipped.cv_log_loss:.4f})"]
    lines += [
        f"{key}: cross-fitted, every task held out ({c['sets']} sets, seed {SPLIT_SEED}): "
        f"AUROC {_interval(c, 'auroc')}, ECE {_interval(c, 'ece')}; failure rate "
        f"{c['base_rate']:.3f}, mean risk {c['mean_risk']:.3f}",
    ]
    lines += [f"    predicted {a:.3f}  observed {b:.3f}  ({n} sets)"
              for a, b, n in c["reliability"]]
    lines += [
        f"{key}: {len(reps)} cross-fittings (seeds {reps[0]['seed']}-{reps[-1]['seed']}): "
        f"AUROC {min(aurocs):.3f}-{max(aurocs):.3f} (mean {np.mean(aurocs):.3f}), ECE "
        f"{min(eces):.3f}-{max(eces):.3f} (mean {np.mean(eces):.3f})",
        f"{key}: one half (fitted on the other, seed {SPLIT_SEED}, {half['sets']} sets): "
        f"AUROC {_interval(half, 'auroc')}, ECE {_interval(half, 'ece')}",
    ]
    return lines


#: Colours of the reliability diagram, per measured key.
COLOURS = {"shown": "#1f5fbf", "examples": "#2a9d8f", "behaviour": "#e76f51",
           "structure": "#7a7a7a"}


def diagram(evaluation: Mapping[str, Any], size: int = 360) -> str:
    """An SVG reliability diagram of the cross-fitted predictions: observed failure rate
    against mean prediction per bin, one polyline per measured key, dots sized by sets."""
    pad, side = 40, size - 60

    def xy(a: float, b: float) -> tuple[float, float]:
        return pad + a * side, pad / 2 + (1 - b) * side

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size + 120}" '
             f'height="{size}" font-family="sans-serif" font-size="11">',
             f'<rect x="{pad}" y="{pad / 2}" width="{side}" height="{side}" fill="none" '
             'stroke="#999"/>',
             '<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#bbb" stroke-dasharray="4 3"/>'
             .format(*xy(0, 0), *xy(1, 1))]
    for t in (0.0, 0.5, 1.0):
        x, y = xy(t, t)
        parts.append(f'<text x="{x}" y="{pad / 2 + side + 14}" text-anchor="middle">{t:g}'
                     '</text>')
        parts.append(f'<text x="{pad - 6}" y="{y + 4}" text-anchor="end">{t:g}</text>')
    parts.append(f'<text x="{pad + side / 2}" y="{size - 4}" text-anchor="middle">predicted '
                 'risk</text>')
    parts.append(f'<text x="10" y="{pad / 2 + side / 2}" transform="rotate(-90 10 '
                 f'{pad / 2 + side / 2})" text-anchor="middle">observed failure rate</text>')
    for k, key in enumerate(MEASURED):
        rows_ = evaluation[key]["cross_fitted"]["reliability"]
        colour = COLOURS[key]
        points = " ".join("{:.1f},{:.1f}".format(*xy(a, b)) for a, b, _ in rows_)
        parts.append(f'<polyline points="{points}" fill="none" stroke="{colour}"/>')
        for a, b, n in rows_:
            x, y = xy(a, b)
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{1.5 + n ** 0.5 / 4:.1f}" '
                         f'fill="{colour}" fill-opacity="0.6"/>')
        c = evaluation[key]["cross_fitted"]
        parts.append(f'<text x="{pad + side + 10}" y="{pad + 16 * k}" fill="{colour}">{key}: '
                     f'ECE {c["ece"]:.3f}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


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
    ap.add_argument("--diagram", type=Path, metavar="SVG",
                    help="also draw the reliability diagram of the held-out predictions")
    args = ap.parse_args(argv)
    sets: list[dict[str, Any]] = [s for s in json.loads(args.sets.read_text())
                                  if s["status"] == "ok"]
    tasks = sorted({s["task_id"] for s in sets})
    print(f"{len(tasks)} tasks, {len(sets)} sets")
    shipped: dict[str, Fitted] = {kind: procedure(sets, kind) for kind in KINDS}
    evaluation = evaluate(sets)
    for key in MEASURED:
        fitted = shipped.get(key)
        if fitted is not None:
            evaluation[key] = {"features": list(fitted.features), "l2": fitted.l2,
                               "cv_log_loss": round(fitted.cv_log_loss, 4), **evaluation[key]}
        print("\n".join(report(key, evaluation[key], fitted)))
    c = evaluation["shown"]["cross_fitted"]
    met = c["auroc"] >= TARGET_AUROC and c["ece"] <= TARGET_ECE
    print(f"shown risk held out: AUROC >= {TARGET_AUROC} and ECE <= {TARGET_ECE}: "
          f"{'met' if met else 'missed'}")
    models = {kind: fitted.model.to_dict() for kind, fitted in shipped.items()}
    document = {
        "about": ("Risk of the recommended version and stability reference for codequorum; "
                  "made by bench/fit_risk.py (see its docstring to refit)."),
        "data": "HumanEval, CodeGen-16B-mono, T = 0.8 (microsoft/CodeT), 164 tasks x 100",
        "draws": {"size": len(sets[0]["draw"]), "seeds": sorted({s["seed"] for s in sets})},
        "fitted_on": {"tasks": len(tasks), "sets": len(sets)},
        "held_out": {"method": "two-fold cross-fitting over tasks", "seed": SPLIT_SEED,
                     "repeats": REPEATS, **evaluation},
        "models": models,
        "stability": {
            "metric": "jsd_struct (ordered pairs)",
            "options": {"max_depth": 30, "jsd_log_base": 2.0},
            "sets": len(sets),
            "quantiles": quantiles([s["mean_similarity"] for s in sets]),
        },
    }
    if args.diagram:
        args.diagram.write_text(diagram(evaluation))
        print(f"wrote {args.diagram}")
    if args.write:
        MODEL.write_text(json.dumps(document, indent=1) + "\n")
        print(f"wrote {MODEL.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
