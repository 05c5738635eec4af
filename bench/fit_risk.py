"""Fit the risk models and the stability reference, and measure them on draws held out.

The shipped models, levels, range and run rule are ``fit_risk_families.py``'s (real model
families, each left out in turn); this script's ``--write`` rewrites the whole file from
CodeGen-16B's regimes, so run that one after it. Its stability reference is still this
script's.

Reproducible procedure (what the file's stability reference was made with):

1. ``recommend_cache.py`` runs all 100 CodeGen-16B versions of each of the 164 HumanEval
   tasks once in the sandbox (inputs an editor has, plus the hidden tests);
2. ``risk_regimes.py`` draws sets from them as other models would give them (regimes: 3,
   5 or 10 versions; temperature-like sharpening as at T = 1.0, 0.8, 0.4, 0.2; weaker to
   much stronger models) and scores each (``analyze``, ``recommend``);
   ``bench_recommend.py --draws 10`` draws the reference sets of 10 (seeds 0-9);
3. per model (``examples``, ``examples_failed``, ``outputs``; see ``codequorum.judge.risk``): the
   feature set (:data:`CANDIDATES`) and L2 weight (:data:`L2_CHOICES`) with the lowest
   held-out log-loss, where *held out* means: the tasks are cut in two halves (seed 2026)
   and each value of each regime axis (size, temperature, strength) is left out in turn;
   the model is fitted on the other half's tasks in the other regimes and predicts this
   half's tasks in the regime left out. Every regime counts alike in a fit (rows weighted
   by their regime cell), so no one model's base rate dominates. Then the fit on all sets,
   with a monotone constraint: a feature whose coefficient says that more agreement, more
   confirmation or a wider margin makes a version *more* likely wrong, or that more
   distinct behaviours make it less likely wrong, is dropped and the fit redone;
4. measurement, on the same held-out predictions: per regime left out, sets, failure
   rate, mean risk, AUROC, ECE and the reliability rows; also per difficulty stratum (the
   task's pass rate over its 100 versions, left out in turn) and for sets with and without
   docstring examples. ``shown`` is the risk a report gives for the kept version;
   ``shown, rate per regime`` the same risks moved, per regime held out, to the rate of
   wrong kept versions estimated from that regime's sets alone, without their labels
   (:func:`codequorum.judge.base_rate.adapt`): what a run holding many sets of one model
   says;
5. the coarse scale: per model and bin of risk (:data:`BINS_BELOW`), the lowest and
   highest failure share over the regimes left out (size, temperature, strength;
   :data:`MIN_SETS` sets at least, from :data:`MIN_REGIMES` regimes at least, else no
   range); a bin is *likely right* when no regime saw more than a quarter of its kept
   versions wrong, *likely wrong* when none saw fewer than 60 %, else *uncertain*, and
   never a step its own risks contradict (risks all above a quarter are not *likely
   right*);
6. shape alone (no run; the structural medoid's failure from mean ``jsd_struct`` and its
   typicality) is measured the same way; it is not shipped (see bench/README.md);
7. the stability reference: 101 quantiles of the mean ``jsd_struct`` of the reference
   sets of step 2;
8. a run's group of sets of one model (``codequorum.judge.base_rate``): the fit's prior
   (the mean risk over the sets it was fitted on, every regime cell alike), and how far a
   group's own rate is trusted: groups of 5, 10, 20, 50 and 164 sets (one regime cell,
   distinct tasks) are drawn from each regime held out; the pseudo-count with the lowest
   mean log-loss of the moved risks is kept, and the fewest sets a group needs is the
   smallest of those sizes from which on the moved risks have a lower mean log-loss than
   each set's own and an ECE within the target in every regime held out (measured and
   printed; the shipped base rate is chosen on several model families by
   ``bench_run_rate.py --shipped --write-base-rate``, and ``--write`` keeps the file's).

Refit (for another model or data set, point the scripts' options at it)::

    nice -n 10 .venv/bin/python bench/recommend_cache.py --jobs 2
    .venv/bin/python bench/risk_regimes.py
    .venv/bin/python bench/bench_recommend.py --draws 10
    .venv/bin/python bench/fit_risk.py --write --diagram docs/img/risk_reliability.svg
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_recommend import SETS
from codequorum.judge.base_rate import BaseRate, adapt, estimate_rate, shift
from codequorum.judge.risk import (
    FEATURES,
    LEVELS,
    LogisticModel,
    ModelKind,
    RiskSignals,
    auroc,
    ece,
    fit_logistic,
    reliability,
)
from recommend_cache import REPO
from reference_data import skipped
from risk_regimes import REGIME_SETS, SIZES, STRENGTHS, TEMPERATURES

MODEL = REPO / "server" / "codequorum" / "data" / "risk_model.json"
SPLIT_SEED = 2026
#: L2 weights tried.
L2_CHOICES: tuple[float, ...] = (0.001, 0.01, 0.1)
#: The models, in the order they are reported.
KINDS: tuple[ModelKind, ...] = ("examples", "examples_failed", "outputs")
#: Feature sets tried, per model.
CANDIDATES: dict[str, tuple[tuple[str, ...], ...]] = {
    "examples": (("examples_consensus", "examples_confirmed", "cluster_share", "share"),
                 ("examples_consensus", "examples_confirmed", "cluster_share", "share",
                  "purity"),
                 ("examples_consensus", "examples_confirmed", "cluster_share", "share",
                  "margin"),
                 ("examples_consensus", "examples_confirmed", "cluster_share", "share",
                  "margin", "behaviours"),
                 FEATURES["examples"]),
    "examples_failed": (("examples_consensus",),
                        ("cluster_share", "distinct_agreeing"),
                        ("cluster_share", "margin", "behaviours"),
                        FEATURES["examples_failed"]),
    "outputs": (("cluster_share", "share"),
                ("cluster_share", "share", "agreed"),
                ("cluster_share", "share", "agreed", "distinct_agreeing"),
                ("cluster_share", "share", "agreed", "distinct_agreeing", "distinct_share"),
                ("cluster_share", "share", "agreed", "distinct_agreeing", "margin",
                 "behaviours"),
                FEATURES["outputs"]),
}
#: Per model, the direction a feature may push the risk: -1, more of it never raises it;
#: +1, more of it never lowers it (a kept version failing an example is judged by how
#: alike the failing versions are, which may point either way).
DIRECTION: dict[str, dict[str, int]] = {
    "examples": {"examples_consensus": -1, "examples_confirmed": -1, "cluster_share": -1,
                 "share": -1, "purity": -1, "distinct_agreeing": -1, "margin": -1,
                 "behaviours": 1},
    "outputs": {"cluster_share": -1, "share": -1, "agreed": -1, "distinct_agreeing": -1,
                "margin": -1, "behaviours": 1},
}
#: Regime axes a model is chosen and its levels measured on (the draws' labels).
AXES: dict[str, tuple[str, ...]] = {
    "size": tuple(str(n) for n in SIZES),
    "temperature": tuple(TEMPERATURES),
    "strength": tuple(STRENGTHS),
}
#: Difficulty strata: the task's pass rate over its 100 versions, measured like an axis.
STRATA: tuple[tuple[str, float], ...] = (("none", 0.0), ("hard", 0.3), ("medium", 0.7),
                                         ("easy", 1.0))
#: Upper bounds of the bins of risk whose held-out failure shares are shipped (the last
#: holds the rest).
BINS_BELOW: tuple[float, ...] = (0.1, 0.2, 0.4, 0.7, 1.0)
#: A bin is *likely right* when no held-out regime saw more than this share wrong in it,
#: *likely wrong* when none saw less than :data:`WRONG_AT_LEAST`; else *uncertain*.
RIGHT_AT_MOST = 0.25
WRONG_AT_LEAST = 0.6
#: Fewest sets at a step for a held-out regime to count in its range.
MIN_SETS = 30
#: Fewest held-out regimes that must count for a bin to have a range and a step other
#: than *uncertain* (one regime cannot show that a step holds across models).
MIN_REGIMES = 2
#: Group sizes a model's run may hold, drawn from each regime held out to choose how far a
#: group's own rate is trusted (:func:`choose_base_rate`).
GROUP_SIZES: tuple[int, ...] = (5, 10, 20, 50, 164)
#: Groups drawn per regime cell and size (a size above the cell's tasks is drawn once).
GROUP_DRAWS = 20
#: The fewest sets when no size holds (:func:`choose_base_rate`): no run is ever moved.
NEVER = 10**9
#: Pseudo-counts tried: how many sets at the fit's prior a group's estimate is shrunk with.
PSEUDO_COUNTS: tuple[float, ...] = (0, 5, 10, 20, 50, 100, 200)
TARGET_AUROC = 0.85
TARGET_ECE = 0.05
#: The bar a risk must clear, on every regime held out, to be shown as a probability.
BAR_AUROC = 0.70
BAR_ECE = 0.05


# ----------------------------------------------------------------------------- records


def difficulty(s: Mapping[str, Any]) -> str:
    """The difficulty stratum of a set's task (:data:`STRATA`)."""
    rate = float(s["task_pass_rate"])
    return next(name for name, upper in STRATA if rate <= upper)


