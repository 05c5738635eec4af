"""The analysis choices of one run, whichever front end asked for it.

:class:`AnalysisConfig` is the one type that carries them from the command line, the
editor's settings and the agents' server to the engine (:mod:`codequorum.pipeline.analyze`,
:class:`~codequorum.pipeline.session.Session`, :mod:`codequorum.pipeline.score`). Its
defaults are the declared ones: ``options/declarations.py`` reads each analysis option's and
setting's default from :data:`DEFAULTS`, so a default is written once. Each front end has
one adapter that builds it (``cli/analysis.py: from_request``, ``lsp/settings.py:
from_settings``, ``agents/agent_workspace.py: from_tool_args``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Literal, get_args

from codequorum.judge.structure import stable_line
from codequorum.metrics.registry import EDITOR_METRICS, METRIC_CHOICES, TEXTUAL, metric_choice
from codequorum.metrics.structural import DEFAULT_MAX_DEPTH
from codequorum.pipeline.risk_level import RISK_LEVELS, RunLevel

#: How the versions of a run are isolated (``--sandbox``, ``dynamic.sandbox``).
SandboxLevel = Literal["auto", "strict", "portable", "weak"]
SANDBOX_LEVELS: tuple[SandboxLevel, ...] = get_args(SandboxLevel)
#: The choices that say how versions are gathered and run, not what a report computes:
#: left out of a report's ``options`` and of the text its cache key is made of.
RUN_FIELDS: frozenset[str] = frozenset({"include_current", "timeout", "sandbox",
                                        "risk_level"})
#: The name the text of a cache key starts with (the editor's result ids are made from it).
KEY_NAME = "AnalysisOptions"


@dataclass(frozen=True)
class AnalysisConfig:
    """What to compute, where the verdict lines lie, and how versions run.

    ``cluster_threshold`` is a distance on ``1 - jsd_struct`` (symmetrised): two groups
    merge while their average distance is at most this. A set is ``stable`` when the mean
    ``jsd_struct`` over ordered pairs is at least the stability line (:func:`stable_line`)
    and the largest group holds at least ``majority`` of the versions (0: no majority
    needed). The line is ``stable_jsd`` when given, else the mean similarity below which
    ``unstable_percentile`` % of the HumanEval reference sets lie (with the reference's
    ``max_depth`` and ``jsd_log_base``; other settings fall back to
    :data:`~codequorum.judge.structure.FALLBACK_STABLE_JSD`). A version is an outlier when its
    typicality lies more than ``outlier_gap`` below the median typicality.
    ``metrics`` names what is computed beyond the metrics every run has (a choice of
    :data:`~codequorum.metrics.registry.METRIC_CHOICES`, kept in its order, so the same
    choice is the same value); a metric added to the registry adds no field here.
    TSED leaves out (NaN, with a note) pairs with a tree too large to compare.
    ``max_versions`` bounds the usable versions of one set: every matrix is n×n, so 2,000
    versions already take 32 MB per matrix; a larger set is refused with the reason.
    ``sctd``: static opcode divergence of Python sets (compiled, never run) under
    ``interpreter`` (a CPython executable; default: this one).

    The run's own choices (:data:`RUN_FIELDS`): ``include_current``, whether a function's
    current code counts as one of its versions; ``timeout``, the seconds one version may run
    in the sandbox, at the isolation ``sandbox``; ``risk_level``, where a run's risks take
    their level from.
    """

    max_depth: int = DEFAULT_MAX_DEPTH
    jsd_log_base: float = 2.0
    metrics: tuple[str, ...] = EDITOR_METRICS
    tsed_costs: tuple[float, float, float] = (1.0, 1.0, 1.0)
    cluster_threshold: float = 0.1
    stable_jsd: float | None = None
    unstable_percentile: float = 25.0
    majority: float = 0.0
    outlier_gap: float = 0.1
    keep_matrices: bool = True
    max_versions: int = 2000
    sctd: bool = True
    interpreter: str | None = None
    include_current: bool = True
    timeout: float = 10.0
    sandbox: SandboxLevel = "auto"
    risk_level: str = RISK_LEVELS[0]

    def __post_init__(self) -> None:
        """Reject settings no analysis can use, at construction rather than mid-run; the
        metrics as one choice in the registry's order."""
        object.__setattr__(self, "metrics", metric_choice(self.metrics))
        if self.max_depth < 1:
            raise ValueError("max_depth must be at least 1")
        if not (self.jsd_log_base > 1.0):
            raise ValueError("jsd_log_base must be greater than 1 (2 or e)")
        if self.cluster_threshold < 0:
            raise ValueError("cluster_threshold must not be negative")
        if not 0.0 <= self.unstable_percentile <= 100.0:
            raise ValueError("unstable_percentile must be between 0 and 100")
        if self.sandbox not in SANDBOX_LEVELS:
            raise ValueError(f"sandbox must be one of {', '.join(SANDBOX_LEVELS)}")
        if self.risk_level not in RISK_LEVELS:
            raise ValueError(f"risk_level must be one of {', '.join(RISK_LEVELS)}")

    def run_level(self, dynamic: bool) -> RunLevel | None:
        """Where a run's risks take their level from: with ``dynamic`` (a run has risks to
        move), the run's sets (``risk_level`` ``run``) or each set's own (``set``); None
        without a run."""
        if not dynamic:
            return None
        return RunLevel.shipped() if self.risk_level == "run" else RunLevel.each_set()

    @property
    def textual(self) -> bool:
        """Whether the token and pycode_similar figures are computed."""
        return TEXTUAL in self.metrics

    def _as_reported(self) -> list[tuple[str, Any]]:
        """The fields as reports and cache keys name them: in place of ``metrics``, one
        flag per choice of :data:`METRIC_CHOICES` (TSED's costs after TSED's flag); the
        run's own choices left out."""
        out: list[tuple[str, Any]] = []
        for f in fields(self):
            if f.name == "metrics":
                for name in METRIC_CHOICES:
                    out.append((name, name in self.metrics))
                    if name == "tsed":
                        out.append(("tsed_costs", self.tsed_costs))
            elif f.name != "tsed_costs" and f.name not in RUN_FIELDS:
                out.append((f.name, getattr(self, f.name)))
        return out

    def __repr__(self) -> str:
        """The fields as reported (a function's cache key and the editor's result ids are
        made from this text)."""
        inner = ", ".join(f"{name}={value!r}" for name, value in self._as_reported())
        return f"{KEY_NAME}({inner})"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, with the stability line as used: ``stable_jsd`` is the line
        (given or from the reference distribution), ``stable_jsd_given`` whether it was
        given."""
        d = dict(self._as_reported())
        d["tsed_costs"] = list(self.tsed_costs)
        d["stable_jsd_given"] = self.stable_jsd is not None
        d["stable_jsd"] = stable_line(self).jsd
        return d


#: Every default, as the declarations and the front ends read them.
DEFAULTS = AnalysisConfig()

#: The names of the fields (what a declared option or setting may set).
FIELDS: frozenset[str] = frozenset(f.name for f in fields(AnalysisConfig))
