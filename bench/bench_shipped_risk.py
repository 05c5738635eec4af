"""The shipped risk model, each model family left out, on the sets as the current pick keeps them.

``fit_risk_families.py`` measures the procedure it would ship (features chosen afresh);
this measures the model that *is* shipped when the pick rule has changed since its fit:
the features and L2 weight of ``data/risk_model.json``'s models, for each family ``f``
fitted on the other families' sets of ``--fit-sets`` (the picks the model was fitted on),
their risks mapped through the logistic fitted on those families' held-out risks (as
``fit_risk_families.py --recalibrate`` does), and measured on ``f``'s sets of ``--sets``
(the picks the product makes now): AUROC, ECE, mean risk against share wrong, and the
90 % range's groups of 25 held (the half-width chosen on the other families). Beside it,
the shipped file as it is (fitted on every family: not a held-out figure). All sets and
the sets of 5 (what ``sample`` asks for). Last, the ``outputs`` model on every set read as
if its docstring gave no example (``fit_risk_families.plain_held_out``): its figures per
family left out, the steps and range those plain views give it; ``--write-claims`` writes
them, with the other models' coarse scales measured on the current pick, into the shipped
file.

    cp bench/results/family_sets.json bench/results/family_sets_fitted.json  # before a rebuild
    .venv/bin/python bench/fit_risk_families.py --rebuild --recalibrate
    .venv/bin/python bench/bench_shipped_risk.py                             # ~30 s
    .venv/bin/python bench/bench_shipped_risk.py --write-claims              # and write
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from codequorum.judge.risk import LogisticModel, load_model
from fit_risk import MODEL
from fit_risk_families import (
    FAMILY_SETS,
    KINDS,
    Rows,
    cells,
    covered,
    fit_rows,
    kind_of,
    lofo,
    measure,
    plain_claims,
    plain_held_out,
    platt,
    recalibrated,
    report_plain,
    shown,
    signals,
    steps_of,
    widths_of,
    wrong,
)
from reference_data import skipped

FITTED_SETS = FAMILY_SETS.with_name("family_sets_fitted.json")
Chosen = dict[str, tuple[tuple[str, ...], float]]


def shipped_choice(model: Mapping[str, Any]) -> Chosen:
    """Per kind of evidence, the shipped model's features and L2 weight."""
    return {k: (tuple(model["models"][k]["features"]), float(model["models"][k]["l2"]))
            for k in KINDS}


def as_shipped(data: Rows, model: Mapping[str, Any]) -> np.ndarray:
    """Each set's risk from the shipped file as it is."""
    out = []
    for s in data:
        m = model["models"][kind_of(s)]
        out.append(float(LogisticModel.from_dict(m).predict(
            signals(s).vector(m["features"]))[()]))
    return np.array(out)


def left_out(fit: Rows, data: Rows, chosen: Chosen
             ) -> tuple[np.ndarray, dict[str, dict[str, float]]]:
    """Each set of ``data``: its risk fitted on the other families' sets of ``fit`` and
    mapped as shipped; per family, the range's half-widths chosen on the others."""
    fam_fit = np.array([s["family"] for s in fit])
    y_fit = np.array([wrong(s) for s in fit])
    kinds_fit = np.array([kind_of(s) for s in fit])
    fam = np.array([s["family"] for s in data])
    kinds = np.array([kind_of(s) for s in data])
    families = sorted(set(fam))
    p = np.full(len(data), np.nan)
    widths: dict[str, dict[str, float]] = {}
    for f in families:
        inner = shown(fit, chosen, [g for g in families if g != f], outer=f)
        for k in KINDS:
            rest = (fam_fit != f) & (kinds_fit == k)
            ab = platt(inner[rest], y_fit[rest], fam_fit[rest])
            inner[rest] = recalibrated(inner[rest], ab)
            idx = np.flatnonzero((fam == f) & (kinds == k))
            if idx.size:
                raw = lofo(fit_rows(fit, k), k, *chosen[k], None, [data[i] for i in idx])
                p[idx] = recalibrated(raw, ab)
        widths[f] = widths_of(inner, y_fit, fam_fit, kinds_fit, fam_fit != f)
    return p, widths


def held(p: np.ndarray, y: np.ndarray, fam: np.ndarray, kinds: np.ndarray,
         widths: Mapping[str, float]) -> tuple[int, int]:
    """(groups held, groups) of one family's sets under its half-widths."""
    cs = [(c, k) for k in KINDS
          for c in cells(p[kinds == k], y[kinds == k], fam[kinds == k])]
    return sum(covered(c, widths[k]) for c, k in cs), len(cs)


def figure(value: float | None) -> str:
    """A figure to three places, or ``-`` where there is none (AUROC of one class)."""
    return "-" if value is None else f"{value:.3f}"


