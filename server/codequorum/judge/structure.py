"""The verdicts on a set's shape and on the code in the editor, and their words.

``stable`` or ``unstable-structure`` (with the outliers named) from the mean structural
similarity and the groups the versions fall into; ``outlier-current`` when the version in
the editor is far from the others. Pure functions over the report's figures
(:class:`ShapeFacts`), listed in :data:`SHAPE_RULES`, which the analysis applies in order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from codequorum.core.report import FloatMatrix, StabilityReport, Verdict
from codequorum.core.words import versions_named
from codequorum.judge.verdicts import OUTLIER_CURRENT, STABLE, UNSTABLE_STRUCTURE
from codequorum.metrics.clustering import pair_means


class StructureOptions(Protocol):
    """Where the verdict lines lie (see ``codequorum.pipeline.config.AnalysisConfig``)."""

    @property
    def max_depth(self) -> int: ...

    @property
    def jsd_log_base(self) -> float: ...

    @property
    def stable_jsd(self) -> float | None: ...

    @property
    def unstable_percentile(self) -> float: ...

    @property
    def majority(self) -> float: ...

    @property
    def outlier_gap(self) -> float: ...


#: The stability line when the analysis options differ from the reference distribution's.
FALLBACK_STABLE_JSD = 0.8


@dataclass(frozen=True)
class StableLine:
    """Where ``stable`` ends: mean ``jsd_struct`` below ``jsd`` is unstable. ``percentile``:
    the share (%) of the HumanEval reference sets below that line, when it comes from them
    (None for a constant)."""

    jsd: float
    percentile: float | None


def shape_group(clusters: Sequence[Sequence[int]]) -> list[int] | None:
    """The versions that share one shape: the largest cluster (clusters come largest
    first) when it holds two or more of those compared, the current code included; None
    when no two share a shape. The count ``stable`` and ``unstable-structure`` give ("2 of
    2 versions + your code share one shape") and the consensus every front end names
    (``render/findings.py``) both read it."""
    if not clusters or len(clusters[0]) < 2:
        return None
    return list(clusters[0])


def stable_line(opts: StructureOptions) -> StableLine:
    """The stability line of ``opts`` (see :class:`StructureOptions`)."""
    from codequorum.judge.risk import REFERENCE_OPTIONS, load_model

    if opts.stable_jsd is not None:
        return StableLine(opts.stable_jsd, None)
    if (opts.max_depth != REFERENCE_OPTIONS["max_depth"]
            or opts.jsd_log_base != REFERENCE_OPTIONS["jsd_log_base"]):
        return StableLine(FALLBACK_STABLE_JSD, None)
    q = np.asarray(load_model()["stability"]["quantiles"], dtype=np.float64)
    levels = np.linspace(0.0, 100.0, q.size)
    return StableLine(float(np.interp(opts.unstable_percentile, levels, q)),
                      opts.unstable_percentile)


def percentile_words(percentile: float) -> str:
    """Where a set stands among the HumanEval reference sets: ``less stable than 92 % of
    HumanEval functions`` (below the median) or ``more stable than 60 % of ...``."""
    if percentile < 50:
        return f"less stable than {100 - percentile:.0f} % of HumanEval functions"
    return f"more stable than {percentile:.0f} % of HumanEval functions"


def is_stable(mean_jsd: float, largest_share: float, line: StableLine, majority: float) -> bool:
    """The ``stable`` rule: mean similarity on or above the line, and a large enough
    largest group."""
    return mean_jsd >= line.jsd and largest_share >= majority


def _jsd_words(mean_jsd: float, line: StableLine) -> str:
    """``mean JSD 0.62 < 0.80`` for a constant line; for the reference line, where the set
    stands and where the line lies, in the same words."""
    if line.percentile is None:
        digits = 2 if f"{mean_jsd:.2f}" != f"{line.jsd:.2f}" else 3
        below = f" < {line.jsd:.{digits}f}" if mean_jsd < line.jsd else ""
        return f"mean JSD {mean_jsd:.{digits}f}{below}"
    from codequorum.judge.risk import stability_percentile

    where = percentile_words(stability_percentile(mean_jsd))
    if mean_jsd >= line.jsd:
        return f"mean JSD {mean_jsd:.2f}, {where}"
    return (f"mean JSD {mean_jsd:.2f}, {where} (flagged when less stable than "
            f"{100 - line.percentile:g} % of them)")


def _outlier_words(report: StabilityReport, similarity: FloatMatrix,
                   typ: npt.NDArray[np.float64], outlier_pos: Sequence[int], median: float,
                   detail: dict[str, Any]) -> str:
    """``; version 7 is an outlier: JSD 0.61 vs 1.00 mean`` (empty without outliers); their
    typicality and the others' mean similarity go into ``detail``."""
    if not outlier_pos:
        return ""
    idx = report.indices
    keep = np.ones(report.n, dtype=bool)
    keep[list(outlier_pos)] = False
    rest = np.flatnonzero(keep)
    among = pair_means(similarity[np.ix_(rest, rest)])[0] if len(rest) >= 2 else float(median)
    # the current code is named first (see versions_named): its figure comes first too
    in_text = sorted(outlier_pos, key=lambda k: idx[k] != report.current_index)
    figures = ", ".join(f"{typ[k]:.2f}" for k in in_text[:6])
    verb = "is an outlier" if len(outlier_pos) == 1 else "are outliers"
    named = versions_named([idx[k] for k in in_text], report.current_index)
    detail["outlier_typicality"] = [float(typ[k]) for k in outlier_pos]
    detail["consensus_mean"] = float(among)
    return f"; {named} {verb}: JSD {figures} vs {among:.2f} mean"


def structure_verdicts(report: StabilityReport, similarity: FloatMatrix,
                        typ: npt.NDArray[np.float64], groups: list[list[int]],
                        opts: StructureOptions, compared: str) -> list[Verdict]:
    """``stable`` or ``unstable-structure``, with the outliers named (``compared``: how
    many versions, in :func:`versions_compared`'s words)."""
    n = report.n
    idx = report.indices
    mean_jsd = report.pair("jsd_struct") or 0.0
    largest = groups[0]
    share = len(largest) / n
    median = float(np.median(typ))
    outlier_pos = [int(k) for k in np.argsort(typ, kind="stable")
                   if typ[k] < median - opts.outlier_gap]
    detail: dict[str, Any] = {
        "mean_jsd_struct": mean_jsd,
        "largest_group": [idx[k] for k in largest],
        "groups": len(groups),
        "outliers": [idx[k] for k in outlier_pos],
        "medoid": report.medoid,
    }
    shared = shape_group(groups)
    shape = (f"{len(shared)} of {compared} share one shape" if shared is not None
             else f"no two of the {compared} share a shape")
    outlier_text = _outlier_words(report, similarity, typ, outlier_pos, median, detail)
    line = stable_line(opts)
    detail["stable_line"] = line.jsd
    detail["stable_line_percentile"] = line.percentile
    if is_stable(mean_jsd, share, line, opts.majority):
        message = f"{shape} ({_jsd_words(mean_jsd, line)}){outlier_text}"
        return [STABLE.verdict(message, versions=tuple(idx[k] for k in largest),
                               figure=mean_jsd, detail=detail)]
    reasons = [_jsd_words(mean_jsd, line)]
    if shared is None:
        reasons.append(f"no two of the {compared} share a shape")
    elif share < opts.majority:
        reasons.append(f"only {len(largest)} of {compared} share one shape "
                       f"({len(groups)} groups)")
    else:
        reasons.append(shape)
    message = f"Versions disagree in shape: {'; '.join(reasons)}{outlier_text}"
    return [UNSTABLE_STRUCTURE.verdict(message, versions=tuple(idx[k] for k in outlier_pos),
                                       figure=mean_jsd, detail=detail)]


def current_verdicts(report: StabilityReport, similarity: FloatMatrix,
                      typ: npt.NDArray[np.float64], opts: StructureOptions) -> list[Verdict]:
    """``outlier-current`` when the version in the editor is far from the others."""
    current = report.current_index
    assert current is not None
    if current in report.empty:
        return []  # nothing to replace
    if report.n < 3:
        return []  # one other version is no consensus to be far from
    pos = report.indices.index(current)
    others = np.array([k for k in range(report.n) if k != pos])
    own = float(typ[pos])
    among = pair_means(similarity[np.ix_(others, others)])[0]
    if own >= among - opts.outlier_gap:
        return []
    best = report.medoid if report.medoid != current else None
    if best is None:
        others_typ = typ[others]
        best = report.indices[int(others[int(np.argmax(others_typ))])]
    message = (f"The current code is far from the consensus: JSD {own:.2f} to the others "
               f"vs {among:.2f} among them; {versions_named([best])} is the most typical")
    return [OUTLIER_CURRENT.verdict(
        message, versions=(current,), figure=own,
        detail={"typicality": own, "others_mean": among, "consensus": best})]


@dataclass(frozen=True)
class ShapeFacts:
    """What the rules on a set's shape read: the report as scored (figures, groups, the
    version in the editor), the symmetrised structural similarity, each version's
    typicality, the groups by position, where the lines lie, and how many versions were
    compared (in :func:`~codequorum.core.words.versions_compared`'s words)."""

    report: StabilityReport
    similarity: FloatMatrix
    typicality: npt.NDArray[np.float64]
    groups: list[list[int]]
    opts: StructureOptions
    compared: str


def _shape(facts: ShapeFacts) -> list[Verdict]:
    return structure_verdicts(facts.report, facts.similarity, facts.typicality, facts.groups,
                              facts.opts, facts.compared)


def _current(facts: ShapeFacts) -> list[Verdict]:
    if facts.report.current_index is None:
        return []
    return current_verdicts(facts.report, facts.similarity, facts.typicality, facts.opts)


#: Every rule on a set's shape, in the order its verdicts are listed. A new verdict on the
#: shape is its spec in ``judge/verdicts.py`` and its rule here.
SHAPE_RULES: tuple[Callable[[ShapeFacts], list[Verdict]], ...] = (_shape, _current)


def shape_verdicts(facts: ShapeFacts) -> list[Verdict]:
    """Every verdict of :data:`SHAPE_RULES` on ``facts``, in order."""
    return [verdict for rule in SHAPE_RULES for verdict in rule(facts)]
