"""The risk of the kept version on JavaScript and TypeScript sets, against what is right.

The risk model (``data/risk_model.json``) was fitted on Python: HumanEval versions of four
model families. This script reads what it says of JavaScript and TypeScript versions: the
hand-written sets of ``tests/fixtures/js_real`` (five versions each, as strong models
write them) through the real ``codequorum score --dynamic --format json``, each kept
version judged right or wrong by the corpus itself: a version the corpus marks wrong
carries a ``//`` comment saying its mistake (``// sorts as strings: wrong past one digit``),
and where a set carries tests, a version is right when it passes all of them.

It prints, per kind of evidence (``examples``, ``examples_failed``, ``outputs``): the
sets, the kept versions right, the risks and levels of right and wrong picks, AUROC where
both occur; pick vs random vs oracle (shares of sets whose kept, a random, the best version
is right); and each feature of the model that applies against the fit's values (``z``:
how many of the fit's standard deviations from its mean), so a feature outside the fit's
range shows. Nothing is fitted here: 22 sets are far too few.

    .venv/bin/python bench/bench_js_risk.py [--json]
    .venv/bin/python bench/bench_js_risk.py --smoke   # three sets
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests.support.js_corpus import corpus_rows, write_jsonl  # noqa: E402

from codequorum.behaviour.runtimes.node_sandbox import find_node, probe  # noqa: E402
from codequorum.judge.risk import auroc, load_model  # noqa: E402

SMOKE = ("median.ts", "is_valid_email.js", "direction.ts")
#: A comment line inside a version: the corpus's mark of a mistake.
MARK = re.compile(r"^\s*//(?!\s*@)", re.MULTILINE)


def right_versions(row: dict[str, Any], report: dict[str, Any]) -> list[bool]:
    """Per version, whether it is right (module docstring)."""
    if row.get("tests"):
        return [c["graded"] > 0 and c["passed"] == c["graded"]
                for c in report["dynamic"]["candidates"]]
    return [MARK.search(code) is None for code in row["versions"]]


def scored(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[float, Any]]:
    """The real ``score --dynamic`` of the rows (run here, one job), one report per set,
    and the features each risk was estimated from (by the risk each gave)."""
    from codequorum.cli.main import main as cli
    from codequorum.judge import risk

    features: dict[float, Any] = {}
    estimate = risk.estimate

    def noting(signals: risk.RiskSignals, model: Any = None) -> risk.RiskEstimate:
        est = estimate(signals, model)
        features[est.probability] = signals.values()
        return est

    risk.estimate = noting  # type: ignore[assignment]
    out = io.StringIO()
    try:
        with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(out):
            path = write_jsonl(rows, Path(tmp) / "js_real.jsonl")
            status = cli(["score", str(path), "--dynamic", "--format", "json", "-q"])
    finally:
        risk.estimate = estimate  # type: ignore[assignment]
    if status != 0:
        raise SystemExit(f"score exited {status}")
    sets: list[dict[str, Any]] = json.loads(out.getvalue())["sets"]
    return sets, features


def feature_z(report: dict[str, Any], model: dict[str, Any],
              features: dict[float, Any]) -> dict[str, float]:
    """Each feature the set's model reads, as z against the fit's mean and scale."""
    fit = model["models"][report["risk_evidence"]]
    values = features.get(report["risk_alone"], {})
    return {name: round((values[name] - mean) / scale, 2)
            for name, mean, scale in zip(fit["features"], fit["mean"], fit["scale"], strict=True)
            if name in values}


def summary(rows: list[dict[str, Any]], reports: list[dict[str, Any]],
            features: dict[float, Any]) -> dict[str, Any]:
    """The figures of the module docstring."""
    model = load_model()
    by_kind: dict[str, dict[str, list[Any]]] = {}
    kept_right, random_right, oracle_right = [], [], []
    table = []
    for row, report in zip(rows, reports, strict=True):
        right = right_versions(row, report)
        pick = report["recommended"]
        kept = pick is not None and right[pick]
        kept_right.append(kept)
        random_right.append(sum(right) / len(right))
        oracle_right.append(any(right))
        kind = report["risk_evidence"] or "none"
        cell = by_kind.setdefault(kind, {"risk": [], "right": [], "level": []})
        if report["risk"] is not None:
            cell["risk"].append(report["risk"])
            cell["right"].append(kept)
            cell["level"].append(report["risk_level"])
        table.append({"task": report["task_id"], "kept": pick, "right": kept,
                      "risk": report["risk"], "level": report["risk_level"], "kind": kind,
                      "z": feature_z(report, model, features) if report["risk"] is not None
                      else {}})
    kinds = {}
    for kind, cell in by_kind.items():
        ok = [r for r, k in zip(cell["risk"], cell["right"], strict=True) if k]
        bad = [r for r, k in zip(cell["risk"], cell["right"], strict=True) if not k]
        kinds[kind] = {
            "sets": len(cell["risk"]), "right": len(ok),
            "risk_right": [round(min(ok), 2), round(statistics.mean(ok), 2), round(max(ok), 2)]
            if ok else None,
            "risk_wrong": [round(r, 2) for r in bad],
            "levels_right": {lv: sum(1 for x, k in zip(cell["level"], cell["right"], strict=True)
                                     if k and x == lv) for lv in set(cell["level"])},
            "auroc": round(auroc(cell["risk"], [not k for k in cell["right"]]), 3)
            if ok and bad else None,
        }
    n = len(reports)
    return {"sets": n, "kept_right": round(sum(kept_right) / n, 3),
            "random_right": round(sum(random_right) / n, 3),
            "oracle_right": round(sum(oracle_right) / n, 3), "by_evidence": kinds,
            "table": table}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="three sets")
    args = parser.parse_args()
    if find_node() is None or not probe()[0]:
        print("skipped: the Node sandbox does not hold here")
        return 0
    rows = corpus_rows(*SMOKE) if args.smoke else corpus_rows()
    result = summary(rows, *scored(rows))
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{result['sets']} sets: kept right {result['kept_right']} vs random "
          f"{result['random_right']} vs oracle {result['oracle_right']}")
    for kind, cell in sorted(result["by_evidence"].items()):
        print(f"  {kind}: {cell['sets']} sets, {cell['right']} kept right; risk of right picks "
              f"(min, mean, max) {cell['risk_right']}, levels {cell['levels_right']}; "
              f"risks of wrong picks {cell['risk_wrong']}; AUROC {cell['auroc']}")
    for line in result["table"]:
        print(f"    {line['task']:<32} kept {line['kept']} {'right' if line['right'] else 'WRONG'}"
              f"  risk {line['risk']:.2f} {line['level']:<13} {line['kind']:<9} z {line['z']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
