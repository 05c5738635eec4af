"""Diagnostics from analyses: one per finding (:mod:`codequorum.render.findings`), on the
function's name, the code linking to its explanation in docs/metrics.md."""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

from lsprotocol import types

from codequorum.core.report import SEVERITIES
from codequorum.lsp.documents import FunctionEntry, Snapshot
from codequorum.lsp.engine import FunctionAnalysis
from codequorum.lsp.settings import Settings
from codequorum.render.findings import Finding, function_findings

SOURCE = "codequorum"
#: A base URL under which ``metrics.md`` is published (e.g. the repository's docs folder).
DOCS_URL_ENV = "CODEQUORUM_DOCS_URL"


@functools.cache
def metrics_docs_url() -> str | None:
    """Where docs/metrics.md is read: ``$CODEQUORUM_DOCS_URL/metrics.md``, else the file of
    this source tree; None when neither is known (the diagnostics then carry no link)."""
    base = os.environ.get(DOCS_URL_ENV, "").strip()
    if base:
        return base.rstrip("/") + "/metrics.md"
    path = Path(__file__).resolve().parents[3] / "docs" / "metrics.md"
    return path.as_uri() if path.is_file() else None


def code_description(code: str) -> types.CodeDescription | None:
    """The link of a finding's code: its section of docs/metrics.md."""
    url = metrics_docs_url()
    return types.CodeDescription(href=f"{url}#{code}") if url else None

#: LSP numbers the same ranking from 1 (Error) to 4 (Hint).
SEVERITY: dict[str, types.DiagnosticSeverity] = {
    name: types.DiagnosticSeverity(k + 1) for k, name in enumerate(SEVERITIES)
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
        code_description=code_description(finding.code),
        source=SOURCE,
        related_information=related,
        data={
            "qualifiedName": entry.qualified_name,
            "code": finding.code,
            "figure": finding.figure,
            "versions": list(finding.versions),
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
