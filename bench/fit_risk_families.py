"""Fit the risk of the kept version on several model families, each left out in turn.

Reproducible procedure (what ``server/codequorum/data/risk_model.json``'s models, levels,
and range are made with; its base rate is ``bench_run_rate.py``'s, its stability reference
``fit_risk.py``'s):

1. ``family_cache.py`` runs every version of the families' sets on the inputs an editor
   has (task ids renamed: no hidden test is an input);
2. ``family_sets.py`` scores each task's 10 versions and its two halves of 5 as a report
   does (recommendation, risk signals; truth from the hidden tests only);
3. per model (``examples``, ``examples_failed``, ``outputs``): the feature set
   (:data:`CANDIDATES`) and L2 weight with the lowest log-loss on families left out, one
   whole family at a time (no family weighs more than the median one in a fit; every family
   alike in the mean), then the
   fit on every family, with ``fit_risk.py``'s monotone constraint;
4. the range, per model: ``logit(risk) ± w``; ``w`` is the smallest half-width for which,
   on the families left out, 90 % of the cells (a family's sets in order of risk, cut in
   groups of :data:`MIN_CELL`) hold their share of wrong kept versions (within its
   sampling error, the 90 % Wilson interval of the cell's count) inside the cells' mean
   range. Its
   coverage is measured nested: for each family left out, ``w`` is chosen on the others'
   held-out risks, then the left-out family's cells are checked;
5. the coarse scale: per model and bin of risk, the shares wrong over the families left
   out (a bin is *likely right* when none saw more than a quarter wrong, *likely wrong*
   when none saw fewer than 60 %); for ``outputs`` (no examples), steps 4 and 5 are
   measured on every set read as if its docstring gave none (:func:`plain_claims`): the
   sets without examples alone are few, and most of one family's;
6. per family left out: sets, share wrong, mean risk, AUROC, ECE, range coverage, sets
   that ran on no input (no risk), and the pick against random and the oracle.

    nice -n 15 .venv/bin/python bench/family_cache.py --tasks 164   # ~35 min on 2 cores
    .venv/bin/python bench/fit_risk_families.py --rebuild --recalibrate [--write]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from codequorum.judge.risk import (
    FEATURES,
    LogisticModel,
    ModelKind,
    RiskSignals,
    ece,
    fit_logistic,
)
from family_cache import FAMILY_CACHE
from family_sets import build, read_cache, without_disputed
from fit_risk import DIRECTION, MODEL, log_loss
from fit_risk import fit_monotone as fit_one
from fit_risk import measure as fit_measure
from recommend_cache import REPO
from reference_data import skipped

FAMILY_SETS = REPO / "bench" / "results" / "family_sets.json"
KINDS: tuple[ModelKind, ...] = ("examples", "examples_failed", "outputs")
L2_CHOICES: tuple[float, ...] = (0.01, 0.1, 1.0, 3.0)
#: Feature sets tried, per model (from few to every feature the model may use).
CANDIDATES: dict[str, tuple[tuple[str, ...], ...]] = {
    "examples": (("examples_consensus", "examples_confirmed", "cluster_share", "share"),
                 ("examples_consensus", "examples_confirmed", "cluster_share", "share",
                  "purity", "examples_blind"),
                 ("examples_consensus", "examples_confirmed", "cluster_share", "share",
                  "examples_blind", "coverage"),
                 ("examples_consensus", "examples_confirmed", "cluster_share", "purity",
                  "examples_blind", "coverage", "returns", "behaviours"),
                 FEATURES["examples"]),
    "examples_failed": (("examples_consensus",),
                        ("examples_consensus", "cluster_share"),
                        ("cluster_share", "margin", "behaviours"),
                        ("examples_consensus", "cluster_share", "coverage"),
                        FEATURES["examples_failed"]),
    "outputs": (("cluster_share", "share"),
                ("cluster_share", "share", "agreed"),
                ("cluster_share", "share", "agreed", "coverage"),
                ("cluster_share", "share", "agreed", "coverage", "returns", "behaviours"),
                ("cluster_share", "share", "agreed", "distinct_agreeing", "margin",
                 "behaviours", "coverage"),
                FEATURES["outputs"]),
}
#: How a new feature may push the risk (as ``fit_risk.DIRECTION``).
MORE_DIRECTION: dict[str, dict[str, int]] = {
    "examples": {"examples_blind": 1, "coverage": -1},
    "outputs": {"coverage": -1},
}
BINS_BELOW: tuple[float, ...] = (0.1, 0.2, 0.4, 0.7, 1.0)
RIGHT_AT_MOST = 0.25
WRONG_AT_LEAST = 0.6
#: Fewest sets in a cell (a family's sets of like risk) for its share wrong to count.
MIN_CELL = 25
COVERAGE = 0.9
HALF_WIDTHS: tuple[float, ...] = tuple(round(0.1 * k, 1) for k in range(0, 31))
TARGET_AUROC, TARGET_ECE, TARGET_GAP, TARGET_CAPTURE = 0.85, 0.05, 0.02, 0.9

Rows = list[dict[str, Any]]


def direction_of(kind: str) -> dict[str, int]:
    """The monotone constraint of model ``kind``."""
    return {**DIRECTION.get(kind, {}), **MORE_DIRECTION.get(kind, {})}


def fit_monotone(kind: str, x: np.ndarray, y: np.ndarray, features: Sequence[str],
                 l2: float, w: np.ndarray) -> LogisticModel:
    """``fit_risk.fit_monotone`` with the new features' directions."""
    saved = DIRECTION.get(kind)
    DIRECTION[kind] = direction_of(kind)
    try:
        fitted: LogisticModel = fit_one(kind, x, y, features, l2, w)
        return fitted
    finally:
        if saved is None:
            DIRECTION.pop(kind, None)
        else:
            DIRECTION[kind] = saved