def regime_value(s: Mapping[str, Any], axis: str) -> str:
    """The set's value on ``axis`` (a regime axis or ``difficulty``)."""
    return difficulty(s) if axis == "difficulty" else str(s[axis])


def kind_of(s: Mapping[str, Any]) -> ModelKind:
    """The model a report applies to the set's kept version after a run."""
    if s["examples"] <= 0:
        return "outputs"
    return "examples" if s["passes_examples"] else "examples_failed"


#: Record keys of the pick each model is fitted on: (how it was chosen, its agreeing
#: versions, their distinct texts, its agreement share, its index, the largest other
#: behaviour, the distinct behaviours).
PICK_KEYS: dict[str, tuple[str, ...]] = {
    "examples": ("recommended_by", "agreeing", "agreeing_distinct", "share", "recommended",
                 "recommended_runner_up", "recommended_behaviours"),
    "outputs": ("agreement_only_by", "agreement_only_agreeing",
                "agreement_only_agreeing_distinct", "agreement_only_share", "agreement_only",
                "agreement_only_runner_up", "agreement_only_behaviours"),
}


def signals(s: Mapping[str, Any], kind: ModelKind) -> RiskSignals:
    """The risk signals of one set record for model ``kind``'s pick (``outputs``: the
    agreement-only pick, as if the docstring gave no example)."""
    by, agreeing, texts, share, _, runner, distinct = (s[k] for k in PICK_KEYS[
        "outputs" if kind == "outputs" else "examples"])
    n = int(s["n"])
    with_examples = kind != "outputs"
    return RiskSignals(
        versions=n, agreed=by == "behaviour", agreeing=int(agreeing),
        agreeing_texts=int(texts), texts=int(s["distinct"]), share=float(share),
        examples=int(s["examples"]) if with_examples else 0,
        passes_examples=with_examples and bool(s["passes_examples"]),
        passing=round(float(s["examples_consensus"]) * n) if with_examples else 0,
        runner_up=int(runner) if by == "behaviour" else 0, behaviours=int(distinct))


