"""Diagnostics from analyses: one per finding, on the function's name.

Reads the report's verdicts as they are; computes nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from lsprotocol import types

from codequorum.lsp.documents import FunctionEntry, Snapshot
from codequorum.lsp.engine import FunctionAnalysis
from codequorum.lsp.settings import Settings

SOURCE = "codequorum"

SEVERITY: dict[str, types.DiagnosticSeverity] = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}
_RANK = {"error": 1, "warning": 2, "information": 3, "hint": 4}

#: Findings that say nothing is wrong: never shown as diagnostics.
QUIET_CODES = frozenset({"stable"})


def _versions(analysis: FunctionAnalysis, indices: Sequence[int]) -> str:
    labels = [analysis.label(i) for i in indices[:6]]
    more = f" and {len(indices) - 6} more" if len(indices) > 6 else ""
    return ", ".join(labels) + more


def function_diagnostics(
    snapshot: Snapshot, entry: FunctionEntry, analysis: FunctionAnalysis, settings: Settings
) -> list[types.Diagnostic]:
    """The diagnostics of one function."""
    report = analysis.report
    limit = _RANK[settings.diagnostics.min_severity]
    consensus = report.medoid
    out: list[types.Diagnostic] = []
    for verdict in report.verdicts:
        if verdict.code in QUIET_CODES or _RANK.get(verdict.severity, 4) > limit:
            continue
        message = verdict.message
        if verdict.figure is not None and f"{verdict.figure:.2f}" not in message:
            message = f"{message} ({verdict.figure:.2f})"
        n = analysis.n_stored
        message = f"{message} [{n} version{'s' if n != 1 else ''} of `{entry.name}`]"
        related = [
            types.DiagnosticRelatedInformation(
                location=types.Location(uri=snapshot.uri, range=entry.range),
                message=(
                    f"`{entry.qualified_name}`: {report.n} versions compared in "
                    f"{len(report.clusters)} group{'s' if len(report.clusters) != 1 else ''}"
                    + (
                        f"; consensus is {analysis.label(consensus)}"
                        if consensus is not None
                        else ""
                    )
                ),
            )
        ]
        if verdict.samples:
            related.append(
                types.DiagnosticRelatedInformation(
                    location=types.Location(uri=snapshot.uri, range=entry.range),
                    message=f"{verdict.code} concerns {_versions(analysis, verdict.samples)}",
                )
            )
        out.append(
            types.Diagnostic(
                range=entry.name_range,
                message=message,
                severity=SEVERITY.get(verdict.severity, types.DiagnosticSeverity.Information),
                code=verdict.code,
                source=SOURCE,
                related_information=related,
                data={
                    "qualifiedName": entry.qualified_name,
                    "code": verdict.code,
                    "figure": verdict.figure,
                    "samples": list(verdict.samples),
                },
            )
        )
    return out


def document_diagnostics(
    snapshot: Snapshot,
    items: Sequence[tuple[FunctionEntry, FunctionAnalysis]],
    settings: Settings,
) -> list[types.Diagnostic]:
    """Every diagnostic of a document (empty when diagnostics are off)."""
    if not settings.diagnostics.enable:
        return []
    out: list[types.Diagnostic] = []
    for entry, analysis in items:
        out.extend(function_diagnostics(snapshot, entry, analysis, settings))
    return out


def result_id(
    snapshot: Snapshot, items: Sequence[tuple[FunctionEntry, FunctionAnalysis]], settings: Settings
) -> str:
    """A pull-diagnostics result id: changes whenever what is shown could change."""
    h = hashlib.sha256(snapshot.content_hash.encode())
    h.update(repr(settings.diagnostics).encode())
    for _, analysis in items:
        h.update(analysis.key.encode())
    return h.hexdigest()[:32]
