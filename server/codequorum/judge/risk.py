"""How far to trust the recommended version: ``risk`` after a run, ``stability_percentile``.

``risk`` is the probability that the recommended version (:mod:`codequorum.judge.recommend`)
fails a task's hidden tests. It exists only once the versions ran: from shape alone no
probability held on models it was not fitted on (``bench/README.md``), so a report of
versions that did not run says so in words instead (:data:`NOT_RUN`).

After a run it comes from signals that mean the same whatever the model and however many
versions there are: shares of the set, never counts (how many versions pass every
docstring example, how many return what the kept one returns, how many of those are
written differently, how many more than the next largest group returning alike, how many
distinct behaviours) and how many examples confirm the kept version. One logistic model
``p = 1 / (1 + exp(-(b + Σ w_k (x_k - μ_k) / σ_k)))`` per kind of evidence, so that none
is applied where it was not fitted:

- ``examples``: the docstring gives examples with expected values and the kept version
  passes all of them;
- ``examples_failed``: it gives some and the kept version fails one (no version passes
  them all);
- ``outputs``: it gives none: agreement of outputs is all there is.

They are fitted by ``bench/fit_risk_families.py`` on real versions of four model families
(HumanEval and MBPP sets of 5 and 10 versions), each family left out in turn, and ship in
``data/risk_model.json`` with what each step of a coarse scale (:data:`LEVELS`: likely
right, uncertain, likely wrong) has meant on the families left out of the fit (the lowest
and highest share of kept versions that were wrong) and a 90 % range (:func:`range_of`).
How often a version judged so is wrong still depends on the model (a stronger model's
lone version passing the examples is right more often than a weaker one's); the range
says how much. The steps and range of ``outputs`` are measured on every
family's sets read as if their docstring gave no example (``bench/bench_shipped_risk.py``):
without examples the share wrong depends on the model more than on the run, so that
model's steps are all *uncertain* and its range is wide.

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

ModelKind = Literal["examples", "examples_failed", "outputs"]
Level = Literal["likely right", "uncertain", "likely wrong"]
FloatArray = npt.NDArray[np.float64]

#: The models, one per kind of evidence (see module docstring).
MODEL_KINDS: tuple[ModelKind, ...] = ("examples", "examples_failed", "outputs")
#: The steps of the coarse scale, from the safest.
LEVELS: tuple[Level, ...] = ("likely right", "uncertain", "likely wrong")
#: What a report says where the versions did not run.
NOT_RUN = "not run yet: run the versions to estimate how likely the kept version is wrong"
#: What it says where they ran on no input but tests (nothing an editor has).
NO_INPUTS = ("no input to run the versions on: an example in its documentation, a test "
             "calling it or typed parameters would let them run, to estimate how likely "
             "the kept version is wrong")
#: What it says where a run was asked for but no version ran for another reason (the
#: module did not load, every version stopped first): more inputs would not help.
DID_NOT_RUN = "{why}: nothing to estimate how likely the kept version is wrong from"
#: The features each model may use. The shipped model file names the ones it was fitted
#: with (chosen by ``bench/fit_risk.py`` on draws left out of the fit).
FEATURES: dict[str, tuple[str, ...]] = {
    "examples": ("examples_consensus", "examples_confirmed", "cluster_share", "share",
                 "purity", "distinct_agreeing", "margin", "behaviours", "examples_blind",
                 "coverage", "returns"),
    "examples_failed": ("examples_consensus", "cluster_share", "share", "distinct_agreeing",
                        "margin", "behaviours", "coverage", "returns"),
    "outputs": ("cluster_share", "share", "agreed", "distinct_agreeing", "distinct_share",
                "margin", "behaviours", "coverage", "returns"),
}
#: ``examples_confirmed`` counts the examples passed up to this many.
CONFIRMING_EXAMPLES = 5
#: ``coverage`` counts the inputs beyond the examples up to this many.
COVERING_INPUTS = 10
#: Analysis options the reference quantiles were computed with.
REFERENCE_OPTIONS: dict[str, float] = {"max_depth": 30, "jsd_log_base": 2.0}


@dataclass(frozen=True)
class RiskSignals:
    """What a run says about the kept version, as counts over the set's ``versions``.

    ``agreed``: the outputs decided the pick (else shape did: no two versions returned the
    same); ``agreeing``: versions returning what the kept one returns on every input where
    it returns something (itself included); ``agreeing_texts``: how many of those are
    written differently (blanks aside); ``texts``: distinct texts in the set; ``share``:
    the kept version's agreements over the most possible; ``examples``: the docstring's
    examples with expected values; ``passes_examples``: the kept version passes all of
    them; ``passing``: versions passing all of them; ``behaviours``: distinct behaviours
    (what a version returns on the inputs where the kept one returns something) among the
    versions returning on all of them; ``runner_up``: the most of those sharing one
    behaviour other than the kept one's (:func:`codequorum.judge.recommend.behaviours`);
    ``inputs``: inputs an editor has (tests aside); ``beyond``: of those, the ones other
    than the examples on which the kept version returns a value; ``passing_apart``:
    versions passing every example whose outputs differ from the kept one's beyond them
    (examples that versions behaving otherwise pass as well tell little).
    """

    versions: int
    agreed: bool = False
    agreeing: int = 1
    agreeing_texts: int = 1
    texts: int = 1
    share: float = 0.0
    examples: int = 0
    passes_examples: bool = False
    passing: int = 0
    runner_up: int = 0
    behaviours: int = 1
    inputs: int = 0
    beyond: int = 0
    passing_apart: int = 0

    @property
    def kind(self) -> ModelKind:
        """The model that applies (see module docstring)."""
        if self.examples <= 0:
            return "outputs"
        return "examples" if self.passes_examples else "examples_failed"

    def values(self) -> dict[str, float]:
        """Every feature, each a share in [0, 1] (see :data:`FEATURES`).

        ``cluster_share``: agreeing versions over all; ``examples_consensus``: versions
        passing every example over all; ``examples_confirmed``: the examples the kept
        version passes, up to five, over five (0 when it fails one: passing four examples
        says more than passing one); ``purity``: of the versions passing every example, the
        share returning what the kept one returns; ``distinct_agreeing`` and
        ``distinct_share``: differently written agreeing versions, and distinct texts, over
        all versions (copies of one text agreeing say less than versions written apart);
        ``margin``: how many more versions the kept one's cluster holds than the next
        largest, over all; ``behaviours``: distinct behaviours over all versions;
        ``examples_blind``: versions passing every example yet returning otherwise beyond
        them, over all; ``coverage``: the inputs beyond the examples on which the kept
        version returns, up to ten, over ten; ``returns``: those over every input beyond
        the examples.
        """
        n = max(self.versions, 1)
        agreeing = self.agreeing if self.agreed else 1
        passes = self.examples > 0 and self.passes_examples
        return {
            "cluster_share": agreeing / n,
            "share": self.share if self.agreed else 0.0,
            "agreed": 1.0 if self.agreed else 0.0,
            "examples_consensus": self.passing / n if self.examples > 0 else 0.0,
            "examples_confirmed": (min(self.examples, CONFIRMING_EXAMPLES)
                                   / CONFIRMING_EXAMPLES if passes else 0.0),
            "purity": min(1.0, agreeing / self.passing) if passes and self.passing else 0.0,
            "distinct_agreeing": (self.agreeing_texts if self.agreed else 1) / n,
            "distinct_share": self.texts / n,
            "margin": max(0, agreeing - self.runner_up) / n,
            "behaviours": self.behaviours / n,
            "examples_blind": self.passing_apart / n if passes else 0.0,
            "coverage": min(self.beyond, COVERING_INPUTS) / COVERING_INPUTS,
            "returns": self.beyond / max(1, self.inputs - max(self.examples, 0)),
        }

    def vector(self, features: Sequence[str] | None = None) -> FloatArray:
        """The values of ``features`` (default: every feature of :attr:`kind`), in order."""
        values = self.values()
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
                 l2: float = 1e-2, iterations: int = 50,
                 weights: FloatArray | None = None) -> LogisticModel:
    """Penalised maximum likelihood (``l2`` on the standardised coefficients, not the
    intercept) by Newton's method. ``y`` holds 0/1 labels; ``weights`` (default 1) weigh
    the rows, e.g. so that every regime of a pooled fit counts alike."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w_row = np.ones(x.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    total = float(w_row.sum())
    mean = (w_row @ x) / total
    scale = np.sqrt((w_row @ (x - mean) ** 2) / total)
    scale[scale < 1e-12] = 1.0
    z = np.hstack([np.ones((x.shape[0], 1)), (x - mean) / scale])
    w = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2 * total)
    penalty[0] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(z @ w)))
        grad = z.T @ (w_row * (p - y)) + penalty * w
        hess = ((z * (w_row * p * (1 - p))[:, None]).T @ z + np.diag(penalty)
                + 1e-9 * np.eye(z.shape[1]))
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


