"""What else the risk could read, measured with each model family left out, every choice nested.

``fit_risk_families.py`` fits the shipped risk and chooses its features on all four
families; here every variant is measured strictly with the family measured left out of
everything: for each family ``f``, the features and L2 weight of each model (``examples``,
``examples_failed``, ``outputs``) are chosen by the lowest log-loss with each of the
*other* families left out in turn, the model is fitted on the other families, and its
risks on ``f`` are mapped by a calibration fitted on the other families' held-out risks.
The 90 % range's half-width is chosen on those same held-out risks and checked on ``f``'s
cells (``fit_risk_families.cells``). Per variant and family left out: AUROC, ECE, mean
risk against share wrong, range cells held; a variant holds when every family meets
AUROC >= 0.85, ECE <= 0.05 and mean risk within 2 points of the share wrong.

Features beyond :class:`codequorum.judge.risk.RiskSignals`, read from each set's outcome
matrix (columns: the editor's inputs; ``E`` the docstring examples with an expected
value, ``B`` the others):

- ``beyond_agree``: over the inputs of ``B`` where the kept version returns, the mean
  share of versions returning what it returns (agreement beyond the examples);
- ``beyond_modal``: the share of those inputs where its output is the most common one;
- ``beyond_groups``: distinct behaviours on ``B`` over the versions;
- ``ex_split``: of the pairs of versions that part ways on ``B``, the share that part
  ways on the examples as well (examples that split the versions as the other inputs do
  are strong evidence; 1 when no pair parts ways);
- ``ex_weak``: pairs parting ways on ``B`` but alike on the examples, over all pairs;
- ``kept_blind``: of the versions returning otherwise than the kept one on ``B``, the
  share passing every example;
- ``ex_count``: examples with an expected value, up to ten, over ten;
- ``ex_agree``: the share of versions returning what the kept one returns on every
  example (versions alike on an example they all fail say the example may be wrong);
- ``examples_seen``: the share of versions whose own docstring holds examples (a model
  prompted without them, as the CodeGen set was, writes none: passing them is then
  evidence it did not aim at);
- ``copies_examples``: the share of versions whose text holds an example's expected
  value as a literal outside the docstring (an answer copied from the examples);
- ``set_returns``: the share of (version, input) cells holding a returned value (versions
  that raise or time out often: a weaker model, whatever the kept one does);
- ``fails_disputed``: 1 when every example the kept version fails is one every version
  fails alike (``family_sets.disputed_of``: the example itself may be wrong).

    .venv/bin/python bench/fit_risk_families.py --rebuild    # family_sets.json
    .venv/bin/python bench/bench_family_risk.py              # ~5 min
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from codequorum.judge.risk import FEATURES, LogisticModel, RiskSignals, auroc, ece, fit_logistic
from family_cache import FAMILY_CACHE, SIGNATURE
from family_sets import disputed_of, read_cache, without_disputed
from fit_risk import DIRECTION, log_loss
from fit_risk_families import (
    CANDIDATES,
    FAMILY_SETS,
    KINDS,
    L2_CHOICES,
    MORE_DIRECTION,
    TARGET_AUROC,
    TARGET_ECE,
    TARGET_GAP,
    cells,
    choose_width,
    covered,
    expit,
    family_weights,
    logit,
    logit_shift,
    pick_rates,
    wrong,
)
from reference_data import skipped

NEW: tuple[str, ...] = ("beyond_agree", "beyond_modal", "beyond_groups", "ex_split",
                        "ex_weak", "kept_blind", "ex_count", "ex_agree", "examples_seen",
                        "copies_examples", "fails_disputed", "set_returns")
#: How each new feature may push the risk (0: either way).
NEW_DIRECTION: dict[str, int] = {"beyond_agree": -1, "beyond_modal": -1, "beyond_groups": 1,
                                 "ex_split": -1, "ex_weak": 1, "kept_blind": 1,
                                 "ex_count": -1, "fails_disputed": -1, "set_returns": -1}
EXAMPLE_ONLY = ("ex_split", "ex_weak", "kept_blind", "ex_count", "ex_agree",
                "copies_examples", "fails_disputed")

# ----------------------------------------------------------------------------- features


def _pairs_apart(rows: Sequence[Sequence[Any]], on: Sequence[int]) -> set[tuple[int, int]]:
    """The pairs of versions whose outputs differ on some input of ``on``."""
    return {(a, b) for a, b in combinations(range(len(rows)), 2)
            if any(rows[a][t] != rows[b][t] for t in on)}


def matrix_features(keys: Sequence[Sequence[Any]], cols: Sequence[int], kept: int,
                    passed: Sequence[int] | None) -> dict[str, float]:
    """The features read from the outcome matrix (module docstring)."""
    n = max(len(keys), 1)
    width = max((len(r) for r in keys), default=0)
    rows = [list(r) + [None] * (width - len(r)) for r in keys]
    shown = set(cols)
    beyond = [t for t in range(width) if t not in shown]
    own = rows[kept] if kept < len(rows) else [None] * width
    live = [t for t in beyond if own[t] is not None]
    agree = [sum(r[t] == own[t] for r in rows) / n for t in live]
    modal = []
    for t in live:
        counts: dict[Any, int] = {}
        for r in rows:
            if r[t] is not None:
                counts[r[t]] = counts.get(r[t], 0) + 1
        modal.append(counts.get(own[t], 0) >= max(counts.values()))
    groups = len({tuple(r[t] for t in beyond) for r in rows})
    cells_all = [k for r in rows for k in r]
    out = {"set_returns": (sum(k is not None for k in cells_all) / len(cells_all)
                           if cells_all else 0.0),
           "beyond_agree": float(np.mean(agree)) if agree else 0.0,
           "beyond_modal": float(np.mean(modal)) if modal else 0.0,
           "beyond_groups": groups / n,
           "ex_split": 1.0, "ex_weak": 0.0, "kept_blind": 0.0,
           "ex_count": min(len(cols), 10) / 10, "ex_agree": 0.0}
    if not cols:
        return out
    apart = _pairs_apart(rows, beyond)
    both = apart & _pairs_apart(rows, cols)
    total = n * (n - 1) / 2
    out["ex_agree"] = sum(all(r[t] == own[t] for t in cols) for r in rows) / n
    out["ex_split"] = len(both) / len(apart) if apart else 1.0
    out["ex_weak"] = (len(apart) - len(both)) / total if total else 0.0
    other = [v for v in range(len(rows)) if v != kept
             and any(rows[v][t] != own[t] for t in beyond)]
    if other and passed is not None:
        out["kept_blind"] = sum(passed[v] >= len(cols) for v in other) / len(other)
    return out


def _doc_and_body(code: str, entry: str) -> tuple[str, str] | None:
    """(docstring, code without string statements) of ``entry`` in ``code``."""
    from codequorum.behaviour.input_plan import find_function

    fn = find_function(code, entry)
    if fn is None:
        return None
    doc = ast.get_docstring(fn, clean=False) or ""
    body = [s for s in fn.body if not (isinstance(s, ast.Expr)
                                       and isinstance(s.value, ast.Constant))]
    return doc, "\n".join(ast.unparse(s) for s in body)


def text_features(codes: Sequence[str], entry: str | None,
                  expected: Sequence[str]) -> dict[str, float]:
    """``examples_seen`` and ``copies_examples`` (module docstring)."""
    from codequorum.behaviour.examples import doctest_cases
    from codequorum.behaviour.input_plan import find_function

    if not entry or not codes:
        return {"examples_seen": 0.0, "copies_examples": 0.0}
    seen = copies = 0
    for code in codes:
        fn = find_function(code, entry)
        doc = ast.get_docstring(fn) if fn is not None else None
        if fn is not None and doc and (doctest_cases(fn, entry) or ">>>" in doc
                                       or entry + "(" in doc):
            seen += 1
        parts = _doc_and_body(code, entry)
        if parts is not None and any(e in parts[1] for e in expected if len(e) >= 4
                                          and e not in ("True", "False", "None")):
            copies += 1
    return {"examples_seen": seen / len(codes), "copies_examples": copies / len(codes)}


def published_examples(task_id: str) -> tuple[str | None, list[str]]:
    """(entry point, the expected values' texts) of a HumanEval task's docstring
    examples."""
    from codequorum.behaviour.examples import doctest_cases
    from codequorum.behaviour.input_plan import find_function
    from codequorum.ingest import humaneval

    if not humaneval.is_task(task_id):
        return None, []
    entry = humaneval.entry_point_for(task_id)
    fn = find_function(humaneval.prompt_for(task_id), entry)
    cases = doctest_cases(fn, entry) if fn is not None else []
    return entry, [repr(c.expected) for c in cases if c.has_expected]


# ----------------------------------------------------------------------------- frames


@dataclass
class Frame:
    """One model's rows: ``fit`` (what it is fitted on) and ``shown`` (the sets it gives
    the risk of), each a feature table, labels and families."""

    fit_x: dict[str, np.ndarray]
    fit_y: np.ndarray
    fit_fam: np.ndarray
    shown_x: dict[str, np.ndarray]
    shown_y: np.ndarray
    shown_fam: np.ndarray
    shown_index: np.ndarray


TextKey = tuple[str, str, tuple[int, ...]]


def row_values(s: Mapping[str, Any], plain: bool, texts: Mapping[TextKey, dict[str, float]]
               ) -> dict[str, float]:
    """Every feature of one set (``plain``: as if its docstring gave no example)."""
    sig = s["plain_signals"] if plain else s["signals"]
    kept = s["plain_kept"] if plain else s["kept"]
    values = RiskSignals(**sig).values()
    cols = [] if plain else s["example_cols"]
    keys = s["keys"]
    if plain:
        keys = [[k for t, k in enumerate(r) if t not in set(s["example_cols"])] for r in keys]
    values.update(matrix_features(keys, cols, kept, None if plain else s["examples_passed"]))
    tf = texts.get((s["set"], s["task_id"], tuple(s["draw"])),
                   {"examples_seen": 0.0, "copies_examples": 0.0})
    values.update({"examples_seen": tf["examples_seen"],
                   "copies_examples": 0.0 if plain else tf["copies_examples"],
                   "fails_disputed": 0.0 if plain else fails_disputed(s)})
    return values


def fails_disputed(s: Mapping[str, Any]) -> float:
    """1 when the kept version fails an example and every example it fails is disputed."""
    rows = s.get("example_pass") or []
    if s["kept"] is None or s["kept"] >= len(rows):
        return 0.0
    failed = {e for e, ok in enumerate(rows[s["kept"]]) if not ok}
    return 1.0 if failed and failed <= set(disputed_of(s)) else 0.0


def frames(records: Sequence[Mapping[str, Any]], texts: Mapping[TextKey, dict[str, float]]
           ) -> dict[str, Frame]:
    """Per model, its fit rows and shown rows (``fit_risk_families.fit_rows``)."""
    data = [s for s in records if s["signals"] is not None]
    kinds = [RiskSignals(**s["signals"]).kind for s in data]
    out: dict[str, Frame] = {}
    for kind in KINDS:
        shown_idx = [i for i, k in enumerate(kinds) if k == kind]
        shown = [row_values(data[i], False, texts) for i in shown_idx]
        if kind == "outputs":
            fit_src = [s for s in data if s.get("plain_signals") is not None]
            fit = [row_values(s, True, texts) for s in fit_src]
            fit_y = np.array([0.0 if s["truth"][s["plain_kept"]] else 1.0 for s in fit_src])
            fit_fam = np.array([s["family"] for s in fit_src])
        else:
            fit, fit_y = shown, np.array([wrong(data[i]) for i in shown_idx])
            fit_fam = np.array([data[i]["family"] for i in shown_idx])
        names = sorted(fit[0]) if fit else []
        out[kind] = Frame(
            {f: np.array([r[f] for r in fit]) for f in names}, fit_y, fit_fam,
            {f: np.array([r[f] for r in shown]) for f in names},
            np.array([wrong(data[i]) for i in shown_idx]),
            np.array([data[i]["family"] for i in shown_idx]), np.array(shown_idx, dtype=int))
    return out


# ----------------------------------------------------------------------------- fitting


def direction(kind: str) -> dict[str, int]:
    """The monotone constraint of model ``kind`` with the new features'."""
    return {**DIRECTION.get(kind, {}), **MORE_DIRECTION.get(kind, {}), **NEW_DIRECTION}


