"""Sets drawn the way other models would give them, to fit and test a risk that transfers.

Only one model's versions are at hand (CodeGen-16B, T = 0.8, 100 per HumanEval task, run
once by ``recommend_cache.py``). Other models differ from it in three ways a set shows: how
many versions there are, how alike they are (temperature) and how often they are right
(strength). Each *regime* draws sets from the 100 versions of every task so that one of
these moves, all with replacement (a model's versions are independent draws):

- ``size``: 3, 5 or 10 versions;
- ``temperature``: as at T = 1.0, 0.8 (as sampled), 0.4 or 0.2: each version is drawn with
  a weight ``c ** (e - 1)`` where ``c`` counts the versions with the same text (blanks
  aside), so a text ``t`` comes with probability proportional to ``c_t ** e``; ``e = 0.8 /
  T`` sharpens the draw towards the most frequent texts as a lower temperature does (at
  0.2 most sets repeat one text) and flattens it at 1.0;
- ``strength``: a weaker or a stronger model: versions passing the hidden tests are drawn
  with weight 1/4, 4 or 16 against 1 for the others (a task whose versions pass 30 % of
  the time gives 10 %, 63 % or 87 %). A much stronger model (weight 16) also solves tasks
  none of these versions solves: those tasks are left out of its sets, whose kept version
  then fails about as often as today's assistants' do (a quarter of the time).

Every set also carries its task's pass rate over the 100 versions (``task_pass_rate``),
from which difficulty strata are cut, and the per-set records of ``bench_recommend.py``
(recommendation, agreement-only pick, their signals, which versions pass), with, for each
pick, the distinct behaviours and the largest one besides its own
(``recommended_behaviours``, ``recommended_runner_up`` and the same for
``agreement_only``).

    .venv/bin/python bench/risk_regimes.py [--draws 3] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_recommend import KEY, set_record
from codequorum.judge.recommend import behaviours
from recommend_cache import CACHE, REPO, TaskRuns, read_cache
from reference_data import skipped

REGIME_SETS = REPO / "bench" / "results" / "risk_regimes.json"
SIZES: tuple[int, ...] = (3, 5, 10)
#: Temperature-like strata: the exponent ``e`` of a text's count (see module docstring).
TEMPERATURES: dict[str, float] = {"1.0": 0.8, "0.8": 1.0, "0.4": 2.0, "0.2": 4.0}
#: Model strength: the weight of a version that passes the hidden tests.
STRENGTHS: dict[str, float] = {"weaker": 0.25, "as sampled": 1.0, "stronger": 4.0,
                               "much stronger": 16.0}
#: Strengths whose sets leave out the tasks no version solves.
SOLVES_MORE: frozenset[str] = frozenset({"much stronger"})


@dataclass(frozen=True)
class Regime:
    """How one set is drawn (see module docstring)."""

    size: int
    temperature: str
    strength: str

    def to_dict(self) -> dict[str, Any]:
        """The regime's labels, as a record carries them."""
        return {"size": self.size, "temperature": self.temperature, "strength": self.strength}


def regimes() -> Iterator[Regime]:
    """Every combination of size, temperature and strength."""
    for size, temperature, strength in product(SIZES, TEMPERATURES, STRENGTHS):
        yield Regime(size, temperature, strength)


def text_counts(task: TaskRuns) -> np.ndarray:
    """Per version, how many of the task's versions have the same text (blanks aside)."""
    texts = [" ".join(s.split()) for s in task.versions]
    counts = Counter(texts)
    return np.array([counts[t] for t in texts], dtype=np.float64)


def weights(task: TaskRuns, passes: np.ndarray, regime: Regime) -> np.ndarray:
    """The probability of drawing each version under ``regime``."""
    w = text_counts(task) ** (TEMPERATURES[regime.temperature] - 1.0)
    w = w * np.where(passes, STRENGTHS[regime.strength], 1.0)
    return np.asarray(w / w.sum(), dtype=np.float64)


def draw(task: TaskRuns, passes: np.ndarray, regime: Regime,
         rng: np.random.Generator) -> list[int]:
    """``regime.size`` versions of ``task``, drawn with replacement."""
    p = weights(task, passes, regime)
    return [int(v) for v in rng.choice(len(task.versions), size=regime.size, p=p)]


def keys_of(task: TaskRuns, draw: list[int]) -> list[list[str | None]]:
    """The outcome keys of the drawn versions on the inputs an editor has, as
    ``set_record`` gives them to the recommendation (an empty answer has none)."""
    non_test = [t for t, h in enumerate(task.hidden) if not h]
    return [[None] * len(non_test) if not task.versions[v].strip() else
             [None if task.outcomes[v][t] is None else KEY(task.outcomes[v][t][:3])  # type: ignore[index]
              for t in non_test] for v in draw]


def behaviour_counts(task: TaskRuns, draw: list[int], record: dict[str, Any]
                     ) -> dict[str, int]:
    """Per pick of the record (the recommendation, the agreement-only pick), the distinct
    behaviours and the largest one besides its own
    (:func:`codequorum.judge.recommend.behaviours`)."""
    keys = keys_of(task, draw)
    out: dict[str, int] = {}
    for name in ("recommended", "agreement_only"):
        distinct, runner_up = (1, 0) if record[name] is None else behaviours(keys, record[name])
        out[f"{name}_behaviours"], out[f"{name}_runner_up"] = distinct, runner_up
    return out


def build(tasks: list[TaskRuns], draws: int, seed: int = 0) -> list[dict[str, Any]]:
    """``draws`` sets per task and regime, each a ``bench_recommend`` record with its
    regime, draw number and task pass rate."""
    out: list[dict[str, Any]] = []
    rng = np.random.default_rng(seed)
    for task in tasks:
        passes = np.array([task.passes(v) for v in range(len(task.versions))])
        rate = float(passes.mean())
        for regime in regimes():
            if regime.strength in SOLVES_MORE and not passes.any():
                continue
            for k in range(draws):
                record = set_record(task, draw(task, passes, regime, rng), k)
                record.update(regime.to_dict(), task_pass_rate=rate,
                              **behaviour_counts(task, record["draw"], record))
                out.append(record)
    return out


def main(argv: list[str] | None = None) -> int:
    """Draw the sets and write their records."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--draws", type=int, default=3, help="sets per task and regime")
    ap.add_argument("--cache", type=Path, default=CACHE)
    ap.add_argument("--out", type=Path, default=REGIME_SETS)
    ap.add_argument("--smoke", action="store_true",
                    help="check the script loads; it needs the cache recommend_cache.py builds")
    args = ap.parse_args(argv)
    if args.smoke:
        skipped("needs the sandbox outcomes of all 164 x 100 versions "
                "(bench/results/recommend_cache.jsonl, built by recommend_cache.py in minutes)")
    started = time.perf_counter()
    sets = build(read_cache(args.cache), args.draws)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(sets))
    print(f"{len(sets)} sets in {time.perf_counter() - started:.0f} s: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
