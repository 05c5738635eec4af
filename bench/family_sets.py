"""Sets of versions from the family cache, each scored as a report scores it.

``family_cache.py`` ran every version of every task once. Here each task gives the sets a
developer would hold: all 10 versions, and the two halves of 5 (versions 1-5 and 6-10), so
that both sizes the product sees are measured. Each set is scored with the product's own
functions on what an editor has (the outcome matrix of the editor's inputs, the docstring
examples' expected values): the recommendation (:func:`codequorum.judge.recommend.recommend`)
and the risk signals (:func:`codequorum.pipeline.analyze.risk_signals`); whether the kept
version is right comes from the benchmark's hidden tests only. A set with examples is also
scored as if its docstring gave none, the examples' inputs gone too (``plain_kept``,
``plain_signals``: the pick and signals the model without examples is fitted on). The outcome
matrix, the examples' columns in it, examples passed (in all, and per example) and
typicality are kept for ``bench_family_picks.py`` and ``bench_family_risk.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codequorum.core.model import VersionSet
from codequorum.judge.recommend import (
    KeyMatrix,
    OutcomeKey,
    fell_through,
    outcome_key,
    recommend,
)
from codequorum.judge.risk import RiskSignals
from codequorum.pipeline.analyze import analyze, risk_signals
from codequorum.pipeline.config import AnalysisConfig
from recommend_cache import HASHED_NO_VALUE

OPTIONS = AnalysisConfig(metrics=(), keep_matrices=False, sctd=False)
#: The sets drawn from each task's 10 versions (positions).
DRAWS: tuple[tuple[int, ...], ...] = (tuple(range(10)), tuple(range(5)), tuple(range(5, 10)))


@dataclass(frozen=True)
class CachedTask:
    """One task of the family cache."""

    set_name: str
    family: str
    task_id: str
    codes: list[str]
    sources: list[str]
    hidden: list[bool]
    checked: list[bool]
    outcomes: list[list[Any]]
    passed: list[bool]

    def editor_columns(self) -> list[int]:
        """The inputs an editor has (never the hidden tests), in cache order."""
        return [t for t, h in enumerate(self.hidden) if not h]

    def example_columns(self) -> list[int]:
        """Positions among :meth:`editor_columns` of the docstring examples with an
        expected value."""
        cols = self.editor_columns()
        return [k for k, t in enumerate(cols)
                if self.sources[t] == "doctest" and self.checked[t]]


def read_cache(path: Path) -> list[CachedTask]:
    """Every complete line of the family cache."""
    out = []
    with path.open() as fh:
        for line in fh:
            if not line.endswith("\n"):
                continue
            r = json.loads(line)
            out.append(CachedTask(r["set"], r["family"], r["task_id"], r["codes"],
                                  r["sources"], r["hidden"], r["checked"], r["outcomes"],
                                  [bool(p) for p in r["passed"]]))
    return out


def keys_of(task: CachedTask, draw: Sequence[int]) -> list[list[OutcomeKey]]:
    """The outcome matrix of the drawn versions on the editor's inputs."""
    cols = task.editor_columns()
    out: list[list[OutcomeKey]] = []
    for v in draw:
        row: list[Any] = (task.outcomes[v] if v < len(task.outcomes)
                          else [None] * len(task.hidden))
        if not task.codes[v].strip():
            out.append([None] * len(cols))
            continue
        out.append(fell_through([None if row[t] is None else outcome_key(row[t][:3])
                                 for t in cols], HASHED_NO_VALUE))
    return out


def examples_passed(task: CachedTask, draw: Sequence[int]) -> list[int]:
    """Per drawn version, the docstring examples it passes."""
    cols = task.editor_columns()
    shown = [cols[k] for k in task.example_columns()]
    return [sum(1 for t in shown if v < len(task.outcomes) and task.outcomes[v][t] is not None
                and task.outcomes[v][t][3] is True) for v in draw]


def example_pass(task: CachedTask, draw: Sequence[int]) -> list[list[bool]]:
    """Per drawn version, per docstring example (in :meth:`CachedTask.example_columns`
    order), whether it passes it."""
    cols = task.editor_columns()
    shown = [cols[k] for k in task.example_columns()]
    return [[v < len(task.outcomes) and task.outcomes[v][t] is not None
             and task.outcomes[v][t][3] is True for t in shown] for v in draw]


def signal_record(signals: RiskSignals) -> dict[str, Any]:
    """The signals as a record keeps them (re-made with ``RiskSignals(**record)``)."""
    return {f: getattr(signals, f) for f in signals.__dataclass_fields__}


