"""Which version to keep, per model family: the recommendation against other rules.

On the sets of ``family_sets.py`` (each task's 10 versions and its two halves of 5, scored
on what an editor has; truth from the hidden tests only), or with ``--draws N`` on N seeded
draws of ``--size`` versions from each task (``family_draws.py``), per family: a random
version (the mean pass rate), the recommendation (:func:`codequorum.judge.recommend.recommend`,
as the code stands), rules that read the disagreement beyond the examples differently, and
the oracle (some version passes); with the share of the oracle's lift over random each rule
captures, ``(rule - random) / (oracle - random)``. No rule is fitted, so every family is
left out; the one rule with a parameter (``fewer``) has it chosen on the other three
families for each family measured (the ``fewer, chosen without the family`` row).

Rules (each first keeps the versions passing the most docstring examples, as the
recommendation does):

- ``recommended``: versions returning one value throughout where others vary after the
  others, then the most agreements over (other version, input) pairs (MBR-exec), ties going
  to the version returning on more inputs;
- ``before``: the recommendation before constant answers were ranked (agreements, then
  the inputs answered, then typicality);
- ``fewer``: as ``recommended``, but a version returning at most ``ratio`` times as many
  distinct values as the most varied other version (on the inputs where it returns) goes
  after the others, for ``ratio`` in :data:`RATIOS`;
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
    .venv/bin/python bench/bench_family_picks.py --draws 20 --size 5   # ~1 min
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

from codequorum.judge.recommend import (
    agreeing_versions,
    agreement_scores,
    output_rank,
    recommend,
)
from family_draws import FAMILY_TASKS, drawn_sets, load_tasks
from fit_risk_families import FAMILY_SETS
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


#: The ``fewer`` rule's ratios, one chosen per family left out.
RATIOS: tuple[float, ...] = (0.34, 0.5, 0.67)


def ran(s: Mapping[str, Any]) -> bool:
    """Whether any version ran on any input (raising counts), as the product reads a run
    (``keys_from_dynamic``)."""
    return any(s["keys"])


def recommended(s: Mapping[str, Any]) -> int | None:
    """What the product keeps, as the code stands (not the set's cached ``kept``)."""
    typ = {int(k): float(v) for k, v in s["typicality"].items()}
    found = recommend(s["keys"] if ran(s) else None, list(typ.values()), list(typ),
                      s["examples_passed"] if s["examples"] else None, s["examples"])
    return None if found is None else found.index


def ranked(s: Mapping[str, Any], rank: Callable[[Keys, int], int]) -> int | None:
    """The recommendation with ``rank`` in place of its rank of constant answers (where it
    picks by behaviour; where it falls back to shape, what it keeps)."""
    kept = recommended(s)
    keys: Keys = s["keys"]
    cands = candidates(s)
    if kept is None or not ran(s):
        return kept
    scores = agreement_scores(keys)
    passed = [s["examples_passed"][c] if s["examples"] else 0 for c in cands]
    if max(int(scores[c]) for c in cands) == 0 and len(set(passed)) < 2:
        return kept
    typ = {int(k): v for k, v in s["typicality"].items()}
    answered = [sum(1 for k in row if k is not None) for row in keys]
    return min(cands, key=lambda c: (rank(keys, c), -int(scores[c]), -answered[c], -typ[c], c))


def before(s: Mapping[str, Any]) -> int | None:
    """The recommendation before constant answers were ranked."""
    return ranked(s, lambda _keys, _c: 0)


def few_values(keys: Keys, v: int, ratio: float) -> int:
    """0, or 1 when version ``v`` returns at most ``ratio`` times as many distinct values
    (on at least 3 inputs) as the most varied other version on those inputs, or 2 when it
    returns nothing."""
    own = keys[v]
    cols = [t for t, k in enumerate(own) if k is not None]
    if not cols:
        return 2
    if len(cols) < 3:
        return 0
    most = max((len({row[t] for t in cols if row[t] is not None})
                for u, row in enumerate(keys) if u != v), default=0)
    return int(most >= 2 and len({own[t] for t in cols}) <= ratio * most)


def fewer(ratio: float) -> Rule:
    """The ``fewer`` rule at one ratio."""
    return lambda s: ranked(s, lambda keys, c: few_values(keys, c, ratio))


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


RULES: dict[str, Rule] = {"recommended": recommended, "before": before,
                          **{f"fewer {r}": fewer(r) for r in RATIOS}, "cluster": cluster,
                          "parting": parting, "returns": returns, "beyond": beyond,
                          "normalised": normalised, "cluster_beyond": cluster_beyond,
                          "distinct": distinct}


def table(sets: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """Per family (and ``all``): random, each rule, oracle, and each rule's capture."""
    out: dict[str, dict[str, float]] = {}
    fams = sorted({s["family"] for s in sets})
    picks = {name: [rule(s) for s in sets] for name, rule in RULES.items()}
    for f in (*fams, "all"):
        mine = [k for k, s in enumerate(sets) if f in ("all", s["family"])]
        row = {"random": float(np.mean([np.mean(sets[k]["truth"]) for k in mine])),
               "oracle": float(np.mean([any(sets[k]["truth"]) for k in mine]))}
        lift = row["oracle"] - row["random"]
        for name in RULES:
            row[name] = float(np.mean([picks[name][k] is not None
                                       and sets[k]["truth"][picks[name][k]] for k in mine]))
            row[f"{name} captured"] = (row[name] - row["random"]) / lift if lift else math.nan
        out[f] = row
    return out


def chosen_without(out: Mapping[str, Mapping[str, float]], family: str) -> str:
    """The ``fewer`` ratio with the highest mean capture on the other families."""
    others = [f for f in out if f not in ("all", family)]
    return max((f"fewer {r}" for r in RATIOS),
               key=lambda n: float(np.mean([out[f][f"{n} captured"] for f in others])))


def main(argv: list[str] | None = None) -> int:
    """Print the table."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sets", type=Path, default=FAMILY_SETS)
    ap.add_argument("--tasks", type=Path, default=FAMILY_TASKS,
                    help="the task records of family_draws.py (with --draws)")
    ap.add_argument("--draws", type=int, help="this many seeded draws per task")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", type=int, help="only sets of this many versions (drawn: 5)")
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args(argv)
    source = args.tasks if args.draws else args.sets
    if args.smoke or not source.exists():
        skipped("needs the scored sets of fit_risk_families.py or the task records of "
                "family_draws.py (family_cache.py first)")
    if args.draws:
        sets = list(drawn_sets(load_tasks(source), args.size or 5, args.draws, args.seed))
    else:
        sets = [s for s in json.loads(source.read_text())
                if args.size is None or s["n"] == args.size]
    assert all(ranked(s, output_rank) == recommended(s) for s in sets)
    out = table(sets)
    print("family | sets | random | " + " | ".join(RULES) + " | oracle | captured: " +
          ", ".join(RULES))
    for f, row in out.items():
        n = sum(1 for s in sets if f in ("all", s["family"]))
        print(f"{f} | {n} | {100 * row['random']:.2f} | " +
              " | ".join(f"{100 * row[r]:.2f}" for r in RULES) +
              f" | {100 * row['oracle']:.2f} | " +
              ", ".join(f"{100 * row[f'{r} captured']:.1f} %" for r in RULES))
    print("fewer, chosen without the family: " + ", ".join(
        f"{f} {chosen_without(out, f)}: {100 * out[f][chosen_without(out, f) + ' captured']:.1f} %"
        for f in out if f != "all"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