@dataclass(frozen=True)
class RiskEstimate:
    """How likely the kept version is wrong, and how much that figure can be trusted.

    ``probability``: the model's estimate; ``level``: the step of the coarse scale its
    bin of risk earned on model families held out of the fit; ``low``, ``high``: its 90 %
    range (:func:`range_of`: on families left out of the fit, the share of wrong kept
    versions among sets given such risks fell inside such ranges nine times in ten), or,
    with a model file without one, the lowest and highest share wrong in its bin among
    the families held out (``None`` when none had enough sets there); ``kind``: the model
    that gave it; ``measured``: ``low`` and ``high`` are the 90 % range.
    """

    probability: float
    level: Level
    low: float | None = None
    high: float | None = None
    kind: ModelKind = "outputs"
    measured: bool = False

    @property
    def point(self) -> bool:
        """Whether the probability may be said alone: the held-out regimes agree on it
        within :data:`POINT_WIDTH`."""
        return self.low is not None and self.high is not None and (
            self.high - self.low <= POINT_WIDTH)


#: Widest range (high - low) over held-out regimes for which a probability is said as a
#: point estimate; wider ranges are said as a range.
POINT_WIDTH = 0.2


def level_of(probability: float, kind: ModelKind, model: Mapping[str, Any] | None = None
             ) -> tuple[Level, float | None, float | None]:
    """(step, lowest and highest held-out failure share) of the bin of model ``kind``
    holding ``probability``, from the model file's ``levels``."""
    data = model if model is not None else load_model()
    bins = data["levels"][kind]
    for b in bins:
        if probability < float(b["below"]) or b is bins[-1]:
            observed = b["observed"]
            if observed is None:
                return b["level"], None, None
            return b["level"], float(observed[0]), float(observed[1])
    raise ValueError(f"model {kind!r} has no levels")


