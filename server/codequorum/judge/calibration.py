"""How well the risk held in a run: per model, the risk against whether the kept version
failed its graded tests.

A run whose sets carry graded tests (a benchmark's hidden tests, scored with
``--dynamic``) can check the risk it reports: :func:`kept_fails` reads whether the
recommended version failed them, and :class:`CalibrationAccumulator` keeps, per model that
made the versions, one (risk, failed) pair per set, so that ``overall`` can say for each
model how often its kept versions were wrong against how often the risk said so (AUROC,
ECE and the reliability rows of :mod:`codequorum.judge.risk`). Sets name their model through
their versions (:attr:`codequorum.core.model.Version.model`: the JSONL field ``model``, the
provider's name for versions from an endpoint or an editor's model).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from codequorum.judge.risk import auroc, ece, reliability

#: The model name of sets that do not name one.
UNNAMED = "(no model named)"
#: What the dynamic report calls a pass rate over graded tests.
GRADED_BASIS = "graded tests"


def kept_fails(s: Mapping[str, Any]) -> bool | None:
    """Whether the recommended version of set ``s`` (a report's ``to_dict`` form) failed
    its graded tests; None without a recommendation or graded tests for it."""
    rec = s.get("recommended")
    if rec is None:
        return None
    for c in (s.get("dynamic") or {}).get("candidates") or []:
        if c.get("index") == rec:
            if c.get("pass_basis") != GRADED_BASIS or c.get("pass_rate") is None:
                return None
            return bool(c["pass_rate"] < 1.0)
    return None


def model_of(models: list[str | None]) -> str | None:
    """The model a set's versions name: the one they share, ``a + b`` when they name
    several, None when none names one."""
    named = sorted({m for m in models if m})
    return " + ".join(named) if named else None


class _Model:
    """One model's sets: how many, and the (risk, failed) pairs of those with both."""

    __slots__ = ("pairs", "sets", "with_risk")

    def __init__(self) -> None:
        self.sets = 0
        self.with_risk = 0
        self.pairs: list[tuple[float, bool]] = []

    def result(self) -> dict[str, Any]:
        out: dict[str, Any] = {"sets": self.sets, "with_risk": self.with_risk,
                               "graded": len(self.pairs)}
        if self.pairs:
            p = [r for r, _ in self.pairs]
            y = [f for _, f in self.pairs]
            a = auroc(p, y)
            out.update({
                "kept_wrong": sum(y) / len(y), "mean_risk": sum(p) / len(p),
                "auroc": None if math.isnan(a) else a, "ece": ece(p, y, 10),
                "reliability": [list(row) for row in reliability(p, y, 10)],
            })
        return out


class CalibrationAccumulator:
    """Per model, the sets and the (risk, kept version failed) pairs seen so far."""

    def __init__(self) -> None:
        self._models: dict[str, _Model] = {}

    def add(self, s: Mapping[str, Any]) -> None:
        """Take one set (a report's ``to_dict`` form)."""
        name = s.get("model") or UNNAMED
        m = self._models.setdefault(str(name), _Model())
        m.sets += 1
        risk = s.get("risk")
        if risk is None:
            return
        m.with_risk += 1
        failed = kept_fails(s)
        if failed is not None:
            m.pairs.append((float(risk), failed))

    @property
    def models(self) -> list[str]:
        """The model names seen, in first-seen order."""
        return list(self._models)

    def result(self) -> dict[str, dict[str, Any]]:
        """Per model: sets, sets with a risk, sets with graded tests for the kept version
        and, when there are any, the share of kept versions that failed, the mean risk,
        AUROC, ECE (10 bins) and the reliability rows."""
        return {name: m.result() for name, m in self._models.items()}


__all__ = ["GRADED_BASIS", "UNNAMED", "CalibrationAccumulator", "kept_fails", "model_of"]
