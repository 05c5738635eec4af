"""Which version to keep, per model family: the recommendation against other rules.

On the sets of ``family_sets.py`` (each task's 10 versions and its two halves of 5, scored
on what an editor has; truth from the hidden tests only), per family: a random version
(the mean pass rate), the recommendation (:func:`codequorum.judge.recommend.recommend`),
rules that read the disagreement beyond the examples differently, and the oracle (some
version passes); with the share of the oracle's lift over random each rule captures,
``(rule - random) / (oracle - random)``. No rule is fitted, so every family is left out.

Rules (each first keeps the versions passing the most docstring examples, as the
recommendation does):

- ``recommended``: the most agreements over (other version, input) pairs (MBR-exec), ties
  going to the version returning on more inputs;
- ``cluster``: the largest behaviour cluster (versions returning alike on every input where
  the version returns), then the agreements;
- ``parting``: agreements counted only on the inputs where the kept candidates part ways,
  each weighted by how evenly they split (an input all but one agree on says little);
- ``returns``: the agreements plus, per input, one point for returning a value where
  others raise (a version that raises on inputs the others answer is often wrong);
- ``beyond``: the agreements on the inputs other than the docstring examples only;
- ``normalised``: those, each input's agreements over the versions answering there;
- ``cluster_beyond``: the largest behaviour cluster, then the agreements beyond the
  examples;
- ``distinct``: the agreements of versions written otherwise only, once per text.

    .venv/bin/python bench/bench_family_picks.py [--sets bench/results/family_sets.json]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from codequorum.judge.recommend import agreeing_versions, agreement_scores
from fit_risk_families import FAMILY_SETS, wrong
from reference_data import skipped

Keys = list[list[str | None]]
Rule = Callable[[Mapping[str, Any]], int | None]


def candidates(s: Mapping[str, Any]) -> list[int]:
    """The versions that may be kept, those passing the most examples first kept."""
    typ = {int(k): v for k, v in s["typicality"].items()}
    cands = sorted(typ)
    if not cands:
        return []
    if s["examples"]:
        best = max(s["examples_passed"][c] for c in cands)
        cands = [c for c in cands if s["examples_passed"][c] == best]
    return cands


def by(s: Mapping[str, Any], score: Callable[[int], float]) -> int | None:
    """The candidate with the highest ``score``, then the most typical, then the first."""
    typ = {int(k): v for k, v in s["typicality"].items()}
    cands = candidates(s)
    if not cands:
        return None
    return min(cands, key=lambda c: (-score(c), -typ[c], c))


def recommended(s: Mapping[str, Any]) -> int | None:
    """What the product keeps."""
    kept = s["kept"]
    return None if kept is None else int(kept)


def cluster(s: Mapping[str, Any]) -> int | None:
    """The largest behaviour cluster, then the agreements."""
    keys: Keys = s["keys"]
    scores = agreement_scores(keys) if keys else np.zeros(len(s["truth"]))
    return by(s, lambda c: len(agreeing_versions(keys, c)) * 1e6 + float(scores[c]))


def parting(s: Mapping[str, Any]) -> int | None:
    """Agreements on the inputs where the candidates part ways, weighted by the split."""
    keys: Keys = s["keys"]
    cands = candidates(s)
    width = max((len(r) for r in keys), default=0)
    score = dict.fromkeys(range(len(keys)), 0.0)
    for t in range(width):
        column = [row[t] if t < len(row) else None for row in keys]
        if len({column[c] for c in cands}) < 2:
            continue
        counts = Counter(k for k in column if k is not None)
        total = sum(counts.values())
        if total < 2:
            continue
        evenness = 1 - max(counts.values()) / total
        for v, k in enumerate(column):
            if k is not None:
                score[v] += (counts[k] - 1) * (0.5 + evenness)
    return by(s, lambda c: score[c])


def returns(s: Mapping[str, Any]) -> int | None:
    """The agreements plus a point per input where the version returns and others raise."""
    keys: Keys = s["keys"]
    scores = agreement_scores(keys) if keys else np.zeros(len(s["truth"]))
    answered = [sum(1 for k in row if k is not None) for row in keys] or [0] * len(s["truth"])
    return by(s, lambda c: float(scores[c]) + answered[c])


def beyond_scores(s: Mapping[str, Any], normalised: bool = False) -> dict[int, float]:
    """Per version, its agreements on the inputs other than the docstring examples (with
    ``normalised``: each input's agreements over the versions answering there, so that
    every input weighs alike)."""
    keys: Keys = s["keys"]
    shown = set(s.get("example_cols", ()))
    width = max((len(r) for r in keys), default=0)
    score = dict.fromkeys(range(len(keys)), 0.0)
    for t in range(width):
        if t in shown:
            continue
        column = [row[t] if t < len(row) else None for row in keys]
        counts = Counter(k for k in column if k is not None)
        total = sum(counts.values())
        if total < 2:
            continue
        for v, k in enumerate(column):
            if k is not None:
                score[v] += (counts[k] - 1) / ((total - 1) if normalised else 1)
    return score


def beyond(s: Mapping[str, Any]) -> int | None:
    """Agreements beyond the examples only."""
    score = beyond_scores(s)
    return by(s, lambda c: score[c])


def normalised(s: Mapping[str, Any]) -> int | None:
    """Agreements beyond the examples, every input weighing alike."""
    score = beyond_scores(s, normalised=True)
    return by(s, lambda c: score[c])


def cluster_beyond(s: Mapping[str, Any]) -> int | None:
    """The largest behaviour cluster, then the agreements beyond the examples."""
    keys: Keys = s["keys"]
    score = beyond_scores(s)
    return by(s, lambda c: len(agreeing_versions(keys, c)) * 1e6 + score[c])


def distinct(s: Mapping[str, Any]) -> int | None:
    """Agreements counted once per distinct text (copies of one text agreeing say less
    than versions written apart)."""
    keys: Keys = s["keys"]
    texts: list[str] = s["texts"]
    width = max((len(r) for r in keys), default=0)
    score = dict.fromkeys(range(len(keys)), 0.0)
    for t in range(width):
        column = [row[t] if t < len(row) else None for row in keys]
        for v, k in enumerate(column):
            if k is not None:
                score[v] += len({texts[u] for u, o in enumerate(column)
                                 if o == k and u != v and texts[u] != texts[v]})
    return by(s, lambda c: score[c])


RULES: dict[str, Rule] = {"recommended": recommended, "cluster": cluster,
                          "parting": parting, "returns": returns, "beyond": beyond,
                          "normalised": normalised, "cluster_beyond": cluster_beyond,
                          "distinct": distinct}


def table(sets: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """Per family (and ``all``): random, each rule, oracle, and each rule's capture."""
    out: dict[str, dict[str, float]] = {}
    fams = sorted({s["family"] for s in sets})
    for f in (*fams, "all"):
        mine = [s for s in sets if f in ("all", s["family"])]
        row = {"random": float(np.mean([np.mean(s["truth"]) for s in mine])),
               "oracle": float(np.mean([any(s["truth"]) for s in mine]))}
        for name, rule in RULES.items():
            picks = [rule(s) for s in mine]
            row[name] = float(np.mean([p is not None and s["truth"][p]
                                       for s, p in zip(mine, picks, strict=True)]))
            lift = row["oracle"] - row["random"]
            row[f"{name} captured"] = (row[name] - row["random"]) / lift if lift else math.nan
        out[f] = row
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the table."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sets", type=Path, default=FAMILY_SETS)
    ap.add_argument("--size", type=int, help="only sets of this many versions")
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args(argv)
    if args.smoke or not args.sets.exists():
        skipped("needs the scored sets of fit_risk_families.py (family_cache.py first)")
    sets = [s for s in json.loads(args.sets.read_text())
            if args.size is None or s["n"] == args.size]
    assert all(recommended(s) is None or wrong(s) == (not s["truth"][s["kept"]])
               for s in sets)
    print("family | sets | random | " + " | ".join(RULES) + " | oracle | captured: " +
          ", ".join(RULES))
    for f, row in table(sets).items():
        n = sum(1 for s in sets if f in ("all", s["family"]))
        print(f"{f} | {n} | {100 * row['random']:.1f} | " +
              " | ".join(f"{100 * row[r]:.1f}" for r in RULES) +
              f" | {100 * row['oracle']:.1f} | " +
              ", ".join(f"{100 * row[f'{r} captured']:.0f} %" for r in RULES))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
