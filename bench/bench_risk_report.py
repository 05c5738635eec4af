"""How well a real report's ``risk`` is calibrated: AUROC and ECE of ``risk`` against the
recommended version failing the graded tests, read from a ``score --dynamic --format json``
document.

``fit_risk.py`` measures the models on records drawn from the cache; this reads what the
command line itself reports, end to end (inputs collected, versions run in the sandbox,
recommendation, risk), so it also checks that the two agree. Without ``--report`` it runs
``codequorum score`` on the first ``--samples`` versions of every task of the bundled data
(``--problems humaneval --dynamic``); with ``--report`` it reads a document made on any data
set whose sets carry graded tests (a benchmark's hidden tests), e.g. another model's
samples, to see how far the shipped risk holds there.

A set counts when it has a recommendation, a risk (the versions ran) and graded tests for
the recommended version; it fails when that version does not pass all of them. Printed for
all the sets, each set's own risk (``risk_alone``) and the risk as reported (``risk``:
moved to the rate each model's sets imply, ``--risk-level run``), then the reported risk
with and without docstring examples, per step of the coarse scale (``risk_level``) and,
with their reliability rows, per model the sets name (``model``: a report of several
models' samples tells how far the risk held for each), alone and as reported. Intervals
resample the sets (one set per task here). Also printed: the ECE a perfectly calibrated
model would show on these predictions (labels drawn from them), since with one set per task
the ECE of 10 bins is far from 0 even then.

    .venv/bin/python bench/bench_risk_report.py [--report FILE] [--samples 10] [--jobs 2] [--smoke]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from codequorum.judge.calibration import UNNAMED, kept_fails
from codequorum.judge.risk import LEVELS, auroc, ece, reliability
from reference_data import DATA


def run_score(versions: int, jobs: int, out: Path, limit: int | None = None) -> None:
    """``codequorum score`` on the bundled data with the dynamic analysis, as JSON."""
    cmd = [sys.executable, "-m", "codequorum", "score", str(DATA), "--problems", "humaneval",
           "--dynamic", "--versions", str(versions), "--jobs", str(jobs), "--format", "json",
           "-o", str(out), "-q", *(["--limit", str(limit)] if limit else [])]
    subprocess.run(cmd, check=True)


def has_examples(s: dict[str, Any]) -> bool:
    """Whether the set's docstring gave examples with expected values."""
    inputs = (s.get("dynamic") or {}).get("inputs") or []
    return any(i.get("source") == "doctest" and i.get("checked") for i in inputs)


def outcome(s: dict[str, Any]) -> tuple[float, float, float] | None:
    """(risk, the set's own risk, 1 if the recommended version fails its graded tests), or
    None when the set has no risk (nothing ran) or no graded tests for it."""
    failed = kept_fails(s)
    if s.get("risk") is None or failed is None:
        return None
    alone = s.get("risk_alone")
    return (float(s["risk"]), float(s["risk"] if alone is None else alone),
            1.0 if failed else 0.0)


def set_ci(p: np.ndarray, y: np.ndarray, measure: Any, reps: int = 1000,
           seed: int = 0) -> tuple[float, float]:
    """95 % interval of ``measure(p, y)`` with the sets resampled."""
    rng = np.random.default_rng(seed)
    values = [measure(p[ix], y[ix]) for ix in
              (rng.integers(0, p.size, p.size) for _ in range(reps))]
    finite = [v for v in values if v == v]
    if not finite:  # e.g. AUROC where every set fails
        return float("nan"), float("nan")
    return float(np.percentile(finite, 2.5)), float(np.percentile(finite, 97.5))


def calibrated_ece(p: np.ndarray, reps: int = 2000, seed: int = 0) -> tuple[float, float]:
    """Median and 95th percentile of the ECE of a perfectly calibrated model here."""
    rng = np.random.default_rng(seed)
    values = [ece(p, (rng.random(p.size) < p).astype(np.float64), 10) for _ in range(reps)]
    return float(np.median(values)), float(np.percentile(values, 95))


def summary(name: str, p: np.ndarray, y: np.ndarray) -> list[str]:
    """Lines for one group of sets."""
    if p.size == 0:
        return [f"{name}: no sets"]
    a_lo, a_hi = set_ci(p, y, auroc)
    e_lo, e_hi = set_ci(p, y, lambda a, b: ece(a, b, 10))
    med, p95 = calibrated_ece(p)
    return [f"{name}: {p.size} sets, failure rate {y.mean():.3f}, mean risk {p.mean():.3f}; "
            f"AUROC {auroc(p, y):.3f} [{a_lo:.3f}, {a_hi:.3f}], ECE {ece(p, y, 10):.3f} "
            f"[{e_lo:.3f}, {e_hi:.3f}] (a calibrated model: median {med:.3f}, 95th "
            f"percentile {p95:.3f})"]


def main(argv: list[str] | None = None) -> int:
    """Measure, and print the figures and the reliability rows."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--report", type=Path, help="a score --dynamic --format json document")
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--smoke", action="store_true", help="two tasks, three versions each")
    args = ap.parse_args(argv)
    limit = None
    if args.smoke:
        args.samples, limit = 3, 2
    with tempfile.TemporaryDirectory() as tmp:
        path = args.report
        if path is None:
            path = Path(tmp) / "report.json"
            run_score(args.samples, args.jobs, path, limit)
        document = json.loads(path.read_text())
    sets = document["sets"]
    kept = [(o, has_examples(s), s.get("model") or UNNAMED, s.get("risk_level") or "")
            for s in sets if (o := outcome(s)) is not None]
    p = np.array([o[0] for o, *_ in kept])
    alone = np.array([o[1] for o, *_ in kept])
    y = np.array([o[2] for o, *_ in kept])
    ex = np.array([e for _, e, *_ in kept], dtype=bool)
    models = np.array([m for _, _, m, _ in kept])
    levels = np.array([lv for *_, lv in kept])
    print(f"{len(sets)} sets read, {len(kept)} with a risk and graded tests")
    for entry in ((document.get("overall") or {}).get("risk_levels") or {}).values():
        print(entry["note"])
    lines = summary("all, each set alone (risk_alone)", alone, y)
    lines += summary("all, as reported (risk: the run's level)", p, y)
    lines += summary("docstring examples", p[ex], y[ex])
    lines += summary("no examples", p[~ex], y[~ex])
    lines += _rows(p, y)
    for level in LEVELS:
        at = levels == level
        lines.append(f"{level}: {int(at.sum())} sets, "
                     + (f"kept version wrong {y[at].mean():.3f}" if at.any() else "none"))
    for model in dict.fromkeys(models.tolist()):
        mine = models == model
        lines += (summary(f"model {model}, each set alone", alone[mine], y[mine])
                  + _rows(alone[mine], y[mine])
                  + summary(f"model {model}, as reported", p[mine], y[mine])
                  + _rows(p[mine], y[mine]))
    print("\n".join(lines))
    return 0


def _rows(p: np.ndarray, y: np.ndarray) -> list[str]:
    """The reliability rows of one group."""
    return [f"    predicted {a:.3f}  observed {b:.3f}  ({n} sets)"
            for a, b, n in reliability(p, y, 10)]


if __name__ == "__main__":
    raise SystemExit(main())
