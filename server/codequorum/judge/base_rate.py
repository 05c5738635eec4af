"""A group's risks moved to the group's own rate of wrong kept versions.

The risk of :mod:`codequorum.judge.risk` ranks sets well whatever model made them, but its
level is the level of the sets it was fitted on: one set does not show how strong its
model is (sets that look alike are wrong 5 % of the time for a weak model and 0.1 % for a
much stronger one). A model's population of sets does. Under the assumption that only
the rate of wrong kept versions differs between the fit's population and a group's (the
signals of a wrong version look the same whatever the model: label shift), the posterior
``p`` the fit gives under its prior ``π`` becomes, under a rate ``ρ``,

    shift(p; π, ρ) = ρ p / π / (ρ p / π + (1 - ρ) (1 - p) / (1 - π)),

and the group's rate is estimated from its risks alone, without a label, by maximum
likelihood (the fixed point of expectation-maximisation, Saerens, Latinne and
Decaestecker 2002, ``ρ = mean shift(p; π, ρ)``):

    ρ̂ = argmax_ρ Σ_i log(ρ p_i / π + (1 - ρ) (1 - p_i) / (1 - π)).

The log-likelihood is concave in ``ρ``, so its stationary point is found by bisection on
its derivative. A small group's estimate is noisy: it is shrunk towards ``π`` with a
pseudo-count ``k`` (``ρ = (n ρ̂ + k π) / (n + k)``), and a group of fewer than
``min_sets`` sets is left as it is. ``π``, ``k`` and ``min_sets`` ship with the risk model
(``base_rate`` in ``data/risk_model.json``), chosen by ``bench/fit_risk.py`` on draws left
out of the fit.

Pure functions over numpy arrays; nothing here reads a file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

#: Risks are kept this far from 0 and 1, so that a likelihood ratio is finite.
EPSILON = 1e-9
#: Bisection steps on the rate: 2**-60 is below a double's resolution of [0, 1].
BISECTIONS = 60


@dataclass(frozen=True)
class BaseRate:
    """How the shipped risk model moves a group: the fit's ``prior`` (the mean risk over
    the sets it was fitted on), the ``pseudo_count`` the group's estimate is shrunk with,
    and the fewest sets (``min_sets``) a group needs to be moved at all."""

    prior: float
    pseudo_count: float
    min_sets: int

    @classmethod
    def from_model(cls, model: Mapping[str, Any]) -> BaseRate:
        """Read the ``base_rate`` entry of the risk model file."""
        entry = model["base_rate"]
        return cls(float(entry["prior"]), float(entry["pseudo_count"]),
                   int(entry["min_sets"]))


@dataclass(frozen=True)
class GroupRate:
    """What one group's risks said: ``sets`` with a risk, the rate estimated from them
    alone (``estimated``), the rate the risks were moved to (``used``: the estimate
    shrunk towards the prior; the prior itself for a group too small) and whether they
    were moved (``adapted``)."""

    sets: int
    prior: float
    estimated: float
    used: float
    adapted: bool


def _clipped(risks: FloatArray) -> FloatArray:
    return np.clip(np.asarray(risks, dtype=np.float64), EPSILON, 1.0 - EPSILON)


def shift(risks: FloatArray, prior: float, rate: float) -> FloatArray:
    """Posteriors fitted under ``prior`` moved to the rate ``rate`` (see module
    docstring); ``rate == prior`` returns them as they are (within rounding)."""
    p = _clipped(risks)
    a = p * (rate / prior)
    b = (1.0 - p) * ((1.0 - rate) / (1.0 - prior))
    return np.asarray(a / (a + b), dtype=np.float64)


def estimate_rate(risks: FloatArray, prior: float) -> float:
    """The maximum-likelihood rate of a group whose posteriors under ``prior`` are
    ``risks`` (see module docstring): in [0, 1]; ``prior`` when there are none, or when
    every risk is the prior (they say nothing of the rate)."""
    p = np.sort(_clipped(risks))  # sums in one order, whatever order the sets came in
    if p.size == 0:
        return prior
    a = p / prior
    b = (1.0 - p) / (1.0 - prior)
    if np.array_equal(a, b):
        return prior  # every risk is the prior: every rate explains them alike

    def slope(rate: float) -> float:
        return float(np.sum((a - b) / (a * rate + b * (1.0 - rate))))

    if slope(0.0) <= 0.0:
        return 0.0
    if slope(1.0) >= 0.0:
        return 1.0
    low, high = 0.0, 1.0
    for _ in range(BISECTIONS):
        middle = (low + high) / 2
        if slope(middle) > 0.0:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def shrunk_rate(estimated: float, sets: int, prior: float, pseudo_count: float) -> float:
    """``(n ρ̂ + k π) / (n + k)``: the estimate of ``sets`` sets shrunk towards ``prior``
    as if ``pseudo_count`` more sets had shown the prior."""
    return (sets * estimated + pseudo_count * prior) / (sets + pseudo_count)


def group_rate(risks: FloatArray, rule: BaseRate) -> GroupRate:
    """The rate a group's ``risks`` are moved to under ``rule`` (see :class:`GroupRate`)."""
    n = int(np.asarray(risks).size)
    estimated = estimate_rate(risks, rule.prior)
    if n < rule.min_sets:
        return GroupRate(n, rule.prior, estimated, rule.prior, False)
    used = shrunk_rate(estimated, n, rule.prior, rule.pseudo_count)
    return GroupRate(n, rule.prior, estimated, used, True)


def adapt(risks: FloatArray, rule: BaseRate) -> tuple[FloatArray, GroupRate]:
    """A group's ``risks`` moved to its own rate (:func:`group_rate`): each risk
    ``shift(p; π, ρ)``, or the risks unchanged for a group smaller than
    ``rule.min_sets``. Every moved risk rises with every input risk, their order is
    kept, and a group whose mean risk is the prior is left where it is."""
    rate = group_rate(risks, rule)
    if not rate.adapted:
        return np.asarray(risks, dtype=np.float64).copy(), rate
    return shift(risks, rule.prior, rate.used), rate


def rate_words(model: str, rate: GroupRate, min_sets: int) -> str:
    """What a group's risks said, in one line: ``risk level set from this run's 164 sets
    of CodeGen: about 31 % of kept versions wrong where the fit assumed 22 %``, or why
    they were left as each set gives them (fewer than ``min_sets``)."""
    sets = "set" if rate.sets == 1 else "sets"
    if not rate.adapted:
        return (f"risk per set for {model}: {rate.sets:,} {sets} with a risk, fewer than "
                f"the {min_sets:,} it takes to tell the model's own rate")
    return (f"risk level set from this run's {rate.sets:,} {sets} of {model}: about "
            f"{_percent(rate.used)} of kept versions wrong where the fit assumed "
            f"{_percent(rate.prior)}")


def _percent(x: float) -> str:
    """A share as a whole percentage, ``less than 1 %`` rather than ``0 %``."""
    if 0.0 < x < 0.005:
        return "less than 1 %"
    return f"{round(100 * x)} %"


__all__ = [
    "BaseRate",
    "GroupRate",
    "adapt",
    "estimate_rate",
    "group_rate",
    "rate_words",
    "shift",
    "shrunk_rate",
]