def fit(kind: str, x: np.ndarray, y: np.ndarray, names: Sequence[str], l2: float,
        w: np.ndarray) -> LogisticModel:
    """A weighted monotone fit (``fit_risk.fit_monotone`` with :func:`direction`)."""
    sign = direction(kind)
    keep = list(names)
    while True:
        cols = [list(names).index(f) for f in keep]
        m = fit_logistic(x[:, cols], y, keep, l2=l2, weights=w)
        bad = [f for f, c in zip(keep, m.coef, strict=True) if sign.get(f, 0) * c < 0]
        if not bad or len(keep) == 1:
            return m
        keep.remove(bad[0])


def weights_of(fam: np.ndarray) -> np.ndarray:
    """Row weights under which no family weighs more than the median one."""
    return np.asarray(family_weights([{"family": f} for f in fam]), dtype=np.float64)


def fit_predict(fr: Frame, kind: str, names: Sequence[str], l2: float,
                train: Sequence[str], x_test: dict[str, np.ndarray]) -> np.ndarray:
    """Fitted on the fit rows of ``train``, the risks of ``x_test``'s rows."""
    use = np.isin(fr.fit_fam, list(train))
    y = fr.fit_y[use]
    n_test = len(next(iter(x_test.values()))) if x_test else 0
    if not use.any() or len(set(y)) < 2:
        return np.full(n_test, float(y.mean()) if use.any() else 0.5)
    x = np.column_stack([fr.fit_x[f][use] for f in names])
    m = fit(kind, x, y, names, l2, weights_of(fr.fit_fam[use]))
    xt = np.column_stack([x_test[f] for f in m.features])
    return m.predict(xt)


