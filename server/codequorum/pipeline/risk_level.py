"""A run's risk level: each model's sets moved to the rate their own risks imply.

A set's risk after a run (``risk_alone``) ranks well on any model, but its level is the
level of the sets the risk was fitted on; a run holding many sets of one model can tell
that model's own rate of wrong kept versions from their risks alone
(:mod:`codequorum.judge.base_rate`). Once every set of a run is scored, its sets are
grouped by the model that made them (``model``; sets that name none form one group), and
the risk of every set of a group large enough becomes its risk moved to the group's rate,
with the step, range and words that go with it (:func:`codequorum.judge.risk.at`).

This is a step after collection that every path shares: a local run, ``--jobs``, a
cluster and ``--resume`` (which reads ``risk_alone`` and ``risk_evidence`` back from the
lines already written) give the same risks, because the groups' rates are computed from
the same values in an order that does not matter. Sets without a risk (nothing ran) are
left as they are; ``--risk-level set`` (:data:`RISK_LEVELS`) keeps each set's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from codequorum.core.report import StabilityReport
from codequorum.core.safe_text import safe_text
from codequorum.judge.base_rate import BaseRate, GroupRate, group_rate, rate_words, shift
from codequorum.judge.calibration import UNNAMED
from codequorum.judge.risk import MODEL_KINDS, at, load_model, trust_words

#: ``--risk-level``: ``run``, the level a run's sets of each model imply (the default);
#: ``set``, each set's own.
RISK_LEVELS: tuple[str, ...] = ("run", "set")


def group_of(model: str | None) -> str:
    """The group a set of ``model`` joins: the model as every output writes it (so that a
    file read back for ``--resume`` groups alike), or :data:`UNNAMED`."""
    return safe_text(model) if model else UNNAMED


@dataclass(frozen=True)
class RiskFields:
    """What a report says of its kept version's risk: the probability, its step, the
    range that step showed on held-out draws, and the words."""

    risk: float
    level: str
    range: list[float] | None
    trust: str


def fields(probability: float, evidence: str, language: str | None = None) -> RiskFields:
    """The fields of a risk ``probability`` from the model of ``evidence`` (its words
    saying so where the set's ``language`` is not one the model was fitted on)."""
    if evidence not in MODEL_KINDS:
        raise ValueError(f"unknown kind of evidence {evidence!r}")
    est = at(probability, evidence)
    span = None if est.low is None or est.high is None else [est.low, est.high]
    return RiskFields(est.probability, est.level, span, trust_words(est, language=language))


class RunLevel:
    """The risks of a run's sets per group, then each group's rate (:meth:`rates`) and
    what a set's risk becomes (:meth:`moved`)."""

    def __init__(self, rule: BaseRate, *, alone: bool = False) -> None:
        self.rule = rule
        self.alone = alone
        self._risks: dict[str, list[float]] = {}
        self._rates: dict[str, GroupRate] | None = None

    @classmethod
    def shipped(cls) -> RunLevel:
        """With the rule the shipped risk model carries (``base_rate``)."""
        return cls(BaseRate.from_model(load_model()))

    @classmethod
    def each_set(cls) -> RunLevel:
        """``--risk-level set``: every set keeps its own risk (what a file an earlier run
        wrote at the run's level is written back to when it is taken up again)."""
        return cls(BaseRate(0.5, 0.0, 0), alone=True)

    def clear(self) -> None:
        """Forget every set (a file is read back afresh)."""
        self._risks.clear()
        self._rates = None

    def add(self, model: str | None, risk_alone: float | None) -> None:
        """Take one set's model and own risk (None: nothing ran, nothing to move)."""
        if risk_alone is None:
            return
        self._risks.setdefault(group_of(model), []).append(float(risk_alone))
        self._rates = None

    def add_report(self, report: StabilityReport) -> None:
        """Take one report (:meth:`add`)."""
        self.add(report.model, report.risk_alone)

    def rates(self) -> dict[str, GroupRate]:
        """Per group, in first-seen order, the rate its risks imply (its risks sorted
        first, so that the order the sets came in does not matter)."""
        if self._rates is None:
            self._rates = {name: group_rate(np.sort(np.array(risks)), self.rule)
                           for name, risks in self._risks.items()}
        return self._rates

    def moved(self, model: str | None, risk_alone: float, evidence: str,
              language: str | None = None) -> RiskFields:
        """The fields of a set's risk once its group's rate is known."""
        rate = None if self.alone else self.rates().get(group_of(model))
        p = risk_alone
        if rate is not None and rate.adapted:
            p = float(shift(np.array([risk_alone]), rate.prior, rate.used)[0])
        return fields(p, evidence, language)

    def apply(self, report: StabilityReport) -> None:
        """Set a report's risk, step, range and words from its group's rate (a report
        without a risk of its own is left as it is)."""
        if report.risk_alone is None or report.risk_evidence is None:
            return
        moved = self.moved(report.model, report.risk_alone, report.risk_evidence,
                           report.language)
        report.risk, report.risk_level = moved.risk, moved.level
        report.risk_range, report.trust = moved.range, moved.trust

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per group: the sets with a risk, the rate the fit assumed, the rate their risks
        alone imply, the rate they were moved to, whether they were, their mean risk
        before and after, and in words (nothing for :meth:`each_set`)."""
        if self.alone:
            return {}
        return {name: {"sets": rate.sets, "fit_rate": rate.prior,
                       "estimated_rate": rate.estimated, "rate": rate.used,
                       "adapted": rate.adapted, "mean_risk_alone": rate.mean_alone,
                       "mean_risk": rate.mean_moved,
                       "note": rate_words(name, rate, self.rule.min_sets)}
                for name, rate in self.rates().items()}


def notes(summary: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The lines a run says of its groups' rates (``summary`` as :meth:`RunLevel.summary`
    gives it)."""
    return [str(entry["note"]) for entry in summary.values()]


__all__ = ["RISK_LEVELS", "RiskFields", "RunLevel", "fields", "group_of", "notes"]
