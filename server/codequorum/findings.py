"""Findings: what a function's report says, worded once for every front end.

A report's verdicts become :class:`Finding` objects with a severity name, a code and the
message a person reads. The language server turns them into diagnostics, ``codequorum
check`` prints them. Reads the verdicts as they are; computes nothing. Text that is not our
own wording (verdict messages can quote what a version printed or raised, names come from
the document) goes through :func:`~codequorum.safe_text.safe_text`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from codequorum.safe_text import safe_text
from codequorum.session import FunctionAnalysis

#: Severity names, most severe first, with their rank (a lower number is more severe).
RANK: dict[str, int] = {"error": 1, "warning": 2, "information": 3, "hint": 4}

#: Findings that say nothing is wrong: never reported.
QUIET_CODES = frozenset({"stable"})


@dataclass(frozen=True)
class Finding:
    """One finding about one function.

    ``overview`` says how the versions group; ``concerns`` names the versions the finding
    is about (None when it is about none in particular).
    """

    severity: str
    code: str
    message: str
    figure: float | None
    samples: tuple[int, ...]
    overview: str
    concerns: str | None


def versions_text(analysis: FunctionAnalysis, indices: Sequence[int]) -> str:
    """``v1, v3, current`` (six at most, then how many more)."""
    labels = [safe_text(analysis.label(i), 40) for i in indices[:6]]
    more = f" and {len(indices) - 6} more" if len(indices) > 6 else ""
    return ", ".join(labels) + more


def function_findings(
    analysis: FunctionAnalysis, name: str, min_severity: str = "hint"
) -> list[Finding]:
    """The findings of one function (``name`` as written in its definition), at or above
    ``min_severity``."""
    report = analysis.report
    limit = RANK[min_severity]
    consensus = report.medoid
    groups = len(report.clusters)
    overview = (
        f"`{safe_text(analysis.qualified_name, 200)}`: {report.n} versions compared in "
        f"{groups} group{'s' if groups != 1 else ''}"
        + (
            f"; consensus is {safe_text(analysis.label(consensus), 40)}"
            if consensus is not None
            else ""
        )
    )
    n = analysis.n_stored
    out: list[Finding] = []
    for verdict in report.verdicts:
        if verdict.code in QUIET_CODES or RANK.get(verdict.severity, 4) > limit:
            continue
        message = safe_text(verdict.message)
        if verdict.figure is not None and f"{verdict.figure:.2f}" not in message:
            message = f"{message} ({verdict.figure:.2f})"
        message = f"{message} [{n} version{'s' if n != 1 else ''} of `{safe_text(name, 200)}`]"
        concerns = (
            f"{safe_text(verdict.code, 60)} concerns {versions_text(analysis, verdict.samples)}"
            if verdict.samples
            else None
        )
        out.append(
            Finding(
                severity=verdict.severity if verdict.severity in RANK else "information",
                code=safe_text(verdict.code, 60),
                message=message,
                figure=verdict.figure,
                samples=tuple(verdict.samples),
                overview=overview,
                concerns=concerns,
            )
        )
    return out
