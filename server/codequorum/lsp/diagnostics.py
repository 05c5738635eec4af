"""Diagnostics from analyses: one per finding (:mod:`codequorum.findings`), on the
function's name."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from lsprotocol import types

from codequorum.findings import Finding, function_findings
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


def to_diagnostic(snapshot: Snapshot, entry: FunctionEntry, finding: Finding) -> types.Diagnostic:
    """One finding as a diagnostic on the function's name."""
    location = types.Location(uri=snapshot.uri, range=entry.range)
    related = [types.DiagnosticRelatedInformation(location=location, message=finding.overview)]
    if finding.concerns is not None:
        related.append(
            types.DiagnosticRelatedInformation(location=location, message=finding.concerns)
        )
    return types.Diagnostic(
        range=entry.name_range,
        message=finding.message,
        severity=SEVERITY.get(finding.severity, types.DiagnosticSeverity.Information),
        code=finding.code,
        source=SOURCE,
        related_information=related,
        data={
            "qualifiedName": entry.qualified_name,
            "code": finding.code,
            "figure": finding.figure,
            "samples": list(finding.samples),
        },
    )


def function_diagnostics(
    snapshot: Snapshot, entry: FunctionEntry, analysis: FunctionAnalysis, settings: Settings
) -> list[types.Diagnostic]:
    """The diagnostics of one function."""
    findings = function_findings(analysis, entry.name, settings.diagnostics.min_severity)
    return [to_diagnostic(snapshot, entry, f) for f in findings]


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
