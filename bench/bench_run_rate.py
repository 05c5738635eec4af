"""A run's own shares as an input to the risk, measured on model families left out.

One set cannot tell how strong its model is: on the families of ``fit_risk_families.py``,
DeepSeek's and Qwen's sets whose kept version passes the docstring's examples look alike
on every signal of the set and are wrong 6.9 % and 14.8 % of the time. A run holding many
sets of one model (``score`` over a benchmark, an editor's workspace over a day) shows
more: how often that model's versions fail the examples, how often they disagree. This
script measures whether such a share, read from the run's other sets without any hidden
test, moves each set's risk toward its family's level, with every choice made without the
family it is measured on:

1. each set's held-out risk ``p`` is the one ``fit_risk_families.py`` measures (fitted
   without its family, through the map fitted without it; the same features and L2);
2. a run is one data file's sets of one size (10 versions, versions 1-5, versions 6-10),
   whole or cut at random into runs of 10, 30 or 100 sets (what an editor holds sooner;
   :data:`CUTS` cuts, the sets of each cut measured once);
3. a set's run statistic ``s`` is the mean of a per-set share (:data:`STATISTICS`; with
   the family cache at hand also the share of versions passing every example but one
   that fail that one, :func:`left_out_example`) over
   the ``n`` *other* sets of its run, shrunk toward its mean ``μ`` over the fit's
   families by ``n / (n + k)``; the risk becomes
   ``logit p' = logit p + β[kind] · n / (n + k) · (s - μ)``, one ``β`` per kind of
   evidence, fitted by a logistic regression with ``logit p`` as its offset on the other
   families' held-out risks (every run size alike, families weighed as in a fit); a set
   alone (``n = 0``) keeps its risk;
4. ``k`` (:data:`SHRINKAGE`) and, for the row ``chosen``, the statistic, by the lowest
   log-loss with each of the other families left out in turn (nested: the family
   measured never takes part);
5. beside it, the run's rate as ``codequorum.judge.base_rate`` reads it from the run's
   risks (expectation-maximisation under label shift) with the shipped pseudo-count and
   each of :data:`PSEUDO_COUNTS`, with the pseudo-count chosen without the family
   (:func:`chosen_pseudo`: the lowest worst ECE over the other families' whole runs), and
   each set alone;
6. per family left out and run size: AUROC, ECE, mean risk against share wrong, the 90 %
   range's cells held (half-widths chosen without the family) and log-loss.

``--shipped`` measures the shipped model's features and L2 (``bench_shipped_risk.py``)
instead of those ``fit_risk_families.py`` would choose; with ``--write-base-rate`` it
writes the run level chosen on every family into the model file (:func:`write_base_rate`:
the one place the shipped ``base_rate`` is made).

    .venv/bin/python bench/bench_run_rate.py    # ~1 min, after fit_risk_families.py
    .venv/bin/python bench/bench_run_rate.py --shipped [--write-base-rate]
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from codequorum.judge.base_rate import NEVER, estimate_rate, shift
from codequorum.judge.risk import auroc, ece, load_model
from family_cache import FAMILY_CACHE
from family_sets import CachedTask, read_cache
from fit_risk import log_loss
from fit_risk_families import (
    FAMILY_SETS,
    KINDS,
    Rows,
    cells,
    choose,
    covered,
    expit,
    family_weights,
    fit_rows,
    kind_of,
    logit,
    nested_coverage,
    nested_recalibration,
    platt,
    recalibrated,
    shown,
    wrong,
)
from reference_data import skipped

#: Run sizes measured (``None``: a data file's sets of one size, whole).
RUN_SIZES: tuple[int | None, ...] = (10, 30, 100, None)
#: Random cuts of a run into smaller runs, per size (fitting and measuring).
CUTS = 3
SHRINKAGE: tuple[float, ...] = (1, 3, 10, 30, 100)
#: Pseudo-counts of the rate from the risks measured beside the shipped one, and chosen
#: among without the family measured.
PSEUDO_COUNTS: tuple[float, ...] = (30, 100, 200, 400, 1000)
#: L2 weight on the ``β`` (three of them, on a log-loss summed over thousands of rows).
BETA_L2 = 1.0


def _share(fn: Callable[[Mapping[str, Any]], float | None]
           ) -> Callable[[Rows], np.ndarray]:
    def per_set(data: Rows) -> np.ndarray:
        values = [fn(s["signals"]) for s in data]
        return np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    return per_set


#: Per-set shares a run's statistic is the mean of (NaN: the set says nothing of it).
STATISTICS: dict[str, Callable[[Rows], np.ndarray]] = {
    # versions failing one of the docstring's examples (sets with examples)
    "versions failing an example": _share(
        lambda s: 1 - s["passing"] / s["versions"] if s["examples"] > 0 else None),
    # the kept version fails one: no version passes them all (sets with examples)
    "kept version failing an example": _share(
        lambda s: float(not s["passes_examples"]) if s["examples"] > 0 else None),
    # every version passes every example (sets with examples)
    "every version passing the examples": _share(
        lambda s: float(s["passing"] == s["versions"]) if s["examples"] > 0 else None),
    # versions returning otherwise than the kept one
    "versions disagreeing": _share(
        lambda s: 1 - (s["agreeing"] if s["agreed"] else 1) / s["versions"]),
}


def left_out_example(task: CachedTask, draw: Sequence[int]) -> float | None:
    """Of the drawn versions passing every docstring example but one, the share failing
    that one, mean over the examples (None with fewer than two examples): how often
    passing examples fails to carry over to another example, for this model."""
    cols = task.editor_columns()
    shown = [cols[k] for k in task.example_columns()]
    if len(shown) < 2:
        return None
    passes = np.array([[v < len(task.outcomes) and task.outcomes[v][t] is not None
                        and task.outcomes[v][t][3] is True for t in shown] for v in draw])
    shares = []
    for e in range(len(shown)):
        rest = np.delete(passes, e, axis=1).all(axis=1)
        if rest.any():
            shares.append(1.0 - float(passes[rest, e].mean()))
    return float(np.mean(shares)) if shares else None


def with_left_out_example(cache: Path) -> None:
    """Add :func:`left_out_example`'s share to :data:`STATISTICS` (it needs the cache's
    per-example outcomes, which the family sets do not keep)."""
    tasks = {(t.set_name, t.task_id): t for t in read_cache(cache)}

    def per_set(data: Rows) -> np.ndarray:
        values = [left_out_example(tasks[(s["set"], s["task_id"])], s["draw"])
                  for s in data]
        return np.array([np.nan if v is None else v for v in values], dtype=np.float64)

    STATISTICS["versions passing the other examples failing one"] = per_set


@dataclass(frozen=True)
class Frame:
    """The sets, their labels, kinds, families and runs."""

    data: Rows
    y: np.ndarray
    fam: np.ndarray
    kind: np.ndarray
    run: np.ndarray
    file: np.ndarray
    stats: dict[str, np.ndarray]


def frame(data: Rows) -> Frame:
    """Every set with a risk, as arrays."""
    size = ["10" if s["n"] == 10 else f"5 from {s['draw'][0] + 1}" for s in data]
    return Frame(data, np.array([wrong(s) for s in data]),
                 np.array([s["family"] for s in data]),
                 np.array([KINDS.index(kind_of(s)) for s in data]),
                 np.array([f"{s['set']} / {n}" for s, n in zip(data, size, strict=True)]),
                 np.array([s["set"] for s in data]),
                 {name: fn(data) for name, fn in STATISTICS.items()})


def runs(fr: Frame, rows: np.ndarray, size: int | None, seed: int) -> list[np.ndarray]:
    """``rows`` cut into runs: per data file and set size, whole or in runs of ``size``."""
    out: list[np.ndarray] = []
    rng = np.random.default_rng(seed)
    for name in sorted(set(fr.run[rows])):
        mine = rows[fr.run[rows] == name]
        if size is None or size >= mine.size:
            out.append(mine)
            continue
        mine = rng.permutation(mine)
        out.extend(mine[c:c + size] for c in range(0, mine.size, size))
    return out


def others(values: np.ndarray, cut: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Per set: the mean of ``values`` over the other sets of its run (NaN left out), and
    how many there were."""
    mean = np.full(values.size, np.nan)
    count = np.zeros(values.size)
    for rows in cut:
        v = values[rows]
        ok = ~np.isnan(v)
        n = ok.sum() - ok
        total = np.nansum(v) - np.where(ok, v, 0.0)
        count[rows] = n
        mean[rows] = np.where(n > 0, total / np.maximum(n, 1), np.nan)
    return mean, count


