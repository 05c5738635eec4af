"""How far to trust the recommended version: ``risk`` and ``stability_percentile``.

``risk`` is the probability that the recommended version (:mod:`codequorum.recommend`)
fails a task's hidden tests, from the set's agreement signals, by a logistic model
``p = 1 / (1 + exp(-(b + Σ w_k (x_k - μ_k) / σ_k)))``. Three models ship in
``data/risk_model.json``, one per kind of evidence, so that none is applied where it was
not fitted: ``examples`` when the versions ran and the docstring gives examples with
expected values, ``behaviour`` when they ran without such examples (agreement of outputs
is all there is), ``structure`` when they did not run. All were fitted on the bundled
HumanEval samples (CodeGen-16B, T = 0.8) by ``bench/fit_risk.py``, which says how to refit
(``behaviour`` on the same sets with the examples' expected values withheld).

``stability_percentile`` places a set's mean structural similarity (``jsd_struct``, ordered
pairs) among the HumanEval reference sets of 10 versions: 8 means 8 % of the reference sets
were less alike, so the set is less stable than 92 % of them.

Everything here is numpy only, fitting included (Newton's method on the penalised
log-likelihood), so the runtime needs nothing else.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

ModelKind = Literal["examples", "behaviour", "structure"]
FloatArray = npt.NDArray[np.float64]

#: The features each model may use. The shipped model file names the ones it was fitted
#: with (chosen by ``bench/fit_risk.py`` by cross-validation).
FEATURES: dict[str, tuple[str, ...]] = {
    "structure": ("mean_similarity", "typicality", "syntax_error_fraction", "empty_fraction"),
    "behaviour": ("mean_similarity", "typicality", "syntax_error_fraction", "empty_fraction",
                  "agreed", "share"),
    "examples": ("mean_similarity", "typicality", "syntax_error_fraction", "empty_fraction",
                 "agreed", "share", "passes_examples", "examples_consensus",
                 "examples_confirmed"),
}
#: ``examples_confirmed`` counts the examples passed up to this many.
CONFIRMING_EXAMPLES = 5
#: Analysis options the reference quantiles were computed with.
REFERENCE_OPTIONS: dict[str, float] = {"max_depth": 30, "jsd_log_base": 2.0}


@dataclass(frozen=True)
class RiskSignals:
    """A set's agreement signals (shares in [0, 1], ``example_count`` a count).

    ``mean_similarity``: mean ``jsd_struct`` over ordered pairs; ``typicality``: the
    recommended version's mean similarity to the others; ``syntax_error_fraction`` and
    ``empty_fraction``: shares of the set's versions; ``behaviour``: whether outcomes were
    known; ``agreed``: whether the recommendation came from agreeing outputs; ``share``:
    the recommended version's agreements over the most possible; ``examples``: whether the
    docstring gives examples with expected values; ``passes_examples``: whether the
    recommended version passes all of them; ``examples_consensus``: the share of versions
    passing all of them; ``example_count``: how many examples the docstring gives. The
    feature ``examples_confirmed`` is how many examples confirm the recommended version:
    ``min(example_count, 5) / 5`` when it passes all of them, else 0 (passing four examples
    says more than passing one).
    """

    mean_similarity: float
    typicality: float = 0.0
    syntax_error_fraction: float = 0.0
    empty_fraction: float = 0.0
    behaviour: bool = False
    agreed: bool = False
    share: float = 0.0
    examples: bool = False
    passes_examples: bool = False
    examples_consensus: float = 0.0
    example_count: int = 0

    @property
    def kind(self) -> ModelKind:
        """The model that applies (see module docstring)."""
        if not self.behaviour:
            return "structure"
        return "examples" if self.examples else "behaviour"

    @property
    def examples_confirmed(self) -> float:
        """How many examples confirm the recommended version, in [0, 1] (see above)."""
        if not self.passes_examples:
            return 0.0
        return min(self.example_count, CONFIRMING_EXAMPLES) / CONFIRMING_EXAMPLES

    def vector(self, features: Sequence[str] | None = None) -> FloatArray:
        """The values of ``features`` (default: every feature of :attr:`kind`), in order."""
        values = {
            "mean_similarity": self.mean_similarity,
            "typicality": self.typicality,
            "syntax_error_fraction": self.syntax_error_fraction,
            "empty_fraction": self.empty_fraction,
            "agreed": 1.0 if self.agreed else 0.0,
            "share": self.share,
            "passes_examples": 1.0 if self.passes_examples else 0.0,
            "examples_consensus": self.examples_consensus,
            "examples_confirmed": self.examples_confirmed,
        }
        names = FEATURES[self.kind] if features is None else features
        return np.array([values[name] for name in names], dtype=np.float64)


@dataclass(frozen=True)
class LogisticModel:
    """``p = sigmoid(intercept + coef · (x - mean) / scale)``."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float

    def predict(self, x: FloatArray) -> FloatArray:
        """Probabilities for the rows of ``x`` (or one vector)."""
        z = self.intercept + ((np.asarray(x, dtype=np.float64) - np.array(self.mean))
                              / np.array(self.scale)) @ np.array(self.coef)
        return np.asarray(1.0 / (1.0 + np.exp(-z)), dtype=np.float64)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"features": list(self.features), "mean": list(self.mean),
                "scale": list(self.scale), "coef": list(self.coef),
                "intercept": self.intercept}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> LogisticModel:
        """Read :meth:`to_dict`'s form."""
        return cls(tuple(d["features"]), tuple(float(v) for v in d["mean"]),
                   tuple(float(v) for v in d["scale"]), tuple(float(v) for v in d["coef"]),
                   float(d["intercept"]))