def signals(s: Mapping[str, Any]) -> RiskSignals:
    """A record's risk signals."""
    return RiskSignals(**s["signals"])


def kind_of(s: Mapping[str, Any]) -> ModelKind:
    """The model a report applies to a record's kept version."""
    return signals(s).kind


def wrong(s: Mapping[str, Any]) -> float:
    """1 when the kept version fails the hidden tests."""
    return 0.0 if s["kept"] is not None and s["truth"][s["kept"]] else 1.0


def family_weights(data: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """Row weights under which no family weighs more than the median family: a larger
    one is weighed down to it, a smaller one keeps its rows at 1 (so that four sets of
    one family never weigh as much as a hundred of another)."""
    fam = np.array([s["family"] for s in data])
    sizes = {f: int((fam == f).sum()) for f in set(fam)}
    cap = float(np.median(list(sizes.values()))) if sizes else 1.0
    return np.array([min(1.0, cap / sizes[f]) for f in fam])


def matrix(data: Sequence[Mapping[str, Any]], features: Sequence[str]
           ) -> tuple[np.ndarray, np.ndarray]:
    """Values of ``features`` and labels."""
    x = np.array([signals(s).vector(features) for s in data]).reshape(len(data), -1)
    return x, np.array([wrong(s) for s in data])


def lofo(data: Sequence[Mapping[str, Any]], kind: str, features: Sequence[str], l2: float,
         families: Sequence[str] | None = None,
         test: Sequence[Mapping[str, Any]] | None = None) -> np.ndarray:
    """Per row of ``test`` (default ``data``), the prediction of a model fitted on the rows
    of ``data`` of other families (rows of families outside ``families`` are never fitted
    on nor predicted: NaN)."""
    test = data if test is None else test
    x, y = matrix(data, features)
    xt, _ = matrix(test, features)
    fam = np.array([s["family"] for s in data])
    fam_t = np.array([s["family"] for s in test])
    allowed = list(families) if families is not None else sorted(set(fam) | set(fam_t))
    use = np.isin(fam, allowed)
    p = np.full(len(test), np.nan)
    for f in sorted(set(fam_t) & set(allowed)):
        train = use & (fam != f)
        if not train.any() or len(set(y[train])) < 2:
            p[fam_t == f] = float(y[train].mean()) if train.any() else 0.5
            continue
        m = fit_monotone(kind, x[train], y[train], features, l2, family_weights(
            [data[int(i)] for i in np.flatnonzero(train)]))
        cols = [list(features).index(c) for c in m.features]
        p[fam_t == f] = m.predict(xt[fam_t == f][:, cols])
    return p


def fit_rows(data: Rows, kind: str) -> Rows:
    """The rows model ``kind`` is fitted on: the sets of its kind; for ``outputs`` every
    set as if its docstring gave no example (``family_sets.py``)."""
    if kind != "outputs":
        return [s for s in data if kind_of(s) == kind]
    return [{**s, "signals": s["plain_signals"], "kept": s["plain_kept"]} for s in data
            if s.get("plain_signals") is not None]


def mean_family_loss(p: np.ndarray, y: np.ndarray, fam: np.ndarray) -> float:
    """Mean over families of the log-loss, each weighed as in a fit
    (:func:`family_weights`: a family of four sets counts for four)."""
    ok = ~np.isnan(p)
    names = sorted(set(fam[ok]))
    sizes = np.array([(ok & (fam == f)).sum() for f in names], dtype=np.float64)
    weights = np.minimum(sizes, np.median(sizes))
    losses = [log_loss(p[ok & (fam == f)], y[ok & (fam == f)]) for f in names]
    return float(np.average(losses, weights=weights))


def choose(data: Rows, kind: str, families: Sequence[str] | None = None
           ) -> tuple[tuple[str, ...], float, float]:
    """(features, L2, held-out loss) with the lowest mean log-loss over ``families`` left
    out one at a time."""
    fam = np.array([s["family"] for s in data])
    y = np.array([wrong(s) for s in data])
    best: tuple[float, tuple[str, ...], float] | None = None
    for features in CANDIDATES[kind]:
        for l2 in L2_CHOICES:
            loss = mean_family_loss(lofo(data, kind, features, l2, families), y, fam)
            if best is None or loss < best[0] - 1e-12:
                best = (loss, features, l2)
    assert best is not None
    return best[1], best[2], best[0]


def fit_all(data: Rows, kind: str, features: Sequence[str], l2: float) -> LogisticModel:
    """The fit on every row, families alike."""
    x, y = matrix(data, features)
    return fit_monotone(kind, x, y, features, l2, family_weights(data))


# ----------------------------------------------------------------------------- ranges


def logit(p: np.ndarray) -> np.ndarray:
    q = np.clip(p, 1e-6, 1 - 1e-6)
    return np.asarray(np.log(q / (1 - q)))


def expit(z: np.ndarray) -> np.ndarray:
    return np.asarray(1 / (1 + np.exp(-z)))


def cells(p: np.ndarray, y: np.ndarray, fam: np.ndarray) -> list[tuple[np.ndarray, float]]:
    """Per family, its sets in order of risk cut into groups of :data:`MIN_CELL` (the
    last takes the rest): (their risks' logits, the share wrong)."""
    out = []
    for f in sorted(set(fam)):
        idx = np.flatnonzero(fam == f)
        idx = idx[np.argsort(p[idx], kind="mergesort")]
        count = max(1, idx.size // MIN_CELL) if idx.size >= MIN_CELL else 0
        for part in np.array_split(idx, count) if count else []:
            out.append((logit(p[part]), float(y[part].mean())))
    return out


def wilson(rate: float, n: int, z: float = 1.645) -> tuple[float, float]:
    """The 90 % Wilson interval of a share ``rate`` of ``n``."""
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def covered(cell: tuple[np.ndarray, float], width: float) -> bool:
    """Whether a cell's share wrong (within its sampling error: the 90 % Wilson interval
    of its count) meets its sets' mean range."""
    z, rate = cell
    low, high = wilson(rate, z.size)
    return bool(low <= expit(z + width).mean() + 1e-9
                and high >= expit(z - width).mean() - 1e-9)


def choose_width(p: np.ndarray, y: np.ndarray, fam: np.ndarray) -> float:
    """The smallest half-width covering :data:`COVERAGE` of the cells."""
    cs = cells(p, y, fam)
    for w in HALF_WIDTHS:
        if not cs or np.mean([covered(c, w) for c in cs]) >= COVERAGE:
            return w
    return HALF_WIDTHS[-1]


def nested_coverage(data: Rows, chosen: Mapping[str, tuple[tuple[str, ...], float]],
                    fam: np.ndarray, full: np.ndarray, recalibrate: bool,
                    fit_map: MapFit | None = None,
                    outputs_width: Mapping[str, float] | None = None
                    ) -> dict[str, dict[str, Any]]:
    """Per family left out: the half-width chosen on the other families' held-out risks
    (each predicted by a model fitted without it and without the family left out), and
    how many of the left-out family's cells it covers (its risks from the fit on all the
    other families: ``full``, recalibrated as shipped). With ``recalibrate``, the others'
    risks go through the map fitted on them (``fit_map``, default :func:`platt`).
    ``outputs_width``: per family, the ``outputs`` half-width chosen elsewhere (on the
    other families' plain views, :func:`plain_claims`), used instead."""
    fit_map = fit_map or platt
    out: dict[str, dict[str, Any]] = {}
    y = np.array([wrong(s) for s in data])
    kinds = np.array([kind_of(s) for s in data])
    for f in sorted(set(fam)):
        inner = shown(data, chosen, [g for g in sorted(set(fam)) if g != f], outer=f)
        for k in KINDS if recalibrate else ():
            rest = (fam != f) & (kinds == k)
            inner[rest] = recalibrated(inner[rest], fit_map(inner[rest], y[rest], fam[rest]))
        widths = widths_of(inner, y, fam, kinds, fam != f)
        if outputs_width is not None:
            widths["outputs"] = outputs_width[f]
        mine = fam == f
        cs = [(c, k) for k in KINDS
              for c in cells(full[mine & (kinds == k)], y[mine & (kinds == k)],
                             fam[mine & (kinds == k)])]
        out[f] = {"half_width": widths, "cells": len(cs),
                  "covered": int(sum(covered(c, widths[k]) for c, k in cs))}
    return out


def widths_of(p: np.ndarray, y: np.ndarray, fam: np.ndarray, kinds: np.ndarray,
              use: np.ndarray) -> dict[str, float]:
    """Per model, the half-width chosen on the rows ``use`` of its kind."""
    return {k: choose_width(p[use & (kinds == k)], y[use & (kinds == k)],
                            fam[use & (kinds == k)]) for k in KINDS}


def shown(data: Rows, chosen: Mapping[str, tuple[tuple[str, ...], float]],
          families: Sequence[str] | None, outer: str | None = None) -> np.ndarray:
    """Each row's held-out risk from its own model. With ``outer``: that family is never
    fitted on (the rows of the others are predicted by fits without it as well)."""
    p = np.full(len(data), np.nan)
    keep = [i for i, s in enumerate(data) if s["family"] != outer]
    for kind in KINDS:
        idx = [i for i in keep if kind_of(data[i]) == kind]
        if not idx:
            continue
        features, l2 = chosen[kind]
        p[idx] = lofo(fit_rows(data, kind), kind, features, l2, families,
                      [data[i] for i in idx])
    return p


# ----------------------------------------------------------------------------- recalibration


def platt(p: np.ndarray, y: np.ndarray, fam: np.ndarray) -> tuple[float, float]:
    """``(a, b)`` of ``sigmoid(a + b logit(p))`` fitted on held-out risks (families
    weighed as in a fit): how far the risks of families left out were too sure or too
    timid, and too low or too high."""
    if p.size < MIN_CELL or len(set(y)) < 2:
        return 0.0, 1.0
    m = fit_logistic(logit(p)[:, None], y, ("logit",), l2=1e-3,
                     weights=family_weights([{"family": f} for f in fam]))
    b = m.coef[0] / m.scale[0]
    return m.intercept - b * m.mean[0], b


def level_shift(p: np.ndarray, y: np.ndarray, fam: np.ndarray) -> tuple[float, float]:
    """``(d, 1)``: only the level, the logit shift ``d`` making the held-out risks' mean
    (families weighed as in a fit) their share wrong; the slope stays the fit's (with
    every choice nested, ``bench_family_risk.py``, it served every family better than
    :func:`platt`; with the features chosen on all four, Qwen worse)."""
    if p.size < MIN_CELL or len(set(y)) < 2:
        return 0.0, 1.0
    return logit_shift(p, y, family_weights([{"family": f} for f in fam])), 1.0


def logit_shift(p: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """The shift ``d`` in ``[-5, 5]`` for which the weighted mean of ``expit(logit(p) + d)``
    is the weighted share wrong of ``y`` (bisection: the mean grows with ``d``)."""
    target = float(np.average(y, weights=w))
    lo, hi = -5.0, 5.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if float(np.average(expit(logit(p) + mid), weights=w)) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


MapFit = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[float, float]]
#: The maps of held-out risks ``--map`` chooses among.
MAPS: dict[str, MapFit] = {"platt": platt, "shift": level_shift}


def recalibrated(p: np.ndarray, ab: tuple[float, float]) -> np.ndarray:
    """Risks through :func:`platt`'s map."""
    return expit(ab[0] + ab[1] * logit(p))


def fold(m: LogisticModel, ab: tuple[float, float]) -> LogisticModel:
    """The model whose risks are ``m``'s through :func:`platt`'s map (same features)."""
    a, b = ab
    return LogisticModel(m.features, m.mean, m.scale, tuple(b * c for c in m.coef),
                         a + b * m.intercept)


def nested_recalibration(data: Rows, chosen: Mapping[str, tuple[tuple[str, ...], float]],
                         p: np.ndarray, fit_map: MapFit | None = None) -> np.ndarray:
    """Each family's held-out risks ``p`` through the map (``fit_map``, default
    :func:`platt`) fitted on the other families' held-out risks (predicted without the
    family, :func:`shown`'s ``outer``)."""
    fit_map = fit_map or platt
    fam = np.array([s["family"] for s in data])
    kinds = np.array([kind_of(s) for s in data])
    y = np.array([wrong(s) for s in data])
    out = p.copy()
    for f in sorted(set(fam)):
        inner = shown(data, chosen, [g for g in sorted(set(fam)) if g != f], outer=f)
        for k in KINDS:
            rest, mine = (fam != f) & (kinds == k), (fam == f) & (kinds == k)
            out[mine] = recalibrated(p[mine], fit_map(inner[rest], y[rest], fam[rest]))
    return out


# ----------------------------------------------------------------------------- no examples


def plain_held_out(fit: Rows, data: Rows, chosen: Mapping[str, tuple[tuple[str, ...], float]],
                   fit_map: MapFit | None = None) -> tuple[Rows, np.ndarray]:
    """Every set of ``data`` read as if its docstring gave no example (its plain view:
    what a function without examples is, as most functions in a repository are), with the
    risk the ``outputs`` model gives it fitted without its family on ``fit``'s plain views
    and, with ``fit_map``, mapped by the map fitted on the other families' held-out risks
    of ``fit``'s sets without examples (as the model is shipped). The sets without
    examples alone are a few dozen HumanEval tasks and one family's MBPP: the plain views
    measure the model on every family."""
    plain_fit, plain = fit_rows(fit, "outputs"), fit_rows(data, "outputs")
    fam_fit = np.array([s["family"] for s in fit])
    kinds_fit = np.array([kind_of(s) for s in fit])
    y_fit = np.array([wrong(s) for s in fit])
    fam = np.array([s["family"] for s in plain])
    families = sorted(set(fam_fit) | set(fam))
    p = np.full(len(plain), np.nan)
    for f in sorted(set(fam)):
        idx = np.flatnonzero(fam == f)
        raw = lofo(plain_fit, "outputs", *chosen["outputs"], None, [plain[i] for i in idx])
        ab = (0.0, 1.0)
        if fit_map is not None:
            inner = shown(fit, chosen, [g for g in families if g != f], outer=f)
            rest = (fam_fit != f) & (kinds_fit == "outputs")
            ab = fit_map(inner[rest], y_fit[rest], fam_fit[rest])
        p[idx] = recalibrated(raw, ab)
    return plain, p


def plain_claims(plain: Rows, p: np.ndarray) -> dict[str, Any]:
    """What the ``outputs`` model may claim, measured on the held-out risks ``p`` of the
    plain views (:func:`plain_held_out`) of every family: its coarse scale
    (:func:`levels`), the range's half-width covering :data:`COVERAGE` of the cells, and
    per family how many of its cells the half-width chosen on the other families holds."""
    y = np.array([wrong(s) for s in plain])
    fam = np.array([s["family"] for s in plain])
    held: dict[str, dict[str, int | float]] = {}
    for f in sorted(set(fam)):
        w = choose_width(p[fam != f], y[fam != f], fam[fam != f])
        mine = cells(p[fam == f], y[fam == f], fam[fam == f])
        held[f] = {"half_width": w, "cells": len(mine),
                   "covered": int(sum(covered(c, w) for c in mine))}
    return {"levels": levels(p, y, fam), "half_width": choose_width(p, y, fam),
            "held_out": held}


# ----------------------------------------------------------------------------- picks


def pick_rates(data: Rows) -> dict[str, dict[str, float]]:
    """Per family: random, the kept version and the oracle (means over sets)."""
    out: dict[str, dict[str, float]] = {}
    for f in sorted({s["family"] for s in data}):
        mine = [s for s in data if s["family"] == f]
        rnd = float(np.mean([np.mean(s["truth"]) for s in mine]))
        kept = float(np.mean([1 - wrong(s) for s in mine]))
        orc = float(np.mean([any(s["truth"]) for s in mine]))
        out[f] = {"random": rnd, "pick": kept, "oracle": orc,
                  "captured": (kept - rnd) / (orc - rnd) if orc > rnd else math.nan}
    return out


# ----------------------------------------------------------------------------- report


def measure(p: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """Sets, share wrong, mean risk, AUROC, ECE: ``fit_risk``'s figures, the failure rate
    named as this report names it."""
    return {("share_wrong" if key == "base_rate" else key): value
            for key, value in fit_measure(p, y).items()}


def levels(p: np.ndarray, y: np.ndarray, fam: np.ndarray) -> list[dict[str, Any]]:
    """The coarse scale of one model from its held-out risks (module docstring, step 5)."""
    which = np.searchsorted(np.array(BINS_BELOW[:-1]), p, side="right")
    out = []
    for b, below in enumerate(BINS_BELOW):
        shares = [float(y[(which == b) & (fam == f)].mean()) for f in sorted(set(fam))
                  if ((which == b) & (fam == f)).sum() >= MIN_CELL]
        n = int((which == b).sum())
        risks = p[which == b]
        level = "uncertain"
        if len(shares) >= 2 and max(shares) <= RIGHT_AT_MOST and (
                risks.size == 0 or risks.max() <= RIGHT_AT_MOST):
            level = "likely right"
        elif len(shares) >= 2 and min(shares) >= WRONG_AT_LEAST:
            level = "likely wrong"
        out.append({"below": below, "level": level, "sets": n,
                    "observed": [round(min(shares), 4), round(max(shares), 4)]
                    if len(shares) >= 2 else None})
    return out


def steps_of(p: np.ndarray, data: Rows) -> dict[str, list[dict[str, Any]]]:
    """Per model, the coarse scale (:func:`levels`) the held-out risks ``p`` of ``data``'s
    sets of its kind give it."""
    y = np.array([wrong(s) for s in data])
    fam = np.array([s["family"] for s in data])
    kinds = np.array([kind_of(s) for s in data])
    return {k: levels(p[kinds == k], y[kinds == k], fam[kinds == k]) for k in KINDS}


def report_plain(plain: Rows, p: np.ndarray, claims: Mapping[str, Any]) -> None:
    """Per family left out, the ``outputs`` model on the plain views (:func:`plain_claims`)."""
    y = np.array([wrong(s) for s in plain])
    fam = np.array([s["family"] for s in plain])
    print("without examples (every set's plain view): family left out | sets | AUROC | ECE | "
          "mean risk | share wrong | ranges holding")
    for f in sorted(set(fam)):
        got, h = measure(p[fam == f], y[fam == f]), claims["held_out"][f]
        print(f"{f:>15} | {got['sets']} | {got['auroc']} | {got['ece']:.3f} | "
              f"{got['mean_risk']:.3f} | {got['share_wrong']:.3f} | "
              f"{h['covered']}/{h['cells']} (w {h['half_width']:g})")
    print("  levels: " + "; ".join(f"<{b['below']:g} {b['level']} ({b['sets']}, observed "
                                   f"{b['observed']})" for b in claims["levels"]))


def main(argv: list[str] | None = None) -> int:
    """Fit, measure per family left out, and with ``--write`` update the model file."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--cache", type=Path, default=FAMILY_CACHE)
    ap.add_argument("--sets", type=Path, default=FAMILY_SETS)
    ap.add_argument("--rebuild", action="store_true", help="score the sets afresh")
    ap.add_argument("--tasks", type=int, default=164,
                    help="the first this many tasks of each set (MBPP has 500)")
    ap.add_argument("--write", action="store_true", help=f"write {MODEL.relative_to(REPO)}")
    ap.add_argument("--recalibrate", action="store_true",
                    help="also map each model's risks through a logistic fitted on its "
                    "held-out risks (measured nested; the shipped model has it)")
    ap.add_argument("--map", choices=list(MAPS), default="platt",
                    help="with --recalibrate: the map of held-out risks (platt: level and "
                    "slope, as shipped; shift: the level only)")
    ap.add_argument("--versions", type=int,
                    help="fit and measure on sets of this size only (5: as editors hold them)")
    ap.add_argument("--set-aside-disputed", action="store_true",
                    help="count the examples every version fails alike as inputs without "
                    "an expected value (family_sets.without_disputed)")
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args(argv)
    if args.smoke:
        skipped("needs the family cache (family_cache.py, an hour on two cores)")
    if args.rebuild or not args.sets.exists():
        cached = read_cache(args.cache)
        taken: dict[str, int] = {}
        first = []
        for task in cached:  # the first --tasks of each set, in file order
            taken[task.set_name] = taken.get(task.set_name, 0) + 1
            if taken[task.set_name] <= args.tasks:
                first.append(task)
        records = list(build(first))
        args.sets.parent.mkdir(parents=True, exist_ok=True)
        args.sets.write_text(json.dumps(records))
    records = json.loads(args.sets.read_text())
    if args.versions:
        records = [s for s in records if s["n"] == args.versions]
    if args.set_aside_disputed:
        records = [without_disputed(s) for s in records]
    data = [s for s in records if s["signals"] is not None]
    fam = np.array([s["family"] for s in data])
    y = np.array([wrong(s) for s in data])
    print(f"{len(records)} sets ({len(data)} ran on an input) of "
          f"{len({(s['set'], s['task_id']) for s in records})} tasks; families: " + ", ".join(
              f"{f} {int((fam == f).sum())}" for f in sorted(set(fam))))
    chosen: dict[str, tuple[tuple[str, ...], float]] = {}
    models: dict[str, dict[str, Any]] = {}
    for kind in KINDS:
        rows = fit_rows(data, kind)
        features, l2, loss = choose(rows, kind)
        m = fit_all(rows, kind, features, l2)
        chosen[kind] = (m.features, l2)
        models[kind] = {**m.to_dict(), "l2": l2}
        print(f"{kind}: {len(rows)} sets; features {', '.join(m.features)}; L2 {l2:g}; "
              f"held-out log-loss {loss:.4f}")
    raw = shown(data, chosen, None)
    kinds = np.array([kind_of(s) for s in data])
    fit_map = MAPS[args.map]
    maps = {k: fit_map(raw[kinds == k], y[kinds == k], fam[kinds == k]) if args.recalibrate
            else (0.0, 1.0) for k in KINDS}
    for kind in KINDS:
        folded = fold(LogisticModel.from_dict(models[kind]), maps[kind])
        models[kind] = {**folded.to_dict(), "l2": models[kind]["l2"],
                        "recalibration": list(maps[kind])}
    print("recalibration (a, b) of the held-out risks: " + ", ".join(
        f"{k} ({a:.2f}, {b:.2f})" for k, (a, b) in maps.items()))
    p = nested_recalibration(data, chosen, raw, fit_map) if args.recalibrate else raw
    for f in sorted(set(fam)):
        mine = fam == f
        print(f"  {f}: ECE {ece(raw[mine], y[mine]):.3f} -> {ece(p[mine], y[mine]):.3f}, "
              f"mean risk {raw[mine].mean():.3f} -> {p[mine].mean():.3f} "
              f"(share wrong {y[mine].mean():.3f})")
    width = widths_of(p, y, fam, kinds, np.ones(len(data), dtype=bool))
    steps = steps_of(p, data)
    plain, p_plain = plain_held_out(data, data, chosen, fit_map if args.recalibrate else None)
    claims = plain_claims(plain, p_plain)
    steps["outputs"], width["outputs"] = claims["levels"], claims["half_width"]
    report_plain(plain, p_plain, claims)
    nested = nested_coverage(data, chosen, fam, p, args.recalibrate, fit_map,
                             {f: h["half_width"] for f, h in claims["held_out"].items()})
    picks = pick_rates(records)
    no_risk = {f: sum(1 for s in records if s["family"] == f and s["signals"] is None)
               for f in sorted(set(fam))}
    table: dict[str, Any] = {}
    print("family left out | sets | no risk | pick | random | oracle | captured | AUROC | "
          "ECE | mean risk | share wrong | ranges holding")
    for f in sorted(set(fam)):
        mine = fam == f
        got = measure(p[mine], y[mine])
        pk, nc = picks[f], nested[f]
        table[f] = {**got, "no_risk": no_risk[f], "pick": pk, "range": nc}
        print(f"{f:>15} | {got['sets']} | {no_risk[f]} | {100 * pk['pick']:.1f} | "
              f"{100 * pk['random']:.1f} | {100 * pk['oracle']:.1f} | "
              f"{100 * pk['captured']:.0f} % | {got['auroc']} | {got['ece']:.3f} | "
              f"{got['mean_risk']:.3f} | {got['share_wrong']:.3f} | "
              f"{nc['covered']}/{nc['cells']} (w " + ", ".join(
                  f"{w:g}" for w in nc["half_width"].values()) + ")")
    sets_of = np.array([s["set"] for s in data])
    for name in sorted(set(sets_of)):
        mine = sets_of == name
        got = measure(p[mine], y[mine])
        table[fam[mine][0]].setdefault("sets_of", {})[name] = got
        print(f"  {name:>20} ({fam[mine][0]} left out): {got['sets']} sets, AUROC "
              f"{got['auroc']}, ECE {got['ece']:.3f}, mean risk {got['mean_risk']:.3f}, share "
              f"wrong {got['share_wrong']:.3f}")
    for kind in KINDS:
        print(f"{kind} levels: " + "; ".join(
            f"<{b['below']:g} {b['level']} ({b['sets']})" for b in steps[kind]))
    print(f"range half-widths {width} (logit)")
    met = {f: (t["auroc"] or 0) >= TARGET_AUROC and t["ece"] <= TARGET_ECE
           and abs(t["mean_risk"] - t["share_wrong"]) <= TARGET_GAP
           and t["pick"]["captured"] >= TARGET_CAPTURE for f, t in table.items()}
    print("targets (AUROC, ECE, mean risk vs share wrong, pick) per family left out: " +
          ", ".join(f"{f} {'met' if ok else 'missed'}" for f, ok in met.items()))
    if args.write:
        shipped = json.loads(MODEL.read_text())
        shipped.update({
            "about": ("Risk of the recommended version and stability reference for "
                      "codequorum; models, levels and range made by "
                      "bench/fit_risk_families.py, base rate by bench/bench_run_rate.py, "
                      "stability by bench/fit_risk.py."),
            "data": "families: " + ", ".join(sorted(set(fam))),
            "models": models, "levels": steps,
            "range": {"logit_half_width": width, "coverage_target": COVERAGE,
                      "held_out": nested, "plain_views": claims["held_out"]},
            "held_out": {"families": table},
        })
        shipped.pop("regimes", None)
        MODEL.write_text(json.dumps(shipped, indent=1) + "\n")
        print(f"wrote {MODEL.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
