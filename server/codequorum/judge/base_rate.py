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

A small group's estimate is noisy, so the rate a group is moved to is the posterior mode
under a Beta prior centred on ``π`` worth ``k`` sets (a pseudo-count):

    ρ_k = argmax_ρ Σ_i log(ρ p_i / π + (1 - ρ) (1 - p_i) / (1 - π))
                   + k π log ρ + k (1 - π) log(1 - ρ),

the fixed point of ``ρ = (Σ_i shift(p_i; π, ρ) + k π) / (n + k)`` (``k = 0``: ``ρ̂``). The
function is concave in ``ρ``, so its stationary point is found by bisection on its
derivative. A group of fewer than ``min_sets`` sets is left as it is. ``π``, ``k`` and
``min_sets`` ship with the risk model (``base_rate`` in ``data/risk_model.json``), chosen
by ``bench/bench_run_rate.py`` on model families each left out of the fit.

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
#: ``min_sets`` at or above this: no run is ever moved (the shipped rule when moving did
#: not help on every model family left out of the fit).
NEVER = 10**9
EPSILON = 1e-9
#: Risks this close to the prior are the prior: they leave the likelihood flat, whatever
#: rounding says.
FLAT = 1e-12
#: Bisection steps on the rate: 2**-60 is below a double's resolution of [0, 1].
BISECTIONS = 60


@dataclass(frozen=True)
class BaseRate:
    """How the shipped risk model moves a group: the fit's ``prior`` (the mean risk over
    the sets it was fitted on), the ``pseudo_count`` of sets at the prior the group's
    rate is estimated with, and the fewest sets (``min_sets``) a group needs to be moved
    at all."""

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
    """What one group's risks said: ``sets`` with a risk, the fit's ``prior``, the rate
    their risks alone imply (``estimated``: maximum likelihood), the rate they were moved
    to (``used``: the posterior mode with the pseudo-count; the prior for a group too
    small), whether they were moved (``adapted``), and the mean risk before and after
    (``mean_alone``, ``mean_moved``: how many kept versions the run's risks expect
    wrong)."""

    sets: int
    prior: float
    estimated: float
    used: float
    adapted: bool
    mean_alone: float
    mean_moved: float


def _clipped(risks: FloatArray) -> FloatArray:
    return np.clip(np.asarray(risks, dtype=np.float64), EPSILON, 1.0 - EPSILON)


def shift(risks: FloatArray, prior: float, rate: float) -> FloatArray:
    """Posteriors fitted under ``prior`` moved to the rate ``rate`` (see module
    docstring); ``rate == prior`` returns them as they are (within rounding)."""
    p = _clipped(risks)
    a = p * (rate / prior)
    b = (1.0 - p) * ((1.0 - rate) / (1.0 - prior))
    return np.asarray(a / (a + b), dtype=np.float64)


def estimate_rate(risks: FloatArray, prior: float, pseudo_count: float = 0.0) -> float:
    """The rate of a group whose posteriors under ``prior`` are ``risks`` (see module
    docstring): maximum likelihood with ``pseudo_count`` 0, else the posterior mode with
    that many sets at ``prior``; in [0, 1]. ``prior`` when there are no risks, or when
    every risk is the prior (within :data:`FLAT`: they say nothing of the rate)."""
    p = np.sort(_clipped(risks))  # sums in one order, whatever order the sets came in
    if p.size == 0:
        return prior
    a = p / prior
    b = (1.0 - p) / (1.0 - prior)
    if float(np.max(np.abs(p - prior))) <= FLAT:
        return prior
    k = float(pseudo_count)

    def slope(rate: float) -> float:
        likelihood = float(np.sum((a - b) / (a * rate + b * (1.0 - rate))))
        if k == 0.0:
            return likelihood
        return likelihood + k * prior / rate - k * (1.0 - prior) / (1.0 - rate)

    low, high = 0.0, 1.0
    if k == 0.0:
        if slope(0.0) <= 0.0:
            return 0.0
        if slope(1.0) >= 0.0:
            return 1.0
    for _ in range(BISECTIONS):
        middle = (low + high) / 2
        if slope(middle) > 0.0:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def group_rate(risks: FloatArray, rule: BaseRate) -> GroupRate:
    """The rate a group's ``risks`` are moved to under ``rule`` (see :class:`GroupRate`)."""
    p = np.asarray(risks, dtype=np.float64)
    n = int(p.size)
    mean = float(np.mean(np.sort(p))) if n else rule.prior
    estimated = estimate_rate(p, rule.prior)
    if n < rule.min_sets:
        return GroupRate(n, rule.prior, estimated, rule.prior, False, mean, mean)
    used = estimate_rate(p, rule.prior, rule.pseudo_count)
    moved = float(np.mean(np.sort(shift(p, rule.prior, used))))
    return GroupRate(n, rule.prior, estimated, used, True, mean, moved)


def adapt(risks: FloatArray, rule: BaseRate) -> tuple[FloatArray, GroupRate]:
    """A group's ``risks`` moved to its own rate (:func:`group_rate`): each risk
    ``shift(p; π, ρ_k)``, or the risks unchanged for a group smaller than
    ``rule.min_sets``. Every moved risk rises with every input risk, their order is
    kept, and a group whose mean risk is the prior is left where it is."""
    rate = group_rate(risks, rule)
    if not rate.adapted:
        return np.asarray(risks, dtype=np.float64).copy(), rate
    return shift(risks, rule.prior, rate.used), rate


def rate_words(model: str, rate: GroupRate, min_sets: int) -> str:
    """What a group's risks said, in one line: ``risk level set from this run's 164 sets
    of CodeGen: about 31 % of kept versions wrong (each set alone: 40 %; the fit assumed
    55 %)``, or why they were left as each set gives them (fewer than ``min_sets``)."""
    sets = "set" if rate.sets == 1 else "sets"
    if not rate.adapted and min_sets >= NEVER:
        return (f"risk per set for {model}: {rate.sets:,} {sets} with a risk, each its own "
                "(a run's own rate did not hold on every model family left out of the fit)")
    if not rate.adapted:
        return (f"risk per set for {model}: {rate.sets:,} {sets} with a risk, fewer than "
                f"the {min_sets:,} it takes to tell the model's own rate")
    return (f"risk level set from this run's {rate.sets:,} {sets} of {model}: "
            f"{_about(rate.mean_moved)} of kept versions wrong (each set alone: "
            f"{_percent(rate.mean_alone)}; the fit assumed {_percent(rate.prior)})")


def _about(x: float) -> str:
    """``about 31 %``, or ``less than 1 %``."""
    said = _percent(x)
    return said if said.startswith("less") else f"about {said}"


def _percent(x: float) -> str:
    """A share as a whole percentage, ``less than 1 %`` rather than ``0 %``."""
    if 0.0 < x < 0.005:
        return "less than 1 %"
    return f"{round(100 * x)} %"


__all__ = [
    "NEVER",
    "BaseRate",
    "GroupRate",
    "adapt",
    "estimate_rate",
    "group_rate",
    "rate_words",
    "shift",
]