def sub(x: dict[str, np.ndarray], mask: np.ndarray) -> dict[str, np.ndarray]:
    """The rows ``mask`` of a feature table."""
    return {k: v[mask] for k, v in x.items()}


def family_loss(p: np.ndarray, y: np.ndarray, fam: np.ndarray) -> float:
    """Mean over families of the log-loss, weighed as in a fit."""
    names = sorted(set(fam))
    sizes = np.array([(fam == f).sum() for f in names], dtype=np.float64)
    losses = [log_loss(p[fam == f], y[fam == f]) for f in names]
    return float(np.average(losses, weights=np.minimum(sizes, np.median(sizes))))


def inner_fit_rows(fr: Frame, kind: str, names: Sequence[str], l2: float,
                   families: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each fit row of ``families`` predicted with its own family left out."""
    ps, ys, fs = [], [], []
    for g in families:
        mask = fr.fit_fam == g
        if not mask.any():
            continue
        rest = [h for h in families if h != g]
        ps.append(fit_predict(fr, kind, names, l2, rest, sub(fr.fit_x, mask)))
        ys.append(fr.fit_y[mask])
        fs.append(fr.fit_fam[mask])
    return np.concatenate(ps), np.concatenate(ys), np.concatenate(fs)


def choose(fr: Frame, kind: str, candidates: Sequence[tuple[str, ...]],
           l2s: Sequence[float], families: Sequence[str]) -> tuple[tuple[str, ...], float]:
    """The candidate and L2 with the lowest mean log-loss over ``families`` left out one
    at a time."""
    best: tuple[float, tuple[str, ...], float] | None = None
    for names in candidates:
        for l2 in l2s:
            p, y, f = inner_fit_rows(fr, kind, names, l2, families)
            loss = family_loss(p, y, f)
            if best is None or loss < best[0] - 1e-12:
                best = (loss, tuple(names), l2)
    assert best is not None
    return best[1], best[2]


def invariant(fr: Frame, kind: str, pool: Sequence[str], families: Sequence[str]
              ) -> tuple[str, ...]:
    """The features of ``pool`` whose coefficient, fitted on each family alone, has one
    sign in every family (and the allowed one)."""
    sign = direction(kind)
    signs: dict[str, set[int]] = {f: set() for f in pool}
    for g in families:
        mask = fr.fit_fam == g
        y = fr.fit_y[mask]
        if len(set(y)) < 2:
            continue
        for f in pool:
            x = fr.fit_x[f][mask][:, None]
            if x.std() < 1e-9:
                continue
            m = fit_logistic(x, y, (f,), l2=0.1)
            signs[f].add(int(np.sign(m.coef[0])))
    keep = tuple(f for f in pool if len(signs[f]) == 1
                 and sign.get(f, 0) * next(iter(signs[f])) >= 0)
    return keep or (pool[0],)


# ----------------------------------------------------------------------------- calibration


def platt_map(p: np.ndarray, y: np.ndarray, fam: np.ndarray
              ) -> Callable[[np.ndarray], np.ndarray]:
    """``sigmoid(a + b logit(p))`` fitted on held-out risks (as shipped)."""
    if p.size < 25 or len(set(y)) < 2:
        return lambda q: q
    m = fit_logistic(logit(p)[:, None], y, ("logit",), l2=1e-3, weights=weights_of(fam))
    b = m.coef[0] / m.scale[0]
    a = m.intercept - b * m.mean[0]
    return lambda q: expit(a + b * logit(q))


def shift_map(p: np.ndarray, y: np.ndarray, fam: np.ndarray
              ) -> Callable[[np.ndarray], np.ndarray]:
    """Only the level: the logit shift making the families' weighted mean risk their
    weighted share wrong."""
    d = logit_shift(p, y, weights_of(fam))
    return lambda q: expit(logit(q) + d)


def isotonic_map(p: np.ndarray, y: np.ndarray, fam: np.ndarray
                 ) -> Callable[[np.ndarray], np.ndarray]:
    """Pool-adjacent-violators on the held-out risks (families weighed as in a fit),
    interpolated, kept inside [0.01, 0.99]."""
    if p.size < 25:
        return lambda q: q
    order = np.argsort(p, kind="mergesort")
    xs, ys, ws = p[order], y[order], weights_of(fam)[order]
    blocks: list[list[float]] = []  # [sum w*y, sum w, max x, min x]
    for x, t, w in zip(xs, ys, ws, strict=True):
        blocks.append([w * t, w, x, x])
        while len(blocks) > 1 and (blocks[-2][0] / blocks[-2][1]
                                   >= blocks[-1][0] / blocks[-1][1]):
            b = blocks.pop()
            blocks[-1] = [blocks[-1][0] + b[0], blocks[-1][1] + b[1], b[2], blocks[-1][3]]
    centres = np.array([(b[2] + b[3]) / 2 for b in blocks])
    values = np.clip(np.array([b[0] / b[1] for b in blocks]), 0.01, 0.99)
    return lambda q: np.interp(q, centres, values)


SLOPES = np.round(np.arange(0.5, 1.51, 0.05), 2)
SHIFTS = np.round(np.arange(-1.5, 1.51, 0.05), 2)


def worst_family_map(p: np.ndarray, y: np.ndarray, fam: np.ndarray
                     ) -> Callable[[np.ndarray], np.ndarray]:
    """``sigmoid(a + b logit(p))`` whose worst family (the highest log-loss among the
    families of the held-out risks) is best: it guards the family least like the others,
    where Platt's map serves their pooled mean."""
    if p.size < 25 or len(set(y)) < 2:
        return lambda q: q
    z = logit(p)
    names = sorted(set(fam))
    best = (math.inf, 0.0, 1.0)
    for b in SLOPES:
        for a in SHIFTS:
            q = expit(a + b * z)
            worst = max(log_loss(q[fam == g], y[fam == g]) for g in names)
            if worst < best[0] - 1e-12:
                best = (worst, float(a), float(b))
    _, a0, b0 = best
    return lambda q: expit(a0 + b0 * logit(q))


def guarded_map(p: np.ndarray, y: np.ndarray, fam: np.ndarray
                ) -> Callable[[np.ndarray], np.ndarray]:
    """Platt's map, then the least upward shift of the logit under which no family of the
    held-out risks is given a mean risk more than :data:`TARGET_GAP` under its share
    wrong: a prior no family found optimistic."""
    base = platt_map(p, y, fam)
    q = base(p)
    names = sorted(set(fam))
    for d in SHIFTS[SHIFTS >= 0]:
        moved = expit(logit(q) + d)
        if all(moved[fam == g].mean() >= y[fam == g].mean() - TARGET_GAP for g in names):
            break
    shift = float(d)
    return lambda r: expit(logit(base(r)) + shift)


CALIBRATIONS: dict[str, Callable[..., Callable[[np.ndarray], np.ndarray]] | None] = {
    "none": None, "platt": platt_map, "shift": shift_map, "isotonic": isotonic_map,
    "worst": worst_family_map, "guarded": guarded_map}


# ----------------------------------------------------------------------------- variants


@dataclass(frozen=True)
class Variant:
    """How each model's features and L2 are chosen, and the calibration."""

    name: str
    candidates: Callable[[str], Sequence[tuple[str, ...]]]
    l2s: tuple[float, ...] = L2_CHOICES
    calibration: str = "platt"
    #: the examples model's own map, where it differs (examples passed: the evidence
    #: weakest on models the fit has not seen)
    examples_calibration: str | None = None
    invariant_pool: bool = False
    examples_seen_split: bool = False
    choose_on_all: bool = False


def shipped(kind: str) -> Sequence[tuple[str, ...]]:
    """The feature sets ``fit_risk_families.py`` chooses among."""
    return tuple(CANDIDATES[kind])


def allowed(kind: str, extra: Sequence[str]) -> tuple[str, ...]:
    """The features of ``extra`` model ``kind`` can read (no examples: none of theirs)."""
    return tuple(f for f in extra if kind != "outputs" or f not in EXAMPLE_ONLY)


def with_new(extra: Sequence[str]) -> Callable[[str], Sequence[tuple[str, ...]]]:
    """The shipped candidates, each also with ``extra`` added."""
    def cands(kind: str) -> Sequence[tuple[str, ...]]:
        add = allowed(kind, extra)
        return [*CANDIDATES[kind], *[(*c, *[f for f in add if f not in c])
                                     for c in CANDIDATES[kind]]]
    return cands


def pool(kind: str) -> Sequence[tuple[str, ...]]:
    """Every feature, shipped and new, as one candidate."""
    return [(*FEATURES[kind], *allowed(kind, NEW))]


VARIANTS: tuple[Variant, ...] = (
    Variant("shipped candidates, chosen without the family", shipped),
    Variant("as shipped: features and L2 chosen on every family (not nested)", shipped,
            choose_on_all=True),
    Variant("shipped candidates, isotonic map", shipped, calibration="isotonic"),
    Variant("shipped candidates, level shift only", shipped, calibration="shift"),
    Variant("shipped candidates, no map", shipped, calibration="none"),
    Variant("shipped candidates, L2 up to 30", shipped, l2s=(*L2_CHOICES, 10.0, 30.0)),
    Variant("+ agreement beyond the examples", with_new(
        ("beyond_agree", "beyond_modal", "beyond_groups"))),
    Variant("+ how discriminating the examples are", with_new(
        ("ex_split", "ex_weak", "kept_blind"))),
    Variant("+ number of examples", with_new(("ex_count",))),
    Variant("+ examples in the versions' text", with_new(("examples_seen",))),
    Variant("+ examples copied into the code", with_new(("copies_examples",))),
    Variant("+ every new feature", with_new(NEW)),
    Variant("+ every new feature, L2 up to 30", with_new(NEW), l2s=(*L2_CHOICES, 10.0, 30.0)),
    Variant("family-invariant features only, L2 up to 30", pool,
            l2s=(*L2_CHOICES, 10.0, 30.0), invariant_pool=True),
    Variant("family-invariant features only, isotonic map", pool,
            l2s=(*L2_CHOICES, 10.0, 30.0), calibration="isotonic", invariant_pool=True),
    Variant("examples unseen (no version's docstring holds them) as their own regime",
            shipped, examples_seen_split=True),
    Variant("examples unseen as their own regime, level shift only", shipped,
            calibration="shift", examples_seen_split=True),
    Variant("family-invariant features only, level shift only", pool,
            l2s=(*L2_CHOICES, 10.0, 30.0), calibration="shift", invariant_pool=True),
    Variant("+ every new feature, level shift only", with_new(NEW), calibration="shift"),
    Variant("+ versions alike on the examples", with_new(("ex_agree",))),
    Variant("+ versions alike on the examples, level shift only", with_new(("ex_agree",)),
            calibration="shift"),
    Variant("+ the kept version fails only examples every version fails alike",
            with_new(("fails_disputed",))),
    Variant("+ fails only examples every version fails alike, level shift only",
            with_new(("fails_disputed",)), calibration="shift"),
    Variant("+ how often the versions return", with_new(("set_returns",))),
    Variant("+ how often the versions return, level shift only", with_new(("set_returns",)),
            calibration="shift"),
    Variant("shipped candidates, map guarding the worst family", shipped,
            calibration="worst"),
    Variant("shipped candidates, no family left optimistic (every model)", shipped,
            calibration="guarded"),
    Variant("shipped candidates, no family left optimistic (examples passed)", shipped,
            examples_calibration="guarded"),
    Variant("shipped candidates, worst family guarded (examples passed)", shipped,
            examples_calibration="worst"),
)


def regime_mask(fr: Frame, x: dict[str, np.ndarray]) -> np.ndarray:
    """Rows whose versions' docstrings never hold the examples."""
    return np.asarray(x["examples_seen"] <= 0.0) & np.asarray(x["ex_count"] > 0)


def outer(fr: Frame, kind: str, v: Variant, f: str, families: Sequence[str]
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(risks of ``f``'s shown rows, the other families' calibrated held-out risks of
    their shown rows, their labels and families): every choice made without ``f``."""
    rest = [g for g in families if g != f]
    cands = v.candidates(kind)
    if v.invariant_pool:
        cands = [invariant(fr, kind, cands[0], rest)]
    names, l2 = choose(fr, kind, cands, v.l2s, families if v.choose_on_all else rest)
    mine = fr.shown_fam == f
    p = fit_predict(fr, kind, names, l2, rest, sub(fr.shown_x, mine))
    ps, ys, fs = [], [], []
    for g in rest:
        m = fr.shown_fam == g
        if m.any():
            ps.append(fit_predict(fr, kind, names, l2, [h for h in rest if h != g],
                                  sub(fr.shown_x, m)))
            ys.append(fr.shown_y[m])
            fs.append(fr.shown_fam[m])
    if not ps:
        return p, np.array([]), np.array([]), np.array([])
    ip, iy, ifam = np.concatenate(ps), np.concatenate(ys), np.concatenate(fs)
    make = CALIBRATIONS[v.examples_calibration if kind == "examples"
                        and v.examples_calibration else v.calibration]
    if make is not None:
        mapping = make(ip, iy, ifam)
        p, ip = mapping(p), mapping(ip)
    return p, ip, iy, ifam


def run_variant(frs: Mapping[str, Frame], v: Variant, n_rows: int,
                y_all: np.ndarray, fam_all: np.ndarray,
                report: np.ndarray | None = None) -> dict[str, Any]:
    """Per family left out: the figures of the variant, over the rows ``report`` (default
    every row; every row is fitted on either way)."""
    families = sorted(set(fam_all))
    rep = np.ones(n_rows, dtype=bool) if report is None else report
    p_all = np.full(n_rows, np.nan)
    held = {f: 0 for f in families}
    total = {f: 0 for f in families}
    by_kind: dict[str, dict[str, tuple[int, float, float]]] = {f: {} for f in families}
    for f in families:
        for kind in KINDS:
            fr = frs[kind]
            mine = fr.shown_fam == f
            if not mine.any():
                continue
            if v.examples_seen_split and kind != "outputs":
                p, ip, iy, ifam = split_regime(fr, kind, v, f, families)
            else:
                p, ip, iy, ifam = outer(fr, kind, v, f, families)
            p_all[fr.shown_index[mine]] = p
            told = rep[fr.shown_index[mine]]
            if not told.any():
                continue
            y_told = fr.shown_y[mine][told]
            by_kind[f][kind] = (int(told.sum()), float(p[told].mean()), float(y_told.mean()))
            width = choose_width(ip, iy, ifam) if ip.size else 0.0
            cs = cells(p[told], y_told, fr.shown_fam[mine][told])
            held[f] += sum(covered(c, width) for c in cs)
            total[f] += len(cs)
    out = {}
    for f in families:
        m = (fam_all == f) & rep
        p, y = p_all[m], y_all[m]
        out[f] = {"auroc": auroc(p, y), "ece": ece(p, y), "mean": float(p.mean()),
                  "wrong": float(y.mean()), "loss": log_loss(p, y),
                  "held": held[f], "cells": total[f], "kinds": by_kind[f]}
    return out


def split_regime(fr: Frame, kind: str, v: Variant, f: str, families: Sequence[str]
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """As :func:`outer`, with the rows whose versions never show the examples fitted and
    calibrated apart from the others (falling back to all rows where one side has too
    few families)."""
    base = outer(fr, kind, v, f, families)
    mine = fr.shown_fam == f
    unseen = regime_mask(fr, fr.fit_x)
    p = base[0].copy()
    for side in (True, False):
        keep = unseen == side
        fams = sorted(set(fr.fit_fam[keep]) - {f})
        if len(fams) < 2:
            continue
        part = Frame(sub(fr.fit_x, keep), fr.fit_y[keep], fr.fit_fam[keep],
                     fr.shown_x, fr.shown_y, fr.shown_fam, fr.shown_index)
        sel = regime_mask(fr, fr.shown_x)[mine] == side
        if sel.any():
            got = outer(part, kind, v, f, [*fams, f])[0]
            p[sel] = got[sel]
    return p, base[1], base[2], base[3]


def verdict(row: Mapping[str, Any]) -> bool:
    """Whether a family's figures meet the targets."""
    return bool(row["auroc"] >= TARGET_AUROC and row["ece"] <= TARGET_ECE
                and abs(row["mean"] - row["wrong"]) <= TARGET_GAP)


def text_table(records: Sequence[Mapping[str, Any]], cache: Path
               ) -> dict[TextKey, dict[str, float]]:
    """``text_features`` of every set with examples (codes from the family cache)."""
    codes = {(t.set_name, t.task_id): t.codes for t in read_cache(cache)}
    published: dict[str, tuple[str | None, list[str]]] = {}
    out = {}
    for s in records:
        tid = s["task_id"]
        if tid not in published:
            published[tid] = published_examples(tid)
        entry, expected = published[tid]
        task_codes = codes.get((s["set"], tid), [])
        drawn = [task_codes[i] for i in s["draw"] if i < len(task_codes)]
        entry = entry or next((m.group(1) for m in map(SIGNATURE.search, drawn) if m), None)
        out[(s["set"], tid, tuple(s["draw"]))] = text_features(drawn, entry, expected)
    return out


def first_of_each(records: Sequence[Mapping[str, Any]], n: int) -> list[Mapping[str, Any]]:
    """The first ``n`` records of each family, in order."""
    taken: dict[str, int] = {}
    out = []
    for s in records:
        taken[s["family"]] = taken.get(s["family"], 0) + 1
        if taken[s["family"]] <= n:
            out.append(s)
    return out


def disputed_table(records: Sequence[Mapping[str, Any]]) -> None:
    """Per family: sets with an example every version fails alike, how many of them keep
    a version failing only such examples, and how often that version is right."""
    for f in sorted({s["family"] for s in records}):
        mine = [s for s in records if s["family"] == f and s["signals"] is not None
                and s["examples"]]
        hit = [s for s in mine if disputed_of(s)]
        moved = [s for s in hit if not RiskSignals(**s["signals"]).passes_examples
                 and RiskSignals(**without_disputed(s)["signals"]).passes_examples]
        right = sum(1 - wrong(s) for s in moved)
        print(f"{f}: {len(hit)} of {len(mine)} sets with examples have one every version "
              f"fails alike; {len(moved)} keep a version failing only such examples, "
              f"right in {right:.0f} ({', '.join(sorted({s['task_id'] for s in moved}))})")


def main(argv: list[str] | None = None) -> int:
    """Print the table of variants (module docstring)."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sets", type=Path, default=FAMILY_SETS)
    ap.add_argument("--cache", type=Path, default=FAMILY_CACHE)
    ap.add_argument("--only", nargs="*", help="variants whose name starts so")
    ap.add_argument("--versions", type=int, help="fit and measure on sets of this size only")
    ap.add_argument("--report-versions", type=int,
                    help="fit on every set, measure on sets of this size only")
    ap.add_argument("--set-aside-disputed", action="store_true",
                    help="score each set with the examples every version fails alike "
                    "counted as inputs without an expected value")
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args(argv)
    if not args.sets.exists() or not args.cache.exists():
        skipped("needs bench/results/family_sets.json (fit_risk_families.py --rebuild)")
    records = json.loads(args.sets.read_text())
    if args.smoke:  # the first 60 sets of each family, the first variant
        records = first_of_each(records, 60)
        args.only = [VARIANTS[0].name]
    if args.versions:
        records = [s for s in records if s["n"] == args.versions]
    disputed_table(records)
    if args.set_aside_disputed:
        records = [without_disputed(s) for s in records]
    texts = text_table(records, args.cache)
    data = [s for s in records if s["signals"] is not None]
    report = (np.array([s["n"] == args.report_versions for s in data])
              if args.report_versions else None)
    for f, pk in pick_rates([s for s in records if not args.report_versions
                             or s["n"] == args.report_versions]).items():
        print(f"{f}: pick {100 * pk['pick']:.1f}, random {100 * pk['random']:.1f}, oracle "
              f"{100 * pk['oracle']:.1f}: {100 * pk['captured']:.0f} % of the oracle's lift")
    y_all = np.array([wrong(s) for s in data])
    fam_all = np.array([s["family"] for s in data])
    frs = frames(records, texts)
    for f in sorted(set(fam_all)):
        ex = frs["examples"]
        m = ex.fit_fam == f
        print(f"{f}: {int((fam_all == f).sum())} sets; passing the examples {int(m.sum())}: "
              f"examples in the versions' docstrings {ex.fit_x['examples_seen'][m].mean():.2f}, "
              f"copied {ex.fit_x['copies_examples'][m].mean():.2f}, examples splitting "
              f"{ex.fit_x['ex_split'][m].mean():.2f}, share wrong {ex.fit_y[m].mean():.3f}")
    failed = frs["examples_failed"]
    for f in sorted(set(fam_all)):
        m = failed.shown_fam == f
        right = [data[i]["task_id"] for i in failed.shown_index[m & (failed.shown_y == 0)]]
        print(f"{f}: kept version failing an example yet right in {len(right)} of "
              f"{int(m.sum())} sets ({', '.join(sorted(set(right)))})")
    families = sorted(set(fam_all))
    print("| variant | " + " | ".join(families) + " | log-loss | ranges held | holds |")
    print("| --- |" + " --- |" * (len(families) + 3))
    for v in VARIANTS:
        if args.only and not any(v.name.startswith(o) for o in args.only):
            continue
        got = run_variant(frs, v, len(data), y_all, fam_all, report)
        cellsf = " | ".join(
            f"{g['auroc']:.3f}, {g['ece']:.3f}, {g['mean']:.3f} / {g['wrong']:.3f}"
            for g in got.values())
        loss = ", ".join(f"{g['loss']:.3f}" for g in got.values())
        held = sum(g["held"] for g in got.values())
        cells_n = sum(g["cells"] for g in got.values())
        ok = all(verdict(g) for g in got.values())
        print(f"| {v.name} | {cellsf} | {loss} | {held}/{cells_n} | "
              f"{'every family' if ok else 'no'} |", flush=True)
        if v is VARIANTS[0]:
            for f, g in got.items():
                print("  " + f + ": " + "; ".join(
                    f"{k} {n} sets, {m:.3f} said / {w:.3f} wrong"
                    for k, (n, m, w) in g["kinds"].items()), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