def deviation(values: np.ndarray, cut: Sequence[np.ndarray], k: float, mu: float
              ) -> np.ndarray:
    """Per set, its run's shrunk deviation ``n / (n + k) · (s - μ)`` (0 alone)."""
    mean, n = others(values, cut)
    return np.where(n > 0, n / (n + k) * (np.nan_to_num(mean, nan=mu) - mu), 0.0)


def moved(p: np.ndarray, kind: np.ndarray, dev: np.ndarray, beta: np.ndarray
          ) -> np.ndarray:
    """Risks moved by their run's deviation."""
    return np.asarray(expit(logit(p) + beta[kind] * dev), dtype=np.float64)


def fit_beta(p: np.ndarray, y: np.ndarray, kind: np.ndarray, dev: np.ndarray,
             w: np.ndarray) -> np.ndarray:
    """Per kind, ``β`` of a logistic regression with offset ``logit p`` (Newton)."""
    x = np.zeros((p.size, len(KINDS)))
    x[np.arange(p.size), kind] = dev
    beta = np.zeros(len(KINDS))
    for _ in range(50):
        q = expit(logit(p) + x @ beta)
        grad = x.T @ (w * (q - y)) + BETA_L2 * beta
        hess = (x * (w * q * (1 - q))[:, None]).T @ x + BETA_L2 * np.eye(len(KINDS))
        step = np.linalg.solve(hess, grad)
        beta -= step
        if float(np.abs(step).max()) < 1e-9:
            break
    return beta


