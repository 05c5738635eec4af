"""The function a command names (by name or position) and its analysis, and the
fields every answer about an analysed function carries."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from codequorum.lsp import contract as c
from codequorum.lsp.commands.registry import CommandError
from codequorum.lsp.documents import FunctionEntry, Snapshot
from codequorum.lsp.engine import FunctionAnalysis
from codequorum.lsp.files import RefusedFile
from codequorum.render.findings import compared_text, consensus, evidence_text

if TYPE_CHECKING:
    from codequorum.lsp.host import Host


async def resolve_function(
    ls: Host, target: c.FunctionArgs, command: str, required: bool = True
) -> tuple[Snapshot, FunctionEntry | None]:
    await ls.settled()
    try:
        snapshot = ls.read_snapshot(target.uri)
    except RefusedFile as exc:
        raise CommandError(f"{command}: {exc}") from None
    if snapshot.language is None:
        raise CommandError(f"{command}: codequorum does not know the language of {target.uri}")
    entry: FunctionEntry | None = None
    if target.qualified_name:
        entry = await ls.engine.run(snapshot.function_named, target.qualified_name)
    elif target.position is not None:
        entry = await ls.engine.run(snapshot.function_at, target.position)
    if entry is None and required:
        what = target.qualified_name or (
            f"line {target.position.line + 1}" if target.position else "the given place"
        )
        raise CommandError(f"{command}: no function {what!r} in {target.uri}")
    return snapshot, entry


async def function_analysis(
    ls: Host, target: c.FunctionArgs, command: str
) -> tuple[Snapshot, FunctionEntry, FunctionAnalysis | None]:
    snapshot, entry = await resolve_function(ls, target, command)
    assert entry is not None
    analysis = await ls.engine_for(target.uri).analysis(snapshot, entry, ls.file_key(target.uri))
    return snapshot, entry, analysis


def version_fields(analysis: FunctionAnalysis, index: int) -> dict[str, Any]:
    """What every answer says of one version: its place, label and where it came from."""
    version = analysis.version_set.versions[index]
    return {"index": index, "version": index + 1, "label": analysis.label(index),
            "origin": version.origin, "provider": version.provider, "model": version.model}


def version_infos(analysis: FunctionAnalysis) -> list[c.VersionInfo]:
    return [
        c.VersionInfo(**version_fields(analysis, i), cluster=analysis.cluster_of(i))
        for i in range(len(analysis.version_set.versions))
    ]


def summary_fields(
    snapshot: Snapshot, entry: FunctionEntry, analysis: FunctionAnalysis
) -> dict[str, Any]:
    """The fields every answer about an analysed function carries."""
    return {
        "uri": snapshot.uri,
        "qualified_name": entry.qualified_name,
        "range": entry.range,
        "stored": analysis.n_stored,
        "compared": compared_text(analysis),
        "current_index": analysis.current_index,
        "consensus": consensus(analysis),
        "most_different": analysis.most_different,
        "fastest": analysis.fastest,
        "stable": analysis.stable,
        "stability": analysis.stability,
        "versions": version_infos(analysis),
    }


def analysis_result(
    snapshot: Snapshot,
    entry: FunctionEntry,
    analysis: FunctionAnalysis,
    include_matrices: bool = False,
) -> c.AnalyzeResult:
    """The answer about one analysed function (the pair matrices too when asked: the
    client's report view draws them)."""
    return c.AnalyzeResult(
        **summary_fields(snapshot, entry, analysis),
        report=analysis.report.to_dict(include_matrices=include_matrices),
        evidence=evidence_text(analysis),
    )
