"""``overall``: the figures across a run, a set at a time, without holding its reports.

Across sample sets: how many were scored, how many sets have each verdict, and the mean
over the scored sets of each pairwise metric (``ordered`` and ``unordered``) and scalar
figure; the median for the BEF ratios, whose values span orders of magnitude. This is what
compares two models or temperatures over a whole benchmark; sets with fewer than two
usable versions are counted but not averaged. When the run holds the versions of several
models, ``by_model`` says per model how well the risk held where graded tests tell
(:mod:`codequorum.judge.calibration`).

:class:`OverallAccumulator` takes a few numbers per set as each report is written (verdict
counts, one compensated running sum per figure and, for the BEF ratios, their finite
values: one float per set), so a local run and a streamed cluster run give the same bits.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from codequorum.core.report import StabilityReport, clean
from codequorum.judge.calibration import CalibrationAccumulator


class RunningSum:
    """A sum of finite floats taken one at a time, its rounding compensated (Neumaier, as
    the builtin ``sum`` does from Python 3.12 on): the same bits on every interpreter."""

    __slots__ = ("_compensation", "_total", "count")

    def __init__(self) -> None:
        self.count = 0
        self._total = 0.0
        self._compensation = 0.0

    def add(self, x: float) -> None:
        """Add one finite float."""
        self.count += 1
        total = self._total + x
        if abs(self._total) >= abs(x):
            self._compensation += (self._total - total) + x
        else:
            self._compensation += (x - total) + self._total
        self._total = total

    @property
    def value(self) -> float:
        """The sum so far."""
        c = self._compensation
        return self._total + c if c and math.isfinite(c) else self._total

    def mean(self) -> float | None:
        """``sum / count``, None when nothing was added."""
        return self.value / self.count if self.count else None


def _finite(value: Any) -> float | None:
    """``value`` as a float when it is a finite number (booleans are not), else None."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


class _Figure:
    """What one summary key needs across the sets: the sums of its pair means, of its
    scalar values, and (for a BEF ratio) the scalar values themselves for the median."""

    __slots__ = ("median", "ordered", "pair", "scalar", "unordered", "values")

    def __init__(self, median: bool) -> None:
        self.pair = False
        self.ordered, self.unordered, self.scalar = RunningSum(), RunningSum(), RunningSum()
        self.median = median
        self.values = array("d")

    def add(self, value: Any) -> None:
        """Take one set's value of this key (a pair mean dict, a scalar or None)."""
        if isinstance(value, dict):
            self.pair = True
            for kind, total in (("ordered", self.ordered), ("unordered", self.unordered)):
                x = _finite(value.get(kind))
                if x is not None:
                    total.add(x)
            return
        x = _finite(value)
        if x is None:
            return
        self.scalar.add(x)
        if self.median:
            self.values.append(x)

    def result(self) -> Any:
        """The figure across the sets: a mean (pair means: one per kind) or a median."""
        if self.pair:
            return {"ordered": self.ordered.mean(), "unordered": self.unordered.mean()}
        if self.median:
            return float(np.median(self.values)) if len(self.values) else None
        return self.scalar.mean()


class OverallAccumulator:
    """``overall`` of the reports :meth:`add`-ed so far (see module docstring), from a few
    numbers per set: what a run writes at its end."""

    def __init__(self) -> None:
        self.sets = 0
        self.scored = 0
        self.verdicts: dict[str, int] = {}
        self._figures: dict[str, _Figure] = {}
        self._calibration = CalibrationAccumulator()

    def add(self, report: StabilityReport) -> None:
        """Count one report (in input order)."""
        self.sets += 1
        self._calibration.add({"model": report.model, "risk": report.risk,
                               "recommended": report.recommended, "dynamic": report.dynamic})
        if report.status != "ok":
            return
        self.scored += 1
        for code in dict.fromkeys(v.code for v in report.verdicts):
            self.verdicts[code] = self.verdicts.get(code, 0) + 1
        self._add_summary(report.summary)

    def _add_summary(self, summary: Mapping[str, Any]) -> None:
        """One scored set's summary figures."""
        for key, value in summary.items():
            figure = self._figures.get(key)
            if figure is None:
                figure = self._figures[key] = _Figure(median=key.startswith("bef"))
            figure.add(value)

    def result(self) -> dict[str, Any]:
        """The ``overall`` dict of the sets added so far."""
        means = {key: figure.result() for key, figure in self._figures.items()}
        out = {
            "sets": self.sets,
            "scored": self.scored,
            "insufficient": self.sets - self.scored,
            "verdicts": dict(self.verdicts),
            "summary": clean(means),
        }
        if len(self._calibration.models) > 1:
            out["by_model"] = clean(self._calibration.result())
        return out

    @classmethod
    def of(cls, reports: Iterable[StabilityReport]) -> OverallAccumulator:
        """An accumulator that has taken every report of ``reports``."""
        accumulator = cls()
        for report in reports:
            accumulator.add(report)
        return accumulator


def overall(reports: Iterable[StabilityReport]) -> dict[str, Any]:
    """``overall`` of ``reports`` (see module docstring)."""
    return OverallAccumulator.of(reports).result()