def fit_logistic(x: FloatArray, y: FloatArray, features: Sequence[str],
                 l2: float = 1e-2, iterations: int = 50) -> LogisticModel:
    """Penalised maximum likelihood (``l2`` on the standardised coefficients, not the
    intercept) by Newton's method. ``y`` holds 0/1 labels."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-12] = 1.0
    z = np.hstack([np.ones((x.shape[0], 1)), (x - mean) / scale])
    w = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2 * x.shape[0])
    penalty[0] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(z @ w)))
        grad = z.T @ (p - y) + penalty * w
        hess = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty) + 1e-9 * np.eye(z.shape[1])
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.max(np.abs(step))) < 1e-10:
            break
    return LogisticModel(tuple(features), tuple(float(v) for v in mean),
                         tuple(float(v) for v in scale), tuple(float(v) for v in w[1:]),
                         float(w[0]))


def auroc(scores: Sequence[float] | FloatArray, labels: Sequence[bool] | FloatArray) -> float:
    """Area under the ROC curve: the chance a positive scores above a negative (ties
    count half); NaN without both classes."""
    s = np.asarray(scores, dtype=np.float64)
    lab = np.asarray(labels, dtype=bool)
    pos, neg = s[lab], s[~lab]
    if pos.size == 0 or neg.size == 0:
        return math.nan
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(s.size, dtype=np.float64)
    sorted_s = s[order]
    i = 0
    while i < s.size:  # average ranks over ties
        j = i
        while j + 1 < s.size and sorted_s[j + 1] == sorted_s[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return float((ranks[lab].sum() - pos.size * (pos.size + 1) / 2) / (pos.size * neg.size))


def reliability(probs: Sequence[float] | FloatArray, labels: Sequence[bool] | FloatArray,
                bins: int = 10) -> list[tuple[float, float, int]]:
    """Per equal-width bin of predicted probability (non-empty bins only): (mean
    prediction, observed rate, count)."""
    p = np.asarray(probs, dtype=np.float64)
    lab = np.asarray(labels, dtype=np.float64)
    which = np.minimum((p * bins).astype(int), bins - 1)
    out: list[tuple[float, float, int]] = []
    for b in range(bins):
        mask = which == b
        if mask.any():
            out.append((float(p[mask].mean()), float(lab[mask].mean()), int(mask.sum())))
    return out


def ece(probs: Sequence[float] | FloatArray, labels: Sequence[bool] | FloatArray,
        bins: int = 10) -> float:
    """Expected calibration error: Σ (count / N) |mean prediction - observed rate| over
    equal-width bins."""
    rows = reliability(probs, labels, bins)
    total = sum(c for _, _, c in rows)
    return float(sum(c * abs(p - o) for p, o, c in rows) / total) if total else math.nan


@functools.lru_cache(maxsize=1)
def load_model() -> dict[str, Any]:
    """The shipped model file (``data/risk_model.json``)."""
    text = resources.files("codequorum").joinpath("data/risk_model.json").read_text()
    data: dict[str, Any] = json.loads(text)
    return data


def risk(signals: RiskSignals, model: Mapping[str, Any] | None = None) -> float:
    """Probability that the recommended version is wrong (see module docstring)."""
    data = model if model is not None else load_model()
    fitted = LogisticModel.from_dict(data["models"][signals.kind])
    unknown = set(fitted.features) - set(FEATURES[signals.kind])
    if unknown:
        raise ValueError(f"model {signals.kind!r} uses unknown features {sorted(unknown)}")
    return float(fitted.predict(signals.vector(fitted.features))[()])


def stability_percentile(mean_similarity: float,
                         quantiles: Sequence[float] | None = None) -> float:
    """Percentage of the reference sets whose mean similarity lies below this one, to one
    decimal (``quantiles``: increasing, evenly spaced quantiles of the reference
    distribution from 0 to 100 %; linear in between, 0 and 100 outside)."""
    q = np.asarray(quantiles if quantiles is not None
                   else load_model()["stability"]["quantiles"], dtype=np.float64)
    levels = np.linspace(0.0, 100.0, q.size)
    return round(float(np.interp(mean_similarity, q, levels)), 1)


__all__ = [
    "CONFIRMING_EXAMPLES",
    "FEATURES",
    "REFERENCE_OPTIONS",
    "LogisticModel",
    "RiskSignals",
    "auroc",
    "ece",
    "fit_logistic",
    "load_model",
    "reliability",
    "risk",
    "stability_percentile",
]
