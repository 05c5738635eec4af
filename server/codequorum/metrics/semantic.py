"""Behaviour across candidates: pass-rate spread and output equivalence (OER).

Inputs are plain data. ``passed[c][t]`` says whether candidate ``c`` passed graded test
``t``. ``outcomes[c][t]`` is what candidate ``c`` produced on input ``t``: an
:data:`Outcome` ``(output_repr, exc_type, exc_message)`` — ``exc_type`` is ``None`` for a
normal return — or ``None`` when there is no result (timeout, crash, not run).

- Pass rate of a candidate: passed / graded tests.
- Across candidates: mean, **population** variance (``ddof=0``), max - min.
- Equality of two outcomes: both returned and their output reprs are equal, or (unless
  exceptions are excluded) both raised the same exception type with the same message.
  ``None`` equals nothing, not even another ``None``.
- ``OER``: fraction of inputs on which all candidates' outcomes are equal;
  ``OER (no ex.)``: the same with exceptions never equal;
  pair-mean OER: mean over unordered candidate pairs of the fraction of inputs on which
  the two agree.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from codequorum.core.values import shown_output

Outcome = tuple[str | None, str | None, str | None]
"""``(output_repr, exc_type, exc_message)``; ``exc_type`` ``None`` for a normal return."""


@dataclass(frozen=True)
class PassRateStats:
    """Spread of pass rates over candidates (variance is the population variance)."""

    mean: float
    var: float
    max_diff: float
    n: int


@dataclass(frozen=True)
class Divergence:
    """The first input on which candidates disagree.

    ``groups`` lists ``(outcome, candidate indices)`` with the largest group first;
    ``a`` is the first candidate of the largest group and ``b`` the first candidate outside
    it, with their outcomes rendered as text.
    """

    input_index: int
    a: int
    b: int
    shown_a: str
    shown_b: str
    groups: tuple[tuple[Outcome | None, tuple[int, ...]], ...]


def pass_rates(passed: Sequence[Sequence[bool]]) -> list[float | None]:
    """Fraction of passed tests per candidate; ``None`` for a candidate with no tests."""
    return [(sum(1 for p in row if p) / len(row)) if row else None for row in passed]


def pass_rate_stats(rates: Sequence[float | None]) -> PassRateStats | None:
    """Mean, population variance and max - min of the known rates; ``None`` if none."""
    known = np.array([r for r in rates if r is not None], dtype=np.float64)
    if known.size == 0:
        return None
    return PassRateStats(
        mean=float(known.mean()),
        var=float(known.var(ddof=0)),
        max_diff=float(known.max() - known.min()),
        n=int(known.size),
    )


def outcomes_equal(a: Outcome | None, b: Outcome | None, include_exceptions: bool = True) -> bool:
    """Whether two outcomes count as the same output (see module docstring)."""
    if a is None or b is None:
        return False
    a_out, a_exc, a_msg = a
    b_out, b_exc, b_msg = b
    if a_exc is None and b_exc is None:
        return a_out == b_out
    if a_exc is None or b_exc is None or not include_exceptions:
        return False
    return a_exc == b_exc and a_msg == b_msg


def _column(outcomes: Sequence[Sequence[Outcome | None]], t: int) -> list[Outcome | None]:
    return [row[t] if t < len(row) else None for row in outcomes]


def _n_inputs(outcomes: Sequence[Sequence[Outcome | None]]) -> int:
    return max((len(r) for r in outcomes), default=0)


def output_groups(outcomes: Sequence[Sequence[Outcome | None]]) -> list[list[int]]:
    """Candidates grouped by what they did on every input: the same outcome on each
    (returned values compared as given, exceptions by type and message) and no result
    where the other has none. Largest group first, then by first candidate; each candidate
    in exactly one group."""
    width = _n_inputs(outcomes)
    groups: dict[tuple[Outcome | None, ...], list[int]] = {}
    for c, row in enumerate(outcomes):
        key = tuple(row[t] if t < len(row) else None for t in range(width))
        groups.setdefault(key, []).append(c)
    return sorted(groups.values(), key=lambda g: (-len(g), g[0]))


def agreement_matrix(
    outcomes: Sequence[Sequence[Outcome | None]], include_exceptions: bool = True
) -> np.ndarray:
    """``m × m`` fraction of inputs on which candidates ``i`` and ``j`` agree (diag 1)."""
    m = len(outcomes)
    n = _n_inputs(outcomes)
    mat = np.eye(m, dtype=np.float64)
    if n == 0:
        return mat
    for i, j in itertools.combinations(range(m), 2):
        same = sum(
            outcomes_equal(
                outcomes[i][t] if t < len(outcomes[i]) else None,
                outcomes[j][t] if t < len(outcomes[j]) else None,
                include_exceptions,
            )
            for t in range(n)
        )
        mat[i, j] = mat[j, i] = same / n
    return mat


def oer(
    outcomes: Sequence[Sequence[Outcome | None]], include_exceptions: bool = True
) -> float | None:
    """Fraction of inputs on which all candidates agree; ``None`` without inputs.

    A single candidate agrees with itself wherever it has an outcome that could be equal
    (a return, or an exception when exceptions are included).
    """
    n = _n_inputs(outcomes)
    if n == 0 or not outcomes:
        return None
    agree = 0
    for t in range(n):
        col = _column(outcomes, t)
        if all(outcomes_equal(col[0], o, include_exceptions) for o in col):
            agree += 1
    return agree / n


def pair_mean_oer(
    outcomes: Sequence[Sequence[Outcome | None]], include_exceptions: bool = True
) -> float | None:
    """Mean over unordered candidate pairs of their agreement rate; ``None`` if < 2."""
    m = len(outcomes)
    if m < 2 or _n_inputs(outcomes) == 0:
        return None
    mat = agreement_matrix(outcomes, include_exceptions)
    iu = np.triu_indices(m, k=1)
    return float(np.mean(mat[iu]))


def show_outcome(o: Outcome | None) -> str:
    """Short text for a message: the repr, ``raises T: msg`` or ``no result``."""
    if o is None:
        return "no result"
    out, exc, msg = o
    if exc is not None:
        return f"raises {exc}: {msg}" if msg else f"raises {exc}"
    return "None" if out is None else shown_output(out)


def first_divergence(
    outcomes: Sequence[Sequence[Outcome | None]], include_exceptions: bool = True
) -> Divergence | None:
    """The first input on which not all candidates agree, or ``None``; an input where no
    candidate has a result (none loaded, all timed out) shows no disagreement."""
    for t in range(_n_inputs(outcomes)):
        col = _column(outcomes, t)
        if all(o is None for o in col):
            continue
        groups: list[tuple[Outcome | None, list[int]]] = []
        for c, o in enumerate(col):
            for g in groups:
                if outcomes_equal(g[0], o, include_exceptions):
                    g[1].append(c)
                    break
            else:
                groups.append((o, [c]))
        if len(groups) == 1 and outcomes_equal(col[0], col[0], include_exceptions):
            continue
        ordered = sorted(groups, key=lambda g: (-len(g[1]), g[1][0]))
        a = ordered[0][1][0]
        if len(ordered) > 1:
            b = ordered[1][1][0]
        elif len(ordered[0][1]) > 1:
            b = ordered[0][1][1]
        else:
            b = a
        return Divergence(
            input_index=t,
            a=a,
            b=b,
            shown_a=show_outcome(col[a]),
            shown_b=show_outcome(col[b]),
            groups=tuple((o, tuple(ix)) for o, ix in ordered),
        )
    return None


__all__ = [
    "Divergence",
    "Outcome",
    "PassRateStats",
    "agreement_matrix",
    "first_divergence",
    "oer",
    "outcomes_equal",
    "output_groups",
    "pair_mean_oer",
    "pass_rate_stats",
    "pass_rates",
    "show_outcome",
]
