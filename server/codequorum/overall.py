"""``overall`` a set at a time: the figures across a run without holding its reports.

:func:`codequorum.analysis.overall` defines the figures from every report at once;
:class:`OverallAccumulator` gives the same dict, equal to the last bit, from a few numbers
per set taken as each report is written: verdict counts, one running sum per summary
figure (added in the order and with the rounding of the builtin ``sum``) and, for the BEF
ratios whose median is taken, their finite values (one float per set).
"""

from __future__ import annotations

import math
import sys
from array import array
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from codequorum.analysis import StabilityReport, _clean

#: ``sum`` of floats compensates its rounding (Neumaier) from Python 3.12 on.
_COMPENSATED = sys.version_info >= (3, 12)


class RunningSum:
    """The builtin ``sum`` of finite floats, one float at a time: the same bits as
    ``sum(values)`` over the values added, on this interpreter."""

    __slots__ = ("_compensation", "_total", "count")

    def __init__(self) -> None:
        self.count = 0
        self._total = 0.0
        self._compensation = 0.0

    def add(self, x: float) -> None:
        """Add one finite float."""
        self.count += 1
        total = self._total + x
        if _COMPENSATED:
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
        """The figure as :func:`~codequorum.analysis.overall` gives it."""
        if self.pair:
            return {"ordered": self.ordered.mean(), "unordered": self.unordered.mean()}
        if self.median:
            return float(np.median(self.values)) if len(self.values) else None
        return self.scalar.mean()


class OverallAccumulator:
    """:func:`codequorum.analysis.overall` over the reports :meth:`add`-ed so far, from a
    few numbers per set: what a streamed run writes at its end."""

    def __init__(self) -> None:
        self.sets = 0
        self.scored = 0
        self.verdicts: dict[str, int] = {}
        self._figures: dict[str, _Figure] = {}

    def add(self, report: StabilityReport) -> None:
        """Count one report (in input order)."""
        self.sets += 1
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
        return {
            "sets": self.sets,
            "scored": self.scored,
            "insufficient": self.sets - self.scored,
            "verdicts": dict(self.verdicts),
            "summary": _clean(means),
        }

    @classmethod
    def of(cls, reports: Iterable[StabilityReport]) -> OverallAccumulator:
        """An accumulator that has taken every report of ``reports``."""
        accumulator = cls()
        for report in reports:
            accumulator.add(report)
        return accumulator
