"""Which version to keep: agreement of outputs on inputs without hidden expected values.

The rule (minimum Bayes risk over executions, "MBR-exec"):

1. the outcome matrix: for each version and each input that is not a test input, the
   canonical repr of the value it returned (``= <repr>``), or ``None`` when it returned
   nothing (raised, not run, timed out, crashed, did not compile). Raising is not counted
   as agreeing: generated inputs often lie outside what the function is meant to take,
   where versions raise alike whether right or wrong (on the HumanEval benchmark in
   ``bench/``, counting exceptions of the same type as agreement kept a version that
   passes 1.1 points less often);
2. on each input, versions with the same key agree; a version scores one point per other
   version agreeing with it, summed over the inputs;
3. the highest score wins; ties go to the structurally most typical version (mean
   similarity to the others), then to the first;
4. where no two versions agree on anything (no inputs, nothing ran, all different), the
   most typical version in shape is kept (``recommended_by = "structure"``).

Test inputs never enter: an input is a test input when it comes from the set's tests or a
benchmark's hidden tests (sources ``tests``, ``humaneval``), or is graded against an
expected value from anywhere but the docstring. Docstring examples are in the prompt the
model saw; only their outputs are compared, never their expected values.
"""

from __future__ import annotations

import ast
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

OutcomeKey = str | None
KeyMatrix = Sequence[Sequence[OutcomeKey]]
RecommendedBy = Literal["behaviour", "structure"]

#: Input sources whose expected values are hidden tests.
TEST_SOURCES: tuple[str, ...] = ("tests", "humaneval", "hidden")


def is_test_input(source: str, graded: bool) -> bool:
    """Whether an input carries a hidden expected value (see module docstring)."""
    return source in TEST_SOURCES or (graded and source != "doctest")