def report(label: str, p: np.ndarray, data: Sequence[Mapping[str, Any]],
           widths: Mapping[str, Mapping[str, float]] | None) -> None:
    """Per family and size (all sets, sets of 5): the figures of ``p``."""
    y = np.array([wrong(s) for s in data])
    fam = np.array([s["family"] for s in data])
    kinds = np.array([kind_of(s) for s in data])
    sizes = np.array([s["n"] for s in data])
    for size, mask in (("all sets", np.ones(len(data), dtype=bool)), ("sets of 5", sizes == 5)):
        print(f"{label}, {size}: family | sets | AUROC | ECE | mean risk / share wrong | "
              "points off | ranges held")
        for f in sorted(set(fam)):
            mine = mask & (fam == f)
            got = measure(p[mine], y[mine])
            cover = "-"
            if widths is not None:
                cover = "{}/{}".format(*held(p[mine], y[mine], fam[mine], kinds[mine],
                                             widths[f]))
            print(f"  {f:>9} | {got['sets']} | {figure(got['auroc'])} | {got['ece']:.3f} | "
                  f"{got['mean_risk']:.3f} / {got['share_wrong']:.3f} | "
                  f"{100 * (got['mean_risk'] - got['share_wrong']):+.1f} | {cover}")
            names = sorted({s["set"] for s, m in zip(data, mine, strict=True) if m})
            for name in names if len(names) > 1 else ():
                one = mine & np.array([s["set"] == name for s in data])
                got = measure(p[one], y[one])
                print(f"    {name}: {got['sets']} sets, AUROC {figure(got['auroc'])}, ECE "
                      f"{got['ece']:.3f}, {got['mean_risk']:.3f} / {got['share_wrong']:.3f}")


def first_of_each(records: Rows, n: int) -> Rows:
    """The first ``n`` records of each family, in order."""
    taken: dict[str, int] = {}
    out = []
    for s in records:
        taken[s["family"]] = taken.get(s["family"], 0) + 1
        if taken[s["family"]] <= n:
            out.append(s)
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the shipped model's figures per family left out (module docstring)."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--fit-sets", type=Path, default=FITTED_SETS,
                    help="the sets as the pick the model was fitted on kept them")
    ap.add_argument("--sets", type=Path, default=FAMILY_SETS,
                    help="the sets as the current pick keeps them")
    ap.add_argument("--write-claims", action="store_true",
                    help=f"write into {MODEL.name} each model's coarse scale measured here "
                    "(the outputs model's on every family's plain views, with its range)")
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args(argv)
    if not args.sets.exists() or not args.fit_sets.exists():
        skipped(f"needs {args.fit_sets.name} and {args.sets.name} (module docstring)")
    fit: Rows = [s for s in json.loads(args.fit_sets.read_text()) if s["signals"] is not None]
    data: Rows = [s for s in json.loads(args.sets.read_text()) if s["signals"] is not None]
    if args.smoke:
        fit, data = first_of_each(fit, 80), first_of_each(data, 80)
    model = load_model()
    p, widths = left_out(fit, data, shipped_choice(model))
    plain, p_plain = plain_held_out(fit, data, shipped_choice(model), platt)
    claims = plain_claims(plain, p_plain)
    for f, held_out in claims["held_out"].items():  # as shipped: chosen on plain views
        widths[f]["outputs"] = held_out["half_width"]
    report(f"fitted on {args.fit_sets.name} without the family, measured on {args.sets.name}",
           p, data, widths)
    report("the shipped file as it is (fitted on every family)", as_shipped(data, model),
           data, None)
    report_plain(plain, p_plain, claims)
    steps = steps_of(p, data)
    for kind in ("examples", "examples_failed"):
        print(f"{kind} levels: " + "; ".join(
            f"<{b['below']:g} {b['level']} ({b['sets']}, observed {b['observed']})"
            for b in steps[kind]))
    if args.write_claims:
        write_claims(model, steps, claims, ranges_held(p, data, widths))
    return 0


def ranges_held(p: np.ndarray, data: Rows, widths: Mapping[str, Mapping[str, float]]
                ) -> dict[str, dict[str, Any]]:
    """Per family left out: its half-widths (chosen on the other families) and the groups
    of its sets they hold (:func:`held`), as the model file's ``range.held_out`` keeps it."""
    y = np.array([wrong(s) for s in data])
    fam = np.array([s["family"] for s in data])
    kinds = np.array([kind_of(s) for s in data])
    out: dict[str, dict[str, Any]] = {}
    for f in sorted(set(fam)):
        mine = fam == f
        covered_, cells_ = held(p[mine], y[mine], fam[mine], kinds[mine], widths[f])
        out[f] = {"half_width": dict(widths[f]), "cells": cells_, "covered": covered_}
    return out


def write_claims(model: dict[str, Any], steps: Mapping[str, Any],
                 claims: Mapping[str, Any], held_out: Mapping[str, Any]) -> None:
    """Put the coarse scale of each model measured on the current pick (the ``outputs``
    model's on the plain views, ``fit_risk_families.plain_claims``, with its range
    half-width) and the range's groups held per family left out into the shipped file,
    the rest unchanged."""
    for kind in ("examples", "examples_failed"):
        model["levels"][kind] = steps[kind]
    model["levels"]["outputs"] = claims["levels"]
    model["range"]["logit_half_width"]["outputs"] = claims["half_width"]
    model["range"]["plain_views"] = claims["held_out"]
    model["range"]["held_out"] = dict(held_out)
    MODEL.write_text(json.dumps(model, indent=1) + "\n")
    print(f"wrote the models' levels and the outputs range into {MODEL.name}")


if __name__ == "__main__":
    raise SystemExit(main())