@dataclass(frozen=True)
class Rule:
    """A statistic, its shrinkage, its mean over the fit's families and the ``β``."""

    statistic: str
    k: float
    mu: float
    beta: np.ndarray


def stacked(fr: Frame, rows: np.ndarray, rule: Rule, seed: int
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows over every run size and cut: (set, deviation, weight)."""
    values = fr.stats[rule.statistic]
    weights = family_weights([fr.data[int(i)] for i in rows])
    sets, devs, ws = [], [], []
    for size in RUN_SIZES:
        seeds = range(CUTS) if size is not None else range(1)
        for cut in seeds:
            dev = deviation(values, runs(fr, rows, size, seed + cut), rule.k, rule.mu)
            sets.append(rows)
            devs.append(dev[rows])
            ws.append(weights / len(seeds))
    return np.concatenate(sets), np.concatenate(devs), np.concatenate(ws)


def train(fr: Frame, p: np.ndarray, rows: np.ndarray, statistic: str, k: float) -> Rule:
    """The rule fitted on ``rows`` (their held-out risks ``p``)."""
    values = fr.stats[statistic][rows]
    ok = ~np.isnan(values)
    mu = float(np.average(values[ok], weights=family_weights(
        [fr.data[int(i)] for i in rows[ok]])))
    rule = Rule(statistic, k, mu, np.zeros(len(KINDS)))
    sets, dev, w = stacked(fr, rows, rule, seed=0)
    return Rule(statistic, k, mu, fit_beta(p[sets], fr.y[sets], fr.kind[sets], dev, w))


def inner_loss(fr: Frame, p: np.ndarray, rows: np.ndarray, statistic: str, k: float
               ) -> float:
    """Mean log-loss over the families of ``rows``, each left out of the rule in turn."""
    losses = []
    for f in sorted(set(fr.fam[rows])):
        rule = train(fr, p, rows[fr.fam[rows] != f], statistic, k)
        sets, dev, w = stacked(fr, rows[fr.fam[rows] == f], rule, seed=50)
        q = np.clip(moved(p[sets], fr.kind[sets], dev, rule.beta), 1e-6, 1 - 1e-6)
        y = fr.y[sets]
        losses.append(float(np.average(-(y * np.log(q) + (1 - y) * np.log(1 - q)),
                                       weights=w)))
    return float(np.mean(losses))


def chosen_rule(fr: Frame, p: np.ndarray, rows: np.ndarray, statistics: Sequence[str]
                ) -> Rule:
    """The statistic and ``k`` with the lowest :func:`inner_loss`, fitted on ``rows``."""
    best = min(((inner_loss(fr, p, rows, s, k), s, k) for s in statistics
                for k in SHRINKAGE), key=lambda t: t[0])
    return train(fr, p, rows, best[1], best[2])


def held_out_risks(data: Rows) -> tuple[np.ndarray, dict[str, np.ndarray],
                                          dict[str, dict[str, float]]]:
    """Each set's held-out risk as ``fit_risk_families.py --recalibrate`` measures it;
    per family left out, the other families' risks predicted without it; per family,
    the range's half-widths chosen without it."""
    chosen: dict[str, tuple[tuple[str, ...], float]] = {}
    for kind in KINDS:
        features, l2, _ = choose(fit_rows(data, kind), kind)
        chosen[kind] = (features, l2)
    p = nested_recalibration(data, chosen, shown(data, chosen, None))
    fam = np.array([s["family"] for s in data])
    kinds = np.array([kind_of(s) for s in data])
    y = np.array([wrong(s) for s in data])
    inner: dict[str, np.ndarray] = {}
    for f in sorted(set(fam)):
        q = shown(data, chosen, [g for g in sorted(set(fam)) if g != f], outer=f)
        for k in KINDS:
            rest = (fam != f) & (kinds == k)
            q[rest] = recalibrated(q[rest], platt(q[rest], y[rest], fam[rest]))
        inner[f] = q
    widths = {f: entry["half_width"]
              for f, entry in nested_coverage(data, chosen, fam, p, True).items()}
    return p, inner, widths


def ranges_held(fr: Frame, rows: np.ndarray, q: np.ndarray, widths: Mapping[str, float]
                ) -> tuple[int, int]:
    """Of the cells of ``rows`` (per kind, in order of risk ``q``), how many held their
    share wrong inside their mean 90 % range, and how many there were."""
    y = fr.y[rows]
    held = total = 0
    for k, kind in enumerate(KINDS):
        mine = fr.kind[rows] == k
        for c in cells(q[mine], y[mine], fr.fam[rows][mine]):
            total += 1
            held += covered(c, widths[kind])
    return held, total


def figures(fr: Frame, cuts: Sequence[tuple[np.ndarray, np.ndarray]],
            widths: Mapping[str, float]) -> dict[str, Any]:
    """AUROC, ECE, mean risk, share wrong and log-loss of the risks of every cut's rows
    (pooled), and the range cells held (each cut's cells)."""
    rows = np.concatenate([r for r, _ in cuts])
    q = np.concatenate([risks for _, risks in cuts])
    y = fr.y[rows]
    held = [ranges_held(fr, r, risks, widths) for r, risks in cuts]
    return {"auroc": round(auroc(q, y), 3), "ece": round(ece(q, y), 3),
            "mean_risk": round(float(q.mean()), 3), "share_wrong": round(float(y.mean()), 3),
            "ranges": f"{sum(h for h, _ in held)}/{sum(t for _, t in held)}",
            "log_loss": round(log_loss(q, y), 4)}


def measured(fr: Frame, p: np.ndarray, rows: np.ndarray, size: int | None,
             move: Callable[[list[np.ndarray]], np.ndarray], widths: Mapping[str, float]
             ) -> dict[str, Any]:
    """:func:`figures` of ``rows`` in runs of ``size``, each cut moved by ``move``."""
    seeds = range(CUTS) if size is not None else range(1)
    cuts = []
    for seed in seeds:
        q = move(runs(fr, rows, size, 100 + seed))
        cuts.append((rows, q[rows]))
    out = figures(fr, cuts, widths)
    files = sorted(set(fr.file[rows]))
    if len(files) > 1:  # a family of several data files: each apart as well
        out["files"] = {name: figures(fr, [(r[fr.file[r] == name], q[fr.file[r] == name])
                                           for r, q in cuts], widths) for name in files}
    return out


def by_rate(p: np.ndarray, prior: float, pseudo: float, cut: list[np.ndarray]
            ) -> np.ndarray:
    """Each run's risks moved to the rate they imply (``codequorum.judge.base_rate``)."""
    q = p.copy()
    for run in cut:
        q[run] = shift(p[run], prior, estimate_rate(p[run], prior, pseudo))
    return q


def worst_whole_ece(fr: Frame, p: np.ndarray, rows: np.ndarray, k: float,
                    prior_of: Callable[[str], float]) -> float:
    """The highest ECE over the families of ``rows`` of their risks ``p`` moved with
    pseudo-count ``k``, each data file's sets of one size a run (as ``score`` makes one)."""
    worst = 0.0
    for g in sorted(set(fr.fam[rows])):
        mine = rows[fr.fam[rows] == g]
        q = by_rate(p, prior_of(g), k, runs(fr, mine, None, 0))[mine]
        worst = max(worst, ece(q, fr.y[mine]))
    return worst


def choose_pseudo_count(worst: Mapping[float, float]) -> float:
    """The pseudo-count whose worst family's ECE (``worst``, per pseudo-count) is the
    lowest; the larger pseudo-count (the smaller move) on a tie."""
    return min(worst, key=lambda k: (worst[k], -k))


def chosen_pseudo(fr: Frame, p: np.ndarray, rows: np.ndarray) -> float:
    """:func:`choose_pseudo_count` over the families of ``rows`` only (the family
    measured never takes part), each moved with the prior the others' risks give."""
    def prior_of(g: str) -> float:
        rest = rows[fr.fam[rows] != g]
        return float(np.average(p[rest], weights=family_weights(
            [fr.data[int(i)] for i in rest])))
    return choose_pseudo_count({k: worst_whole_ece(fr, p, rows, k, prior_of)
                                for k in PSEUDO_COUNTS})


def choose_min_sets(alone: Mapping[str, Mapping[str, Any]],
                    moved: Mapping[str, Mapping[str, Any]]) -> int:
    """The fewest sets a run needs to be moved: the smallest run size measured from which
    on (every larger size and whole runs too) the moved risks' mean log-loss over the
    families is below each set alone's and their worst family's ECE no higher
    (``alone``, ``moved``: per family, per run size, :func:`figures`); ``NEVER`` when
    even whole runs do not gain."""
    sizes = [str(n) for n in RUN_SIZES if n is not None] + ["whole"]

    def gains(size: str) -> bool:
        def loss(m: Mapping[str, Mapping[str, Any]]) -> float:
            return float(np.mean([m[f][size]["log_loss"] for f in m]))

        def worst(m: Mapping[str, Mapping[str, Any]]) -> float:
            return max(float(m[f][size]["ece"]) for f in m)
        return loss(moved) < loss(alone) and worst(moved) <= worst(alone)

    held = [gains(size) for size in sizes]
    for i, size in enumerate(sizes[:-1]):
        if all(held[i:]):
            return int(size)
    return NEVER


def by_rule(fr: Frame, p: np.ndarray, rule: Rule, cut: list[np.ndarray]) -> np.ndarray:
    """Each set's risk moved by its run's shrunk statistic (module docstring, step 3)."""
    dev = deviation(fr.stats[rule.statistic], cut, rule.k, rule.mu)
    return moved(p, fr.kind, dev, rule.beta)


def rate_method(k: float) -> str:
    """The name a pseudo-count's row goes by."""
    return f"rate from the risks (pseudo-count {k:g})"


def alone(p: np.ndarray, cut: list[np.ndarray]) -> np.ndarray:
    """Each set's own risk."""
    return p


def evaluate(fr: Frame, p: np.ndarray, inner: Mapping[str, np.ndarray],
             widths: Mapping[str, Mapping[str, float]]) -> dict[str, Any]:
    """Per method, family left out and run size, the figures (module docstring)."""
    pseudo = float(load_model()["base_rate"]["pseudo_count"])
    methods: dict[str, Any] = {}
    for f in sorted(set(fr.fam)):
        rows = np.flatnonzero(fr.fam == f)
        rest = np.flatnonzero(fr.fam != f)
        prior = float(np.average(inner[f][rest], weights=family_weights(
            [fr.data[int(i)] for i in rest])))
        rules = {name: chosen_rule(fr, inner[f], rest, [name]) for name in STATISTICS}
        rules["chosen"] = chosen_rule(fr, inner[f], rest, list(STATISTICS))
        moves: dict[str, Callable[[list[np.ndarray]], np.ndarray]] = {
            "each set alone": functools.partial(alone, p),
            **{rate_method(k): functools.partial(by_rate, p, prior, k)
               for k in sorted({pseudo, *PSEUDO_COUNTS})},
            "rate from the risks (pseudo-count chosen)": functools.partial(
                by_rate, p, prior, chosen_pseudo(fr, inner[f], rest)),
            **{name: functools.partial(by_rule, fr, p, rule) for name, rule in rules.items()}}
        for name, move in moves.items():
            entry = methods.setdefault(name, {}).setdefault(f, {})
            if name in rules:
                r = rules[name]
                entry["rule"] = {"statistic": r.statistic, "k": r.k, "mu": round(r.mu, 3),
                                 "beta": [round(float(b), 2) for b in r.beta]}
            for size in RUN_SIZES:
                entry["whole" if size is None else str(size)] = measured(
                    fr, p, rows, size, move, widths[f])
    return methods


def main(argv: list[str] | None = None) -> int:
    """Measure and print (``--json`` also writes every figure)."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sets", type=Path, default=FAMILY_SETS)
    ap.add_argument("--cache", type=Path, default=FAMILY_CACHE)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--shipped", action="store_true",
                    help="each set's risk from the shipped model's features and L2, fitted "
                         "without its family (bench_shipped_risk.py), instead of the "
                         "features fit_risk_families.py would choose")
    ap.add_argument("--write-base-rate", action="store_true",
                    help="with --shipped: write the run level chosen here (prior, "
                         "pseudo-count, fewest sets) into the shipped model file")
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args(argv)
    if args.write_base_rate and not args.shipped:
        ap.error("--write-base-rate measures the shipped model: add --shipped")
    if args.smoke or not args.sets.exists():
        skipped("needs the family sets (family_cache.py, then fit_risk_families.py)")
    data = [s for s in json.loads(args.sets.read_text()) if s["signals"] is not None]
    if args.cache.exists():
        with_left_out_example(args.cache)
    fr = frame(data)
    p, inner, widths = held_out_risks(data)
    if args.shipped:
        from bench_shipped_risk import left_out, shipped_choice

        p, widths = left_out(data, data, shipped_choice(load_model()))
    methods = evaluate(fr, p, inner, widths)
    print("method | run size | " + " | ".join(
        f"{f}: AUROC, ECE, mean risk/share wrong, ranges, log-loss"
        for f in sorted(set(fr.fam))))
    for name, per_family in methods.items():
        for size in ("10", "30", "100", "whole"):
            print(f"{name} | {size} | " + " | ".join(
                f"{g['auroc']}, {g['ece']:.3f}, {g['mean_risk']:.3f}/{g['share_wrong']:.3f}, "
                f"{g['ranges']}, {g['log_loss']:.4f}"
                for g in (per_family[f][size] for f in sorted(per_family))))
            for f in sorted(per_family):
                for file, g in per_family[f][size].get("files", {}).items():
                    print(f"    {file}: {g['auroc']}, {g['ece']:.3f}, "
                          f"{g['mean_risk']:.3f}/{g['share_wrong']:.3f}, {g['ranges']}")
        rules = {f: e["rule"] for f, e in per_family.items() if "rule" in e}
        for f, r in rules.items():
            print(f"    {f} left out: {r['statistic']}, k {r['k']:g}, mean {r['mu']}, "
                  f"beta (examples, examples_failed, outputs) {r['beta']}")
    if args.json is not None:
        args.json.write_text(json.dumps(methods, indent=1) + "\n")
    if args.write_base_rate:
        write_base_rate(data, methods)
    return 0


def write_base_rate(data: Rows, methods: Mapping[str, Any]) -> None:
    """Choose the run level on every family (the pseudo-count by the worst family's ECE
    over whole runs, the fewest sets by :func:`choose_min_sets`), with the fit's prior
    the shipped model's mean risk over the families' sets (each family weighed as in a
    fit), and write it into the model file with the figures behind it."""
    from bench_shipped_risk import as_shipped
    from fit_risk import MODEL, REPO

    counts = [k for k in PSEUDO_COUNTS if rate_method(k) in methods]
    worst = {k: max(float(e["whole"]["ece"]) for e in methods[rate_method(k)].values())
             for k in counts}
    k = choose_pseudo_count(worst)
    alone_figures, moved_figures = methods["each set alone"], methods[rate_method(k)]
    min_sets = choose_min_sets(alone_figures, moved_figures)
    shipped = json.loads(MODEL.read_text())
    prior = float(np.average(as_shipped(data, shipped), weights=family_weights(data)))
    shipped["base_rate"] = {
        "prior": round(prior, 6), "pseudo_count": k, "min_sets": min_sets,
        "run_sizes": [str(n) for n in RUN_SIZES if n is not None] + ["whole"],
        "held_out": {"worst_whole_ece": {f"{c:g}": round(w, 4) for c, w in worst.items()},
                     "alone": alone_figures, "moved": moved_figures}}
    MODEL.write_text(json.dumps(shipped, indent=1) + "\n")
    print(f"base rate: prior {prior:.4f}, pseudo-count {k:g}, at least {min_sets} sets; "
          f"wrote {MODEL.relative_to(REPO)}")


if __name__ == "__main__":
    raise SystemExit(main())