def set_record(task: CachedTask, draw: Sequence[int]) -> dict[str, Any]:
    """One set scored as a report scores it (see module docstring)."""
    codes = [task.codes[v] for v in draw]
    report = analyze(VersionSet.from_codes(task.task_id, codes), OPTIONS)
    keys = keys_of(task, draw)
    cols = task.example_columns()
    passed = examples_passed(task, draw)
    answered = [k for k, i in enumerate(report.indices) if i not in report.empty]
    typ = [report.typicality[k] for k in answered] if report.typicality else []
    candidates = [report.indices[k] for k in answered] if typ else []
    truth = [task.passed[v] for v in draw]
    ran = any(keys)  # as the product: a version ran on an input, raising counts
    rec = recommend(keys if ran else None, typ, candidates, passed if cols else None,
                    len(cols))
    signals = (risk_signals(rec, keys, codes, passed if cols else None, cols)
               if rec is not None and ran else None)
    # as if the docstring gave no example (its inputs gone too): what the model without
    # examples is fitted on
    bare = [[k for t, k in enumerate(row) if t not in cols] for row in keys]
    ran_bare = any(bare)
    plain = recommend(bare if ran_bare else None, typ, candidates) if cols else rec
    plain_signals = (risk_signals(plain, bare, codes) if plain is not None and ran_bare
                     else None)
    return {
        "set": task.set_name, "family": task.family, "task_id": task.task_id,
        "draw": list(draw), "n": len(draw), "truth": truth,
        "kept": None if rec is None else rec.index,
        "signals": None if signals is None else signal_record(signals),
        "plain_kept": None if plain is None else plain.index,
        "plain_signals": None if plain_signals is None else signal_record(plain_signals),
        "keys": keys, "examples_passed": passed, "examples": len(cols),
        "example_pass": example_pass(task, draw),
        "example_cols": cols,
        "typicality": dict(zip(candidates, typ, strict=True)),
        "texts": [" ".join(c.split()) for c in codes],
    }


def disputed_examples(keys: KeyMatrix, passes: Sequence[Sequence[bool]],
                      example_cols: Sequence[int], fewest: int = 3) -> list[int]:
    """The docstring examples every version (at least ``fewest``) fails alike: each
    returns a value on it, all the same value, and none passes it. A wrong example would
    look so; on the four families it was mostly a mistake the versions share
    (``bench/README.md``), so the product does not set such examples aside.

    ``keys``: the outcome matrix; ``passes[v][e]``: whether version ``v`` passes the
    ``e``-th example, whose column is ``example_cols[e]``. Returns positions ``e``.
    """
    if len(keys) < fewest or len(passes) != len(keys):
        return []
    out = []
    for e, t in enumerate(example_cols):
        column = {row[t] if t < len(row) else None for row in keys}
        failed = all(not (e < len(p) and p[e]) for p in passes)
        if len(column) == 1 and None not in column and failed:
            out.append(e)
    return out


def disputed_of(rec: Mapping[str, Any], fewest: int = 3) -> list[int]:
    """The examples of a set record every version fails alike (:func:`disputed_examples`)."""
    return disputed_examples(rec["keys"], rec.get("example_pass") or [], rec["example_cols"],
                             fewest)


def without_disputed(rec: Mapping[str, Any], fewest: int = 3) -> dict[str, Any]:
    """The set scored again with its disputed examples counted as inputs without an
    expected value: the pick and the risk signals as if the docstring had not given them
    (their outputs still compared). A set without such examples is returned as it was."""
    gone = set(disputed_of(rec, fewest))
    if not gone or rec["signals"] is None:
        return dict(rec)
    cols = [c for e, c in enumerate(rec["example_cols"]) if e not in gone]
    passed = [sum(1 for e, ok in enumerate(row) if ok and e not in gone)
              for row in rec["example_pass"]]
    typ = {int(k): float(v) for k, v in rec["typicality"].items()}
    keys = rec["keys"]
    found = recommend(keys, list(typ.values()), list(typ), passed if cols else None,
                      len(cols))
    if found is None:
        return dict(rec)
    signals = risk_signals(found, keys, rec["texts"], passed if cols else None, cols)
    return {**rec, "kept": found.index, "signals": signal_record(signals),
            "example_cols": cols, "examples_passed": passed, "examples": len(cols),
            "example_pass": [[ok for e, ok in enumerate(row) if e not in gone]
                             for row in rec["example_pass"]], "disputed": sorted(gone)}


def build(tasks: Sequence[CachedTask]) -> Iterator[dict[str, Any]]:
    """Every set of every task (:data:`DRAWS`, as far as a task has versions)."""
    for task in tasks:
        for draw in DRAWS:
            if max(draw) < len(task.codes):
                yield set_record(task, draw)


__all__ = ["DRAWS", "CachedTask", "build", "disputed_examples", "disputed_of", "example_pass",
           "keys_of", "read_cache", "set_record", "signal_record", "without_disputed"]