def estimate(signals: RiskSignals, model: Mapping[str, Any] | None = None) -> RiskEstimate:
    """The risk of the kept version after a run (see module docstring)."""
    data = model if model is not None else load_model()
    kind = signals.kind
    fitted = LogisticModel.from_dict(data["models"][kind])
    unknown = set(fitted.features) - set(FEATURES[kind])
    if unknown:
        raise ValueError(f"model {kind!r} uses unknown features {sorted(unknown)}")
    p = float(fitted.predict(signals.vector(fitted.features))[()])
    return at(p, kind, data)


def range_of(probability: float, kind: ModelKind, model: Mapping[str, Any] | None = None
             ) -> tuple[float, float] | None:
    """The 90 % range of a risk of model ``kind``: ``logit(p) ± w``, with the half-width
    ``w`` the model file's ``range`` holds for it (chosen so that, on model families left
    out of the fit, nine in ten groups of sets given such risks had their share wrong
    inside; ``None`` when the file has none)."""
    data = model if model is not None else load_model()
    width = data.get("range", {}).get("logit_half_width", {}).get(kind)
    if width is None:
        return None
    p = min(max(probability, 1e-6), 1 - 1e-6)
    z = math.log(p / (1 - p))
    return (1 / (1 + math.exp(-(z - float(width)))), 1 / (1 + math.exp(-(z + float(width)))))


def at(probability: float, kind: ModelKind, model: Mapping[str, Any] | None = None
       ) -> RiskEstimate:
    """The estimate model ``kind`` gives when it says ``probability``: its step
    (:func:`level_of`) and range (:func:`range_of`, else the step's)."""
    level, low, high = level_of(probability, kind, model)
    span = range_of(probability, kind, model)
    if span is not None:
        low, high = span
    return RiskEstimate(probability, level, low, high, kind, span is not None)


def risk(signals: RiskSignals, model: Mapping[str, Any] | None = None) -> float:
    """Probability that the recommended version is wrong (see :func:`estimate`)."""
    return estimate(signals, model).probability


def chance_words(risk: float) -> str:
    """A probability in plain words: ``about 1 in 3``, ``about 7 in 10``, ``about 19 in
    20``, ``less than 1 in 100`` (never ``10 in 10``: past 9 in 10, the chance of the other
    outcome names the scale, as ``1 in 20`` does below 1 in 10)."""
    if risk < 0.01:
        return "less than 1 in 100"
    if risk <= 0.5:
        return f"about 1 in {max(2, round(1 / risk))}"
    if risk > 0.99:
        return "more than 99 in 100"
    if round(risk * 10) < 10:
        return f"about {round(risk * 10)} in 10"
    scale = round(1 / (1 - risk))
    return f"about {scale - 1} in {scale}"


