"""What one scored set of versions says: the report every renderer reads, its verdicts.

Plain data between the pipeline that fills a :class:`StabilityReport` and the renderers,
editors and agents that show it; nothing here computes a metric or a verdict.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import numpy as np
import numpy.typing as npt

FloatMatrix = npt.NDArray[np.float64]
Status = Literal["ok", "insufficient"]

Severity = Literal["error", "warning", "information", "hint"]
#: Severity names, most severe first: the one ranking every front end derives its own from
#: (findings, the table's order, LSP diagnostics, SARIF levels, the headline).
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "information", "hint")

T = TypeVar("T")


def severity_rank(severity: object) -> int:
    """0 for the most severe; a name that is not a severity ranks after every one."""
    return SEVERITIES.index(severity) if severity in SEVERITIES else len(SEVERITIES)  # type: ignore[arg-type]


def warns(severity: object) -> bool:
    """Whether a severity calls for attention: an error or a warning."""
    return severity_rank(severity) <= SEVERITIES.index("warning")


def headline(verdicts: Sequence[T], severity_of: Callable[[T], object]) -> T | None:
    """The headline of ``verdicts``: the first that warns (:func:`warns`), else the first
    one; ``severity_of`` reads a verdict's severity (a :class:`Verdict` or its JSON form)."""
    for v in verdicts:
        if warns(severity_of(v)):
            return v
    return verdicts[0] if verdicts else None


#: The layout of the report (``schema_version`` of a ``--format json`` document): 2 names
#: the versions a verdict is about ``versions`` (1: ``samples``), the options'
#: ``max_versions`` (1: ``max_samples``) and CSV's ``syntax_error_versions`` and
#: ``empty_versions``. Readers of stored reports take both.
REPORT_SCHEMA_VERSION = 2


@dataclass(frozen=True)
class Verdict:
    """One finding about a sample set, with the reason in words.

    ``code`` is a stable identifier, one of the specs of :mod:`codequorum.judge.verdicts`
    (which make every verdict); ``versions`` are the 0-based indices of the versions
    the finding is about; ``figure`` is the number the message quotes.
    """

    code: str
    severity: Severity
    message: str
    versions: tuple[int, ...] = ()
    figure: float | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "versions": list(self.versions),
            "figure": self.figure,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class SkippedVersion:
    """A version left out of the scores, and why."""

    index: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"index": self.index, "reason": self.reason}


@dataclass
class StabilityReport:
    """How much the versions in one sample set agree.

    Indices in ``skipped``, ``empty``, ``medoid``, ``clusters``, ``verdicts`` and
    ``current_index`` are positions in the original sample set. An empty answer is a
    version like any other (``empty`` lists them; ``skipped`` stays empty). ``matrices``,
    ``syntax_errors`` and ``typicality`` follow the order of ``indices``.
    ``summary`` maps each pairwise metric to ``{"ordered": x, "unordered": y}`` and holds
    scalar figures (textual, dynamic) as plain numbers. ``recommended`` (a position in the
    set), ``recommended_by`` and ``recommendation`` (in words) say which version to keep
    (:mod:`codequorum.judge.recommend`); after a run, ``risk`` is the probability that it is
    wrong, ``risk_level`` its step on the coarse scale and ``risk_range`` what that step
    has meant on draws held out of the fit; ``trust`` says how far to trust it in words
    (what is missing when the versions did not run); ``risk_alone`` is the risk the set's
    own run gives and ``risk_evidence`` the kind of evidence it rests on (``examples``,
    ``examples_failed``, ``outputs``): ``risk`` is ``risk_alone`` moved to the rate of the
    run's sets of the same model where a run sets the level
    (:mod:`codequorum.pipeline.risk_level`); ``stability_percentile`` is where
    the set's mean similarity falls among the HumanEval reference sets
    (:mod:`codequorum.judge.risk`). ``model`` names the model that made the versions, when
    they say (:func:`codequorum.judge.calibration.model_of`).
    """

    task_id: str
    language: str
    status: Status
    n: int
    n_total: int
    indices: list[int]
    skipped: list[SkippedVersion] = field(default_factory=list)
    empty: list[int] = field(default_factory=list)
    message: str | None = None
    syntax_errors: list[int] = field(default_factory=list)
    matrices: dict[str, FloatMatrix] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)
    typicality: list[float] = field(default_factory=list)
    medoid: int | None = None
    clusters: list[list[int]] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    current_index: int | None = None
    dynamic: dict[str, Any] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    recommended: int | None = None
    recommended_by: str | None = None
    recommendation: str | None = None
    risk: float | None = None
    risk_level: str | None = None
    risk_range: list[float] | None = None
    trust: str | None = None
    risk_alone: float | None = None
    risk_evidence: str | None = None
    stability_percentile: float | None = None
    model: str | None = None

    @property
    def verdict(self) -> Verdict | None:
        """The headline finding (:func:`headline`)."""
        return headline(self.verdicts, lambda v: v.severity)

    def pair(self, metric: str, kind: str = "ordered") -> float | None:
        """One pair mean (``kind`` ``ordered`` or ``unordered``) from the summary, or None
        when it was not computed."""
        value = self.summary.get(metric)
        if isinstance(value, dict):
            x = value.get(kind)
            return float(x) if x is not None else None
        return None

    def to_dict(self, include_matrices: bool = False) -> dict[str, Any]:
        """JSON-ready form (NaN becomes null). Matrices only when asked: 100 versions give
        10,000 numbers per metric."""
        d: dict[str, Any] = {
            "task_id": self.task_id,
            "language": self.language,
            "status": self.status,
            "message": self.message,
            "n": self.n,
            "n_total": self.n_total,
            "indices": list(self.indices),
            "skipped": [s.to_dict() for s in self.skipped],
            "empty": list(self.empty),
            "syntax_errors": list(self.syntax_errors),
            "summary": clean(self.summary),
            "typicality": [json_number(x) for x in self.typicality],
            "medoid": self.medoid,
            "clusters": [list(c) for c in self.clusters],
            "verdicts": [clean(v.to_dict()) for v in self.verdicts],
            "notes": list(self.notes),
            "current_index": self.current_index,
            "dynamic": clean(self.dynamic) if self.dynamic is not None else None,
            "options": clean(self.options),
            "recommended": self.recommended,
            "recommended_by": self.recommended_by,
            "recommendation": self.recommendation,
            "risk": json_number(self.risk),
            "risk_level": self.risk_level,
            "risk_range": (None if self.risk_range is None
                           else [json_number(v) for v in self.risk_range]),
            "risk_alone": json_number(self.risk_alone),
            "risk_evidence": self.risk_evidence,
            "trust": self.trust,
            "stability_percentile": json_number(self.stability_percentile),
            "model": self.model,
        }
        if include_matrices:
            d["matrices"] = {
                k: [[json_number(x) for x in row] for row in m.tolist()]
                for k, m in self.matrices.items()
            }
        return d


def json_number(x: Any) -> float | None:
    """A float for JSON: None for missing, NaN or infinite values."""
    if x is None:
        return None
    f = float(x)
    return f if math.isfinite(f) else None


def clean(value: Any) -> Any:
    """Numbers made JSON-safe all the way down (numpy scalars to float, NaN to None)."""
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, np.integer | int):
        return int(value)
    if isinstance(value, np.floating | float):
        return json_number(value)
    if isinstance(value, np.ndarray):
        return clean(value.tolist())
    return value