def label(s: Mapping[str, Any], kind: ModelKind | str) -> float:
    """1 when model ``kind``'s pick (``structure``: the medoid) fails the hidden tests."""
    key = {"outputs": "agreement_only", "structure": "medoid"}.get(kind, "recommended")
    pick = s[key]
    return 0.0 if pick is not None and s["passes"][pick] else 1.0


def rows(sets: Sequence[Mapping[str, Any]], kind: ModelKind | str) -> list[Mapping[str, Any]]:
    """The sets model ``kind`` is fitted and measured on: ``outputs`` and ``structure`` on
    every set, the examples' models on those of their kind."""
    if kind in ("outputs", "structure"):
        return list(sets)
    return [s for s in sets if kind_of(s) == kind]


def matrix(data: Sequence[Mapping[str, Any]], kind: ModelKind | str,
           features: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Values of ``features`` and labels of model ``kind``."""
    if kind == "structure":
        values = [[s["mean_similarity"], s["medoid_typicality"]][: len(features)]
                  for s in data]
        return np.array(values, dtype=np.float64), np.array([label(s, kind) for s in data])
    x = np.array([signals(s, kind).vector(features) for s in data])  # type: ignore[arg-type]
    return x, np.array([label(s, kind) for s in data])


def regime_weights(sets: Sequence[dict[str, Any]]) -> None:
    """Give each set a ``weight`` under which every regime cell (size, temperature,
    strength) weighs alike, whatever the number of its sets (a much stronger model's
    cells leave out unsolved tasks); kept in the record, so that a model fitted on some
    kinds of sets keeps each regime's mix of kinds."""
    cells = [(s["size"], s["temperature"], s["strength"]) for s in sets]
    counts: dict[tuple[Any, ...], int] = {}
    for c in cells:
        counts[c] = counts.get(c, 0) + 1
    scale = len(sets) / len(counts)
    for s, c in zip(sets, cells, strict=True):
        s["weight"] = scale / counts[c]


def cell_weights(data: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """The rows' regime weights (:func:`regime_weights`)."""
    return np.array([float(s["weight"]) for s in data])


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    """Mean negative log-likelihood of 0/1 labels."""
    q = np.clip(p, 1e-12, 1 - 1e-12)
    return float(-np.mean(y * np.log(q) + (1 - y) * np.log(1 - q)))


# ----------------------------------------------------------------------------- fitting


@dataclass(frozen=True)
class Fitted:
    """What the procedure chose and fitted for one model."""

    features: tuple[str, ...]
    l2: float
    held_out_log_loss: float
    model: LogisticModel


def fit_monotone(kind: str, x: np.ndarray, y: np.ndarray, features: Sequence[str],
                 l2: float, weights: np.ndarray) -> LogisticModel:
    """A weighted fit in which no feature pushes the risk against model ``kind``'s
    :data:`DIRECTION`: a feature that does is dropped and the rest refitted."""
    direction = DIRECTION.get(kind, {})
    names = list(features)
    while True:
        cols = [list(features).index(f) for f in names]
        m = fit_logistic(x[:, cols], y, names, l2=l2, weights=weights)
        wrong = [f for f, c in zip(names, m.coef, strict=True)
                 if direction.get(f, 0) * c < 0]
        if not wrong or len(names) == 1:
            return m
        names.remove(wrong[0])


def halves(data: Sequence[Mapping[str, Any]], seed: int = SPLIT_SEED) -> np.ndarray:
    """Per set, 0 or 1: its task's half (a seeded permutation of the tasks cut in two)."""
    tasks = sorted({s["task_id"] for s in data})
    order = np.random.default_rng(seed).permutation(len(tasks))
    first = {tasks[i] for i in order[: len(tasks) // 2]}
    return np.array([0 if s["task_id"] in first else 1 for s in data])


def held_out(data: Sequence[Mapping[str, Any]], kind: ModelKind | str, axis: str,
             fit: Callable[[np.ndarray, np.ndarray, np.ndarray], LogisticModel],
             features: Sequence[str]) -> np.ndarray:
    """Per set of ``data``, the prediction of a model fitted (by ``fit``) on the other
    half's tasks with the set's value of ``axis`` left out."""
    x, y = matrix(data, kind, features)
    half = halves(data)
    where = np.array([regime_value(s, axis) for s in data])
    w = cell_weights(data)
    p = np.full(len(data), np.nan)
    for value in sorted(set(where)):
        for part in (0, 1):
            train = (half != part) & (where != value)
            test = (half == part) & (where == value)
            if test.any() and train.any():
                m = fit(x[train], y[train], w[train])
                cols = [list(features).index(f) for f in m.features]
                p[test] = m.predict(x[test][:, cols])
    return p


def choose(data: Sequence[Mapping[str, Any]], kind: ModelKind) -> Fitted:
    """The features and L2 with the lowest held-out log-loss over the regime axes, then
    the fit on all of ``data``."""
    best: tuple[float, tuple[str, ...], float] | None = None
    _, y = matrix(data, kind, CANDIDATES[kind][0])
    for features in CANDIDATES[kind]:
        for l2 in L2_CHOICES:
            def fit(x: np.ndarray, yy: np.ndarray, w: np.ndarray,
                    f: tuple[str, ...] = features, penalty: float = l2) -> LogisticModel:
                return fit_monotone(kind, x, yy, f, penalty, w)
            losses = [log_loss(held_out(data, kind, axis, fit, features), y)
                      for axis in AXES]
            loss = float(np.mean(losses))
            if best is None or loss < best[0] - 1e-12:
                best = (loss, features, l2)
    assert best is not None
    loss, features, l2 = best
    x, y = matrix(data, kind, features)
    model = fit_monotone(kind, x, y, features, l2, cell_weights(data))
    return Fitted(model.features, l2, loss, model)


# ----------------------------------------------------------------------------- measuring


def measure(p: np.ndarray, y: np.ndarray, intervals: bool = False) -> dict[str, Any]:
    """Sets, failure rate, mean risk, AUROC, ECE and reliability rows."""
    out: dict[str, Any] = {
        "sets": int(p.size), "base_rate": round(float(y.mean()), 4) if p.size else None,
        "mean_risk": round(float(p.mean()), 4) if p.size else None,
        "auroc": round(auroc(p, y), 4) if p.size else None,
        "ece": round(ece(p, y, 10), 4) if p.size else None,
        "reliability": [[round(a, 4), round(b, 4), c] for a, b, c in reliability(p, y, 10)],
    }
    for key in ("auroc", "ece"):
        if out[key] is not None and math.isnan(out[key]):
            out[key] = None
    return out


@dataclass
class Predictions:
    """Held-out predictions of one model (or of ``shown``) on one axis; for ``shown``
    also each set's regime cell and task (a model's group of sets is drawn from them)."""

    p: np.ndarray
    y: np.ndarray
    where: np.ndarray
    kinds: np.ndarray
    cells: np.ndarray | None = None
    tasks: np.ndarray | None = None


def predictions(sets: Sequence[Mapping[str, Any]], fitted: Mapping[str, Fitted],
                axis: str) -> dict[str, Predictions]:
    """Per model, and ``shown`` (each set's own model), the held-out predictions with
    each value of ``axis`` left out in turn."""
    out: dict[str, Predictions] = {}
    for kind in KINDS:
        f = fitted[kind]

        def fit(x: np.ndarray, y: np.ndarray, w: np.ndarray, ff: Fitted = f,
                k: str = kind) -> LogisticModel:
            return fit_monotone(k, x, y, ff.features, ff.l2, w)
        data = rows(sets, kind)
        p = held_out(data, kind, axis, fit, f.features)
        _, y = matrix(data, kind, f.features)
        out[kind] = Predictions(p, y, np.array([regime_value(s, axis) for s in data]),
                                np.array([kind] * len(data)))
    parts = [(k, rows(sets, k) if k != "outputs" else
              [s for s in sets if kind_of(s) == "outputs"]) for k in KINDS]
    index = {k: {id(s): i for i, s in enumerate(rows(sets, k))} for k in KINDS}
    p_shown, y_shown, where, kinds, cells, tasks = [], [], [], [], [], []
    for kind, data in parts:
        for s in data:
            i = index[kind][id(s)]
            p_shown.append(out[kind].p[i])
            y_shown.append(out[kind].y[i])
            where.append(regime_value(s, axis))
            kinds.append(kind)
            cells.append(f"{s['size']}/{s['temperature']}/{s['strength']}")
            tasks.append(s["task_id"])
    out["shown"] = Predictions(np.array(p_shown), np.array(y_shown), np.array(where),
                               np.array(kinds), np.array(cells), np.array(tasks))
    return out


def structure_predictions(sets: Sequence[Mapping[str, Any]], axis: str) -> Predictions:
    """Held-out predictions of a shape-only model (mean ``jsd_struct`` and the medoid's
    typicality; label: the medoid fails), as it would have been fitted."""
    names = ("mean_similarity", "typicality")

    def fit(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> LogisticModel:
        return fit_logistic(x, y, names, l2=0.01, weights=w)
    p = held_out(sets, "structure", axis, fit, names)
    _, y = matrix(sets, "structure", names)
    return Predictions(p, y, np.array([regime_value(s, axis) for s in sets]),
                       np.array(["structure"] * len(sets)))


def per_value(pred: Predictions) -> dict[str, dict[str, Any]]:
    """:func:`measure` per value of the axis."""
    return {v: measure(pred.p[pred.where == v], pred.y[pred.where == v])
            for v in sorted(set(pred.where))}


def level_name(observed: Sequence[float] | None, lower: float = 0.0,
               upper: float = 1.0) -> str:
    """The step of the coarse scale a bin of risk from ``lower`` to ``upper`` earned on
    held-out data (see :data:`RIGHT_AT_MOST`); never one its own risks contradict (a bin
    of risks all above :data:`RIGHT_AT_MOST` is not *likely right*, one all below
    :data:`WRONG_AT_LEAST` not *likely wrong*)."""
    if observed is None:
        return LEVELS[1]
    low, high = observed
    if high <= RIGHT_AT_MOST and lower < RIGHT_AT_MOST:
        return LEVELS[0]
    return LEVELS[2] if low >= WRONG_AT_LEAST and upper > WRONG_AT_LEAST else LEVELS[1]


def levels(preds: Mapping[str, Mapping[str, Predictions]], kind: str) -> list[dict[str, Any]]:
    """Per bin of model ``kind``'s risk (:data:`BINS_BELOW`): the lowest and highest
    failure share over the held-out regimes of every axis with :data:`MIN_SETS` sets in
    the bin (``None`` without any), and the step of the coarse scale that earns."""
    out: list[dict[str, Any]] = []
    lower = 0.0
    for upper in BINS_BELOW:
        shares: list[float] = []
        sets = 0
        for axis in AXES:
            pred = preds[axis][kind]
            at = (pred.p >= lower) & ((pred.p < upper) if upper < 1.0 else True)
            sets += int(at.sum())
            for v in sorted(set(pred.where)):
                mask = at & (pred.where == v)
                if int(mask.sum()) >= MIN_SETS:
                    shares.append(float(pred.y[mask].mean()))
        observed = ([round(min(shares), 3), round(max(shares), 3)]
                    if len(shares) >= MIN_REGIMES else None)
        out.append({"below": upper, "level": level_name(observed, lower, upper),
                    "observed": observed,
                    "sets": sets // len(AXES)})
        lower = upper
    return out


def meets_bar(measured: Mapping[str, Mapping[str, Any]]) -> bool:
    """Whether every held-out regime shows AUROC >= :data:`BAR_AUROC` and ECE <=
    :data:`BAR_ECE`."""
    for m in measured.values():
        a, e = m["auroc"], m["ece"]
        if e is None or e > BAR_ECE or (a is not None and a < BAR_AUROC):
            return False
    return True


# ----------------------------------------------------------------------------- report


def _row(name: str, m: Mapping[str, Any]) -> str:
    a = "  n/a" if m["auroc"] is None else f"{m['auroc']:.3f}"
    e = "  n/a" if m["ece"] is None else f"{m['ece']:.3f}"
    return (f"    {name:>14}: {m['sets']:5d} sets, wrong {m['base_rate']:.3f}, mean risk "
            f"{m['mean_risk']:.3f}, AUROC {a}, ECE {e}")


def report_lines(evaluation: Mapping[str, Mapping[str, Any]]) -> Iterator[str]:
    """The printed report: per measured model and axis, each regime held out."""
    for key, by_axis in evaluation.items():
        yield f"{key}:"
        for axis, values in by_axis.items():
            yield f"  {axis} held out:"
            for value, m in values.items():
                yield _row(value, m)
                for a, b, c in m["reliability"]:
                    yield f"{'':22}predicted {a:.3f}  observed {b:.3f}  ({c} sets)"


#: Colours of the reliability diagram, per regime of the strength axis.
COLOURS = {"weaker": "#c62828", "as sampled": "#1f5fbf", "stronger": "#2a9d8f",
           "much stronger": "#7a7a7a"}


def diagram(by_value: Mapping[str, Mapping[str, Any]], size: int = 360) -> str:
    """An SVG reliability diagram of the shown risk, one polyline per strength held out:
    observed failure rate against mean prediction per bin, dots sized by sets."""
    pad, side = 40, size - 60

    def xy(a: float, b: float) -> tuple[float, float]:
        return pad + a * side, pad / 2 + (1 - b) * side

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size + 170}" '
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
    for k, (value, m) in enumerate(by_value.items()):
        colour = COLOURS.get(value, "#000")
        points = " ".join("{:.1f},{:.1f}".format(*xy(a, b)) for a, b, _ in m["reliability"])
        parts.append(f'<polyline points="{points}" fill="none" stroke="{colour}"/>')
        for a, b, n in m["reliability"]:
            x, y = xy(a, b)
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{1.5 + n ** 0.5 / 6:.1f}" '
                         f'fill="{colour}" fill-opacity="0.6"/>')
        parts.append(f'<text x="{pad + side + 10}" y="{pad + 16 * k}" fill="{colour}">'
                     f'{value}: ECE {m["ece"]:.3f}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def quantiles(values: list[float]) -> list[float]:
    """101 strictly increasing quantiles (ties nudged apart by 1e-9)."""
    q = np.quantile(np.array(values), np.linspace(0, 1, 101))
    for i in range(1, q.size):
        if q[i] <= q[i - 1]:
            q[i] = q[i - 1] + 1e-9
    return [round(float(v), 9) for v in q]


def adapted(pred: Predictions, rule: BaseRate | None = None) -> Predictions:
    """Held-out predictions with each regime's risks moved to its own rate
    (:func:`codequorum.judge.base_rate.adapt`, by default with no shrinkage and no
    minimum: the whole regime is one group), from the mean risk the fit gave the other
    regimes."""
    p = pred.p.copy()
    for v in set(pred.where):
        mine = pred.where == v
        prior = float(pred.p[~mine].mean())
        use = (BaseRate(prior, 0.0, 0) if rule is None
               else BaseRate(prior, rule.pseudo_count, rule.min_sets))
        p[mine], _ = adapt(pred.p[mine], use)
    return Predictions(p, pred.y, pred.where, pred.kinds, pred.cells, pred.tasks)


# ----------------------------------------------------------------------------- group rate


@dataclass(frozen=True)
class Group:
    """One model's sets as a run would hold them: ``size`` sets of one regime cell (one
    size, temperature and strength), each of another task, drawn from a regime held out;
    ``prior``: the mean risk of the other regimes."""

    value: str
    size: int
    index: np.ndarray
    prior: float


def groups(pred: Predictions, sizes: Sequence[int] = GROUP_SIZES,
           draws: int = GROUP_DRAWS, seed: int = SPLIT_SEED) -> list[Group]:
    """Per regime held out, per cell of it and per group size, ``draws`` groups of sets of
    distinct tasks (a size above the cell's tasks takes them all, once)."""
    assert pred.cells is not None and pred.tasks is not None
    rng = np.random.default_rng(seed)
    out: list[Group] = []
    for value in sorted(set(pred.where)):
        mine = pred.where == value
        prior = float(pred.p[~mine].mean())
        for cell in sorted(set(pred.cells[mine])):
            at = np.flatnonzero(mine & (pred.cells == cell))
            by_task: dict[str, list[int]] = {}
            for i in at:
                by_task.setdefault(str(pred.tasks[i]), []).append(int(i))
            names = sorted(by_task)
            for size in sizes:
                for _ in range(draws if size < len(names) else 1):
                    chosen = rng.permutation(len(names))[:size]
                    index = np.array([rng.choice(by_task[names[t]]) for t in chosen])
                    out.append(Group(value, size, index, prior))
    return out


def group_measure(pred: Predictions, drawn: Sequence[Group], pseudo_count: float | None
                  ) -> dict[str, dict[int, dict[str, float]]]:
    """Per regime held out and group size: log-loss and ECE of the risks of every drawn
    group pooled, each group moved to its own rate estimated with ``pseudo_count`` sets at
    the prior (None: the risks as each set gives them)."""
    pooled: dict[tuple[str, int], tuple[list[np.ndarray], list[np.ndarray]]] = {}
    for g in drawn:
        p = pred.p[g.index]
        if pseudo_count is not None:
            p = shift(p, g.prior, estimate_rate(p, g.prior, pseudo_count))
        ps, ys = pooled.setdefault((g.value, g.size), ([], []))
        ps.append(p)
        ys.append(pred.y[g.index])
    out: dict[str, dict[int, dict[str, float]]] = {}
    for (value, size), (ps, ys) in sorted(pooled.items()):
        p, y = np.concatenate(ps), np.concatenate(ys)
        out.setdefault(value, {})[size] = {"log_loss": log_loss(p, y), "ece": ece(p, y, 10),
                                           "auroc": auroc(p, y)}
    return out


def choose_base_rate(preds: Mapping[str, Mapping[str, Predictions]], prior: float
                     ) -> tuple[BaseRate, dict[str, Any]]:
    """The pseudo-count with the lowest mean held-out log-loss over every regime of the
    axes (:data:`AXES`) and group size (:data:`GROUP_SIZES`), and the fewest sets a group
    needs: the smallest size from which on (every larger size too) the moved risks, so
    shrunk, have a lower mean log-loss than each set's own and an ECE within
    :data:`TARGET_ECE` in every regime held out. Returns the rule (with the fit's
    ``prior``) and the measurements behind it."""
    drawn = {axis: groups(preds[axis]["shown"]) for axis in AXES}
    per_k = {k: {axis: group_measure(preds[axis]["shown"], drawn[axis], k) for axis in AXES}
             for k in (None, *PSEUDO_COUNTS)}

    def cells(k: float | None, size: int | None = None) -> list[dict[str, float]]:
        return [m for axis in AXES for by_size in per_k[k][axis].values()
                for n, m in by_size.items() if size is None or n == size]

    def mean_loss(k: float | None, size: int | None = None) -> float:
        return float(np.mean([m["log_loss"] for m in cells(k, size)]))

    k_best = min(PSEUDO_COUNTS, key=lambda k: (mean_loss(k), k))
    alone, moved = per_k[None], per_k[k_best]

    def holds(size: int) -> bool:
        return (mean_loss(k_best, size) < mean_loss(None, size)
                and max(m["ece"] for m in cells(k_best, size)) <= TARGET_ECE)

    sizes = list(GROUP_SIZES)
    min_sets = next((size for k, size in enumerate(sizes) if all(map(holds, sizes[k:]))),
                    NEVER)
    table = {
        "mean_log_loss": {("alone" if k is None else f"{k:g}"): round(mean_loss(k), 5)
                          for k in per_k},
        "by_size": {str(size): {
            "alone": {"log_loss": round(mean_loss(None, size), 4),
                      "worst_ece": round(max(m["ece"] for m in cells(None, size)), 4)},
            "moved": {"log_loss": round(mean_loss(k_best, size), 4),
                      "worst_ece": round(max(m["ece"] for m in cells(k_best, size)), 4)}}
            for size in GROUP_SIZES},
        "by_regime": {axis: {v: {str(size): {
            "alone": {m: _rounded(alone[axis][v][size][m]) for m in GROUP_FIGURES},
            "moved": {m: _rounded(moved[axis][v][size][m]) for m in GROUP_FIGURES}}
            for size in GROUP_SIZES} for v in moved[axis]} for axis in AXES},
    }
    return BaseRate(prior, float(k_best), int(min_sets)), table


#: What :func:`choose_base_rate` reports per regime and group size.
GROUP_FIGURES: tuple[str, ...] = ("log_loss", "ece", "auroc")


def _rounded(x: float) -> float | None:
    """Four decimals; None for NaN (AUROC of a regime whose sets are all wrong)."""
    return None if math.isnan(x) else round(x, 4)


def base_rate_lines(rule: BaseRate, table: Mapping[str, Any]) -> Iterator[str]:
    """The printed choice: mean log-loss per pseudo-count, then per regime and group size
    the log-loss and ECE of each set's risk and of the moved risks."""
    yield (f"base rate: prior {rule.prior:.4f}, pseudo-count {rule.pseudo_count:g}, at least "
           f"{rule.min_sets} sets; held-out log-loss by pseudo-count: " + ", ".join(
               f"{k} {v:.4f}" for k, v in table["mean_log_loss"].items()))
    for axis, values in table["by_regime"].items():
        yield f"  {axis} held out (groups of " + ", ".join(map(str, GROUP_SIZES)) + " sets):"
        for v, by_size in values.items():
            cells = "; ".join(
                f"{size}: ECE {m['alone']['ece']:.3f} -> {m['moved']['ece']:.3f}, AUROC "
                f"{m['alone']['auroc']:.3f} -> {m['moved']['auroc']:.3f}, log-loss "
                f"{m['alone']['log_loss']:.3f} -> {m['moved']['log_loss']:.3f}"
                for size, m in by_size.items())
            yield f"    {v:>14}: {cells}"
    for size, m in table["by_size"].items():
        yield (f"  groups of {size:>3}: mean log-loss {m['alone']['log_loss']:.4f} -> "
               f"{m['moved']['log_loss']:.4f}, worst regime's ECE "
               f"{m['alone']['worst_ece']:.3f} -> {m['moved']['worst_ece']:.3f}")


def fit_prior(sets: Sequence[Mapping[str, Any]], models: Mapping[str, LogisticModel]
              ) -> float:
    """The mean risk ``models`` give the sets they were fitted on, every regime cell alike
    (:func:`regime_weights`): the rate under which their risks hold."""
    p = []
    for s in sets:
        kind = kind_of(s)
        m = models[kind]
        p.append(float(m.predict(signals(s, kind).vector(m.features))[()]))
    return float(np.average(np.array(p), weights=cell_weights(sets)))


def evaluate(sets: Sequence[Mapping[str, Any]], fitted: Mapping[str, Fitted]
             ) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Predictions]]]:
    """Per measured model (``shown``, each model, ``structure``) and axis (the regime axes
    and ``difficulty``), the measurement of each value held out; and the predictions."""
    preds: dict[str, dict[str, Predictions]] = {}
    evaluation: dict[str, dict[str, Any]] = {}
    for axis in (*AXES, "difficulty"):
        preds[axis] = predictions(sets, fitted, axis)
        preds[axis]["structure"] = structure_predictions(sets, axis)
    for key in ("shown", *KINDS, "structure"):
        evaluation[key] = {axis: per_value(preds[axis][key]) for axis in preds}
    evaluation["shown, rate per regime"] = {
        axis: per_value(adapted(preds[axis]["shown"])) for axis in preds}
    shown = preds["size"]["shown"]
    with_examples = shown.kinds != "outputs"
    evaluation["shown"]["examples"] = {
        "with examples": measure(shown.p[with_examples], shown.y[with_examples]),
        "without examples": measure(preds["size"]["outputs"].p, preds["size"]["outputs"].y),
    }
    return evaluation, preds


def main(argv: list[str] | None = None) -> int:
    """Fit, evaluate, and with ``--write`` update the shipped model file."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--regimes", type=Path, default=REGIME_SETS)
    ap.add_argument("--sets", type=Path, default=SETS,
                    help="the reference sets of 10 (bench_recommend.py --draws 10)")
    ap.add_argument("--write", action="store_true", help=f"write {MODEL.relative_to(REPO)}")
    ap.add_argument("--diagram", type=Path, metavar="SVG",
                    help="also draw the reliability diagram of the held-out shown risk")
    ap.add_argument("--smoke", action="store_true",
                    help="check the script loads; it needs the records the scripts above write")
    args = ap.parse_args(argv)
    if args.smoke:
        skipped("needs the records of risk_regimes.py and bench_recommend.py, which need the "
                "sandbox outcomes of all 164 x 100 versions (recommend_cache.py, minutes)")
    # a set whose versions ran on no input an editor has gets no risk (nothing ran)
    sets = [s for s in json.loads(args.regimes.read_text())
            if s["status"] == "ok" and s["editor_inputs"] > 0]
    regime_weights(sets)
    reference = [s for s in json.loads(args.sets.read_text()) if s["status"] == "ok"]
    print(f"{len({s['task_id'] for s in sets})} tasks, {len(sets)} sets in "
          f"{len({(s['size'], s['temperature'], s['strength']) for s in sets})} regimes")
    fitted: dict[str, Fitted] = {kind: choose(rows(sets, kind), kind) for kind in KINDS}
    for kind, f in fitted.items():
        print(f"{kind}: features {', '.join(f.features)}; L2 {f.l2:g} (held-out log-loss "
              f"{f.held_out_log_loss:.4f})")
    evaluation, preds = evaluate(sets, fitted)
    print("\n".join(report_lines(evaluation)))
    steps = {kind: levels(preds, kind) for kind in KINDS}
    for kind, kind_steps in steps.items():
        print(f"{kind} levels: " + "; ".join(
            f"below {s['below']:g}: {s['level']}, " + (
                f"{s['observed'][0]:.0%}-{s['observed'][1]:.0%} wrong"
                if s["observed"] else "no regime to say") + f" ({s['sets']} sets)"
            for s in kind_steps))
    # the run level within one family's regimes, measured; the file's own is kept
    models = {kind: f.model for kind, f in fitted.items()}
    rule, group_table = choose_base_rate(preds, fit_prior(sets, models))
    print("\n".join(base_rate_lines(rule, group_table)))
    base_rate = json.loads(MODEL.read_text())["base_rate"]
    for key in ("shown", "structure"):
        bar = all(meets_bar(evaluation[key][axis]) for axis in AXES)
        print(f"{key}: AUROC >= {BAR_AUROC} and ECE <= {BAR_ECE} on every regime held out: "
              f"{'met' if bar else 'missed'}")
    document = {
        "about": ("Risk of the recommended version and stability reference for codequorum; "
                  "made by bench/fit_risk.py (see its docstring to refit)."),
        "data": "HumanEval, CodeGen-16B-mono, T = 0.8 (microsoft/CodeT), 164 tasks x 100",
        "regimes": {"axes": {k: list(v) for k, v in AXES.items()}, "sets": len(sets),
                    "split_seed": SPLIT_SEED},
        "models": {kind: {**f.model.to_dict(), "l2": f.l2} for kind, f in fitted.items()},
        "levels": steps,
        "base_rate": base_rate,
        "held_out": evaluation,
        "stability": {
            "metric": "jsd_struct (ordered pairs)",
            "options": {"max_depth": 30, "jsd_log_base": 2.0},
            "sets": len(reference),
            "quantiles": quantiles([s["mean_similarity"] for s in reference]),
        },
    }
    if args.diagram:
        args.diagram.write_text(diagram(evaluation["shown"]["strength"]))
        print(f"wrote {args.diagram}")
    if args.write:
        MODEL.write_text(json.dumps(document, indent=1) + "\n")
        print(f"wrote {MODEL.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