def range_words(low: float, high: float) -> str:
    """A range of probabilities in plain words: ``between 1 in 10 and 1 in 4``."""
    a, b = chance_words(low), chance_words(high)
    if a == b:
        return a
    return f"between {a.removeprefix('about ')} and {b.removeprefix('about ')}"


def missing_words(ran: bool, why: str | None = None) -> str:
    """What a report says without an estimate: :data:`NOT_RUN` before a run;
    :data:`NO_INPUTS` after one that had no input an editor has (``why`` is ``no
    inputs``, or None: the versions ran on tests only); else :data:`DID_NOT_RUN` with
    ``why`` (its module failed to load, every version stopped first...), where an example
    or typed parameters would change nothing."""
    if not ran:
        return NOT_RUN
    if why is None or why == "no inputs":
        return NO_INPUTS
    return DID_NOT_RUN.format(why=why)


#: The languages whose versions the risk model was fitted on (HumanEval, in Python).
FITTED_LANGUAGES = frozenset({"python"})
#: What the words add for a set in another language. ``bench/bench_js_risk.py`` measured
#: it on 31 hand-checked JavaScript and TypeScript sets: its features there lie within
#: the fit's; where no example with an expected value is given, 20 of 20 kept versions
#: were right at risks 0.52-0.82, all "uncertain".
NOT_FITTED = "; fitted on Python versions, not calibrated on {language}"
#: What the words add where the ``outputs`` model spoke: without an example to check
#: against, agreement is all there is, and its range is wide (on model families left out,
#: ±1.8 on the logit scale against ±0.2 where the kept version passes examples).
NO_EXAMPLE = ("; no example with an expected result to check it against (one in its "
              "documentation would narrow this)")
#: A language's name as the words say it.
LANGUAGE_NAMES = {"javascript": "JavaScript", "typescript": "TypeScript", "tsx": "TypeScript"}


def not_fitted(language: str | None) -> str:
    """What the words add for a set in ``language`` (empty for one the model was fitted
    on, or none named)."""
    if language is None or language in FITTED_LANGUAGES:
        return ""
    return NOT_FITTED.format(language=LANGUAGE_NAMES.get(language, language))


def trust_words(est: RiskEstimate | None, ran: bool = False, why: str | None = None,
                language: str | None = None) -> str:
    """How far to trust the kept version, in words: the step, the probability and its
    90 % range (with a model file without one: the probability where the held-out draws
    support one, else the range they showed), and for a set in a ``language`` the model
    was not fitted on, so (:func:`not_fitted`), and where no example was there to check
    against, that one would narrow it (:data:`NO_EXAMPLE`); without an estimate, what is
    missing (:func:`missing_words`: whether the versions ``ran``, and ``why`` none ran)."""
    if est is None:
        return missing_words(ran, why)
    unchecked = NO_EXAMPLE if est.kind == "outputs" else ""
    return _estimate_words(est) + unchecked + not_fitted(language)


def _estimate_words(est: RiskEstimate) -> str:
    chance = f"{est.level}: {chance_words(est.probability)} that it is wrong"
    if est.low is None or est.high is None:
        return chance
    if est.measured:
        return f"{chance} ({range_words(est.low, est.high)} on models it was not fitted on)"
    low, high = round(est.low * 100), round(est.high * 100)
    span = f"{low}–{high} %" if low < high else f"{low} %"
    if est.point:
        return f"{chance} ({span} in held-out tests)"
    return (f"{est.level}: {span} of the versions judged alike were wrong in held-out "
            "tests, depending on the model")


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
    "COVERING_INPUTS",
    "DID_NOT_RUN",
    "FEATURES",
    "FITTED_LANGUAGES",
    "LEVELS",
    "MODEL_KINDS",
    "NOT_FITTED",
    "NOT_RUN",
    "NO_INPUTS",
    "POINT_WIDTH",
    "REFERENCE_OPTIONS",
    "Level",
    "LogisticModel",
    "ModelKind",
    "RiskEstimate",
    "RiskSignals",
    "at",
    "auroc",
    "chance_words",
    "ece",
    "estimate",
    "fit_logistic",
    "level_of",
    "load_model",
    "missing_words",
    "not_fitted",
    "range_of",
    "range_words",
    "reliability",
    "risk",
    "stability_percentile",
    "trust_words",
]