def _canonical(value: Any) -> str:
    """Text of a plain value in which values Python calls equal read the same.

    Numbers compare by value as ``==`` does (and as the graders do): ``2``, ``2.0`` and
    ``True`` are all ``2``-like, written ``1`` for ``True`` and ``2`` for ``2.0``; ``-0.0``
    is ``0``. Dicts and sets are written in a fixed order; lists and tuples keep their
    brackets (``[1] != (1,)``).
    """
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isfinite(value) and value == int(value):
            return str(int(value))
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_canonical(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(_canonical(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, dict):
        items = sorted((_canonical(k), _canonical(v)) for k, v in value.items())
        return "{" + ", ".join(f"{k}: {v}" for k, v in items) + "}"
    if isinstance(value, set | frozenset):
        return "set{" + ", ".join(sorted(_canonical(v) for v in value)) + "}"
    if isinstance(value, complex):
        return _canonical(value.real) if value.imag == 0 else repr(value)
    return repr(value)


def canonical_output(output: str | None) -> str | None:
    """Comparison key of a returned value's repr: equal values give equal keys.

    The repr is read back as a literal (``ast.literal_eval``, data only) and written by
    :func:`_canonical`; a repr that is not a literal (an object, ``nan``, a truncated
    value) is its own key.
    """
    if output is None:
        return None
    try:
        return _canonical(ast.literal_eval(output))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return output


def outcome_key(outcome: Sequence[str | None] | None) -> OutcomeKey:
    """Canonical key of one ``(output_repr, exc_type, exc_message)`` outcome.

    Returned values compare by :func:`canonical_output` (``2`` and ``2.0`` agree); an
    exception or no result gives ``None``, which agrees with nothing (see module
    docstring).
    """
    if outcome is None:
        return None
    output, exc_type = outcome[0], outcome[1]
    if exc_type is not None or output is None:
        return None
    return f"= {canonical_output(output)}"


def outcome_matrix(
    outcomes: Sequence[Sequence[Sequence[str | None] | None]],
    inputs: Sequence[Mapping[str, Any]],
) -> list[list[OutcomeKey]]:
    """Keys per version over the non-test inputs only.

    ``outcomes[v][t]``: version ``v``'s outcome on input ``t`` (as :func:`outcome_key`
    takes it); ``inputs[t]``: a mapping with ``source`` and ``graded``.
    """
    keep = [t for t, spec in enumerate(inputs)
            if not is_test_input(str(spec.get("source", "")), bool(spec.get("graded")))]
    return [[outcome_key(row[t]) if t < len(row) else None for t in keep] for row in outcomes]


def agreement_scores(keys: KeyMatrix) -> np.ndarray:
    """Per version: how many (other version, input) pairs give the same key as it does."""
    m = len(keys)
    scores = np.zeros(m, dtype=np.int64)
    width = max((len(r) for r in keys), default=0)
    for t in range(width):
        column = [row[t] if t < len(row) else None for row in keys]
        counts = Counter(k for k in column if k is not None)
        for v, k in enumerate(column):
            if k is not None:
                scores[v] += counts[k] - 1
    return scores


def output_clusters(keys: KeyMatrix) -> int:
    """How many distinct behaviours the versions with any result show (a behaviour is the
    whole row of keys)."""
    rows = {tuple(r) for r in keys if any(k is not None for k in r)}
    return len(rows)


def _same_as(keys: KeyMatrix, v: int) -> tuple[int, int]:
    """(versions whose keys equal version ``v``'s on every input where it has a result,
    itself included; how many such inputs)."""
    own = list(keys[v])
    ran = [t for t, k in enumerate(own) if k is not None]
    same = sum(1 for row in keys
               if all(t < len(row) and row[t] == own[t] for t in ran))
    return same, len(ran)


@dataclass(frozen=True)
class Recommendation:
    """The version to keep and why.

    ``index``: position in the set; ``score``: its (other version, input) agreements;
    ``agreeing``: versions with its outputs on every input where it has one (itself
    included) out of ``versions``; ``inputs``: those inputs; ``share``: ``score`` over the
    most it could have, ``(versions - 1) * inputs`` (0 when chosen by structure).
    """

    index: int
    by: RecommendedBy
    score: int
    agreeing: int
    versions: int
    inputs: int
    share: float
    typicality: float
    sentence: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"index": self.index, "by": self.by, "score": self.score,
                "agreeing": self.agreeing, "versions": self.versions, "inputs": self.inputs,
                "share": self.share, "typicality": self.typicality, "sentence": self.sentence}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def recommend(
    keys: KeyMatrix | None,
    typicality: Sequence[float],
    candidates: Sequence[int],
) -> Recommendation | None:
    """The version to keep (see module docstring).

    ``candidates``: positions in the set of the versions that may be kept (the usable
    ones), aligned with ``typicality``; ``keys``: :func:`outcome_matrix` over every version
    of the set (``None``: nothing ran). ``None`` when there is no candidate.
    """
    if not candidates:
        return None
    if len(typicality) != len(candidates):
        raise ValueError("typicality needs one value per candidate")
    typ = {c: float(t) for c, t in zip(candidates, typicality, strict=True)}
    versions = len(keys) if keys else len(candidates)
    scores = agreement_scores(keys) if keys else np.zeros(0, dtype=np.int64)
    pool = [c for c in candidates if c < len(scores)]
    best_score = max((int(scores[c]) for c in pool), default=0)
    if best_score > 0 and keys:
        chosen = min(pool, key=lambda c: (-int(scores[c]), -typ[c], c))
        agreeing, inputs = _same_as(keys, chosen)
        possible = (versions - 1) * inputs
        share = int(scores[chosen]) / possible if possible else 0.0
        if agreeing > 1:
            sentence = (f"keep version {chosen + 1}: {agreeing} of {versions} versions agree "
                        f"with it on {_plural(inputs, 'input')}")
        else:
            sentence = (f"keep version {chosen + 1}: its outputs on {_plural(inputs, 'input')} "
                        f"are the most shared ({share:.0%} of what the other versions "
                        "return agrees with it), though no other version matches it "
                        "on all of them")
        return Recommendation(chosen, "behaviour", int(scores[chosen]), agreeing, versions,
                              inputs, share, typ[chosen], sentence)
    chosen = min(candidates, key=lambda c: (-typ[c], c))
    if not keys or not any(k is not None for row in keys for k in row):
        why = "no outputs to compare"
    else:
        why = "no two versions return the same on any input"
    sentence = (f"keep version {chosen + 1}: the most typical in shape (mean similarity "
                f"{typ[chosen]:.2f} to the others); {why}")
    return Recommendation(chosen, "structure", 0, 1, versions, 0, 0.0, typ[chosen], sentence)


#: Input sources in the order evidence prefers them: inside the documented domain first
#: (tests, docstring examples), then inputs from the model, then generated ones.
EVIDENCE_ORDER: tuple[str, ...] = ("tests", "humaneval", "doctest", "model", "hypothesis",
                                   "scaling")


@dataclass(frozen=True)
class Evidence:
    """An input on which the recommended version and others part ways.

    ``shown``: what the recommended version gives there (``returns X`` / ``raises E``);
    ``others``: the differing outcomes, each with the versions (positions) giving it.
    """

    input_index: int
    label: str
    source: str
    graded: bool
    shown: str
    others: tuple[tuple[str, tuple[int, ...]], ...]


def _shown(outcome: Sequence[str | None]) -> tuple[tuple[str, str], str] | None:
    """(comparison key, words) of one outcome; None when it has no result."""
    output, exc_type = outcome[0], outcome[1]
    if exc_type is not None:
        return ("raise", exc_type), f"raises {exc_type}"
    if output is None:
        return None
    return ("value", canonical_output(output) or ""), f"returns {output}"


def parting_input(
    outcomes: Sequence[Sequence[Sequence[str | None] | None]],
    inputs: Sequence[Mapping[str, Any]],
    recommended: int,
) -> Evidence | None:
    """The input that best shows where version ``recommended`` and the others differ.

    Only inputs where it has a result and another version's result differs from it (equal
    values never differ: :func:`canonical_output`); of those, graded inputs first, then by
    :data:`EVIDENCE_ORDER` of their source, then the first. None when there is none.
    """
    if not 0 <= recommended < len(outcomes):
        return None
    best: tuple[tuple[int, int, int], Evidence] | None = None
    for t, spec in enumerate(inputs):
        own_row = outcomes[recommended]
        own_cell = own_row[t] if t < len(own_row) else None
        own = _shown(own_cell) if own_cell is not None else None
        if own is None:
            continue
        groups: dict[tuple[str, str], tuple[str, list[int]]] = {}
        for v, row in enumerate(outcomes):
            cell = row[t] if t < len(row) else None
            if v == recommended or cell is None:
                continue
            other = _shown(cell)
            if other is None or other[0] == own[0]:
                continue
            groups.setdefault(other[0], (other[1], []))[1].append(v)
        if not groups:
            continue
        source = str(spec.get("source", ""))
        rank = (0 if spec.get("graded") else 1,
                EVIDENCE_ORDER.index(source) if source in EVIDENCE_ORDER else len(EVIDENCE_ORDER),
                t)
        if best is None or rank < best[0]:
            others = tuple(sorted(((words, tuple(vs)) for words, vs in groups.values()),
                                  key=lambda g: (-len(g[1]), g[1][0])))
            best = (rank, Evidence(t, str(spec.get("label", "")), source,
                                   bool(spec.get("graded")), own[1], others))
    return best[1] if best else None


def versions_words(positions: Sequence[int], names: Mapping[int, str] | None = None) -> str:
    """``version 2`` / ``versions 2, 5`` (1-based); ``names`` overrides a position's name
    (``the current code``)."""
    names = names or {}
    named = [names[p] for p in positions if p in names]
    numbered = [str(p + 1) for p in positions if p not in names]
    parts = named + ([f"version{'s' if len(numbered) > 1 else ''} {', '.join(numbered)}"]
                     if numbered else [])
    return " and ".join(parts)


def evidence_sentence(ev: Evidence, recommended: int,
                      names: Mapping[int, str] | None = None, limit: int = 3) -> str:
    """``on f([3, 1]) version 3 returns [1, 3]; versions 2, 5 return None`` (at most
    ``limit`` differing outcomes, then how many more). Not escaped: callers escape it."""
    def plural(words: str, many: bool) -> str:
        verb, _, rest = words.partition(" ")
        if many:
            verb = {"returns": "return", "raises": "raise"}.get(verb, verb)
        return f"{verb} {rest}"

    parts = [f"on {ev.label} {versions_words([recommended], names)} {ev.shown}"]
    for words, vs in ev.others[:limit]:
        parts.append(f"{versions_words(vs, names)} {plural(words, len(vs) > 1)}")
    if len(ev.others) > limit:
        parts.append(f"{len(ev.others) - limit} other outcomes")
    return "; ".join(parts)


def keys_from_dynamic(dynamic: Any) -> list[list[OutcomeKey]] | None:
    """The outcome matrix of a dynamic report that carries its per-input outcomes.

    Reads ``dynamic.outcomes`` (per version, per input: ``(output_repr, exc_type,
    exc_message)`` or ``None``) and ``dynamic.inputs`` (``source``, ``graded`` per
    input); ``None`` when the report has no outcomes.
    """
    outcomes = getattr(dynamic, "outcomes", None)
    inputs = getattr(dynamic, "inputs", None)
    if not outcomes or not inputs:
        return None
    return outcome_matrix(outcomes, inputs)


__all__ = [
    "EVIDENCE_ORDER",
    "TEST_SOURCES",
    "Evidence",
    "OutcomeKey",
    "Recommendation",
    "agreement_scores",
    "canonical_output",
    "evidence_sentence",
    "is_test_input",
    "keys_from_dynamic",
    "outcome_key",
    "outcome_matrix",
    "output_clusters",
    "parting_input",
    "recommend",
    "versions_words",
]
